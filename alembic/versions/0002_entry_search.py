"""Full-text search over lorebook entries.

SQLite: an external-content FTS5 table kept in step by triggers (skipped when
the SQLite build lacks FTS5; search then scans with LIKE). ``detail=none``: the
search asks for words, never phrases or NEAR, and the smaller index is cheaper
to maintain on every imported entry. PostgreSQL: a GIN
index over a 'simple' tsvector of name, keys and content.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

PG_DOCUMENT = "to_tsvector('simple', coalesce(name, '') || ' ' || keys_text || ' ' || content)"

SQLITE_UP = [
    "CREATE VIRTUAL TABLE entry_fts USING fts5("
    "name, keys_text, content, content='lorebook_entries', content_rowid='id', "
    "tokenize='unicode61 remove_diacritics 2', detail=none)",
    "CREATE TRIGGER entry_fts_ai AFTER INSERT ON lorebook_entries BEGIN "
    "INSERT INTO entry_fts(rowid, name, keys_text, content) VALUES (new.id, new.name, new.keys_text, new.content); "
    "END",
    "CREATE TRIGGER entry_fts_ad AFTER DELETE ON lorebook_entries BEGIN "
    "INSERT INTO entry_fts(entry_fts, rowid, name, keys_text, content) "
    "VALUES ('delete', old.id, old.name, old.keys_text, old.content); "
    "END",
    "CREATE TRIGGER entry_fts_au AFTER UPDATE ON lorebook_entries BEGIN "
    "INSERT INTO entry_fts(entry_fts, rowid, name, keys_text, content) "
    "VALUES ('delete', old.id, old.name, old.keys_text, old.content); "
    "INSERT INTO entry_fts(rowid, name, keys_text, content) VALUES (new.id, new.name, new.keys_text, new.content); "
    "END",
    "INSERT INTO entry_fts(entry_fts) VALUES ('rebuild')",
]


def _sqlite_has_fts5(bind: sa.Connection) -> bool:
    options = {row[0] for row in bind.execute(sa.text("PRAGMA compile_options"))}
    return "ENABLE_FTS5" in options


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        if _sqlite_has_fts5(bind):
            for statement in SQLITE_UP:
                op.execute(statement)
    elif bind.dialect.name == "postgresql":
        op.execute(f"CREATE INDEX ix_lorebook_entries_search ON lorebook_entries USING gin ({PG_DOCUMENT})")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for name in ("entry_fts_ai", "entry_fts_ad", "entry_fts_au"):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        op.execute("DROP TABLE IF EXISTS entry_fts")
    elif bind.dialect.name == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_lorebook_entries_search")
