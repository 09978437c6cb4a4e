"""Shared report parts (issue 19, speed): a fidelity report's items stored once per content.

``report_parts`` holds text many reports share (their items list: the same for every file of a
layout); ``fidelity_reports.part_id`` / ``part_at`` say which part was cut out of ``report`` and
where it goes back (``queries.report_text``). Reports stored before this revision keep their full
text with no part: they read back unchanged.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "report_parts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_report_parts")),
        sa.UniqueConstraint("sha256", name=op.f("uq_report_parts_sha256")),
    )
    with op.batch_alter_table("fidelity_reports") as batch:
        batch.add_column(sa.Column("part_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("part_at", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            op.f("fk_fidelity_reports_part_id_report_parts"), "report_parts", ["part_id"], ["id"]
        )


def downgrade() -> None:
    # Reports that point at a part get their full text back first: nothing is lost going down.
    conn = op.get_bind()
    rows = conn.execute(
        sa.text(
            "SELECT r.id, r.report, r.part_at, p.body FROM fidelity_reports r "
            "JOIN report_parts p ON p.id = r.part_id"
        )
    ).all()
    for row_id, report, at, body in rows:
        conn.execute(
            sa.text("UPDATE fidelity_reports SET report = :report WHERE id = :id"),
            {"report": _joined(report, at, body), "id": row_id},
        )
    with op.batch_alter_table("fidelity_reports") as batch:
        batch.drop_constraint(op.f("fk_fidelity_reports_part_id_report_parts"), type_="foreignkey")
        batch.drop_column("part_at")
        batch.drop_column("part_id")
    op.drop_table("report_parts")


def _joined(rest: str, at: int, body: str) -> str:
    """``report_parts.join_report``, restated: a revision must not depend on the code it outlives."""
    return rest[:at] + body + rest[at:]
