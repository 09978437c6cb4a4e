"""The catalog: every imported file, card, lorebook, asset, migration and fidelity report.

SQLAlchemy 2.0 models (``models``), Alembic-managed schema (``database``),
the per-file work of ``interop migrate`` (``pipeline``, ``records``), the
database writer (``recorder``), the run itself (``migrate_run``) and the read side
(``queries``, ``search``). See docs/catalog.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .database import Catalog, default_url, open_catalog, upgrade_schema
    from .migrate_run import RunSummary, migrate
    from .queries import ItemRef, list_items, load_document, show_item, stats
    from .search import search_entries

# Every name is imported on first use: a sub-module (``pipeline``, ``records``, which a worker process
# and the per-file work import) must not pull in SQLAlchemy and the whole catalog through this package,
# and ``interop migrate`` (whose start-up counts, issue 19) never reads.
_LAZY = (
    dict.fromkeys(("Catalog", "default_url", "open_catalog", "upgrade_schema"), ".database")
    | dict.fromkeys(("RunSummary", "migrate"), ".migrate_run")
    | dict.fromkeys(("ItemRef", "list_items", "load_document", "show_item", "stats"), ".queries")
    | {"search_entries": ".search"}
)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value  # once: later lookups skip this function
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
