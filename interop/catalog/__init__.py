"""The catalog: every imported file, card, lorebook, asset, migration and fidelity report.

SQLAlchemy 2.0 models (``models``), Alembic-managed schema (``database``),
the per-file work of ``interop migrate`` (``pipeline``, ``records``), the
database writer (``recorder``), the run itself (``migrate_run``) and the read side
(``queries``, ``search``). See docs/catalog.md.
"""

from .database import Catalog, default_url, open_catalog, upgrade_schema
from .migrate_run import RunSummary, migrate
from .queries import ItemRef, list_items, load_document, show_item, stats
from .search import search_entries

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
