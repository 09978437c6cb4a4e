"""Chats (issue 20): which character, how many messages, which lorebook a chat binds.

``chats`` holds one row per distinct chat (content hash of the canonical chat), ``chat_sources``
the files it was read from; ``migrations.item_kind`` gains the value ``chat``.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("character", sa.Text(), nullable=True),
        sa.Column("user_name", sa.Text(), nullable=True),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("is_group", sa.Boolean(), nullable=False),
        sa.Column("message_count", sa.Integer(), nullable=False),
        sa.Column("first_time", sa.BigInteger(), nullable=True),
        sa.Column("last_time", sa.BigInteger(), nullable=True),
        sa.Column("bound_book", sa.Text(), nullable=True),
        sa.Column("lorebook_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["lorebook_id"], ["lorebooks.id"], name=op.f("fk_chats_lorebook_id_lorebooks")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chats")),
        sa.UniqueConstraint("content_hash", name=op.f("uq_chats_content_hash")),
    )
    with op.batch_alter_table("chats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chats_character"), ["character"], unique=False)
        batch_op.create_index(batch_op.f("ix_chats_lorebook_id"), ["lorebook_id"], unique=False)
    op.create_table(
        "chat_sources",
        sa.Column("source_file_id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chat_id"], ["chats.id"], name=op.f("fk_chat_sources_chat_id_chats"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["source_file_id"],
            ["source_files.id"],
            name=op.f("fk_chat_sources_source_file_id_source_files"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("source_file_id", "chat_id", name=op.f("pk_chat_sources")),
    )
    with op.batch_alter_table("chat_sources", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chat_sources_chat_id"), ["chat_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("chat_sources", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chat_sources_chat_id"))
    op.drop_table("chat_sources")
    with op.batch_alter_table("chats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chats_lorebook_id"))
        batch_op.drop_index(batch_op.f("ix_chats_character"))
    op.drop_table("chats")
