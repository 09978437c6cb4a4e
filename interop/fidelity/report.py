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

import json
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
from ..platform.registry import get_format
from ..transforms.risu_card_line import CARD_TEXT
from .added import added_fields
from .apps import AppVerdict, app_verdicts
from .behaviour import behaviour_items
from .compare import changed_fields, describe_change, short, shown_uri, strict_equal
from .compared import Compared
from .containers import ContainerResult
from .findings import Journal, fold_added, hazard_findings
from .hooks import Finding, findings
from .items import FidelityItem
from .names import entry_names
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

    @property
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(FATES, 0)
        for item in self.items:
            counts[item.fate] += 1
        return counts

    @property
    def has_losses(self) -> bool:
        return any(item.fate in ("approximated", "lost") for item in self.items) or self.app_losses > 0

    @property
    def app_losses(self) -> int:
        """Settings an application loads differently from the output than the source says."""
        return sum(len(verdict.findings) for verdict in self.apps)

    def by_fate(self, fate: Fate) -> list[FidelityItem]:
        return [item for item in self.items if item.fate == fate]

    def item(self, path: str) -> FidelityItem | None:
        return next((i for i in self.items if i.path == path), None)

    def to_json_text(self) -> str:
        """``to_json()`` as compact JSON text (orjson when installed: a run stores one per output)."""
        data = self.to_json()
        if orjson is not None:
            try:
                return orjson.dumps(data, default=str).decode()
            except TypeError:  # a lone surrogate or a non-string key: the stdlib writes those
                pass
        text = json.dumps(data, ensure_ascii=False, default=str)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: escaped ("\ud800"), so the catalog can store it
            return json.dumps(data, ensure_ascii=True, default=str)
        return text

    def to_json(self) -> dict[str, Any]:
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
            "counts": self.counts,
            "has_losses": self.has_losses,
            "items": [{"path": p, "fate": f, "detail": d, "rule": r} for p, f, d, r in self.items],
            "warnings": list(self.warnings),
            "apps": [verdict.to_json() for verdict in self.apps],
            "added": list(self.added),
            "findings": [f.to_json() for f in self.journal if f.fate != "added" or f.value is None]
            if self.journal is not None
            else [],
            "entry_names": list(self.entry_names),
        }


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
        if output_doc is None:
            output_doc = read_back(output_bytes, fmt.name, source_doc.source)
        compared = Compared.of(source_doc, output_doc, fmt.name)
    source_platform = get_format(source_doc.format).platform
    rules = rule_book(fmt.name, source_platform == fmt.platform, source_doc.kind == "card")
    report = FidelityReport(
        source_format=source_doc.format,
        target_format=fmt.name,
        source_kind=source_doc.kind,
        target_kind=fmt.kind,
        target_platform=fmt.platform,
        items=_items(compared, rules),
        source_file=source_doc.source,
        output_size=len(output_bytes),
        verified=compared.output is not None,
        journal=journal,
        entry_names=entry_names(compared.source.entries),
    )
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


def _items(compared: Compared, rules: RuleBook) -> list[FidelityItem]:
    """Every source field's fate from the data and the tables, then the output's known translations."""
    source, output, target = compared.source, compared.output, compared.target
    items = _field_items(source, output, rules, target)
    items += _container_items(compared.containers, rules)
    if output is not None:
        _moved_asset_descriptors(items, source, output, compared.containers)
        _translated_dates(items, compared.output_doc)
        _translated_disabled(items, compared.output_doc)
    return items


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
        if fmt.read is not None:
            return read_bytes(data, format=fmt.name, filename=filename)
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
    changed = changed_fields(source, output) if output is not None else None
    paths = PathCache()
    items: list[FidelityItem] = []
    others = CanonicalView(
        kind=source.kind, root=source.root, card=source.card, book=source.book, has_book_key=source.has_book_key
    )
    for path, value in leaves(others).items():
        items.append(_item(path, value, rules, paths, target, changed))
    if source.entries is not None and source.entries == [] and source.book is not None:
        items.append(_item(("book", "entries"), [], rules, paths, target, changed))
    if not source.entries:
        return items
    # A lorebook repeats the same fields in every entry: an entry's items come
    # from a template per (shape, fields absent from the output); only fields
    # that came back changed are looked at one by one.
    per_entry: dict[int, dict[tuple[Any, ...], Any]] = {}
    for path, found in (changed or {}).items():
        if path[0] == "entry":
            per_entry.setdefault(path[1], {})[path[2:]] = found
    # template row: (path after "entry[i]", suffix to look up in the changes or None, (fate, detail, rule))
    templates: dict[tuple[Any, ...], list[tuple[str, tuple[Any, ...] | None, tuple[Any, ...]]]] = {}
    for i, entry in enumerate(source.entries):
        ch = per_entry.get(i, {})
        gone = frozenset(k for k, v in ch.items() if v is MISSING)
        shape = _shape(entry)
        key = (shape, gone)
        template = templates.get(key)
        if template is None:
            template = templates[key] = _entry_template(shape, gone, changed is None, rules, paths, target)
        prefix = f"entry[{i}]"
        if len(gone) == len(ch) and not _looks_up(template, gone):
            items.extend([_new_item(FidelityItem, (prefix + tail, *rest)) for tail, _, rest in template])
            continue
        for tail, suffix, rest in template:
            if suffix is not None and suffix in ch:
                path = ("entry", i, *suffix)
                items.append(_item(path, _value(entry, suffix), rules, paths, target, changed))
            else:
                items.append(_new_item(FidelityItem, (prefix + tail, *rest)))
    return items


Template = list[tuple[str, tuple[Any, ...] | None, tuple[Any, ...]]]
_TEMPLATES_KEPT = 4096
"""Entry templates kept per rule book (a run over many cards sees the same entry shapes again)."""


def _entry_template(
    shape: tuple[Any, ...], gone: frozenset[Any], unverified: bool, rules: RuleBook, paths: PathCache, target: str
) -> Template:
    """The items of an entry of ``shape`` with the fields ``gone`` absent from the output.

    A pure function of its arguments (rule books are shared and loaded once): kept on the rule book.
    """
    cache = rules.templates
    key = (shape, gone, unverified, target)
    template = cache.get(key)
    if template is not None:
        return template  # type: ignore[no-any-return]
    template = []
    for suffix in shape:
        path = ("entry", 0, *suffix)
        tail = paths.render(path)[len("entry[0]") :]
        rule = rules.rule(paths.segments(path))
        if unverified:
            template.append((tail, None, _unverified(tail, rule)[1:]))
        elif suffix in gone and rule is not None and rule.has_default:
            template.append((tail, suffix, _kept(rule)))  # kept_default or not: depends on the value
        elif suffix in gone:
            template.append((tail, None, _not_back(path, tail, rule, target, None, MISSING, paths)[1:]))
        elif rule is not None and rule.fate in _TABLE_SAYS_WHY and rule.detail:
            template.append((tail, None, _kept(rule)))  # same item whether or not it came back
        else:
            template.append((tail, suffix, _kept(rule)))
    if len(cache) >= _TEMPLATES_KEPT:
        cache.clear()
    cache[key] = template
    return template


def _looks_up(template: Template, gone: frozenset[Any]) -> bool:
    """Some row of ``template`` needs the entry's value of a field that did not come back (a rule default)."""
    return bool(gone) and any(suffix in gone for _, suffix, _ in template)


_new_item = tuple.__new__  # builds a FidelityItem in C (a 300-entry book has ~7000 of them)


def _value(entry: dict[str, Any], suffix: tuple[Any, ...]) -> Any:
    node: Any = entry
    for key in suffix:
        node = node[key]
    return node


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


def _translated_dates(items: list[FidelityItem], output_doc: Document | None) -> None:
    """A V3 date the writer turned from an ISO string into Unix seconds (``cardkit.card_dates``) is translated."""
    card = output_doc.card if output_doc is not None else None
    if card is None or not card.data.has("extensions"):
        return
    record = record_of({"extensions": card.data.extensions})
    if record is None:
        return
    index = {item.path: i for i, item in enumerate(items)}
    for name, text in record["text"].items():
        at = index.get(f"card.{name}")
        number = getattr(card.data, name, None) if name in DATE_FIELDS else None
        if at is not None and items[at].fate == "kept":
            items[at] = items[at]._replace(
                fate="translated",
                detail=f"ISO date {text!r} written as Unix seconds {number!r} (CCv3 requires a number); "
                "the string is kept in extensions.interop.dates for the way back",
            )


def _translated_disabled(items: list[FidelityItem], output_doc: Document | None) -> None:
    """A Risu-disabled entry whose card output carries ``@@dont_activate``
    (``transforms.risu_card_line.add_card_line``)."""
    book = output_doc.book if output_doc is not None else None
    if book is None:
        return
    index = {item.path: i for i, item in enumerate(items)}
    for number, entry in enumerate(book.entries):
        record = entry.ext("risuai").get("decorators")
        at = index.get(f"entry[{number}].enabled")
        if isinstance(record, dict) and CARD_TEXT in record and at is not None and items[at].fate == "kept":
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
