"""What ``interop inspect --json`` says about a file: one summary dict per document.

Shared by the CLI and the HTTP service so both report the same facts.
"""

from __future__ import annotations

from typing import Any

from .document import Document
from .model.versions import as_displayed, spec_label
from .platform.registry import get_format


def summarize(doc: Document, file: str) -> dict[str, Any]:
    """Format, kind, spec, name, creator, entry/asset counts, container parts, platform facts, warnings."""
    info: dict[str, Any] = {"file": file, "format": doc.format, "kind": doc.kind}
    if doc.card is not None:
        card, data = doc.card, as_displayed(doc.card).data
        info.update(
            spec=spec_label(card),
            spec_version=card.spec_version,
            name=data.name,
            creator=data.creator,
            assets=len(data.assets or []),
        )
    book = doc.book
    info["lorebook"] = book.name if book is not None else None
    info["entries"] = len(book.entries) if book is not None else 0
    if doc.assets:
        info["embedded_assets"] = len(doc.assets)
    container = doc.native.get("container")
    if container:
        info["container"] = container
    describe = get_format(doc.format).describe
    if describe is not None:
        facts = describe(doc)
        if facts:
            info["facts"] = facts
    info["warnings"] = list(doc.warnings)
    return info
