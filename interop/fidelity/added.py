"""Fields an output has that its source lacked: the defaults a conversion added.

The report's items are about the source's fields; a writer that fills what the target
requires (CCv3 ``enabled``, ``insertion_order``, ``use_regex`` on every entry, ...) adds
fields, which the report states here: ``entry.enabled = true (18 entries)``.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from .view import CanonicalView

SHOWN = 40
"""Characters of a value shown."""
SAME_VALUES_SHOWN = 3
"""Distinct values of one added field listed; more are counted."""


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def added_fields(source: CanonicalView, output: CanonicalView) -> list[str]:
    """``"<section>.<field> = <value> (<n> entries)"`` for each top-level field only the output has."""
    found: Counter[tuple[str, str]] = Counter()
    for label, mine, theirs in (("root", source.root, output.root), ("card", source.card, output.card),
                                ("book", source.book, output.book)):
        if isinstance(mine, dict) and isinstance(theirs, dict):
            for key in theirs.keys() - mine.keys():
                found[(f"{label}.{key}", _shown(theirs[key]))] += 1
    entries = zip(source.entries or [], output.entries or [], strict=False)
    for mine, theirs in entries:
        for key in theirs.keys() - mine.keys():
            found[(f"entry.{key}", _shown(theirs[key]))] += 1
    by_path: dict[str, list[tuple[str, int]]] = {}
    for (path, value), count in sorted(found.items()):
        by_path.setdefault(path, []).append((value, count))
    lines = []
    for path, values in by_path.items():
        total = sum(count for _, count in values)
        suffix = f" ({total} entries)" if path.startswith("entry.") else ""
        if len(values) <= SAME_VALUES_SHOWN:
            lines += [f"{path} = {value}" + (f" ({count} entries)" if suffix else "") for value, count in values]
        else:
            lines.append(f"{path} = ({len(values)} different values){suffix}")
    return lines
