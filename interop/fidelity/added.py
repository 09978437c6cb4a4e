"""Fields an output has that its source lacked: the defaults a conversion added.

The report's items are about the source's fields; a writer that fills what the target
requires (CCv3 ``enabled``, ``insertion_order``, ``use_regex`` on every entry, ...) adds
fields, which the report states here: ``entry.enabled = true (18 entries)``.
"""

from __future__ import annotations

import functools
import itertools
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


class _Found:
    """The added rows of one report: loose ``(rendered path, shown value)`` rows, and kept objects'
    rows by their number (``_all_new``), which name the same rows in every report of a run."""

    __slots__ = ("chunks", "rows", "rows_of")

    def __init__(self) -> None:
        self.rows: list[tuple[str, str]] = []
        self.chunks: list[int] = []
        self.rows_of: dict[int, list[tuple[str, str]]] = {}


def _added(mine: dict[str, Any], theirs: dict[str, Any], prefix: Path, found: _Found) -> None:
    """Add a row for each key only ``theirs`` has, at any depth (in no particular order: the caller
    counts and sorts them; a rendered path names one path)."""
    if mine == theirs:
        return  # equal dicts have the same keys at every depth (checked in C)
    if not mine:  # e.g. an entry's empty extensions, filled by the writer: the same few objects every time
        number, rows = _all_new(theirs, prefix)
        if number is None:
            found.rows += rows
        else:
            found.chunks.append(number)
            found.rows_of[number] = rows
        return
    if mine.keys() != theirs.keys():
        shown = _SHOWN_SCALARS.get
        for key in theirs.keys() - mine.keys():
            value = theirs[key]
            text = shown((type(value), value)) if type(value) in _SCALARS else None
            found.rows.append((_rendered((*prefix, key)), _shown(value) if text is None else text))
    for key, value in theirs.items():
        if type(value) is dict and value:
            inner = mine.get(key)
            if type(inner) is dict:
                _added(inner, value, (*prefix, key), found)


_ALL_NEW: dict[tuple[Path, bytes], tuple[int, list[tuple[str, str]]]] = {}
_ALL_NEW_BYTES = 2048
"""Objects up to this size (marshal bytes) are kept with their rows (``_all_new``)."""
_CHUNK_NUMBERS = itertools.count()
"""Numbers of kept rows, never reused (the cache may be cleared): a number names one list of rows."""


def _all_new(theirs: dict[str, Any], prefix: Path) -> tuple[int | None, list[tuple[str, str]]]:
    """Every key of ``theirs`` as an added row (read-only: kept per content, typed by marshal), with
    the number of the kept rows (None when not kept)."""
    try:
        data = marshal.dumps(theirs, 2)
    except ValueError:
        data = b""
    key = (prefix, data)
    hit = _ALL_NEW.get(key) if data else None
    if hit is not None:
        return hit
    rows = [(_rendered((*prefix, k)), _shown(v)) for k, v in theirs.items()]
    if not (data and len(data) <= _ALL_NEW_BYTES):
        return None, rows
    if len(_ALL_NEW) >= 4096:
        _ALL_NEW.clear()
    hit = _ALL_NEW[key] = (next(_CHUNK_NUMBERS), rows)
    return hit


def added_fields(source: CanonicalView, output: CanonicalView) -> list[str]:
    """``"<section>.<field> = <value> (<n> entries)"`` for each field only the output has, at any depth
    (``entry.extensions.vectorized``: a key added inside an object both sides have counts too)."""
    if output is source:
        return []  # the output is the input file byte for byte (one view serves both)
    found = _Found()
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
    if not found.rows and not found.chunks:
        return []
    # the kept rows' numbers and the loose rows decide the lines: a run's cards mostly repeat them
    key = (tuple(sorted(found.chunks)), tuple(sorted(found.rows)))
    lines = _LINES.get(key)
    if lines is None:
        rows = list(found.rows)
        for number in found.chunks:
            rows += found.rows_of[number]
        lines = _lines(tuple(sorted(Counter(rows).items())))
        if len(key[0]) + len(key[1]) > _LINES_ROWS or sum(len(p) + len(v) for p, v in key[1]) > _LINES_CHARS:
            return list(lines)
        if len(_LINES) >= _LINES_KEPT:
            _LINES.clear()
        _LINES[key] = lines
    return list(lines)


_LINES: dict[tuple[tuple[int, ...], tuple[tuple[str, str], ...]], tuple[str, ...]] = {}
_LINES_KEPT = 1024
"""The lines of the counted rows (``_lines``): the cards of a run add the same defaults to their entries."""
_LINES_ROWS = 64
"""Rows of one report at most for its lines to be kept (a bound on memory: values are short)."""
_LINES_CHARS = 8192
"""Characters of those rows at most: a report naming megabyte keys is rendered, not kept."""


def _lines(rows: tuple[tuple[tuple[str, str], int], ...]) -> tuple[str, ...]:
    """``((name, shown value), count)`` rows, sorted, as the report's lines."""
    by_path: dict[str, list[tuple[str, int]]] = {}
    for (name, value), count in rows:
        by_path.setdefault(name, []).append((value, count))
    lines = []
    for name, values in by_path.items():
        entry = name.startswith("entry.")
        if len(values) <= SAME_VALUES_SHOWN:
            lines += [f"{name} = {v} ({n} entries)" if entry else f"{name} = {v}" for v, n in values]
        else:
            suffix = f" ({sum(count for _, count in values)} entries)" if entry else ""
            lines.append(f"{name} = ({len(values)} different values){suffix}")
    return tuple(lines)
