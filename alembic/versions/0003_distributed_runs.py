"""Distributed runs (``interop migrate --broker``): the run's settings and its committed batches.

A batch row is written in the same transaction as its files' catalog rows,
so the run's progress and summary are read from the catalog, and a batch
the broker delivers twice counts once (primary key ``run_id, batch_no``).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sources", sa.Text(), nullable=False),
        sa.Column("targets", sa.Text(), nullable=False),
        sa.Column("out_dir", sa.Text(), nullable=False),
        sa.Column("data_dir", sa.Text(), nullable=False),
        sa.Column("pretty", sa.Boolean(), nullable=False),
        sa.Column("total_files", sa.Integer(), nullable=False),
        sa.Column("batch_count", sa.Integer(), nullable=False),
        sa.Column("batch_size", sa.Integer(), nullable=False),
        sa.Column("files", sa.Text(), nullable=False),
        sa.Column("ignored", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    op.create_table(
        "run_batches",
        sa.Column("run_id", sa.String(length=32), nullable=False),
        sa.Column("batch_no", sa.Integer(), nullable=False),
        sa.Column("files", sa.Integer(), nullable=False),
        sa.Column("outcomes", sa.Text(), nullable=False),
        sa.Column("worker", sa.String(length=255), nullable=True),
        sa.Column("database_ms", sa.Float(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_run_batches_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("run_id", "batch_no", name=op.f("pk_run_batches")),
    )


def downgrade() -> None:
    op.drop_table("run_batches")
    op.drop_table("runs")
