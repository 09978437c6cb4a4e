"""Fields an output has that its source lacked: the defaults a conversion added.

The report's items are about the source's fields; a writer that fills what the target
requires (CCv3 ``enabled``, ``insertion_order``, ``use_regex`` on every entry, ...) adds
fields, which the report states here: ``entry.enabled = true (18 entries)``.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from typing import Any

from ..appmodel.paths import Path, render
from .view import CanonicalView

_rendered = functools.lru_cache(maxsize=4096)(render)
"""Added paths repeat in every entry and report of a run."""

SHOWN = 40
"""Characters of a value shown."""
SAME_VALUES_SHOWN = 3
"""Distinct values of one added field listed; more are counted."""


_SCALARS = (str, int, float, bool, type(None))
_SHOWN_SCALARS: dict[tuple[type, Any], str] = {}
"""Shown form of the scalar defaults writers add (``false``, ``""``, ``100``): the same few, every entry."""


def _shown(value: Any) -> str:
    scalar = type(value) in _SCALARS
    if scalar:
        found = _SHOWN_SCALARS.get((type(value), value))
        if found is not None:
            return found
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."
    if scalar and len(_SHOWN_SCALARS) < 1024:
        _SHOWN_SCALARS[(type(value), value)] = text
    return text


def _added(mine: dict[str, Any], theirs: dict[str, Any], prefix: Path, found: Counter[tuple[Path, str]]) -> None:
    if mine.keys() == theirs.keys():
        for key, value in theirs.items():
            if type(value) is dict and type(mine[key]) is dict and value:
                _added(mine[key], value, (*prefix, key), found)
        return
    for key, value in theirs.items():
        if key not in mine:
            found[((*prefix, key), _shown(value))] += 1
        elif type(value) is dict and type(mine[key]) is dict and value:
            _added(mine[key], value, (*prefix, key), found)


def added_fields(source: CanonicalView, output: CanonicalView) -> list[str]:
    """``"<section>.<field> = <value> (<n> entries)"`` for each field only the output has, at any depth
    (``entry.extensions.vectorized``: a key added inside an object both sides have counts too)."""
    found: Counter[tuple[Path, str]] = Counter()
    for label, mine, theirs in (
        ("root", source.root, output.root),
        ("card", source.card, output.card),
        ("book", source.book, output.book),
    ):
        if isinstance(theirs, dict) and theirs:  # a section the source lacks (a new card or book) counts whole
            _added(mine if isinstance(mine, dict) else {}, theirs, (label,), found)
    entries = zip(source.entries or [], output.entries or [], strict=False)
    for mine, theirs in entries:
        _added(mine, theirs, ("entry",), found)
    by_path: dict[str, list[tuple[str, int]]] = {}
    rows = sorted((_rendered(path), value, count) for (path, value), count in found.items())
    for name, value, count in rows:
        by_path.setdefault(name, []).append((value, count))
    lines = []
    for name, values in by_path.items():
        total = sum(count for _, count in values)
        suffix = f" ({total} entries)" if name.startswith("entry.") else ""
        if len(values) <= SAME_VALUES_SHOWN:
            lines += [f"{name} = {value}" + (f" ({count} entries)" if suffix else "") for value, count in values]
        else:
            lines.append(f"{name} = ({len(values)} different values){suffix}")
    return lines
