"""What the write path of ``interop migrate`` needs of the schema, without the ORM.

Importing ``sqlalchemy.orm`` and building the declarative classes of ``models`` was 423 M
instructions of the 2,245 M a one-file ``interop migrate`` cost (issue 19): the recorder, the run
log and the resume query only need column names and a few Core statements. ``models`` stays the
one definition of the schema (Alembic compares against it, the read side queries it);
tests/catalog/test_tables.py checks that everything here agrees with it.
"""

from __future__ import annotations

import functools
from typing import Any

COLUMNS: dict[str, tuple[str, ...]] = {
    "source_files": (
        "sha256",
        "path",
        "size",
        "format",
        "platform",
        "kind",
        "status",
        "error",
        "warnings",
        "imported_at",
    ),
    "lorebooks": ("content_hash", "name", "entry_count", "canonical", "created_at"),
    "lorebook_entries": (
        "lorebook_id",
        "position",
        "name",
        "keys",
        "secondary_keys",
        "keys_text",
        "content",
        "enabled",
        "constant",
        "selective",
        "use_regex",
        "case_sensitive",
        "insertion_order",
        "content_hash",
    ),
    "cards": ("content_hash", "name", "creator", "spec", "spec_version", "canonical", "lorebook_id", "created_at"),
    "card_tags": ("card_id", "tag"),
    "assets": ("sha256", "size"),
    "card_assets": ("card_id", "role", "uri", "asset_id", "type", "name", "ext"),
    "card_sources": ("source_file_id", "card_id"),
    "lorebook_sources": ("source_file_id", "lorebook_id", "role"),
    "chats": (
        "content_hash",
        "character",
        "user_name",
        "title",
        "is_group",
        "message_count",
        "first_time",
        "last_time",
        "bound_book",
        "lorebook_id",
        "created_at",
    ),
    "chat_sources": ("source_file_id", "chat_id", "chat_index"),
    "migrations": (
        "source_file_id",
        "item_kind",
        "card_id",
        "lorebook_id",
        "target",
        "status",
        "reason",
        "output_path",
        "output_sha256",
        "read_ms",
        "convert_ms",
        "report_ms",
        "finished_at",
    ),
    "fidelity_reports": (
        "migration_id",
        "kept",
        "not_applicable",
        "kept_default",
        "translated",
        "stashed",
        "approximated",
        "lost",
        "has_losses",
        "report",
        "part_id",
        "part_at",
    ),
    "report_parts": ("sha256", "body"),
    "runs": (
        "created_at",
        "sources",
        "targets",
        "out_dir",
        "data_dir",
        "pretty",
        "total_files",
        "batch_count",
        "batch_size",
        "files",
        "ignored",
        "origin",
        "status",
        "finished_at",
        "summary",
        "error",
    ),
    "run_batches": ("run_id", "batch_no", "files", "outcomes", "worker", "database_ms", "finished_at"),
}
"""Table -> its columns but ``id``, in the order of ``models`` (the recorder's statements and rows)."""

# Lightweight Core tables (``sqlalchemy.table``): the same names and types as the models' columns,
# so values are bound exactly as through them (timestamps, booleans on SQLite). Made on first use:
# a run on a SQLite file catalog writes without SQLAlchemy (``COLUMNS`` alone), never importing it.


@functools.cache
def _core_tables() -> dict[str, Any]:
    from sqlalchemy import Boolean, DateTime, Integer, String, Text, column, table

    return {
        "SOURCE_FILES": table(
            "source_files", column("id", Integer), column("sha256", String(64)), column("status", String(16))
        ),
        "MIGRATIONS": table(
            "migrations",
            column("source_file_id", Integer),
            column("target", String(64)),
            column("status", String(16)),
            column("output_path", Text),
            column("output_sha256", String(64)),
        ),
        "RUNS": table(
            "runs",
            column("id", String(32)),
            column("created_at", DateTime(timezone=True)),
            column("sources", Text),
            column("targets", Text),
            column("out_dir", Text),
            column("data_dir", Text),
            column("pretty", Boolean),
            column("total_files", Integer),
            column("batch_count", Integer),
            column("batch_size", Integer),
            column("files", Text),
            column("ignored", Integer),
            column("origin", String(16)),
            column("status", String(16)),
            column("finished_at", DateTime(timezone=True)),
            column("summary", Text),
            column("error", Text),
        ),
    }


def __getattr__(name: str) -> Any:
    """``SOURCE_FILES``, ``MIGRATIONS``, ``RUNS``: the Core tables, made (with SQLAlchemy) on first use."""
    if name in ("SOURCE_FILES", "MIGRATIONS", "RUNS"):  # not others: the import system asks for ``__path__``
        return _core_tables()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
