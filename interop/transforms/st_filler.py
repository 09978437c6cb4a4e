"""Recognise what SillyTavern's writers filled into a Risu entry that went through SillyTavern.

A Risu entry whose decorators became SillyTavern fields (``st_risu.from_risu``)
records in ``extensions.risuai.decorators.created`` that the SillyTavern namespace
did not exist before. Written to a SillyTavern world or card and read back, the
entry carries the whole template ST's importer fills in (``trigger_percent: 100``,
``display_index``, the card flavour's flat ``extensions`` keys, ...). Those values
are not the user's: left in place they would be stashed in Risu's ``extentions``
and hide that the entry is the original one, so its decorator lines could not be
recognised again on the next read.

They are dropped only when they are exactly what the SillyTavern writer produces
for the entry without them; a real SillyTavern setting (a sticky, a group, ...)
keeps the whole namespace as it is.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import astuple
from typing import Any

from ..errors import InteropError
from ..jsonvalue import get_path, has_path, set_path
from ..model import Lorebook
from ..platform.registry import get_platform
from . import st_risu

ST = "sillytavern"


def _st(name: str) -> Callable[..., Any]:
    """A SillyTavern adapter function: filler is recognised by running ST's writer, never a copy of it."""
    service = get_platform(ST).service(name)
    assert service is not None, f"the sillytavern platform has no {name}"
    return service


CARD_WRITER_RECORDS = ("added_fields", "world_extensions")
ST_ENTRY_CONTAINERS = ("extensions.sillytavern", "extensions.sillytavern.entry")
# Filled from the entry's place in the book, not from the entry: any value is the writer's.
INDEX_FIELDS = ("display_index",)
# Namespace path of each knob -> the flat card ``extensions`` key SillyTavern writes it to.
FLAT_OF = dict(zip(astuple(st_risu.LAYOUTS[0]), astuple(st_risu.LAYOUTS[1]), strict=True))


def _comparable(extensions: Any) -> str:
    """``extensions`` without the index-filled fields (flat and in the namespace), as JSON (1, 1.0, true differ)."""
    if not isinstance(extensions, dict):
        return json.dumps(extensions, sort_keys=True, default=repr)
    out = copy.deepcopy(extensions)
    for container in (out, get_path(out, "sillytavern.entry")):
        if isinstance(container, dict):
            for name in INDEX_FIELDS:
                if isinstance(container.get(name), int):
                    del container[name]
    return json.dumps(out, sort_keys=True, default=repr)


def _before_st(entry: dict[str, Any], record: dict[str, Any]) -> dict[str, Any] | None:
    """``entry`` as it was before SillyTavern: only the decorator fields in its ST namespace, no flat keys."""
    ext = entry.get("extensions")
    if not isinstance(ext, dict):
        return None
    probe = copy.deepcopy(entry)
    probe_ext = probe["extensions"]
    probe_ext.pop(ST, None)
    for key in _st("flat_keys")():
        probe_ext.pop(key, None)
    fields = record.get("fields")
    for path in fields if isinstance(fields, dict) else {}:
        # The current value: in the namespace (world file) or in its flat key (card), as ST wrote it.
        for source in (path, FLAT_OF.get(path)):
            if source is not None and has_path(entry, source):
                set_path(probe, path, copy.deepcopy(get_path(entry, source)))
                break
    return probe


def _filled_by_world(entry: dict[str, Any], probe: dict[str, Any]) -> bool:
    written = _st("world_from_lorebook")(Lorebook.model_validate({"entries": [probe]}))
    back = _st("lorebook_from_world")(written).entries[0].dump().get("extensions")
    return _comparable(back) == _comparable(entry.get("extensions"))


def _filled_by_card(entry: dict[str, Any], probe: dict[str, Any]) -> bool:
    """The card flavour, read as a plain card (flat keys) or by ST's card reader (flat keys and namespace)."""
    written = _st("card_book_from_lorebook")(Lorebook.model_validate({"entries": [probe]}))["entries"][0]
    plain = Lorebook.model_validate({"entries": [written]})
    current = _comparable(entry.get("extensions"))
    for book in (plain, _st("normalize_card_book")(plain, keep_flat=True)[0]):
        if _comparable(book.entries[0].dump().get("extensions")) == current:
            return True
    return False


def drop_st_filler(entry: dict[str, Any], record: Any) -> None:
    """Remove SillyTavern's template values from a canonical Risu entry dict (mutated) when that is all they are."""
    if not isinstance(record, dict) or not set(ST_ENTRY_CONTAINERS) <= set(record.get("created") or ()):
        return  # the Risu entry had a SillyTavern namespace of its own: every value may be real
    ext = entry.get("extensions")
    if not isinstance(ext, dict) or (ST not in ext and not any(key in ext for key in _st("flat_keys")())):
        return
    probe = _before_st(entry, record)
    if probe is None:
        return
    # What a card writer records for the way back to a world (card_for_target: the V3 fields it added,
    # the world entry's own extension keys) is not ST's template either: compared without it; the
    # added fields themselves stay (Risu's own card export writes them too).
    ns = get_path(entry, "extensions.sillytavern.entry")
    records = {k: ns.pop(k) for k in CARD_WRITER_RECORDS if k in ns} if isinstance(ns, dict) else {}
    try:
        filled = _filled_by_world(entry, probe) or _filled_by_card(entry, probe)
    except (InteropError, ValueError, TypeError):  # off-type values the ST writer cannot render: not its template
        filled = False
    if filled:
        entry["extensions"] = probe["extensions"]
    elif isinstance(ns, dict):
        ns.update(records)
