"""Every migration is a run: origin (cli/web), status, finish time, summary and error on ``runs``.

The web page's "Recent migrations" and ``interop catalog runs`` read the same rows
(issue 21, one job system).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("origin", sa.String(length=16), server_default="cli", nullable=False))
        batch.add_column(sa.Column("status", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("summary", sa.Text(), nullable=True))
        batch.add_column(sa.Column("error", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        for name in ("error", "summary", "finished_at", "status", "origin"):
            batch.drop_column(name)
