"""Every rewrite a canonical entry goes through on its way into Risu, in order.

1. ``risu_card_line.strip_card_line``: the ``@@dont_activate`` line a card writer added for
   Risu's card import comes out again (the entry's own record says so).
2. ``st_filler.drop_st_filler``: SillyTavern's template values around a Risu-made entry that
   went through SillyTavern are dropped.
3. ``st_risu.restore_text``: an unchanged Risu-made entry gets its original decorator lines
   back; otherwise ``st_risu.to_risu`` writes the SillyTavern knobs as decorator lines,
   recording in ``Generated.losses`` what no decorator expresses.

``book_losses`` collects those records for a whole book: the ``risu`` platform's ``hazards``,
which the fidelity report turns into findings.
"""

from __future__ import annotations

from typing import Any

from ..jsonvalue import drop_empty
from ..model import Lorebook
from ..model.conflict import Conflict
from .risu_card_line import strip_card_line
from .st_filler import drop_st_filler
from .st_risu import Generated, restore_text, to_risu


def entry_for_risu(entry: dict[str, Any], record: Any) -> Generated:
    """Rewrite a canonical entry dict (mutated) for Risu; ``record`` is its ``extensions.risuai.decorators``.

    Returns the decorator lines generated (prepended to ``content``) and the values they replace,
    empty when the entry's original lines were restored.
    """
    strip_card_line(entry, record)
    if isinstance(record, dict):
        drop_st_filler(entry, record)
        if restore_text(entry, record):
            return Generated()
    generated = to_risu(entry)
    if isinstance(record, dict):
        drop_empty(entry, list(record.get("created") or []))
    if generated.text:
        content = entry.get("content")
        entry["content"] = generated.text + (content if isinstance(content, str) else "")
    return generated


def book_losses(book: Lorebook, namespace: str = "risuai") -> list[Conflict]:
    """What Risu will not honour of ``book``'s entries, at report paths (``("entry", 3, "extensions", ...)``).

    ``namespace``: the entries' Risu namespace, whose decorator record says how the entry came from Risu.
    """
    found: list[Conflict] = []
    for index, entry in enumerate(book.entries):
        data = entry.dump()
        ext = data.get("extensions")
        ns = ext.pop(namespace, None) if isinstance(ext, dict) else None
        record = ns.get("decorators") if isinstance(ns, dict) else None
        found.extend(entry_for_risu(data, record).losses.under("entry", index))
    return found
