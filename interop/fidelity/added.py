"""Fields an output has that its source lacked: the defaults a conversion added.

The report's items are about the source's fields; a writer that fills what the target
requires (CCv3 ``enabled``, ``insertion_order``, ``use_regex`` on every entry, ...) adds
fields, which the report states here: ``entry.enabled = true (18 entries)``.
"""

from __future__ import annotations

import functools
import json
import marshal
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
    if not value and type(value) in (list, dict):
        return "[]" if type(value) is list else "{}"  # an empty list (``triggers``) is added to every entry
    scalar = type(value) in _SCALARS
    if scalar:
        found = _SHOWN_SCALARS.get((type(value), value))
        if found is not None:
            return found
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."
    # not floats (0.0 == -0.0 as a key) nor long text (the key would keep it alive for the whole run)
    if scalar and type(value) is not float and len(text) < SHOWN and len(_SHOWN_SCALARS) < 1024:
        _SHOWN_SCALARS[(type(value), value)] = text
    return text


def _added(mine: dict[str, Any], theirs: dict[str, Any], prefix: Path, found: list[tuple[Path, str]]) -> None:
    """Append ``(path, shown value)`` for each key only ``theirs`` has, at any depth (in no particular
    order: the caller counts and sorts them)."""
    if mine == theirs:
        return  # equal dicts have the same keys at every depth (checked in C)
    if not mine:  # e.g. an entry's empty extensions, filled by the writer: the same few objects every time
        found.extend(_all_new(theirs, prefix))
        return
    if mine.keys() != theirs.keys():
        shown = _SHOWN_SCALARS.get
        for key in theirs.keys() - mine.keys():
            value = theirs[key]
            text = shown((type(value), value)) if type(value) in _SCALARS else None
            found.append(((*prefix, key), _shown(value) if text is None else text))
    for key, value in theirs.items():
        if type(value) is dict and value:
            inner = mine.get(key)
            if type(inner) is dict:
                _added(inner, value, (*prefix, key), found)


_ALL_NEW: dict[tuple[Path, bytes], list[tuple[Path, str]]] = {}
_ALL_NEW_BYTES = 2048
"""Objects up to this size (marshal bytes) are kept with their rows (``_all_new``)."""


def _all_new(theirs: dict[str, Any], prefix: Path) -> list[tuple[Path, str]]:
    """Every key of ``theirs`` as an added row (read-only: kept per content, typed by marshal)."""
    try:
        data = marshal.dumps(theirs, 2)
    except ValueError:
        data = b""
    key = (prefix, data)
    rows = _ALL_NEW.get(key) if data else None
    if rows is None:
        rows = [((*prefix, k), _shown(v)) for k, v in theirs.items()]
        if data and len(data) <= _ALL_NEW_BYTES:
            if len(_ALL_NEW) >= 4096:
                _ALL_NEW.clear()
            _ALL_NEW[key] = rows
    return rows


def added_fields(source: CanonicalView, output: CanonicalView) -> list[str]:
    """``"<section>.<field> = <value> (<n> entries)"`` for each field only the output has, at any depth
    (``entry.extensions.vectorized``: a key added inside an object both sides have counts too)."""
    if output is source:
        return []  # the output is the input file byte for byte (one view serves both)
    found: list[tuple[Path, str]] = []
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
    rows = sorted((_rendered(path), value, count) for (path, value), count in Counter(found).items())
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
