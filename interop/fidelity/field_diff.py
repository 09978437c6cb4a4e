"""Comparing two canonical views field by field.

DeepDiff is the reference for "deep-equal" (type-strict, dict order ignored),
but running it over a whole lorebook costs a quarter of a second. So each
section (card, book, one entry) is first checked with a type-strict equality
that runs mostly in C; only sections that differ are walked field by field,
and DeepDiff is called only on the fields that differ, to describe how.

One rule on top of deep equality: an empty object (``extensions: {}``) that
comes back with keys in it is still there; the keys are additions.
"""

from __future__ import annotations

import json
import marshal
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

try:
    import orjson
except ImportError:  # optional: marshal and the walk decide alone
    orjson = None  # type: ignore[assignment]

from ..appmodel.paths import Path, render
from .view import MISSING, CanonicalView

ChangeKind = Literal["removed", "changed", "added"]


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=repr)


def _small(value: Any) -> bool:
    """Worth a DeepDiff description (DeepDiff's time grows fast with size)."""
    return len(_typed_bytes(value)) <= 4096


def _typed_bytes(value: Any) -> bytes | str:
    """A serialization that tells ``1``, ``1.0`` and ``True`` apart.

    marshal version 2 (no back-references, so sharing of equal objects does not
    matter) runs in C, about 4x faster than json.dumps.
    """
    try:
        return marshal.dumps(value, 2)
    except ValueError:
        return _dumps(value)


def strict_equal(a: Any, b: Any) -> bool:
    """Deep equality that tells ``1``, ``1.0`` and ``True`` apart (as DeepDiff does)."""
    if a is b:
        return True
    if a != b:
        return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    if isinstance(a, dict | list):
        # == already holds, so only a bool/int/float swap can make them differ;
        # the typed bytes show it (key order may differ too: then walk).
        return _typed_bytes(a) == _typed_bytes(b) or _strict_walk(a, b)
    return type(a) is type(b)


def _strict_bytes(value: Any) -> bytes | None:
    """JSON bytes that are equal for two ``==`` values only when they are strictly equal too:
    orjson writes ``1``, ``1.0`` and ``true`` apart and keeps key order (~4x faster than marshal:
    no UTF-8 re-encoding of long text). None when orjson cannot write it (non-string keys, huge ints)."""
    if orjson is None:
        return None
    try:
        return orjson.dumps(value)
    except TypeError:
        return None


def section_equal(source: CanonicalView, other: CanonicalView, name: str, a: Any, b: Any) -> bool:
    """``strict_equal(a, b)`` for the section ``name`` of both views (``a`` of ``source``, ``b`` of
    ``other``), each side's bytes made once per view: the source view is compared with every target's."""
    if a is b:
        return True
    if a != b:
        return strict_equal(a, b)  # NaN is the only way to be strictly equal here
    mine = source.typed.get(name, MISSING)
    if mine is MISSING:
        mine = source.typed[name] = _strict_bytes(a)
    if mine is not None:
        theirs = other.typed.get(name, MISSING)
        if theirs is MISSING:
            theirs = other.typed[name] = _strict_bytes(b)
        if mine == theirs:
            return True
    return strict_equal(a, b)  # another key order, -0.0, or what orjson cannot write: marshal, then the walk


def _strict_walk(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_strict_walk(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(_strict_walk(x, y) for x, y in zip(a, b, strict=True))
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


@dataclass(frozen=True)
class Change:
    path: Path
    kind: ChangeKind
    old: Any = None
    new: Any = None
    note: str = ""
    """Said instead of the values (container parts are bytes, not JSON)."""

    def describe(self) -> str:
        """One readable line: what happened to this field."""
        if self.note:
            return f"{self.kind}: {self.note}"
        if self.kind == "removed":
            return f"removed (was {short(self.old)})"
        if self.kind == "added":
            return f"added: {short(self.new)}"
        return describe_change(self.old, self.new)

    def to_json(self) -> dict[str, Any]:
        return {"path": render(self.path) if self.path else "", "kind": self.kind, "detail": self.describe()}


def shown_uri(uri: str) -> str:
    """An asset URI for people: a data URL (often megabytes of base64) by its media type and size."""
    if not uri.startswith("data:"):
        return uri
    comma = uri.find(",")  # not ``partition``: that copies the payload (often megabytes) only to count it
    if comma < 0:
        return f"{uri},... (0 characters)"
    return f"{uri[:comma]},... ({len(uri) - comma - 1:,} characters)"


def short(value: Any, limit: int = 60) -> str:
    text = _dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_ROOT = re.compile(r"\broot(\[[^\]]*\])?")


def _unroot(match: re.Match[str]) -> str:
    """DeepDiff says ``root[0]`` / ``root``: the field itself is meant."""
    return match.group(1) or "the field"


def describe_change(old: Any, new: Any) -> str:
    """How ``old`` became ``new``, in DeepDiff's words for containers."""
    if type(old) is not type(new) and not (isinstance(old, dict | list) and isinstance(new, dict | list)):
        return f"{short(old)} -> {short(new)} ({type(old).__name__} -> {type(new).__name__})"
    if isinstance(old, dict | list) and isinstance(new, dict | list) and _small(old) and _small(new):
        from deepdiff import DeepDiff  # ~20-30 ms to import: only when a report describes a changed container

        pretty = DeepDiff(old, new, verbose_level=2, threshold_to_diff_deeper=0).pretty()
        lines = [_ROOT.sub(_unroot, line.strip()) for line in pretty.splitlines() if line.strip()]
        if lines:
            shown = "; ".join(line if len(line) <= 100 else line[:97] + "..." for line in lines[:3])
            return shown + (f"; and {len(lines) - 3} more" if len(lines) > 3 else "")
    return f"{short(old)} -> {short(new)}"


def changed_fields(
    source: CanonicalView, other: CanonicalView, *, pairs: dict[int, int] | None = None
) -> dict[Path, Any]:
    """Source fields that ``other`` lacks or holds differently: ``path -> other's value or MISSING``.

    ``pairs`` maps a source entry index to the entry of ``other`` it is compared
    with (default: same index).
    """
    out: dict[Path, Any] = {}
    if other is source and pairs is None:
        return out  # the same view (an output that is the input file byte for byte)
    # every entry at once, when they are all alike (usual): one comparison instead of one per entry
    entries_alike = (
        pairs is None
        and bool(source.entries)
        and other.entries is not None
        and (
            section_equal(source, other, "entries", source.entries, other.entries)
            or _entries_projected_equal(source, other)
        )
    )
    for prefix, subtree in source.sections():
        if prefix[0] == "entry":
            if entries_alike:
                break  # entries come last in ``sections``
            j = pairs.get(prefix[1], -1) if pairs is not None else prefix[1]
            counterpart = other.get(("entry", j)) if j >= 0 else MISSING
            if counterpart is not MISSING and strict_equal(subtree, counterpart):
                continue
            if subtree and _projected_equal(subtree, counterpart):
                continue  # e.g. the writer filled the entry's empty extensions: additions only
        else:
            counterpart = other.get(prefix)
            if counterpart is not MISSING and section_equal(source, other, prefix[0], subtree, counterpart):
                continue
        if prefix == ("card",):
            _card_walk(subtree, counterpart, out)
        elif not subtree:
            if not _grown(subtree, counterpart):
                out[prefix] = counterpart  # an empty book or entry is one field
        else:
            _diff_dict(subtree, counterpart, prefix, out)
    for path in _extra_leaves(source):
        found = other.get(path)
        if found is MISSING or not strict_equal(source.get(path), found):
            out[path] = found
    return out


def _card_walk(card: dict[str, Any], other: Any, out: dict[Path, Any]) -> None:
    """Like ``_diff_dict`` but ``assets`` is one field per asset descriptor (as in ``leaves``)."""
    if not isinstance(other, dict):  # no card in the output (a lorebook target): every field is missing
        _all_missing({k: v for k, v in card.items() if k != "assets"}, ("card",), out)
    else:
        rest = {k: v for k, v in card.items() if k != "assets"}
        if rest and not _projected_equal(rest, other):
            _diff_dict(rest, other, ("card",), out)
    assets = card.get("assets", MISSING)
    if assets is MISSING:
        return
    theirs = other.get("assets", MISSING) if isinstance(other, dict) else MISSING
    if not (isinstance(assets, list) and assets):
        if theirs is MISSING or not strict_equal(assets, theirs):
            out[("card", "assets")] = theirs
        return
    for i, asset in enumerate(assets):
        found = theirs[i] if isinstance(theirs, list) and i < len(theirs) else MISSING
        if found is MISSING or not strict_equal(asset, found):
            out[("card", "assets", i)] = found


def _projected_equal(mine: dict[str, Any], theirs: Any) -> bool:
    """Whether ``_diff_dict(mine, theirs)`` finds nothing, checked in C: ``theirs`` cut down to the keys of
    ``mine`` (keys only ``theirs`` has are additions, and an empty object that came back with keys is
    still there) is strictly equal to ``mine`` (one ``==``, then orjson bytes). False when unsure."""
    if type(theirs) is not dict:
        return False
    projected = _projection(mine, theirs)
    if mine != projected:
        return False
    found = _strict_bytes(mine)
    return found is not None and found == _strict_bytes(projected)


def _entries_projected_equal(source: CanonicalView, other: CanonicalView) -> bool:
    """Whether every source entry is ``_projected_equal`` to the entry of ``other`` at its index (the
    usual output: the writer added fields to each entry), checked for the whole list at once: one
    ``==`` and one orjson text of the projections, the source's kept with its view. False when unsure."""
    mine, theirs = source.entries or [], other.entries or []
    if len(theirs) < len(mine):
        return False
    projected = []
    for entry, found in zip(mine, theirs, strict=False):
        if not entry or type(found) is not dict:
            return False  # an empty entry is one field; a missing one is walked
        projected.append(_projection(entry, found))
    if mine != projected:
        return False
    text = source.typed.get("entries", MISSING)
    if text is MISSING:
        text = source.typed["entries"] = _strict_bytes(mine)
    return text is not None and text == _strict_bytes(projected)


def _projection(mine: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in mine.items():
        found = theirs.get(key, MISSING)
        if type(value) is dict and type(found) is dict and found is not value:
            out[key] = _projection(value, found) if value else {}
        else:
            out[key] = found
    return out


def _diff_dict(mine: dict[str, Any], theirs: Any, prefix: Path, out: dict[Path, Any]) -> None:
    """Walk ``mine`` and ``theirs`` together; equal subtrees are skipped with one C-level check."""
    if not isinstance(theirs, dict):
        _all_missing(mine, prefix, out)
        return
    for key, value in mine.items():
        found = theirs.get(key, MISSING)
        path = (*prefix, key)
        if found is MISSING:
            if isinstance(value, dict) and value:
                _all_missing(value, path, out)
            else:
                out[path] = MISSING
        elif isinstance(value, dict) and value:
            if not strict_equal(value, found):
                _diff_dict(value, found, path, out)
        elif not strict_equal(value, found) and not _grown(value, found):
            out[path] = found


def _grown(value: Any, found: Any) -> bool:
    """An empty object that came back with keys: still there (the keys are additions, not a change)."""
    return value == {} and isinstance(value, dict) and isinstance(found, dict)


def _all_missing(value: dict[str, Any], prefix: Path, out: dict[Path, Any]) -> None:
    for key, item in value.items():
        if isinstance(item, dict) and item:
            _all_missing(item, (*prefix, key), out)
        else:
            out[(*prefix, key)] = MISSING


def _extra_leaves(view: CanonicalView) -> Iterator[Path]:
    """Fields outside the sections: a ``null`` character_book, an empty entry list."""
    if view.card is not None and view.has_book_key and view.book is None:
        yield ("card", "character_book")
    if view.book is not None and view.entries == []:
        yield ("book", "entries")


def all_changes(a: CanonicalView, b: CanonicalView, *, pairs: dict[int, int] | None = None) -> list[Change]:
    """Every difference between two views, both ways (removed, changed, added)."""
    changes: list[Change] = []
    for path, found in changed_fields(a, b, pairs=pairs).items():
        old = a.get(path)
        changes.append(Change(path, "removed", old) if found is MISSING else Change(path, "changed", old, found))
    reverse = {v: k for k, v in pairs.items()} if pairs is not None else None
    for path, found in changed_fields(b, a, pairs=reverse).items():
        if found is MISSING:
            source_path = path
            if path[0] == "entry" and reverse is not None:
                source_path = ("entry", reverse.get(path[1], path[1]), *path[2:])
            changes.append(Change(source_path, "added", None, b.get(path)))
    return changes


def readable(changes: list[Change]) -> list[str]:
    return [f"{render(c.path)}: {c.describe()}" for c in changes]
