"""Behavioural fidelity in the report: entries that fire differently on the target (``--behaviour CHATS``).

The activation engine (``interop.engine.compare_behaviour``) runs the source
book with the source platform's semantics and the converted book with the
target's, over the same chats. Every entry whose activation differs becomes
one ``approximated`` item ``behaviour["<entry>"]`` saying in which chat and
turn, and why on each side. These items come on top of the field items: a
book can keep every field and still fire differently.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..document import Document
from .items import FidelityItem

# ``interop.engine`` (the activation runtime, regex) is imported by these functions only: a report
# without ``--behaviour`` never runs it, and importing it was a tenth of ``interop migrate``'s start-up.

SHOWN_TURNS = 3


def engine_platform(format_platform: str) -> str | None:
    """The platform whose activation profile models a format's platform (its ``Platform.profile``;
    None: no profile, e.g. NovelAI)."""
    from ..engine import find_profile

    return format_platform if find_profile(format_platform) is not None else None


def behaviour_items(
    source: Document,
    source_platform: str,
    output: Document,
    target_platform: str,
    chats: Sequence[Any],
    seed: int = 0,
) -> tuple[list[FidelityItem], list[str]]:
    """``(items, warnings)``: one approximated item per entry whose activation differs."""
    src_profile, dst_profile = engine_platform(source_platform), engine_platform(target_platform)
    missing = [p for p, prof in ((source_platform, src_profile), (target_platform, dst_profile)) if prof is None]
    if missing:
        return [], [f"no activation profile for {', '.join(missing)}: behaviour not compared"]
    if source.book is None or output.book is None:
        return [], ["behaviour not compared: the source or the output holds no lorebook"]
    assert src_profile is not None and dst_profile is not None
    from ..engine import compare_behaviour

    diffs = compare_behaviour([source.book], src_profile, [output.book], dst_profile, list(chats), seed)
    by_entry: dict[str, list[Any]] = {}
    for diff in diffs:
        key = diff.source_entry if diff.source_entry is not None else f"target:{diff.target_entry}"
        by_entry.setdefault(key, []).append(diff)
    items = []
    for key, found in by_entry.items():
        shown = "; ".join(d.describe() for d in found[:SHOWN_TURNS])
        more = f"; and {len(found) - SHOWN_TURNS} more turn(s)" if len(found) > SHOWN_TURNS else ""
        path = f"behaviour[{_quote(key)}]"
        items.append(FidelityItem(path, "approximated", f"activation differs in {len(found)} turn(s): {shown}{more}"))
    return items, []


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
