"""Full-text search over lorebook entries (names, keys, content).

SQLite: an external-content FTS5 table ``entry_fts`` kept in step with
``lorebook_entries`` by triggers (created by migration 0002 when the SQLite
build has FTS5; otherwise a LIKE scan). PostgreSQL: a GIN index over
``to_tsvector('simple', name || keys || content)``; the query below repeats
that exact expression so the planner uses the index. The ``simple``
configuration does no stemming, so keys in any language match as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, text

FTS_TABLE = "entry_fts"
PG_INDEX = "ix_lorebook_entries_search"
PG_DOCUMENT = "to_tsvector('simple', coalesce(name, '') || ' ' || keys_text || ' ' || content)"

_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # the tokens unicode61 makes: underscores split words


def include_object(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    """Alembic filter: the dialect-specific search objects are not part of the ORM metadata."""
    if type_ == "table" and name is not None and name.startswith(FTS_TABLE):
        return False
    return not (type_ == "index" and name == PG_INDEX)


@dataclass(frozen=True)
class Hit:
    entry_id: int
    lorebook_id: int
    lorebook: str | None
    position: int
    name: str | None
    keys: str
    snippet: str


def has_fts5(conn: Connection) -> bool:
    row = conn.execute(text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :n"), {"n": FTS_TABLE}).first()
    return row is not None


def _fts5_query(query: str) -> str:
    # Each word quoted (so FTS syntax characters in user text are inert), all required.
    return " ".join('"' + w.replace('"', '""') + '"' for w in _WORD.findall(query))


def _snippet(content: str, words: list[str], width: int = 120) -> str:
    lower = content.lower()
    at = min((i for i in (lower.find(w.lower()) for w in words) if i >= 0), default=0)
    start = max(0, at - width // 3)
    piece = " ".join(content[start : start + width].split())
    return ("…" if start else "") + piece + ("…" if start + width < len(content) else "")


_SELECT = (
    "SELECT e.id, e.lorebook_id, b.name, e.position, e.name, e.keys_text, e.content "
    "FROM lorebook_entries e JOIN lorebooks b ON b.id = e.lorebook_id "
)


def search_entries(conn: Connection, query: str, limit: int = 20) -> list[Hit]:
    """Entries whose name, keys or content contain every word of ``query``."""
    words = _WORD.findall(query)
    if not words:
        return []
    dialect = conn.dialect.name
    if dialect == "sqlite" and has_fts5(conn):
        rows = conn.execute(
            text(
                "SELECT e.id, e.lorebook_id, b.name, e.position, e.name, e.keys_text, e.content "
                f"FROM (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH :q LIMIT :n) f "
                "JOIN lorebook_entries e ON e.id = f.rowid JOIN lorebooks b ON b.id = e.lorebook_id "
                "ORDER BY e.id"
            ),
            {"q": _fts5_query(query), "n": limit},
        )
    elif dialect == "postgresql":
        # LIMIT inside, ORDER BY outside: "ORDER BY id LIMIT n" over the whole table
        # lets the planner walk the primary key and test every row (seconds for a rare
        # word on a million entries); the subquery keeps it on the GIN index.
        rows = conn.execute(
            text(
                "SELECT e.id, e.lorebook_id, b.name, e.position, e.name, e.keys_text, e.content "
                f"FROM (SELECT id FROM lorebook_entries WHERE {PG_DOCUMENT} @@ plainto_tsquery('simple', :q) "
                "LIMIT :n) f JOIN lorebook_entries e ON e.id = f.id JOIN lorebooks b ON b.id = e.lorebook_id "
                "ORDER BY e.id"
            ),
            {"q": " ".join(words), "n": limit},
        )
    else:
        clauses = []
        params: dict[str, Any] = {"n": limit}
        for i, word in enumerate(words):
            params[f"w{i}"] = f"%{word}%"
            clauses.append(f"(e.keys_text LIKE :w{i} OR e.content LIKE :w{i} OR e.name LIKE :w{i})")
        rows = conn.execute(text(_SELECT + "WHERE " + " AND ".join(clauses) + " ORDER BY e.id LIMIT :n"), params)
    return [
        Hit(
            entry_id=r[0],
            lorebook_id=r[1],
            lorebook=r[2],
            position=r[3],
            name=r[4],
            keys=", ".join(k for k in r[5].splitlines() if k),
            snippet=_snippet(r[6] or "", words),
        )
        for r in rows
    ]
