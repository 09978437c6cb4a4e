"""ST card-flavour flat keys of a card book, found where a SillyTavern world file writes them.

A card book entry may carry ST's flat keys (``entry.extensions.position``, ``depth``, ...).
The world writer turns each into the world entry's native field (the mapping table row's
``world`` name), as ST's own card import does (``convertCharacterBook`` in
public/scripts/world-info.js reads ``entry.extensions.position`` etc. into the world
entry). Read back, the value sits under ``extensions.sillytavern.entry.*``, not under the
flat key, so the canonical comparison finds the flat key "not in the output". Here the
written world JSON itself is read: a flat key whose value the native field holds (strictly
equal) is translated, naming the native field; a ``null`` flat key written as ST's importer
fallback (its ``??``, as the table notes say) is approximated. Anything else stays lost.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..mappings import load
from .field_diff import strict_equal
from .items import FidelityItem

TARGET = "sillytavern-world"
_FLAT = re.compile(r"entry\[(\d+)\]\.extensions\.([A-Za-z0-9_]+)")
_MISSING = object()


def _flat_to_world() -> dict[str, str]:
    """Flat card-flavour key (``position``) -> world entry field, from the mapping table."""
    return {
        f.native[len("extensions.") :]: f.world
        for f in load("sillytavern").fields
        if f.level == "entry" and f.native.startswith("extensions.") and isinstance(f.world, str)
    }


def found_in_world(
    items: list[FidelityItem], target: str, output_bytes: bytes | None, source_entries: list[dict[str, Any]] | None
) -> None:
    """Re-judge the flat keys reported lost whose value the written world entry holds natively."""
    if target != TARGET or output_bytes is None or not source_entries:
        return
    lost = [i for i, item in enumerate(items) if item.fate == "lost" and item.detail.startswith("not in the")]
    flat_lost = [(i, m) for i in lost if (m := _FLAT.fullmatch(items[i].path)) is not None]
    if not flat_lost:
        return
    try:
        world = json.loads(output_bytes)
    except ValueError:
        return
    if not isinstance(world, dict) or not isinstance(world.get("entries"), dict):
        return
    natives = list(world["entries"].values())  # key order = entry order (the writer's and the reader's)
    flat = _flat_to_world()
    for at, match in flat_lost:
        number, key = int(match.group(1)), match.group(2)
        if key not in flat or number >= len(source_entries) or number >= len(natives):
            continue
        extensions = source_entries[number].get("extensions")
        native = natives[number]
        if not isinstance(extensions, dict) or key not in extensions or not isinstance(native, dict):
            continue
        value, name = extensions[key], flat[key]
        if name not in native or not (value is None or strict_equal(value, native[name])):
            continue
        if value is None:  # the way back gives the fallback, not null: what ST reads, but a change
            detail = f"null: written as ST's importer fallback {json.dumps(native[name])} in the native `{name}`"
            items[at] = items[at]._replace(fate="approximated", detail=detail)
        else:
            items[at] = items[at]._replace(fate="translated", detail=f"written as the world entry's native `{name}`")
