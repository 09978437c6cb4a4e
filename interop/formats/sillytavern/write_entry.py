"""Canonical entry -> native world entry: one writer per table ``transform``.

Without the template a writer gives back only what the entry holds (``ABSENT`` otherwise);
with it, it fills what ST's importers fill (new-entry template defaults and their fallbacks).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...jsonvalue import ABSENT
from ...model import LorebookEntry, as_bool
from ...model.stash import Stash
from .fields import FIELDS, NATIVE_OF_REQUIRED, WorldField, copy_value
from .keys import as_regex_key
from .model import ADDED_FIELDS, NAMESPACE, OMIT, UNKNOWN, VERBATIM, entry_stash, foreign_extensions

_IMMUTABLE = frozenset({str, int, float, bool, type(None)})  # copy_value returns these as they are


@dataclass(frozen=True)
class Fill:
    """How a book that is not a world file is filled the way ST's importers fill it.

    ``from_card``: the book is a card's ``character_book``, imported by ``convertCharacterBook``
    (public/scripts/world-info.js), whose position fallback is 1 (after char) for anything but
    ``'before_char'``; ST's NovelAI/Agnai/Risu converters put entries at 0 (before char).
    ``plain_keys``: the entry's ``use_regex`` is ST's exporter constant (``true`` on every entry of
    ``convertWorldInfoToCharacterBook``), so its plain keys stay plain.
    """

    from_card: bool = False
    plain_keys: bool = False


@dataclass(slots=True)
class _View:
    """One entry being written: computed once per entry, read by every field's writer."""

    entry: LorebookEntry
    ns: dict[str, Any]
    template: bool
    index: int
    fill: Fill
    top: set[str]
    """The entry's set top-level fields (``model_fields_set`` and extras)."""

    def missing(self, filled: Any) -> Any:
        """A field the entry lacks: the template's value, or absent without the template."""
        return filled if self.template else ABSENT


def _write_copy_top(field: WorldField, view: _View) -> Any:
    """A ``copy`` field at the entry's top level (``_writer_of`` picks top or namespace once per field)."""
    if field.canonical in view.top:
        value = getattr(view.entry, field.canonical, None)
        if value is not None or not _null_takes_fallback(field, view):
            return value if field.native != "key" else _with_regex_keys(field, view, value)
    return _template_value(field, view) if view.template else ABSENT


def _write_copy_ns(field: WorldField, view: _View) -> Any:
    """A ``copy`` field kept in our namespace."""
    key = field.ns_key
    if key in view.ns:
        value = view.ns[key]
        if value is not None or not _null_takes_fallback(field, view):
            return value if field.native != "key" else _with_regex_keys(field, view, value)
    return _template_value(field, view) if view.template else ABSENT


def _null_takes_fallback(field: WorldField, view: _View) -> bool:
    """ST's importer reads these with `??` / `||`: a null takes the template's value."""
    return view.template and (field.default is not None or not field.has_default)


def _with_regex_keys(field: WorldField, view: _View, value: Any) -> Any:
    """Keys of a ``use_regex`` entry written as ST regexes (ST has no per-entry regex flag)."""
    entry = view.entry
    if field.native != "key" or not view.template or entry.use_regex is not True or not isinstance(value, list):
        return value
    if view.fill.plain_keys:
        return value
    cs = entry.case_sensitive is True
    return [as_regex_key(k, cs) if isinstance(k, str) and k.strip() else k for k in value]


_FROM_ENTRY_FIELDS = ("position", "comment", "addMemo", "displayIndex", "uid")
"""The fields whose template value ``_template_value`` computes from the entry (keep in step with it)."""


def _template_value(field: WorldField, view: _View) -> Any:
    """What ST's importer fills for a field the entry lacks (for a field not in ``_FROM_ENTRY_FIELDS``,
    the table's template default: ``_PLAN`` holds it)."""
    entry, fill, native = view.entry, view.fill, field.native
    if native == "position":
        return _position_fallback(entry, fill)
    if native in ("comment", "addMemo"):
        named = not fill.from_card and isinstance(entry.name, str) and bool(entry.name.strip())
        if native == "addMemo":
            return bool(entry.comment) or named
        if named:
            return entry.name  # ST's NovelAI importer: comment <- displayName (our `name`); a card's is ignored
    elif native in ("displayIndex", "uid"):
        return view.index
    return field.template_default(for_card=True) if field.has_default else ABSENT


def _position_fallback(entry: LorebookEntry, fill: Fill) -> int:
    if fill.from_card:
        return 0 if entry.position == "before_char" else 1
    return 1 if entry.position == "after_char" else 0


def _write_invert(field: WorldField, view: _View) -> Any:
    if "enabled" in view.top and view.entry.enabled is not None:
        return not as_bool(view.entry.enabled, True)
    return view.missing(False)


def _write_match(field: WorldField, view: _View) -> Any:
    sources = view.ns.get("additional_matching_sources")
    if isinstance(sources, list):
        return field.source in sources
    return view.missing(False)


def _write_recursion(field: WorldField, view: _View) -> Any:
    for name in ("recursion_level", "delay_until_recursion"):
        if name in view.ns and not (view.template and view.ns[name] is None):
            return view.ns[name]
    return view.missing(False)


def _write_group(field: WorldField, view: _View) -> Any:
    ns = view.ns
    if "group_text" in ns:
        return ns["group_text"]
    if "inclusion_groups" in ns and not (view.template and ns["inclusion_groups"] is None):
        groups = ns["inclusion_groups"]
        if isinstance(groups, list) and all(isinstance(g, str) for g in groups):
            return ",".join(groups)
        return groups
    return view.missing("")


def _write_case(field: WorldField, view: _View) -> Any:
    if "case_sensitive" in view.top and isinstance(view.entry.case_sensitive, bool):
        return view.entry.case_sensitive
    if "case_sensitive" in view.ns:
        return view.ns["case_sensitive"]
    return view.missing(None)


def _write_filter(field: WorldField, view: _View) -> Any:
    return filter_to_native(view.ns["character_filter"]) if "character_filter" in view.ns else ABSENT


def _write_extensions(field: WorldField, view: _View) -> Any:
    if view.template or view.ns.get("has_extensions") is True:
        return foreign_extensions(view.entry.extensions)
    return ABSENT


_WRITERS: dict[str, Callable[[WorldField, _View], Any]] = {
    "invert": _write_invert,
    "match": _write_match,
    "recursion": _write_recursion,
    "group": _write_group,
    "case": _write_case,
    "filter": _write_filter,
    "extensions": _write_extensions,
}


def native_value(field: WorldField, view: _View) -> Any:
    """The native value of ``field``, or ``ABSENT``."""
    return _writer_of(field)(field, view)


def _writer_of(field: WorldField) -> Callable[[WorldField, _View], Any]:
    if field.transform == "copy":
        return _write_copy_top if field.ns_key is None else _write_copy_ns
    writer = _WRITERS.get(field.transform)
    if writer is None:
        raise AssertionError(f"unknown transform {field.transform!r} in mappings/sillytavern.json")  # table bug
    return writer


_FROM_ENTRY = object()
"""A template value that depends on the entry (``_template_value``'s special fields)."""


def _fixed_template(field: WorldField) -> Any:
    """``_template_value`` of a field whose template value is the same for every entry, else ``_FROM_ENTRY``."""
    if field.native in _FROM_ENTRY_FIELDS:
        return _FROM_ENTRY
    return field.template_default(for_card=True) if field.has_default else ABSENT


def _plan_row(
    field: WorldField,
) -> tuple[WorldField, Callable[[WorldField, _View], Any], str, str | None, Any, bool]:
    """A field, its writer, its native name, its namespace key if it is a ``copy`` field kept in our
    namespace (absent there: the field is not in the entry), its template value when fixed, and
    whether a null takes the template's value (``_null_takes_fallback`` with the template)."""
    writer = _writer_of(field)
    ns_key = field.ns_key if writer is _write_copy_ns else None
    null_fallback = field.default is not None or not field.has_default
    return field, writer, field.native, ns_key, _fixed_template(field), null_fallback


_PLAN = tuple(_plan_row(field) for field in FIELDS)
"""Each table field resolved once: ``native_from_entry`` runs for every entry twice."""


def filter_to_native(value: Any) -> Any:
    """Our ``{mode, values, tags}`` back as ST's ``characterFilter {isExclude, names, tags}``."""
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for name, item in value.items():
        if name == "mode":
            out["isExclude"] = item == "exclude" if item in ("exclude", "include") else item
        elif name == "values":
            out["names"] = item
        elif name in ("native_mode", "native_values"):
            out[name[len("native_"):]] = item
        else:
            out[name] = item
    return out


def native_from_entry(entry: LorebookEntry, template: bool, index: int, fill: Fill = Fill()) -> dict[str, Any]:
    """The native world entry for ``entry`` (``template``: filled the way ST's importers fill it)."""
    ns = entry.ext(NAMESPACE).get("entry")
    # model_fields_set / model_extra without their (Python-level) properties: read for every entry
    top = entry.__pydantic_fields_set__  # only read (``in``): the entry's own set, with the extra keys if any
    extra = entry.__pydantic_extra__
    if extra:
        top = top | extra.keys()
    view = _View(entry, ns if isinstance(ns, dict) else {}, template, index, fill, top)
    layout = _layout_of(view.ns) if template else None
    return _by_layout(view, layout) if layout is not None else native_by_plan(view)


def native_by_plan(view: _View) -> dict[str, Any]:
    """``native_from_entry`` field by field (the general path)."""
    ns, template = view.ns, view.template
    out: dict[str, Any] = {}
    for field, writer, native, ns_key, fixed, null_fallback in _PLAN:
        if ns_key is not None:  # what _write_copy_ns gives, without the call (most fields)
            value = ns.get(ns_key, ABSENT)
            if value is ABSENT or (value is None and template and null_fallback):
                if not template:
                    continue
                value = fixed if fixed is not _FROM_ENTRY else _template_value(field, view)
        else:
            value = writer(field, view)
        if value is not ABSENT:
            out[native] = value if value.__class__ in _IMMUTABLE else copy_value(value)
    _apply_records(out, ns, template)
    return out


_NS_ONLY = (_write_match, _write_recursion, _write_group, _write_filter)
"""Writers that read nothing but the namespace (and the template flag)."""
_RECORDS = frozenset({ADDED_FIELDS, VERBATIM, OMIT, UNKNOWN})
"""The namespace keys ``_apply_records`` reads."""
Writer = Callable[[WorldField, _View], Any]


@dataclass(frozen=True, slots=True)
class _Layout:
    """``native_by_plan`` with the template, worked out once for one namespace: the value of every
    native that only the namespace decides (table order; an entry-dependent or mutable one holds
    ``_FROM_ENTRY``), and the writers of the others, run per entry."""

    fixed: dict[str, Any]
    depends: tuple[tuple[WorldField, Writer, str, int, str | None, bool, Any], ...]
    """Each: the field, its writer, its native name, how ``_by_layout`` gets the value (``_CALL``: the
    writer; the others: that writer's work inline, the same value), the canonical name and whether a
    null takes the template's value (``_TOP``), and the value to copy (``_COPY``)."""
    records: bool
    tops: tuple[tuple[str, str, bool, bool, WorldField, Writer], ...] = ()
    """The ``_TOP`` rows of ``depends`` whose canonical name is a declared entry field (read from the
    entry's ``__dict__``): canonical name, native name, null takes the template's, native is ``key``,
    field, writer. ``rest``: the other rows. ``_by_layout`` runs these two; ``depends`` stays the plan."""
    rest: tuple[tuple[WorldField, Writer, str, int, str | None, bool, Any], ...] = ()

    def __post_init__(self) -> None:
        tops = tuple(
            (canonical, native, null_fallback, native == "key", field, writer)
            for field, writer, native, way, canonical, null_fallback, _ in self.depends
            if way == _TOP and canonical in _DECLARED
        )
        rest = tuple(row for row in self.depends if not (row[3] == _TOP and row[4] in _DECLARED))
        object.__setattr__(self, "tops", tops)
        object.__setattr__(self, "rest", rest)


_CALL, _TOP, _COPY, _INDEX, _POSITION, _INVERT, _CASE, _EXTENSIONS = range(8)
"""``_by_layout``'s ways to a value: the writer; ``_write_copy_top``; a copy of a fixed list or object;
``_template_value`` of ``uid``/``displayIndex`` (the index) or ``position``; ``_write_invert``;
``_write_case``; ``_write_extensions`` (always with the template)."""
_INLINE = {_write_invert: _INVERT, _write_case: _CASE, _write_extensions: _EXTENSIONS}
_DECLARED = frozenset(LorebookEntry.model_fields)
"""Canonical names kept in an entry's ``__dict__`` (``getattr`` finds them there)."""


def _layout(ns: dict[str, Any]) -> _Layout:
    probe = _View(LorebookEntry(), ns, True, 0, Fill(), set())  # for the namespace-only writers
    fixed_values: dict[str, Any] = {}
    depends: list[tuple[WorldField, Writer, str, int, str | None, bool, Any]] = []
    for field, writer, native, ns_key, fixed, null_fallback in _PLAN:
        if ns_key is not None:  # native_by_plan's namespace copy
            value = ns.get(ns_key, ABSENT)
            if value is ABSENT or (value is None and null_fallback):
                if fixed is _FROM_ENTRY:
                    fixed_values[native] = _FROM_ENTRY
                    way = {"uid": _INDEX, "displayIndex": _INDEX, "position": _POSITION}.get(native, _CALL)
                    depends.append((field, _template_value, native, way, None, False, None))
                    continue
                value = fixed
        elif writer in _NS_ONLY:
            value = writer(field, probe)
        else:
            fixed_values[native] = _FROM_ENTRY
            if writer is _write_copy_top:
                depends.append((field, writer, native, _TOP, field.canonical, null_fallback, None))
            else:
                depends.append((field, writer, native, _INLINE.get(writer, _CALL), None, False, None))
            continue
        if value is ABSENT:
            continue
        if value.__class__ in _IMMUTABLE:
            fixed_values[native] = value
        else:  # a list or object: a new copy for every entry
            fixed_values[native] = _FROM_ENTRY
            value = copy_value(value)
            depends.append((field, _copy_fixed(value), native, _COPY, None, False, value))
    return _Layout(fixed_values, tuple(depends), not _RECORDS.isdisjoint(ns))


def _copy_fixed(value: Any) -> Writer:
    return lambda field, view: copy_value(value)


_PLAIN = _layout({})
"""The layout of an entry without our namespace (most entries of cards not made by SillyTavern)."""
_LAYOUTS: dict[bytes, _Layout] = {}
"""Layouts by the namespace's ``marshal`` bytes (which give the namespace back exactly). Bounded; the
entries of an ST export share a few namespaces (all their flat keys but ``display_index`` alike)."""
_LAYOUT_LIMIT = 1024
_KEY_BYTES = 4096
"""Namespaces up to this size (marshal bytes) are kept (a typical one is ~500): the memo lives for the
process, so a key's size bounds its memory (a namespace may hold a value of many megabytes)."""


def _layout_of(ns: dict[str, Any]) -> _Layout | None:
    if not ns:
        return _PLAIN
    try:
        key = marshal.dumps(ns)
    except ValueError:  # a value marshal does not know (never from a JSON file)
        return None
    if len(key) > _KEY_BYTES:
        return None  # the general path: not kept alive by the memo
    layout = _LAYOUTS.get(key)
    if layout is None:
        if len(_LAYOUTS) >= _LAYOUT_LIMIT:
            _LAYOUTS.clear()
        layout = _LAYOUTS[key] = _layout(ns)
    return layout


def _by_layout(view: _View, layout: _Layout) -> dict[str, Any]:
    """``native_by_plan`` of a template-filled entry: the layout's fixed values (key order kept), then
    the fields that depend on the entry, then the namespace's records."""
    out = dict(layout.fixed)  # the key order: the loops below only set or delete these keys
    entry, top = view.entry, view.top
    _set_tops(out, view, layout.tops)
    for field, writer, native, way, canonical, null_fallback, fixed in layout.rest:
        # each writer's common case inline (a call per field per entry was most of the time)
        if way == _TOP:
            if canonical in top:
                # the entry's own value: the template is on, so a null takes the template's value
                # where ``null_fallback`` says so; keys are rewritten only for a use_regex entry
                value = getattr(entry, canonical, None)
                if (value is not None or not null_fallback) and (native != "key" or entry.use_regex is not True):
                    out[native] = value if value.__class__ in _IMMUTABLE else copy_value(value)
                    continue
            value = writer(field, view)
        elif way == _COPY:
            out[native] = copy_value(fixed)
            continue
        elif way == _INDEX:
            out[native] = view.index
            continue
        elif way == _POSITION:
            out[native] = _position_fallback(entry, view.fill)
            continue
        elif way == _INVERT:
            enabled = entry.enabled if "enabled" in top else None
            out[native] = False if enabled is None else not as_bool(enabled, True)
            continue
        elif way == _CASE:
            value = entry.case_sensitive if "case_sensitive" in top else None
            if value.__class__ is not bool:
                value = view.ns.get("case_sensitive")  # None when absent (``view.missing(None)``)
        elif way == _EXTENSIONS:
            value = foreign_extensions(entry.extensions)
        else:
            value = writer(field, view)
        if value is ABSENT:
            del out[native]
        else:
            out[native] = value if value.__class__ in _IMMUTABLE else copy_value(value)
    if layout.records:
        _apply_records(out, view.ns, True)
    return out


_Top = tuple[str, str, bool, bool, WorldField, Writer]


def _set_tops(out: dict[str, Any], view: _View, tops: tuple[_Top, ...]) -> None:
    """``_by_layout``'s ``_write_copy_top`` fields: in the common case the entry's own value (the template
    is on, so a null takes the template's value where ``null_fallback`` says so; keys are rewritten for a
    use_regex entry), else the writer's."""
    entry, top = view.entry, view.top
    values = entry.__dict__
    key_as_is = entry.use_regex is not True
    for canonical, native, null_fallback, is_key, field, writer in tops:
        if canonical in top:
            value = values[canonical]
            if (value is not None or not null_fallback) and (key_as_is or not is_key):
                out[native] = value if value.__class__ in _IMMUTABLE else copy_value(value)
                continue
        value = writer(field, view)
        if value is ABSENT:
            del out[native]
        else:
            out[native] = value if value.__class__ in _IMMUTABLE else copy_value(value)


def _apply_records(out: dict[str, Any], ns: dict[str, Any], template: bool) -> None:
    """The namespace's records of what the typed fields cannot say: added, unknown, verbatim, omitted fields."""
    added = ns.get(ADDED_FIELDS)
    if isinstance(added, list) and not template:  # spec fields a card writer added to a world entry
        # a damaged record may hold lists or objects: only names can name a field
        names = [NATIVE_OF_REQUIRED.get(name, name) or "" for name in added if isinstance(name, str)]
        Stash(absent=names).restore(out)
    stash = entry_stash(ns)
    unknown = ns.get(UNKNOWN)
    if isinstance(unknown, dict):  # native fields the table does not know: kept like verbatim ones
        stash.keep = {**unknown, **stash.keep}
    if template:
        stash.absent = []  # an import would fill them: only a world file lacks them
    # A field in both records stays out, as it always has (absent wins over keep).
    stash.keep = {k: v for k, v in stash.keep.items() if k not in stash.absent}
    stash.restore(out)
