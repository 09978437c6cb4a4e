"""``interop diff``: two documents of any formats compared through the canonical model, entry by entry.

Entries are matched by ``id`` (when it is unique on both sides), then by equal
keys and content, then by equal keys alone, then by equal content alone; what
is left is reported as only in one file. A matched pair's differences are
listed with paths relative to the entry.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..document import Document
from ..model.versions import as_displayed
from ..platform.registry import get_format
from .apps import AppVerdict, app_verdicts
from .container_diff import compare_containers
from .field_diff import Change, all_changes
from .names import entry_name
from .view import CanonicalView, view_of


@dataclass
class EntryPair:
    a: int
    b: int
    how: str
    changes: list[Change] = field(default_factory=list)


@dataclass
class DocumentDiff:
    a_entries: list[dict[str, Any]]
    b_entries: list[dict[str, Any]]
    sections: list[Change] = field(default_factory=list)
    pairs: list[EntryPair] = field(default_factory=list)
    only_a: list[int] = field(default_factory=list)
    only_b: list[int] = field(default_factory=list)
    containers: list[Change] = field(default_factory=list)
    apps: list[AppVerdict] = field(default_factory=list)
    """Applications that load B differently from A's settings (only with ``b_bytes``)."""

    @property
    def reordered(self) -> bool:
        """Matched entries are not in the same relative order in both files."""
        order = [p.b for p in sorted(self.pairs, key=lambda p: p.a)]
        return order != sorted(order)

    @property
    def count(self) -> int:
        return (
            len(self.sections)
            + len(self.only_a)
            + len(self.only_b)
            + len(self.containers)
            + sum(len(p.changes) for p in self.pairs)
            + int(self.reordered)
            + sum(len(v.findings) for v in self.apps)
        )

    @property
    def identical(self) -> bool:
        return self.count == 0

    def to_json(self) -> dict[str, Any]:
        """What ``interop diff`` prints, as data (``POST /diff``)."""
        return {
            "identical": self.identical,
            "count": self.count,
            "sections": [c.to_json() for c in self.sections],
            "entries": [
                {
                    "a": pair.a,
                    "b": pair.b,
                    "label": entry_label(pair.a, self.a_entries[pair.a]),
                    "matched_by": pair.how,
                    "changes": [c.to_json() for c in pair.changes],
                }
                for pair in self.pairs
                if pair.changes
            ],
            "only_a": [entry_label(i, self.a_entries[i]) for i in self.only_a],
            "only_b": [entry_label(j, self.b_entries[j]) for j in self.only_b],
            "reordered": self.reordered,
            "containers": [c.to_json() for c in self.containers],
            "apps": [v.to_json() for v in self.apps],
        }


def _canon(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)


def match_entries(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> tuple[list[EntryPair], list[int], list[int]]:
    left = list(range(len(a)))
    right = list(range(len(b)))
    pairs: list[EntryPair] = []

    def by(how: str, key: Callable[[dict[str, Any]], str | None]) -> None:
        a_keys: dict[str, list[int]] = {}
        b_keys: dict[str, list[int]] = {}
        for i in left:
            k = key(a[i])
            if k is not None:
                a_keys.setdefault(k, []).append(i)
        for j in right:
            k = key(b[j])
            if k is not None:
                b_keys.setdefault(k, []).append(j)
        for k, ai in a_keys.items():
            bj = b_keys.get(k)
            if bj and len(ai) == 1 and len(bj) == 1:
                pairs.append(EntryPair(ai[0], bj[0], how))
                left.remove(ai[0])
                right.remove(bj[0])

    by("id", lambda e: _canon(e["id"]) if "id" in e and e["id"] is not None else None)
    by("keys and content", lambda e: _canon([e.get("keys"), e.get("content")]))
    by("keys", lambda e: _canon(e.get("keys")) if e.get("keys") else None)
    by("content", lambda e: _canon(e.get("content")) if e.get("content") else None)
    pairs.sort(key=lambda p: p.a)
    return pairs, left, right


def diff_documents(a: Document, b: Document, b_bytes: bytes | None = None) -> DocumentDiff:
    """A vs B through the canonical model; with ``b_bytes`` (B's file), also what the app B is for
    loads from it compared with A's settings (``fidelity.apps``): B can hold every field of A
    and still be imported differently."""
    va, vb = view_of(a), view_of(b)
    a_entries, b_entries = va.entries or [], vb.entries or []
    result = DocumentDiff(a_entries, b_entries)
    result.sections = all_changes(_sections_only(va), _sections_only(vb))
    result.pairs, result.only_a, result.only_b = match_entries(a_entries, b_entries)
    for pair in result.pairs:
        changes = all_changes(_one_entry(va.kind, a_entries[pair.a]), _one_entry(vb.kind, b_entries[pair.b]))
        pair.changes = [Change(c.path[2:], c.kind, c.old, c.new, c.note) for c in changes]
    for res in compare_containers(va, vb, b.format):
        if res.fate != "kept":
            result.containers.append(Change(res.path, "removed" if res.fate == "lost" else "changed", note=res.detail))
    for res in compare_containers(vb, va, a.format):
        if res.fate == "lost":
            result.containers.append(Change(res.path, "added", note=f"only in {b.source or 'B'}"))
    if b_bytes is not None:
        result.apps = _app_verdicts(a, b, b_bytes, result)
    return result


def _app_verdicts(a: Document, b: Document, b_bytes: bytes, result: DocumentDiff) -> list[AppVerdict]:
    """What B's app loads, compared with A's settings entry by entry, the entries paired as the
    body pairs them (by id, keys, content): the app models compare by position, so they are given
    A's entries in B's order (a B entry without a partner is compared with itself, and left out:
    the body already says it is only in B). Finding paths name A's entries."""
    platform_a, platform_b = get_format(a.format).platform, get_format(b.format).platform
    aligned = _aligned(a, b, result)
    source, to_a = aligned if aligned is not None else (a, None)
    verdicts = [v for v in app_verdicts(source, platform_a, b.format, platform_b, b_bytes) if v.findings]
    if to_a is None:
        return verdicts
    for verdict in verdicts:
        kept = []
        for finding in verdict.findings:
            path = finding.path
            if len(path) >= 2 and path[0] == "entry" and isinstance(path[1], int):
                if path[1] not in to_a:
                    continue
                finding = replace(finding, path=("entry", to_a[path[1]], *path[2:]))
            kept.append(finding)
        verdict.findings = kept
    return [v for v in verdicts if v.findings]


def _aligned(a: Document, b: Document, result: DocumentDiff) -> tuple[Document, dict[int, int]] | None:
    """A with its entries in B's order (see ``_app_verdicts``) and B index -> A index; None when
    the pairs are already in place (or the books do not line up with the compared entries)."""
    book_a, book_b = a.book, b.book
    if book_a is None or book_b is None:
        return None
    if len(book_a.entries) != len(result.a_entries) or len(book_b.entries) != len(result.b_entries):
        return None
    to_a = {pair.b: pair.a for pair in result.pairs}
    if len(book_a.entries) == len(book_b.entries) and all(to_a.get(j) == j for j in range(len(book_b.entries))):
        return None
    entries = [book_a.entries[to_a[j]] if j in to_a else book_b.entries[j] for j in range(len(book_b.entries))]
    book = book_a.model_copy(update={"entries": entries})
    if a.lorebook is not None:
        return replace(a, lorebook=book), to_a
    assert a.card is not None
    card = as_displayed(a.card)
    data = card.data.model_copy(update={"character_book": book})
    return replace(a, card=card.model_copy(update={"data": data})), to_a


def _sections_only(view: CanonicalView) -> CanonicalView:
    return CanonicalView(kind=view.kind, root=view.root, card=view.card, book=view.book, has_book_key=view.has_book_key)


def _one_entry(kind: str, entry: dict[str, Any]) -> CanonicalView:
    return CanonicalView(kind=kind, entries=[entry])


def entry_label(index: int, entry: dict[str, Any]) -> str:
    """``Wylder (#0)``: the entry's name (``names.entry_name``) and its place in its file."""
    name = entry_name(index, entry)
    return name if name == f"#{index}" else f"{name} (#{index})"
