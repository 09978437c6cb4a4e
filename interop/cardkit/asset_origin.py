"""Undoing asset URI rewrites between containers.

A container writer that moves an asset (PNG ``ccdefault:`` / ``__asset:N`` ->
CHARX ``embeded://...``, a CHARX path -> Risu's ``assets/<type>/image/`` path)
records the URI it had before in one CHARX member, ``ORIGINS_MEMBER``: a JSON
object ``{"<uri now>": "<uri in the source>"}``. A later writer whose container
can hold the source URI again puts the asset back there and drops the record,
so ``png -> charx -> png`` and ``charx -> risu-charx -> charx`` give back the
same card. After several moves the record still names the first URI.

A member rather than a card field: the card JSON stays exactly what the
target app expects, and Risu ignores ``*.json`` members other than
``card.json`` (risu.md 4.2), as does any CCv3 reader that only follows
``data.assets``.
"""

from __future__ import annotations

import json
from typing import Any

from ..document import Document

ORIGINS_MEMBER = "x_interop/asset_origins.json"


def load_origins(doc: Document) -> dict[str, str]:
    """The records of ``doc`` (a CHARX read back), or ``{}``; a damaged member is ignored with a warning."""
    raw = doc.members.get(ORIGINS_MEMBER)
    if raw is None:
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        value = None
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        doc.warn(f"{ORIGINS_MEMBER} is not a map of URIs; asset URIs are not restored")
        return {}
    return dict(value)


def move(origins: dict[str, str], asset: dict[str, Any], new_uri: str) -> None:
    """Rewrite ``asset["uri"]``, keeping the first URI it had; back at that URI, the record goes."""
    old = asset.get("uri")
    first = origins.pop(old, old) if isinstance(old, str) else None
    asset["uri"] = new_uri
    if first and first != new_uri:
        origins[new_uri] = first


def origin(origins: dict[str, str], asset: dict[str, Any]) -> str | None:
    uri = asset.get("uri")
    return origins.get(uri) if isinstance(uri, str) else None


def origins_bytes(doc: Document, origins: dict[str, str]) -> bytes | None:
    """The member to write (the one read when nothing changed), or None when nothing is left to undo."""
    if not origins:
        return None
    raw = doc.members.get(ORIGINS_MEMBER)
    if raw is not None and load_origins(doc) == origins:
        return raw
    return json.dumps(origins, ensure_ascii=False, indent=2).encode("utf-8")
