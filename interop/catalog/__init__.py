"""The catalog: every imported file, card, lorebook, asset, migration and fidelity report.

SQLAlchemy 2.0 models (``models``), Alembic-managed schema (``database``),
the per-file work of ``interop migrate`` (``pipeline``, ``records``), the
database writer (``recorder``), the run itself (``migrate_run``) and the read side
(``queries``, ``search``). See docs/catalog.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .database import Catalog, default_url, open_catalog, upgrade_schema
from .migrate_run import RunSummary, migrate

if TYPE_CHECKING:
    from .queries import ItemRef, list_items, load_document, show_item, stats
    from .search import search_entries

# The read side is imported on first use: ``interop migrate`` (whose start-up counts, issue 19) never reads.
_LAZY = {name: ".queries" for name in ("ItemRef", "list_items", "load_document", "show_item", "stats")} | {
    "search_entries": ".search"
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Catalog",
    "ItemRef",
    "RunSummary",
    "default_url",
    "list_items",
    "load_document",
    "migrate",
    "open_catalog",
    "search_entries",
    "show_item",
    "stats",
    "upgrade_schema",
]
