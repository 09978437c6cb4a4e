"""One-line round-trip checks shared by the corpus, format and sample-platform tests.

Like sqlglot's ``tests/dialects/test_dialect.py`` Validator: a test states *what* must
survive (``assert_identity("ccv3", path)``, ``assert_via("ccv3", "risum", path)``) and this
module says *how* it is checked, once. Pair generation lives here too, so a test is
parametrised only with the (format, file) and (file, target) pairs that apply: a pair that
does not apply is listed with its reason and checked to be refused, never skipped.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from interop.api import detect, read_bytes, write
from interop.appmodel.paths import render
from interop.document import Document
from interop.errors import ConversionError
from interop.fidelity.container_diff import container_paths
from interop.fidelity.roundtrip import Leg, document_changes, roundtrip
from interop.fidelity.view import leaves, view_of
from interop.jsonvalue import json_equal
from interop.platform.registry import get_format

Source = Path | bytes


def _load(source: Source, filename: str | None) -> tuple[bytes, str | None]:
    # the full path as filename, as ``interop.api.read`` gives it (readers may look beside the file)
    if isinstance(source, Path):
        return source.read_bytes(), filename or str(source)
    return source, filename


def _json_or_none(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (UnicodeDecodeError, ValueError):
        return None


def assert_identity(fmt: str, source: Source, *, filename: str | None = None, detected: str | None = None) -> Document:
    """``source`` is detected as ``fmt``, and reading it then writing ``fmt`` gives it back.

    JSON input must come back type-strict deep-equal (``1``, ``1.0`` and ``true`` differ);
    any input must read back with no field removed or changed in the canonical model
    (a container writer may add what its spec requires, e.g. a V3 chunk beside a V2 one).
    ``detected`` names what detection must say when ``fmt`` is only reached by asking for it
    (a SillyTavern card is a V2 card by content; a Risu CHARX is also a CHARX); the file is
    then read as ``fmt``.
    """
    data, name = _load(source, filename)
    found = detect(data, name)
    assert found == (detected or fmt), f"{name}: detected as {found!r}, not {detected or fmt!r}"
    doc = read_bytes(data, filename=name) if detected is None else read_bytes(data, format=fmt, filename=name)
    out = write(doc, fmt)
    original = _json_or_none(data)
    if original is not None:
        assert json_equal(original, json.loads(out)), f"{name}: {fmt} JSON not written back identical"
    again = read_bytes(out, format=fmt, filename=name)
    changed = [f"{render(c.path)}: {c.describe()}" for c in document_changes(doc, again) if c.kind != "added"]
    assert changed == [], f"{name}: {fmt} -> {fmt} changed " + "; ".join(changed[:10])
    return doc


# --- source -> via -> source --------------------------------------------------------------------


def _assert_report_accounts_for_every_field(leg: Leg, doc: Document) -> None:
    report = leg.forward
    assert report is not None
    paths = [item.path for item in report.items]
    duplicates = [p for p, n in Counter(paths).items() if n > 1]
    assert duplicates == [], "a field got two fates"
    view = view_of(doc)
    expected = {render(p) for p in leaves(view)} | {render(p) for p in container_paths(view)}
    assert set(paths) == expected, "the report must account for every source field"


def assert_via(
    src_fmt: str,
    via: str,
    source: Source,
    *,
    filename: str | None = None,
    exact: bool = False,
) -> Leg:
    """``source`` (read as ``src_fmt``) -> ``via`` -> ``src_fmt`` keeps every promise of the report.

    The report accounts for every source field exactly once; every field it called kept,
    translated or stashed comes back equal; without losses nothing but additions changed
    (without a way back, a part the report says moved must be at its new address).
    ``exact``: moreover the ``via`` file, read by its content as a user's next import would,
    written back as ``src_fmt`` is the JSON source again, type-strict deep-equal.
    """
    data, name = _load(source, filename)
    doc = read_bytes(data, filename=name)
    assert doc.format == src_fmt, f"{name}: read as {doc.format!r}, not {src_fmt!r}"
    leg = roundtrip(doc, via)
    assert leg.skipped is None, f"{name} -> {via} does not apply ({leg.skipped}): list it with refusal()"
    _assert_report_accounts_for_every_field(leg, doc)
    if not leg.ok:
        shown = [f"{render(c.path)}: {c.describe()} [way back {leg.way_back(render(c.path))}]" for c in leg.unpredicted]
        pytest.fail("promised back but changed:\n" + "\n".join(shown[:10]))
    assert leg.forward is not None
    if not leg.forward.has_losses:  # not applicable / kept (default) fields may be all that changed
        expected = leg.moved | leg.predicted_paths()
        assert [c for c in leg.changes if c.kind != "added" and render(c.path) not in expected] == []
    if exact:
        _assert_written_back_exactly(doc, via, data, name)
    return leg


def _assert_written_back_exactly(doc: Document, via: str, data: bytes, name: str | None) -> None:
    back = write(read_bytes(write(doc, via)), doc.format)
    trip = f"{doc.format} -> {via} -> {doc.format}"
    assert json_equal(json.loads(data), json.loads(back)), f"{name}: {trip} not written back identical"


# --- which pairs apply ------------------------------------------------------------------------

NO_BOOK = "the card has no lorebook (character_book) to write"
NOT_A_STORY = "a NovelAI story can only be written back from a story export"

BOOK_FROM_ANY_DOCUMENT = {"novelai-scenario"}
"""Lorebook-kind targets that also write a document without a book (a scenario holds a card)."""
ONLY_FROM_ITSELF = {"novelai-story": NOT_A_STORY}
"""Targets written only from a document of the same format (the story text has no other source)."""


def refusal(doc: Document, target: str) -> str | None:
    """Why writing ``doc`` as ``target`` is refused with a ConversionError, or None when it applies.

    Decided from the document's shape, without writing; ``assert_refused`` checks each
    answer against the writer, so a rule that hides a real pair fails a test.
    """
    fmt = get_format(target)
    if doc.book is None and fmt.kind == "lorebook" and target not in BOOK_FROM_ANY_DOCUMENT:
        return NO_BOOK
    if target in ONLY_FROM_ITSELF and doc.format != target:
        return ONLY_FROM_ITSELF[target]
    return None


def assert_refused(doc: Document, target: str, reason: str) -> None:
    """Writing ``doc`` as ``target`` raises a ConversionError saying ``reason``."""
    with pytest.raises(ConversionError) as info:
        write(doc, target)
    assert info.value.reason.startswith(reason), info.value.reason


@dataclass(frozen=True)
class Pair:
    path: Path
    format: str
    target: str


def split_pairs(
    files: Iterable[Path], targets: Iterable[str], reader: Callable[[Path], Document]
) -> tuple[list[Pair], list[tuple[Pair, str]]]:
    """(file, target) pairs that apply, and those that do not with the reason they are refused."""
    targets = list(targets)
    applicable: list[Pair] = []
    refused: list[tuple[Pair, str]] = []
    for path in files:
        doc = reader(path)
        for target in targets:
            pair = Pair(path, doc.format, target)
            reason = refusal(doc, target)
            if reason is None:
                applicable.append(pair)
            else:
                refused.append((pair, reason))
    return applicable, refused


def corpus_pairs(pairs: list[tuple[Any, ...]], what: str, arity: int = 2) -> list[object]:
    """pytest params for the (file, ...) combinations that apply, or one skipped param when the
    corpus is absent: tests list only what applies instead of skipping inside."""
    if not pairs:
        reason = f"no {what} files found (is ../shared beside the repo?)"
        return [pytest.param(*([None] * arity), marks=pytest.mark.skip(reason=reason))]
    return [pytest.param(*pair, id="-".join(str(getattr(x, "name", x)) for x in pair)) for pair in pairs]


def pair_params(pairs: list[Pair], what: str) -> list[object]:
    """pytest params ``(src_fmt, target, path)``, or one param skipped because the corpus is absent."""
    if not pairs:
        reason = f"no {what} files found (is ../shared beside the repo?)"
        return [pytest.param(None, None, None, marks=pytest.mark.skip(reason=reason))]
    return [pytest.param(p.format, p.target, p.path, id=f"{p.path.name}-{p.target}") for p in pairs]
