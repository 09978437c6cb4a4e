"""The fidelity report: the fate of every source field in one conversion.

Computed from the data (docs/fidelity.md, "How the report is computed"):
write the target, read it back with the target's own reader, compare the two
canonical views field by field. A field that did not come back (or came back
different) is ``lost``, or ``approximated`` when the target's mapping table
says so. A field that came back equal takes the fate of the table's most
specific rule (``kept``/``translated``/``stashed``; ``approximated``/``lost``
when the table knows the real application ignores or changes it), ``kept``
when no rule matches. The target platform's hazards (``hooks.findings``) can then make a fate worse.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import marshal
import operator
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

try:
    import orjson
except ImportError:  # optional: the stdlib writes the same JSON, slower
    orjson = None  # type: ignore[assignment]

from ..api import detect_all, read_bytes, write_with_journal
from ..appmodel.paths import Path, PathCache, pattern_segments, render
from ..cardkit.card_dates import DATE_FIELDS, record_of
from ..document import Document
from ..errors import FormatError, InteropError
from ..mappings import FATES, Fate, TargetRule
from ..memo import memoized
from ..platform.registry import get_format
from ..transforms.risu_card_line import CARD_TEXT
from .added import added_fields
from .apps import AppVerdict, app_verdicts, read_output
from .behaviour import behaviour_items
from .container_diff import ContainerResult
from .field_diff import changed_fields, describe_change, short, shown_uri, strict_equal
from .hooks import Finding, findings
from .items import FidelityItem
from .journal_fold import Finding as JournalFinding
from .journal_fold import Journal, fold_added, hazard_findings
from .names import entry_names
from .output_pair import Compared
from .rules import FATE_ORDER, RuleBook, rule_book
from .view import MISSING, CanonicalView, leaves
from .world_readback import found_in_world

DEEPDIFF_PER_FIELD = 5
"""How many changed values of one field (pattern form) DeepDiff describes per report."""

SCHEMA_VERSION = "1.2"
"""Version of the machine report (docs/fidelity-report.schema.json). Bump the
major part when a field changes meaning or disappears, the minor part when one is added."""


@dataclass
class FidelityReport:
    source_format: str
    target_format: str
    source_kind: str
    target_kind: str
    target_platform: str
    items: list[FidelityItem]
    source_file: str | None = None
    output_size: int = 0
    verified: bool = True
    """False when the target format cannot be read back: fates come from the tables only."""
    warnings: list[str] = field(default_factory=list)
    apps: list[AppVerdict] = field(default_factory=list)
    """What each target application loads from the output, compared with the source (``fidelity.apps``)."""
    added: list[str] = field(default_factory=list)
    """Fields the output has and the source lacked (e.g. V3-required entry fields), with their values."""
    entry_names: list[str] = field(default_factory=list)
    """The source's entries as a user knows them (comment or title, else keys, else ``#index``)."""
    journal: Journal | None = None
    """What the writer recorded while writing the output (``interop.findings``); None when not recorded."""
    _base: Base | None = field(default=None, repr=False, compare=False)
    """The shared all-kept items ``items`` was copied from (their counts and JSON are kept with them)."""

    @property
    def counts(self) -> dict[str, int]:
        return self._counts(self._shared())

    def _counts(self, shared: tuple[Base, list[FidelityItem]] | None) -> dict[str, int]:
        """``counts`` from ``_shared()`` (asked once for the JSON's items and counts)."""
        if shared is None:
            return _count(self.items)
        base, tail = shared
        if base.counts is None:
            base.counts = _count(base.items)
        counts = dict(base.counts)
        for item in tail:  # a few: the container parts, behaviour items
            counts[item[1]] += 1
        return counts

    @property
    def has_losses(self) -> bool:
        return self._losses(self.counts)

    def _losses(self, counts: dict[str, int]) -> bool:
        return counts["approximated"] > 0 or counts["lost"] > 0 or self.app_losses > 0

    @property
    def app_losses(self) -> int:
        """Settings an application loads differently from the output than the source says."""
        return sum(len(verdict.findings) for verdict in self.apps)

    def by_fate(self, fate: Fate) -> list[FidelityItem]:
        return [item for item in self.items if item.fate == fate]

    def item(self, path: str) -> FidelityItem | None:
        return next((i for i in self.items if i.path == path), None)

    def _shared(self) -> tuple[Base, list[FidelityItem]] | None:
        """``(_base, the items after its own)`` when ``items`` still starts with exactly the base's items
        (none replaced since), else None."""
        base = self._base
        if base is None:
            return None
        n = len(base.items)
        items = self.items
        # equal items (in C: each compared by identity first) count and serialise as the base's do
        if len(items) == n:
            return (base, []) if items == base.listed else None
        if len(items) < n or items[:n] != base.listed:
            return None
        return base, items[n:]

    def to_json_text(self) -> str:
        """``to_json()`` as compact JSON text (orjson when installed: a run stores one per output)."""
        if orjson is not None:
            shared = self._shared()
            try:
                return orjson.dumps(
                    self._json(self._items_fragment(shared), self._counts(shared)), default=str
                ).decode()
            except TypeError:  # a lone surrogate or a non-string key: the stdlib writes those
                pass
        data = self.to_json()
        text = json.dumps(data, ensure_ascii=False, default=str)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: escaped ("\ud800"), so the catalog can store it
            return json.dumps(data, ensure_ascii=True, default=str)
        return text

    def _items_fragment(self, shared: tuple[Base, list[FidelityItem]] | None) -> Any:
        """The items as JSON; the base's part serialised once for every report sharing it."""
        if shared is None:
            return _items_json(self.items)
        base, tail = shared
        if base.json is None:
            base.json = orjson.dumps(_items_json(base.items))
        if not tail:
            return orjson.Fragment(base.json)
        more = orjson.dumps(_items_json(tail))
        return orjson.Fragment(base.json[:-1] + b"," + more[1:] if base.items else more)

    def to_json(self) -> dict[str, Any]:
        return self._json(_items_json(self.items), self.counts)

    def _json(self, items: Any, counts: dict[str, int]) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "source": {"file": self.source_file, "format": self.source_format, "kind": self.source_kind},
            "target": {
                "format": self.target_format,
                "kind": self.target_kind,
                "platform": self.target_platform,
                "bytes": self.output_size,
            },
            "verified": self.verified,
            "counts": counts,
            "has_losses": self._losses(counts),
            "items": items,
            "warnings": list(self.warnings),
            "apps": [verdict.to_json() for verdict in self.apps],
            "added": list(self.added),
            "findings": _shown_findings(self.journal.findings) if self.journal is not None else [],
            "entry_names": list(self.entry_names),
        }


def _shown_findings(recorded: list[JournalFinding]) -> list[dict[str, object]]:
    """The findings a report lists: all but the ``added`` ones with a value (``added`` lists those).
    Usually none: checked in C first (a typical card book's journal holds ~90 added findings)."""
    fates = list(map(_FINDING_FATE, recorded))
    if fates.count("added") == len(fates) and list(map(_FINDING_VALUE, recorded)).count(None) == 0:
        return []
    return [f.to_json() for f in recorded if f[0] != "added" or f[4] is None]


_FINDING_FATE = operator.itemgetter(0)
_FINDING_VALUE = operator.itemgetter(4)


def _count(items: Sequence[FidelityItem]) -> dict[str, int]:
    counts = dict.fromkeys(FATES, 0)
    for fate, n in Counter(map(_FATE_OF, items)).items():
        counts[fate] += n
    return counts


_FATE_OF = operator.itemgetter(1)


def _items_json(items: Sequence[FidelityItem]) -> list[dict[str, Any]]:
    return [{"path": p, "fate": f, "detail": d, "rule": r} for p, f, d, r in items]


def _entry_names(source: CanonicalView) -> list[str]:
    """The source's entry names (the same for every target of a migrated file)."""
    return list(memoized("fidelity_entry_names", source, (), lambda: entry_names(source.entries)))


def fidelity_report(
    source_doc: Document,
    target_format: str,
    output_bytes: bytes | None = None,
    *,
    output_doc: Document | None = None,
    chats: Sequence[Any] | None = None,
    seed: int = 0,
    compared: Compared | None = None,
    journal: Journal | None = None,
) -> FidelityReport:
    """The fate of every field of ``source_doc`` when written as ``target_format``.

    ``output_bytes`` is the conversion's output; when None it is written here
    (``ConversionError`` when the target cannot hold the document at all).
    ``output_doc`` is those bytes already read back, to save reading them twice;
    ``compared`` is the source and that read-back output already compared (a round trip's).
    ``journal`` is what the writer recorded while writing ``output_bytes``
    (``api.write_with_journal``): folded in, and the checks it covered are not redone.
    ``chats`` (``interop.engine.Chat``) adds behaviour items: entries whose
    activation differs between the source and the target platform.
    """
    try:
        fmt = get_format(target_format)
    except KeyError:
        raise FormatError(f"unknown target format {target_format!r}") from None
    if output_bytes is None:
        written = write_with_journal(source_doc, fmt.name)
        output_bytes, journal = written.data, written.journal
    if compared is None:
        if output_doc is None:  # the output's view from its JSON when it can be; read back when it cannot
            data, name, filename = output_bytes, fmt.name, source_doc.source
            compared = Compared.read(source_doc, data, name, filename, lambda: read_back(data, name, filename))
        else:
            compared = Compared.of(source_doc, output_doc, fmt.name)
    source_platform = get_format(source_doc.format).platform
    rules = rule_book(fmt.name, source_platform == fmt.platform, source_doc.kind == "card")
    items, base = _items(compared, rules)
    report = FidelityReport(
        source_format=source_doc.format,
        target_format=fmt.name,
        source_kind=source_doc.kind,
        target_kind=fmt.kind,
        target_platform=fmt.platform,
        items=items,
        source_file=source_doc.source,
        output_size=len(output_bytes),
        verified=compared.output is not None,
        journal=journal,
        entry_names=_entry_names(compared.source),
    )
    report._base = base
    _judge_at_the_target(report, compared, source_platform, output_bytes)
    if compared.output is not None:
        found_in_world(report.items, fmt.name, output_bytes, compared.source.entries)
        report.added = added_fields(compared.source, compared.output)
    if journal is not None:
        fold_added(report, journal)
    if not rules.described:
        report.warnings.append(f"no mapping table describes {fmt.name}: fields that survive are reported as kept")
    if compared.output is None:
        report.warnings.append(f"{fmt.name} cannot be read back: fates come from the mapping tables only")
    if chats:
        _add_behaviour(report, compared, source_platform, chats, seed)
    return report


def _items(compared: Compared, rules: RuleBook) -> tuple[list[FidelityItem], Base | None]:
    """Every source field's fate from the data and the tables, then the output's known translations;
    with the shared ``Base`` they are when nothing changed them (its JSON and counts serve the report)."""
    source, output, target = compared.source, compared.output, compared.target
    fields, base = _field_items_of(source, output, rules, target)
    items = list(fields)
    items += _container_items(compared.containers, rules)  # after the base's: the report still shares it
    if output is not None:
        _moved_asset_descriptors(items, source, output, compared.containers)
        _translated_dates(items, compared)
        _translated_disabled(items, compared)
    return items, base


def _judge_at_the_target(report: FidelityReport, compared: Compared, source_platform: str, output: bytes) -> None:
    """The target platform's hazards and its app's verdict worsen the fates they name."""
    source_doc, target = compared.source_doc, report.target_format
    journal, platform = report.journal, report.target_platform
    if source_platform != platform:  # nothing to say about an app's own files
        recorded = journal is not None and journal.covers(f"hazards:{platform}")
        found = findings(source_doc, target, platform, compared.output_doc, hazards=not recorded)
        if journal is not None:  # what the writer's rewrites could not express, recorded as they wrote
            found += hazard_findings(journal)
        _apply_findings(report, found)
    report.apps = app_verdicts(source_doc, source_platform, target, report.target_platform, output)
    for verdict in report.apps:
        _apply_app_verdict(report, verdict)


def _add_behaviour(
    report: FidelityReport, compared: Compared, source_platform: str, chats: Sequence[Any], seed: int
) -> None:
    if compared.output_doc is None:
        report.warnings.append("behaviour not compared: the output cannot be read back")
        return
    found, notes = behaviour_items(
        compared.source_doc, source_platform, compared.output_doc, report.target_platform, chats, seed
    )
    report.items.extend(found)
    report.warnings.extend(notes)


def read_back(data: bytes, target_format: str, filename: str | None = None) -> Document | None:
    """``data`` read with the target's reader; a write-only format is read as whatever it is detected as.

    ``filename`` is what readers see (some name a book after its file): pass the
    source's, so a round trip derives the same. None when nothing can read it
    (the report then falls back to the tables).
    """
    fmt = get_format(target_format)
    try:
        if fmt.read is not None:  # read_bytes, its JSON parse left to the app models (apps.read_output)
            return read_output(data, fmt.name, filename)
        for found in detect_all(data, filename):
            if get_format(found.format).read is not None:
                return read_bytes(data, format=found.format, filename=filename)
        return None
    except InteropError as exc:
        raise type(exc)(
            f"reading the {fmt.name} output back failed: {exc.reason}", file=exc.file, location=exc.location
        ) from exc


def _field_items(
    source: CanonicalView, output: CanonicalView | None, rules: RuleBook, target: str
) -> list[FidelityItem]:
    """The source's field items: the layout's all-kept items (shared, see ``_base_items``) with the
    fields that came back changed or not at all looked at one by one, in the base's order."""
    return list(_field_items_of(source, output, rules, target)[0])


def _field_items_of(
    source: CanonicalView, output: CanonicalView | None, rules: RuleBook, target: str
) -> tuple[list[FidelityItem] | tuple[FidelityItem, ...], Base | None]:
    """``(items, base)``: ``items`` is ``base.items`` itself when nothing changed (read-only), else a new list."""
    changed = changed_fields(source, output) if output is not None else None
    base = _base_items(_layout(source), changed is None, rules, target)
    if not changed:
        return base.items, base
    at, gone = base.index, base.gone
    known: list[tuple[int, Path]] = []  # absent fields whose item does not depend on their value
    looked_at: list[tuple[int, Path]] = []
    for path, found in changed.items():
        pos = at.get(path)
        if pos is not None:
            (known if found is MISSING and path in gone else looked_at).append((pos, path))
    if not looked_at:  # e.g. every card field of a card written as a lorebook: one shared variant per layout
        variant = _variant(base, sorted(known), rules)
        return variant.items, variant
    items = list(base.items)
    for pos, path in known:
        items[pos] = gone[path]
    paths = PathCache()
    # in the base's order: DeepDiff describes the first few changes of a field (DEEPDIFF_PER_FIELD)
    for pos, path in sorted(looked_at):
        item = items[pos] = _item(path, source.get(path), rules, paths, target, changed)
        if changed[path] is MISSING and _absent_alike(path, rules, paths):
            gone[path] = item
    return items, None


def _variant(base: Base, known: list[tuple[int, Path]], rules: RuleBook) -> Base:
    """``base`` with the items of the ``known`` absent fields in place (kept with it, like the base)."""
    if not known:
        return base
    key = tuple(pos for pos, _ in known)  # a position names one field of the base
    found: Base | None = base.variants.get(key)
    if found is None:
        items = list(base.items)
        for pos, path in known:
            items[pos] = base.gone[path]
        if len(base.variants) >= _VARIANTS_KEPT:
            base.variants.clear()
        _charge(rules, len(items))
        found = base.variants[key] = Base(tuple(items), base.index, gone=base.gone)
    return found


_VARIANTS_KEPT = 8


def _absent_alike(path: Path, rules: RuleBook, paths: PathCache) -> bool:
    """Whether the item of ``path`` absent from the output is the same whatever its value
    (only a rule default makes the value matter: ``kept_default`` when it equals the default)."""
    rule = rules.rule(paths.segments(path))
    return rule is None or not rule.has_default or (rule.fate in _TABLE_SAYS_WHY and bool(rule.detail))


@dataclass(frozen=True)
class Layout:
    """The source's field paths: what its report items are named after (the same for every target)."""

    key: int
    """Equal layouts have equal keys within a process (``_LAYOUT_KEYS``)."""
    paths: tuple[Path, ...]
    """Fields outside the entries, in ``leaves`` order (with ``book.entries`` for an empty list)."""
    shapes: tuple[tuple[Any, ...], ...]
    """Each entry's ``_shape``."""


_LAYOUT_KEYS: dict[Any, int] = {}
_LAYOUTS_KEPT = 4096


def _layout(source: CanonicalView) -> Layout:
    return memoized("fidelity_layout", source, (), lambda: _layout_of(source))


def _layout_of(source: CanonicalView) -> Layout:
    known = [_known_shape(entry) for entry in source.entries or ()]
    numbers = tuple(number for number, _ in known)
    key = _layout_skeleton(source, numbers)
    if key is not None:
        hit = _LAYOUTS.get(key)
        if hit is not None:
            return hit
    layout = _layout_made(source, known, numbers)
    if key is not None and _small_paths(layout.paths):
        if len(_LAYOUTS) >= _LAYOUTS_KEPT:
            _LAYOUTS.clear()
        _LAYOUTS[key] = layout
    return layout


_LAYOUTS: dict[Any, Layout] = {}
"""The skeleton of a source's fields (``_layout_skeleton``) -> its layout: the cards of a run share a few."""
_LAYOUT_CHARS = 4096
"""Characters of a layout's keys at most for it to be kept under its skeleton (which holds them)."""


def _layout_skeleton(source: CanonicalView, numbers: tuple[int | None, ...]) -> Any:
    """What decides ``_layout_made`` (its paths follow ``leaves``, its shapes the entries' shape numbers),
    cheaper to build than the paths: the skeletons of root, card and book, a card's asset count (one field
    per asset), which of them are there, the book-key and empty-entries marks. None when unsure (keys
    that are not all strings, a shape without a number, a big book)."""
    if None in numbers or len(numbers) > _SMALL_LAYOUT:
        return None
    card, book = source.card, source.book
    assets = card.get("assets") if card is not None else None
    skeletons = (
        _tree_skeleton(source.root),
        None if card is None else _tree_skeleton(card),
        None if book is None else _tree_skeleton(book),
    )
    if not all(_all_strings(skeleton) for skeleton in skeletons if skeleton is not None):
        return None
    count = len(assets) if isinstance(assets, list) else -1
    return (*skeletons, count, source.has_book_key, source.entries == [], numbers)


def _tree_skeleton(value: dict[str, Any]) -> Any:
    """``_skeleton`` as ``leaves`` walks: any non-empty dict (a subclass too) is an object of fields."""
    nested = [(key, _tree_skeleton(item)) for key, item in value.items() if isinstance(item, dict) and item]
    return (_NESTED, tuple(value), tuple(nested)) if nested else tuple(value)


def _small_paths(paths: tuple[Path, ...]) -> bool:
    """Few paths with short keys (a kept skeleton holds every key)."""
    return len(paths) <= _SHAPE_FIELDS and sum(len(part) for path in paths for part in path if type(part) is str) <= (
        _LAYOUT_CHARS
    )


def _layout_made(
    source: CanonicalView, known: list[tuple[int | None, tuple[Any, ...]]], numbers: tuple[int | None, ...]
) -> Layout:
    others = CanonicalView(
        kind=source.kind, root=source.root, card=source.card, book=source.book, has_book_key=source.has_book_key
    )
    paths = tuple(leaves(others))
    if source.entries is not None and source.entries == [] and source.book is not None:
        paths += (("book", "entries"),)
    shapes = tuple(shape for _, shape in known)
    if None in numbers or len(numbers) > _SMALL_LAYOUT:
        return Layout(_layout_key_of(paths, shapes), paths, shapes)
    try:  # the paths' typed bytes (``1`` and ``True`` are equal tuple items), as a digest, with the shape numbers
        found: Any = (hashlib.blake2b(marshal.dumps(paths, 2), digest_size=16).digest(), numbers)
    except ValueError:
        return Layout(_layout_key_of(paths, shapes), paths, shapes)
    key = _LAYOUT_KEYS.get(found)
    if key is None:
        if len(_LAYOUT_KEYS) >= _LAYOUTS_KEPT:
            _LAYOUT_KEYS.clear()  # keys are never reused (see below): old cached bases just go unused
        key = _LAYOUT_KEYS[found] = next(_LAYOUT_COUNTER)
    return Layout(key, paths, shapes)


_SMALL_LAYOUT = 64
"""Layouts of up to this many entries are keyed by their entries' shape numbers (and their other paths'
digest); bigger books by a digest of all their typed bytes (``_layout_key_of``), so a kept key stays small."""


def _layout_key_of(paths: tuple[Path, ...], shapes: tuple[tuple[Any, ...], ...]) -> int:
    """The key of a layout named by its typed bytes (marshal, in C; kept as a digest: a big book's is large)."""
    try:
        found: Any = hashlib.blake2b(marshal.dumps((paths, shapes), 2), digest_size=16).digest()
    except ValueError:  # not JSON keys: the tuples themselves
        found = (paths, shapes)
    key = _LAYOUT_KEYS.get(found)
    if key is None:
        if len(_LAYOUT_KEYS) >= _LAYOUTS_KEPT:
            _LAYOUT_KEYS.clear()
        key = _LAYOUT_KEYS[found] = next(_LAYOUT_COUNTER)
    return key


_SHAPES: dict[Any, tuple[int, tuple[Any, ...]]] = {}
"""An entry's key skeleton (``_skeleton``) -> (shape number, ``_shape``): the entries of a run share a few."""
_SHAPES_KEPT = 2048
_SHAPE_FIELDS = 256
"""Shapes of up to this many fields are kept (with their skeletons: a bound on memory of a few MB)."""
_SHAPE_COUNTER = itertools.count()
"""Shape numbers are never reused (the cache may be cleared), so a number names one shape."""
_NESTED = object()
"""Marks a skeleton with nested objects (no key of a JSON entry is this object)."""


def _known_shape(entry: dict[str, Any]) -> tuple[int | None, tuple[Any, ...]]:
    """``(number, _shape(entry))``; the number is None when the entry's keys are not all strings
    (``1`` and ``True`` are equal dict keys: only a skeleton of strings names one shape)."""
    skeleton = _skeleton(entry)
    hit = _SHAPES.get(skeleton)
    if hit is not None:
        return hit
    shape = _shape(entry)
    if len(shape) > _SHAPE_FIELDS or not _all_strings(skeleton):
        return None, shape
    if len(_SHAPES) >= _SHAPES_KEPT:
        _SHAPES.clear()
    hit = _SHAPES[skeleton] = (next(_SHAPE_COUNTER), shape)
    return hit


def _skeleton(entry: dict[str, Any]) -> Any:
    """The keys of ``entry`` in order with, for each non-empty dict value, its key and skeleton:
    what decides ``_shape`` (cheaper to build than the shape: no path tuples)."""
    nested = [(key, _skeleton(value)) for key, value in entry.items() if type(value) is dict and value]
    return (_NESTED, tuple(entry), tuple(nested)) if nested else tuple(entry)


def _all_strings(skeleton: Any) -> bool:
    if skeleton and skeleton[0] is _NESTED:
        _, keys, nested = skeleton
        return all(type(k) is str for k in keys) and all(_all_strings(inner) for _, inner in nested)
    return all(type(k) is str for k in skeleton)


_LAYOUT_COUNTER = itertools.count()


@dataclass
class Base:
    """The items of a layout whose fields all came back (or, ``unverified``, as the tables say)."""

    items: tuple[FidelityItem, ...]
    index: dict[Path, int]
    """Field path -> its item's position."""
    json: bytes | None = None
    """The items as JSON text (orjson), made when first asked for."""
    counts: dict[str, int] | None = None
    gone: dict[Path, FidelityItem] = field(default_factory=dict)
    """Items of fields absent from an output whatever their value (e.g. a card's in a lorebook target)."""
    variants: dict[tuple[int, ...], Base] = field(default_factory=dict)
    """This base with some ``gone`` items in place, per their positions (``_variant``)."""
    listed: list[FidelityItem] = field(default_factory=list)
    """``items`` as a list, which a report's items are compared with (``FidelityReport._shared``)."""

    def __post_init__(self) -> None:
        self.listed = list(self.items)


def _base_items(layout: Layout, unverified: bool, rules: RuleBook, target: str) -> Base:
    """A pure function of its arguments (rule books are shared and loaded once): kept on the rule book,
    so a run over many cards of the same shape builds their items once."""
    key = (layout.key, unverified, target)
    base: Base | None = rules.bases.get(key)
    if base is not None:
        return base
    paths = PathCache()
    changed = None if unverified else {}
    items: list[FidelityItem] = []
    index: dict[Path, int] = {}
    for path in layout.paths:
        index[path] = len(items)
        items.append(_item(path, None, rules, paths, target, changed))
    for i, shape in enumerate(layout.shapes):
        template = _entry_template(shape, unverified, rules, paths)
        prefix = f"entry[{i}]"
        for suffix, (tail, rest) in zip(shape, template, strict=True):
            index[("entry", i, *suffix)] = len(items)
            items.append(_new_item(FidelityItem, (prefix + tail, *rest)))
    base = Base(tuple(items), index)
    _charge(rules, len(items))
    rules.bases[key] = base
    return base


_BASE_ITEMS_KEPT = 200_000
"""Items kept in the shared bases and their variants of all rule books together (with their index
and ``gone`` rows ~400 bytes an item: ~80 MB at most; a run has a rule book per target and source kind)."""

_HOLDERS: dict[int, RuleBook] = {}
"""The rule books holding shared bases (by id; rule books live as long as the process)."""


def _charge(rules: RuleBook, items: int) -> None:
    """Count ``items`` about to be kept on ``rules``; past the bound every rule book's bases are dropped
    first (a bound on memory, not on layouts: a big book's items are many)."""
    holders = tuple(_HOLDERS.values())  # a copy: the web service reports in several threads
    if sum(book.base_items for book in holders) + items > _BASE_ITEMS_KEPT:
        for book in holders:
            book.bases.clear()
            book.base_items = 0
        _HOLDERS.clear()
    rules.base_items += items
    _HOLDERS[id(rules)] = rules


Template = list[tuple[str, tuple[Any, ...]]]
_TEMPLATES_KEPT = 4096
"""Entry templates (and layouts' items) kept per rule book (a run over many cards sees the same shapes again)."""


def _entry_template(shape: tuple[Any, ...], unverified: bool, rules: RuleBook, paths: PathCache) -> Template:
    """``(path after "entry[i]", (fate, detail, rule))`` for each field of an entry of ``shape`` that came
    back (``unverified``: as the tables say). A pure function of its arguments (rule books are shared and
    loaded once): kept on the rule book."""
    cache = rules.templates
    key = (shape, unverified)
    template = cache.get(key)
    if template is not None:
        return template  # type: ignore[no-any-return]
    template = []
    for suffix in shape:
        path = ("entry", 0, *suffix)
        tail = paths.render(path)[len("entry[0]") :]
        rule = rules.rule(paths.segments(path))
        template.append((tail, _unverified(tail, rule)[1:] if unverified else _kept(rule)))
    if len(cache) >= _TEMPLATES_KEPT:
        cache.clear()
    cache[key] = template
    return template


_new_item = tuple.__new__  # builds a FidelityItem in C (a 300-entry book has ~7000 of them)


def _shape(entry: dict[str, Any]) -> tuple[Any, ...]:
    """The key paths of an entry's fields, in order (what its items are named after)."""
    if not entry:
        return ((),)
    out: list[tuple[Any, ...]] = []
    for key, item in entry.items():
        if type(item) is dict and item:
            _shape_walk(item, (key,), out)
        else:
            out.append((key,))
    return tuple(out)


def _shape_walk(value: dict[str, Any], prefix: tuple[Any, ...], out: list[tuple[Any, ...]]) -> None:
    for key, item in value.items():
        if type(item) is dict and item:
            _shape_walk(item, (*prefix, key), out)
        else:
            out.append((*prefix, key))


def _kept(rule: TargetRule | None) -> tuple[str, str, str | None]:
    return ("kept", "", None) if rule is None else (rule.fate, rule.detail, rule.pattern)


def _item(
    path: Path, value: Any, rules: RuleBook, paths: PathCache, target: str, changed: dict[Path, Any] | None
) -> FidelityItem:
    rule = rules.rule(paths.segments(path))
    name = paths.render(path)
    if changed is None:
        return _unverified(name, rule)
    if path in changed:
        return _not_back(path, name, rule, target, value, changed[path], paths)
    return FidelityItem(name, *_kept(rule))


def _not_back(
    path: Path, name: str, rule: TargetRule | None, target: str, value: Any, found: Any, paths: PathCache
) -> FidelityItem:
    if rule is not None and rule.fate in _TABLE_SAYS_WHY and rule.detail:
        return FidelityItem(name, rule.fate, rule.detail, rule.pattern)  # the table already says why
    if found is MISSING and rule is not None and rule.has_default and strict_equal(value, rule.default):
        detail = f"{short(value)} is what {target} applies when the field is absent"
        return FidelityItem(name, "kept_default", detail, rule.pattern)
    if found is MISSING:
        what = f"not in the {target} output"
    else:
        # DeepDiff costs ~0.3 ms a call: it words the first few changes of each
        # field; further entries with the same field changed get the short form.
        segments = paths.segments(path)
        seen = paths.described[segments] = paths.described.get(segments, 0) + 1
        how = describe_change(value, found) if seen <= DEEPDIFF_PER_FIELD else f"{short(value)} -> {short(found)}"
        what = f"came back changed: {how}"
    if rule is not None and rule.fate in ("approximated", "lost"):
        return FidelityItem(name, rule.fate, what, rule.pattern)
    if rule is not None:
        what += f" (the {target} mapping table says {rule.fate})"
    return FidelityItem(name, "lost", what, rule.pattern if rule else None)


_TABLE_SAYS_WHY = ("approximated", "lost", "not_applicable")
"""Fates a rule gives a field whether or not it comes back, its own detail saying why."""


def _unverified(name: str, rule: TargetRule | None) -> FidelityItem:
    if rule is None:
        return FidelityItem(name, "lost", "not described by any mapping table and not verifiable")
    return FidelityItem(name, rule.fate, rule.detail, rule.pattern)


def _container_items(containers: list[ContainerResult], rules: RuleBook) -> list[FidelityItem]:
    items = []
    for result in containers:
        rule = rules.rule(pattern_segments(result.path))
        fate, detail = result.fate, result.detail
        if rule is not None and FATE_ORDER[rule.fate] > FATE_ORDER[fate]:
            fate, detail = rule.fate, rule.detail or detail
        items.append(FidelityItem(render(result.path), fate, detail, rule.pattern if rule else None))
    return items


def _moved_asset_descriptors(
    items: list[FidelityItem], source: CanonicalView, output: CanonicalView, containers: list[ContainerResult]
) -> None:
    """``card.assets[i]`` whose only change is a ``uri`` that follows its file is translated, not lost.

    E.g. PNG -> CHARX: ``ccdefault:`` (the picture) and ``__asset:0`` become
    ``embeded://assets/...`` members; the descriptor changed because the file moved. CCv3 JSON -> PNG:
    the data-URL main icon becomes the PNG itself, ``ccdefault:``.
    """
    moved: dict[str, str] = {}
    for result in containers:
        if result.now is not None and result.now[0] == "asset":
            moved["ccdefault:" if result.path == ("image",) else str(result.path[1])] = str(result.now[1])
        elif result.now == ("image",) and result.path[0] == "asset":
            moved[str(result.path[1])] = "ccdefault:"  # ccv3 -> png: a data-URL main icon became the picture
    mine = (source.card or {}).get("assets")
    theirs = (output.card or {}).get("assets")
    if not moved or not isinstance(mine, list) or not isinstance(theirs, list):
        return
    index = {item.path: i for i, item in enumerate(items)}
    for i, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if not (isinstance(a, dict) and isinstance(b, dict)) or a.keys() != b.keys():
            continue
        if all(strict_equal(a[k], b[k]) for k in a if k != "uri") and moved.get(a.get("uri")) == b.get("uri"):
            at = index.get(f"card.assets[{i}]")
            if at is not None and items[at].fate == "lost":
                detail = f"uri now {shown_uri(b['uri'])} (the file moved with it)"
                items[at] = items[at]._replace(fate="translated", detail=detail)


_DATED = ("extensions", *DATE_FIELDS)


def _translated_dates(items: list[FidelityItem], compared: Compared) -> None:
    """A V3 date the writer turned from an ISO string into Unix seconds (``cardkit.card_dates``) is translated."""
    data = compared.output_card_fields(_DATED)
    if data is None or "extensions" not in data:
        return
    record = record_of({"extensions": data["extensions"]})
    if record is None:
        return
    index = {item.path: i for i, item in enumerate(items)}
    for name, text in record["text"].items():
        at = index.get(f"card.{name}")
        number = data.get(name) if name in DATE_FIELDS else None
        if at is not None and items[at].fate == "kept":
            items[at] = items[at]._replace(
                fate="translated",
                detail=f"ISO date {text!r} written as Unix seconds {number!r} (CCv3 requires a number); "
                "the string is kept in extensions.interop.dates for the way back",
            )


def _translated_disabled(items: list[FidelityItem], compared: Compared) -> None:
    """A Risu-disabled entry whose card output carries ``@@dont_activate``
    (``transforms.risu_card_line.add_card_line``)."""
    extensions = compared.output_entry_extensions()
    if extensions is None:
        return
    index: dict[str, int] | None = None  # built when the first such entry is found (usually none is)
    for number, ext in enumerate(extensions):
        ns = ext.get("risuai") if isinstance(ext, dict) else None
        record = ns.get("decorators") if isinstance(ns, dict) else None
        if not (isinstance(record, dict) and CARD_TEXT in record):
            continue
        if index is None:
            index = {item.path: i for i, item in enumerate(items)}
        at = index.get(f"entry[{number}].enabled")
        if at is not None and items[at].fate == "kept":
            items[at] = items[at]._replace(
                fate="translated",
                detail="also written as @@dont_activate at the top of content: RisuAI's card import drops "
                "enabled (convertCharbook); SillyTavern loads the entry disabled either way",
            )


def _apply_findings(report: FidelityReport, found: list[Finding], *, quiet: bool = False) -> None:
    """Worsen the items the findings name. ``quiet``: a finding on a field the source lacks
    (an app's default differs) stays in its ``apps`` verdict only."""
    if not found:
        return
    index = {item.path: i for i, item in enumerate(report.items)}
    for finding in found:
        key = render(finding.path)
        targets = [index[key]] if key in index else _under(report.items, key) if quiet else []
        if not targets and not quiet:
            report.warnings.append(f"{report.target_platform} hook reported unknown field {key}: {finding.detail}")
        for i in targets:
            current = report.items[i]
            if current.fate == "not_applicable":
                continue  # the target's kind has no place for it: nothing the app does with it
            if FATE_ORDER[finding.fate] > FATE_ORDER[current.fate]:
                report.items[i] = FidelityItem(current.path, finding.fate, finding.detail, current.rule)


def _apply_app_verdict(report: FidelityReport, verdict: AppVerdict) -> None:
    """An app's findings worsen the items they name, except a ``stashed`` item: its mapping
    rule already says the app keeps the value without using it (the finding becomes a note)."""
    if not verdict.findings:
        return  # the usual case: no index to build
    index = {item.path: i for i, item in enumerate(report.items)}
    kept: list[Finding] = []
    for finding in verdict.findings:
        key = render(finding.path)
        targets = [index[key]] if key in index else _under(report.items, key)
        if targets and all(report.items[i].fate == "stashed" for i in targets):
            verdict.notes.append(f"{key} (stashed): {finding.detail}")
            continue
        kept.append(finding)
    verdict.findings = kept
    _apply_findings(report, kept, quiet=True)


def _under(items: list[FidelityItem], key: str) -> list[int]:
    """Items inside the object ``key`` (a finding about a whole object applies to each of its leaves)."""
    return [i for i, item in enumerate(items) if item.path.startswith((key + ".", key + "["))]
