"""SillyTavern's verdict: the source's settings as ST entries vs what ST loads from the output.

The source's settings are the world ST would hold for the source book
(``world_from_lorebook``: a world file as it is; a card's book as ``convertCharacterBook``
reads it, with our canonical meaning where ST's would lose data, e.g. a missing ``enabled``).
Both sides are filled from ST's new-entry template; a ``null`` where the template has a value
counts as that value (ST reads those with ``??``), ``delayUntilRecursion`` false is 0 and a
``sticky``/``cooldown``/``delay`` of 0 is null (no timed effect either way).
"""

from __future__ import annotations

import functools
import itertools
import json
import marshal
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...appmodel.verdict import AppModel, AppVerdict, Finding
from ...document import Document
from ...memo import memoized
from ...model import Lorebook
from ...platform.registry import get_format
from . import app_load as st
from .fields import FIELDS, POSITION_NAMES
from .world import world_entry_items

SKIPPED = ("addMemo", "extensions")
"""``addMemo`` is the editor's 'show memo' flag, derived by every importer from the comment;
``extensions`` is storage, not a setting. ``comment`` (the entry's title) is compared when the
source has one: a CCv3 ``name`` alone is not a SillyTavern setting (its importer ignores it)."""

_MATCH = "extensions.sillytavern.entry.additional_matching_sources"
_SPECIAL: dict[str, tuple[str, ...]] = {
    "uid": ("id",),
    "key": ("keys",),
    "disable": ("enabled",),
    "caseSensitive": ("case_sensitive", "extensions.sillytavern.entry.case_sensitive"),
    "position": ("extensions.sillytavern.entry.insertion_position", "position"),
    "group": ("extensions.sillytavern.entry.inclusion_groups", "extensions.sillytavern.entry.group_text"),
    "delayUntilRecursion": (
        "extensions.sillytavern.entry.delay_until_recursion", "extensions.sillytavern.entry.recursion_level",
    ),
    "comment": ("comment", "name"),
}


@functools.cache
def _canonical_paths() -> dict[str, tuple[str, ...]]:
    paths: dict[str, tuple[str, ...]] = {}
    for row in FIELDS:
        paths.setdefault(row.native, (row.canonical,))
    for name in ("matchPersonaDescription", "matchCharacterDescription", "matchCharacterPersonality",
                 "matchCharacterDepthPrompt", "matchScenario", "matchCreatorNotes"):
        paths[name] = (_MATCH,)
    paths.update(_SPECIAL)
    return paths


def source_settings(doc: Document) -> list[dict[str, Any]]:
    """The source book as the ST world entries it stands for, template-filled, in book order."""
    assert doc.book is not None
    return _settings(doc.book, doc.card is not None, share=False)


def _settings(book: Lorebook, from_card: bool, *, share: bool) -> list[dict[str, Any]]:
    """``source_settings``; ``share``: an entry that has every template field and its uid is the
    writer's memoized native itself (the same settings, read-only) rather than a copy."""
    out = []
    for key, entry in world_entry_items(book, from_card=from_card):
        if isinstance(entry, dict):
            # st.filled(entry) with its uid, {**TEMPLATE, **MISSING_IN_WORLD, **entry, "uid": uid}: the same
            # settings (in another key order, which nothing reads) when the entry has every template field
            complete = _FILLED.keys() <= entry.keys()
            if share and complete and "uid" in entry:
                out.append(entry)
                continue
            uid = entry.get("uid", int(key) if key.isdigit() else key)  # ST keys a world entry by its object key
            if complete:
                filled = entry.copy()
            else:
                filled = _FILLED.copy()
                filled.update(entry)
            filled["uid"] = uid
            out.append(filled)
    return out


_FILLED = {**st.TEMPLATE, **st.MISSING_IN_WORLD}


def findings(source: Document, output: bytes, target_format: str) -> AppVerdict:
    return _findings(source, output, target_format, fast=True)


def _findings(source: Document, output: bytes, target_format: str, *, fast: bool) -> AppVerdict:
    """``fast``: a card book entry whose compared settings ``card_entry_values`` gives identical to the
    source's (the usual case) is counted at once, any other goes through ``_compare_entry`` as
    ``card_entry_settings`` converts it; False runs the model as spelled out (``convert_character_book``,
    then every entry through ``_compare_entry``). The same verdict (tests/formats/test_sillytavern_app_fast.py)."""
    imported = st.import_of(output)
    verdict = AppVerdict(st.APP)
    if imported is None:
        verdict.notes.append(f"SillyTavern does not import a {target_format} file as a character or a world")
        return verdict
    loaded, book = imported
    verdict.via = loaded.via
    verdict.notes.extend(loaded.notes)
    plan = memoized("st_source_plan", source, (), lambda: _plan(source))  # same for every target, read-only
    if book is None:
        _compare_entries(source, plan, loaded.entries, None, loaded.via, verdict)
    elif fast and plan.book is not None and plan.book.settles(book["entries"]):
        verdict.compared += plan.book.compared  # every entry loads with the source's settings (the usual case)
    else:
        card = st.card_entries(book)
        # fast: converted entry by entry in _compare_entries
        _compare_entries(source, plan, card if fast else st.convert_character_book(book),
                         st.card_uids(card) if fast else None, loaded.via, verdict)
    if source.card is not None and get_format(target_format).platform == st.APP:
        _position_fallbacks(_raw(source), verdict)
    return verdict


def _compare_entries(
    source: Document, plan: _Plan, got_entries: list[dict[str, Any]], uids: list[Any] | None, via: str,
    verdict: AppVerdict,
) -> None:
    """The loaded entries against the source's settings; ``uids``: ``got_entries`` are the card
    entries ``convertCharacterBook`` converts (each counted at once when its ``_Check`` holds)."""
    mine = plan.settings
    if len(got_entries) != len(mine):
        verdict.notes.append(
            f"SillyTavern loads {len(got_entries)} entries from the output; the source has {len(mine)}"
        )
    raw: list[dict[str, Any]] | None = None
    for index, (want, got) in enumerate(zip(mine, got_entries, strict=False)):
        if uids is not None:
            fields, at, wants, key = plan.checks[index]
            if key is not None and _identical_to(
                key, wants, tuple(map(st.card_entry_values(got, index, uids[index]).__getitem__, at))
            ):
                verdict.compared += len(fields)  # every setting came back as it was
                continue
            got = st.card_entry_settings(got, index, uids[index])
        if raw is None:
            raw = _raw(source)
        _compare_entry(index, want, got, raw[index] if index < len(raw) else {}, via, verdict)


def _raw(source: Document) -> list[dict[str, Any]]:
    return memoized("st_source_raw", source, (), lambda: _raw_entries(source))  # read-only, as the plan


_Check = tuple[tuple[str, ...], tuple[int, ...], tuple[Any, ...], "bytes | None"]
"""One source entry against a card entry ST converts (a plain tuple: one per entry of every source):
the settings ``_compare_entry`` compares, where ``card_entry_values`` gives those it sets, the
source's values there, and their marshal form (None: ``_identical`` cannot hold, e.g. a float, or a
compared setting the converter leaves at the template's value differs from it)."""


class _Plan:
    """Per source (shared by every target, read-only): the settings it stands for, the ``_BookCheck``
    of its entries (None: an entry it cannot settle) and each entry's ``_Check`` (made when asked for:
    only an output the book check does not settle needs them)."""

    def __init__(self, settings: list[dict[str, Any]], commented: list[bool]) -> None:
        self.settings = settings
        self.commented = commented
        self.book = _book_check(settings, commented)

    @functools.cached_property
    def checks(self) -> list[_Check]:
        return [_quick_check(want, c) for want, c in zip(self.settings, self.commented, strict=True)]


_READ_AT = {name: i for i, name in enumerate(st.CARD_READS)}


def _plan(source: Document) -> _Plan:
    book = source.book
    if book is None:
        return _Plan([], [])
    mine = _settings(book, source.card is not None, share=True)
    entries = book.entries
    count = len(entries)
    return _Plan(mine, [i < count and entries[i].has("comment") for i in range(len(mine))])


# --- every entry of a card book at once ------------------------------------------------


@dataclass(frozen=True)
class _BookCheck:
    """A card book's entries all at once: ``got(entries)`` reads, from every card entry, the raw values
    ``card_entry_values`` makes the compared settings of (``CARD_RAW``); ``expected`` is what they are
    when every entry gives the source's settings back as they are (``KEPT_AS_IS``): then each entry's
    ``_Check`` holds, as ``_findings`` would find one by one (tests/formats/test_sillytavern_app_fast.py)."""

    got: Callable[[list[Any]], Any]
    expected: Any
    key: bytes
    """``expected``'s marshal form (equal bytes: equal values of equal types at every depth)."""
    count: int
    compared: int
    """The settings compared over all entries (``_compare_entry``'s count)."""

    def settles(self, entries: list[Any]) -> bool:
        """Whether every entry of ``entries`` (a card book's) loads with the source's settings."""
        if len(entries) != self.count:
            return False
        try:
            got = self.got(entries)
        except (KeyError, TypeError):  # a key missing, or an entry or its extensions not an object
            return False
        try:
            return bool(got == self.expected) and marshal.dumps(got, 2) == self.key
        except ValueError:  # not JSON data
            return False


@dataclass(frozen=True)
class _EntryLayout:
    """For one entry shape (``_SHAPES``): the settings compared (``fields``), the raw card-entry values
    ``card_entry_values`` reads those it sets from (``top`` of the entry, ``enabled`` aside; ``ext`` of
    its extensions), where the source's values of them are, and whether they come back as they are."""

    fields: int
    get: Callable[[Any], tuple[Any, ...]]
    """The source's values of the settings read (``_Check``'s ``wants``)."""
    top: Callable[[Any], tuple[Any, ...]]
    ext: Callable[[Any], tuple[Any, ...]]
    want_top: Callable[[Any], tuple[Any, ...]]
    want_ext: Callable[[Any], tuple[Any, ...]]
    disabled: Callable[[Any], Any]
    typed: tuple[tuple[int, type], ...]
    not_null: tuple[int, ...]
    others: Callable[[Any], tuple[Any, ...]] | None
    """The source's values of the compared settings the converter leaves at the template's (None: none)."""
    template: tuple[Any, ...]
    kept: dict[tuple[type, ...], bool]
    """``keeps`` per type signature of ``wants`` (a handful per shape)."""

    def keeps(self, types: tuple[type, ...]) -> bool:
        """Whether ``wants`` of these types come back as they are from a card entry holding them
        (``KEPT_AS_IS``), and ``_marshalled`` keeps them (no float): a matter of their types only."""
        known = self.kept.get(types)
        if known is None:
            known = float not in types and all(types[i] is kind for i, kind in self.typed) \
                and all(types[i] is not type(None) for i in self.not_null)
            if len(self.kept) >= 64:
                self.kept.clear()
            self.kept[types] = known
        return known


def _getter(keys: list[Any]) -> Callable[[Any], tuple[Any, ...]]:
    """``itemgetter(*keys)``, always giving a tuple (itemgetter gives one item alone for one key)."""
    if len(keys) > 1:
        return operator.itemgetter(*keys)
    return lambda obj: tuple(obj[k] for k in keys)


_BOOK_SHAPES: dict[tuple[bool, bool, bool], _EntryLayout | None] = {}
"""``_entry_layout`` per entry shape (as ``_SHAPES``: at most eight)."""


def _shape_of(shape: tuple[bool, bool, bool], want: dict[str, Any]) -> _EntryLayout | None:
    if shape not in _BOOK_SHAPES:
        _BOOK_SHAPES[shape] = _entry_layout(_fields(want, shape[0]))
    return _BOOK_SHAPES[shape]


def _entry_layout(fields: tuple[str, ...]) -> _EntryLayout | None:
    """None when the book check cannot settle an entry of these fields: without ``disable`` (every
    shape has it, a template field) or with a float the converter leaves at the template's value."""
    _at, read, others = _layout(fields)
    template = tuple(map(st.TEMPLATE.get, others))
    if "disable" not in read or float in map(type, template):
        return None
    top = [i for i, name in enumerate(read) if not st.CARD_RAW[name][0] and name != "disable"]
    ext = [i for i, name in enumerate(read) if st.CARD_RAW[name][0]]
    kept = [(i, st.KEPT_AS_IS[name]) for i, name in enumerate(read) if name in st.KEPT_AS_IS]
    return _EntryLayout(
        fields=len(fields),
        get=_getter(list(read)),
        top=_getter([st.CARD_RAW[read[i]][1] for i in top]),
        ext=_getter([st.CARD_RAW[read[i]][1] for i in ext]),
        want_top=_getter(top),
        want_ext=_getter(ext),
        disabled=operator.itemgetter(read.index("disable")),
        typed=tuple((i, kind) for i, kind in kept if kind is not None),
        not_null=tuple(i for i, kind in kept if kind is None),
        others=_getter(list(others)) if others else None,
        template=template,
        kept={},
    )


_EXTENSIONS = operator.itemgetter("extensions")
_ENABLED = operator.itemgetter(st.CARD_RAW["disable"][1])
_Expected = tuple[list[tuple[Any, ...]], list[Any], list[tuple[Any, ...]]]
"""Per entry: the raw values at the entry's top, its ``enabled``, those in its extensions."""


def _book_check(settings: list[dict[str, Any]], commented: list[bool]) -> _BookCheck | None:
    """The ``_BookCheck`` of the source's entries; None when one of them cannot be settled that way
    (its ``_Check`` would have no marshal form, or its values would not come back as they are)."""
    shapes = list(zip(commented, map(operator.contains, settings, itertools.repeat("displayIndex")),
                      map(operator.contains, settings, itertools.repeat("characterFilter")), strict=True))
    if len(set(shapes)) == 1:  # the usual case: one shape, read by C-level maps
        layout = _shape_of(shapes[0], settings[0])
        found = _expected_one(layout, settings) if layout is not None else None
        got = _read_one(layout) if layout is not None else None
    else:
        layouts = [_shape_of(shape, want) for shape, want in zip(shapes, settings, strict=True)]
        found = _expected_each(layouts, settings) if None not in layouts else None
        got = _read_each(layouts)  # type: ignore[arg-type]
    if found is None or got is None:
        return None
    expected, compared, others, template = found
    try:
        if others != template or marshal.dumps(others, 2) != marshal.dumps(template, 2):
            return None  # each entry's others identical to the template's (_check), all at once
        key = marshal.dumps(expected, 2)
    except ValueError:  # not JSON data
        return None
    return _BookCheck(got, expected, key, len(settings), compared)


_Found = tuple[_Expected, int, list[tuple[Any, ...]], list[tuple[Any, ...]]]


def _expected_one(layout: _EntryLayout, settings: list[dict[str, Any]]) -> _Found | None:
    """``_Expected`` of entries of one layout, the settings compared, their others and the template's."""
    try:
        wants = list(map(layout.get, settings))
        others = list(map(layout.others, settings)) if layout.others is not None else []
    except KeyError:  # a template-filled entry has every field
        return None
    if not all(map(layout.keeps, set(map(tuple, map(map, itertools.repeat(type), wants))))):
        return None
    expected = (list(map(layout.want_top, wants)), list(map(operator.not_, map(layout.disabled, wants))),
                list(map(layout.want_ext, wants)))
    return expected, layout.fields * len(settings), others, [layout.template] * len(others)


def _expected_each(layouts: list[_EntryLayout], settings: list[dict[str, Any]]) -> _Found | None:
    """``_expected_one`` of entries of several layouts, one by one."""
    tops, enabled, exts, others, template = [], [], [], [], []
    for layout, want in zip(layouts, settings, strict=True):
        try:
            wants = layout.get(want)
            if layout.others is not None:
                others.append(layout.others(want))
                template.append(layout.template)
        except KeyError:
            return None
        if not layout.keeps(tuple(map(type, wants))):
            return None
        tops.append(layout.want_top(wants))
        enabled.append(not layout.disabled(wants))
        exts.append(layout.want_ext(wants))
    return (tops, enabled, exts), sum(layout.fields for layout in layouts), others, template


def _read_one(layout: _EntryLayout) -> Callable[[list[Any]], _Expected]:
    top, ext = layout.top, layout.ext
    return lambda entries: (list(map(top, entries)), list(map(_ENABLED, entries)),
                            list(map(ext, map(_EXTENSIONS, entries))))


def _read_each(layouts: list[_EntryLayout]) -> Callable[[list[Any]], _Expected]:
    def read(entries: list[Any]) -> _Expected:
        pairs = list(zip(layouts, entries, strict=True))
        return ([lo.top(e) for lo, e in pairs], list(map(_ENABLED, entries)),
                [lo.ext(e["extensions"]) for lo, e in pairs])
    return read


def _check(want: dict[str, Any], fields: tuple[str, ...]) -> _Check:
    """The general ``_Check`` (``_quick_check`` gives the same, tests/formats/test_sillytavern_app_fast.py)."""
    at, read, others = _layout(fields)
    wants = tuple(map(want.get, read))
    key = _marshalled(wants)
    if key is not None and others and not _identical(tuple(map(want.get, others)), tuple(map(st.TEMPLATE.get, others))):
        key = None  # the converter leaves these at the template's value: identical only if the source's are
    return fields, at, wants, key


def _quick_check(want: dict[str, Any], commented: bool) -> _Check:
    """``_check(want, _fields(want, commented))`` with its field layout looked up once per shape
    (with or without comment, display index, character filter) rather than built per entry."""
    shape = (commented, "displayIndex" in want, "characterFilter" in want)
    layout = _SHAPES.get(shape)
    if layout is None:
        layout = _SHAPES[shape] = _shape_layout(_fields(want, commented))
    fields, at, read, get, others = layout
    try:
        wants = get(want)  # a template-filled entry has every field read
    except KeyError:
        wants = tuple(map(want.get, read))
    key = _marshalled(wants)
    if key is not None and others and not _identical(tuple(map(want.get, others)), tuple(map(st.TEMPLATE.get, others))):
        key = None  # as in _check
    return fields, at, wants, key


_Shape = tuple[tuple[str, ...], tuple[int, ...], tuple[str, ...], Callable[[Any], Any], tuple[str, ...]]
_SHAPES: dict[tuple[bool, bool, bool], _Shape] = {}
"""``_fields``, ``_layout`` and a getter of the fields read, per entry shape: at most eight, so unbounded."""


def _shape_layout(fields: tuple[str, ...]) -> _Shape:
    at, read, others = _layout(fields)
    # itemgetter gives a tuple for two or more names (a shape always reads uid, key, content, ...)
    get = operator.itemgetter(*read) if len(read) > 1 else (lambda d: tuple(d[n] for n in read))
    return fields, at, read, get, others


@functools.lru_cache(maxsize=64)
def _layout(fields: tuple[str, ...]) -> tuple[tuple[int, ...], tuple[str, ...], tuple[str, ...]]:
    """Where ``card_entry_values`` gives each of ``fields`` it sets, those fields, and the others
    (a handful of field lists: with or without comment, display index, character filter)."""
    read = tuple(n for n in fields if n in _READ_AT)
    return tuple(_READ_AT[n] for n in read), read, tuple(n for n in fields if n not in _READ_AT)


def _fields(want: dict[str, Any], commented: bool) -> tuple[str, ...]:
    """The settings ``_compare_entry`` compares (``commented``: ``"comment" in raw``, which is
    ``entry.has("comment")``: ``dump()`` holds exactly the fields set, and ``comment`` has no alias)."""
    names = _NAMES_WITH_COMMENT if commented else _NAMES
    extra = [n for n in ("displayIndex", "characterFilter") if n in want]
    return (*names, *extra) if extra else names


def _marshalled(values: tuple[Any, ...]) -> bytes | None:
    """``values`` in the form ``_identical`` compares; None when ``_identical`` never holds for them."""
    if float in map(type, values):
        return None
    try:
        return marshal.dumps(values, 2)
    except ValueError:
        return None


def _identical_to(key: bytes, want: tuple[Any, ...], got: tuple[Any, ...]) -> bool:
    """``_identical(want, got)`` with ``want``'s marshal form already made (``key``, not None)."""
    if want != got:
        return False
    try:
        return marshal.dumps(got, 2) == key
    except ValueError:
        return False


def _raw_entries(source: Document) -> list[dict[str, Any]]:
    return [e.dump() for e in source.book.entries] if source.book is not None else []


SPEC_POSITIONS = ("before_char", "after_char")


def _position_fallbacks(raw: list[dict[str, Any]], verdict: Any) -> None:
    """A card entry whose spec ``position`` is missing or not a spec value, and which has no ST
    position of its own: ``convertCharacterBook`` puts it after the character (1), and so does
    an output for SillyTavern. A missing one is a note; an unknown value is an approximation."""
    missing = 0
    for index, entry in enumerate(raw):
        ns = ((entry.get("extensions") or {}).get("sillytavern") or {}).get("entry") or {}
        flat = (entry.get("extensions") or {}).get("position")
        if "insertion_position" in ns or flat is not None:
            continue
        if "position" not in entry:
            missing += 1
        elif entry["position"] not in SPEC_POSITIONS:
            detail = (f"SillyTavern reads position {json.dumps(entry['position'])} as after the character (1): "
                      "convertCharacterBook places anything but 'before_char' there; written as ST position 1")
            verdict.findings.append(Finding(("entry", index, "position"), "approximated", detail))
    if missing:
        verdict.notes.append(
            f"{missing} entr{'y has' if missing == 1 else 'ies have'} no position: SillyTavern's importer "
            "(convertCharacterBook) puts them after the character (position 1), and so does this output"
        )


def _compare_entry(
    index: int, want: dict[str, Any], got: dict[str, Any], raw: dict[str, Any], via: str, verdict: Any
) -> None:
    names = _NAMES_WITH_COMMENT if "comment" in raw else _NAMES
    extra = [n for n in ("displayIndex", "characterFilter") if n in want]
    fields = (*names, *extra) if extra else names
    if _identical(tuple(map(want.get, fields)), tuple(map(got.get, fields))):
        verdict.compared += len(fields)  # the usual case: every setting came back as it was
        return
    for name in fields:
        verdict.compared += 1
        a, b = want.get(name), got.get(name, _ABSENT)
        if type(a) is type(b) and type(a) in _PLAIN and a == b:
            continue  # equal strings, ints or booleans: _norm maps both alike, and same() holds
        a, b = _norm(name, a), _norm(name, b)
        if same(a, b):
            continue
        verdict.differing += 1
        fate = "lost" if name == "characterFilter" else "approximated"
        detail = (f"SillyTavern loads {name} = {_show(name, b)} from this output ({via}); "
                  f"the source's is {_show(name, a)}")
        if name == "characterFilter":
            detail += " (its card import never reads a character filter; it stays unused in the entry's extensions)"
        verdict.findings.append(Finding(_path(index, name, raw), fate, detail))


def _identical(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Equal and of the same types at every depth (marshal, version 2: no back-references, tells
    1, 1.0 and true apart), so ``same`` holds for each pair; a float is left to ``same`` (NaN)."""
    if a != b or float in map(type, a):
        return False
    try:
        return marshal.dumps(a, 2) == marshal.dumps(b, 2)
    except ValueError:  # not JSON data: compared one by one
        return False


_ABSENT: Any = None
_PLAIN = frozenset({str, int, bool})
# The template's settings compared for every entry (built once: st.TEMPLATE is a constant).
_NAMES_WITH_COMMENT = (*(n for n in st.TEMPLATE if n not in SKIPPED), "uid")
_NAMES = tuple(n for n in _NAMES_WITH_COMMENT if n != "comment")


def _norm(name: str, value: Any) -> Any:
    if value is None and st.TEMPLATE.get(name) is not None:
        return st.TEMPLATE[name]
    if name == "delayUntilRecursion" and isinstance(value, bool):
        return int(value)
    if name == "characterFilter" and isinstance(value, dict) and not value.get("names") and not value.get("tags"):
        return None  # an empty filter filters nothing
    if name in ("sticky", "cooldown", "delay") and value == 0 and not isinstance(value, bool):
        return None  # legacy files hold 0: no timed effect, as null (ST tests them for truthiness)
    return value


def same(a: Any, b: Any) -> bool:
    """JSON equality as JavaScript sees numbers (1 == 1.0) but telling true from 1."""
    if type(a) is type(b) and (a is None or isinstance(a, str | int | float)):
        return bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if type(a) is list and type(b) is list and all(type(x) is str for x in a) and all(type(x) is str for x in b):
        return a == b  # lists of strings (keys): what the JSON comparison below would say, without encoding
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _show(name: str, value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    text = text if len(text) <= 60 else text[:57] + "..."
    if name == "position" and isinstance(value, int):
        text += f" ({POSITION_NAMES.get(value, '?')})"
    return text


def _path(index: int, name: str, raw: dict[str, Any]) -> tuple[Any, ...]:
    candidates = _canonical_paths().get(name, (name,))
    for candidate in candidates:
        parts = candidate.split(".")
        node: Any = raw
        for part in parts:
            node = node.get(part, _MISSING) if isinstance(node, dict) else _MISSING
        if node is not _MISSING:
            return ("entry", index, *parts)
    return ("entry", index, *candidates[0].split("."))


_MISSING: Any = object()


def docs_table() -> list[str]:
    """docs/fidelity.md: what ``convertCharacterBook`` reads from each card entry, with its fallbacks."""
    lines = [
        "What `convertCharacterBook` reads from each card entry (every card-book writer writes these flat "
        "`extensions` keys, as SillyTavern's exporter `convertWorldInfoToCharacterBook` does):",
        "",
        "| ST field | card entry | fallback when absent or null |",
        "|---|---|---|",
        "| `uid` | `id` | a free number |",
        "| `key` / `keysecondary` | `keys` / `secondary_keys` | none / `[]` |",
        "| `comment` / `content` | `comment` / `content` | `''` / none |",
        "| `constant` / `selective` | `constant` / `selective` | `false` / `false` |",
        "| `order` | `insertion_order` | none (undefined) |",
        "| `disable` | `!enabled` | a missing `enabled` disables the entry |",
        "| `position` | `extensions.position` | `position === 'before_char'` ? 0 : 1 |",
        "| `displayIndex` | `extensions.display_index` | the entry's index |",
        "| `triggers` | `extensions.triggers` | `[]` |",
    ]
    for name, (flat, fallback) in st.FLAT_READS.items():
        lines.append(f"| `{name}` | `extensions.{flat}` | `{json.dumps(fallback)}` |")
    return [*lines, ""]


MODEL = AppModel(
    findings, docs=(st.__doc__, __doc__), table=docs_table, judges_own_formats=True, judges_generic=True
)
"""SillyTavern's app model (``Platform.app_check``): it judges its own card and world formats too,
and a conversion between generic CCv3 files (the app most people load them into)."""
