"""Fate counts ``not_applicable`` and ``kept_default`` (issue 19 item 6): fields with no place in the
target's kind, and defaults the target applies anyway, counted apart from ``lost``.

Reports stored before this revision counted both as ``lost``; they keep those counts (0 here).

Revision ID: 0006
Revises: 0004
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("fidelity_reports") as batch:
        batch.add_column(sa.Column("not_applicable", sa.Integer(), server_default="0", nullable=False))
        batch.add_column(sa.Column("kept_default", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("fidelity_reports") as batch:
        batch.drop_column("kept_default")
        batch.drop_column("not_applicable")
