"""The place of a chat in its file (issue 20): ``chat_sources.chat_index``.

RisuAI's "Export all chats" and a Risu character hold several chats; ``migrate`` records each,
linked to the file with its index. Links recorded before this revision were each file's only
(first) chat: index 0.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chat_sources") as batch:
        batch.add_column(sa.Column("chat_index", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("chat_sources") as batch:
        batch.drop_column("chat_index")
