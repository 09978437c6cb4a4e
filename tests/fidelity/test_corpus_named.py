"""Issue 19: no output of the shared corpus differs from its source without a named finding.

Independent of the journal and of the report's own comparison: the source is read, written as
the target, and the output read back with the target's reader (or, for a write-only format,
whatever the output is detected as); the two canonical documents are diffed here, leaf by leaf.
Every path that differs must be named by the report: an item of that path (or of an enclosing
or enclosed one) whose fate is not ``kept``, or, for a field only the output has, a line of
``report.added`` (or a warning naming a wrapping card).

Cards are compared as CCv3 (``model.versions.to_v3``: a V1/V2 card upgraded, its V3 downgrade stash
restored, the spec defaults an upgrade fills left out), as the report compares them. Not compared:
``spec``/``spec_version`` (the container's version marker, decided by the target) and the bytes of
pictures and assets (the report's container items judge those).

Sample (the full matrix takes minutes on a loaded machine; this stays well under a minute): for
every source format in the shared corpus, its smallest file, written to every writable target.
So every format and every target is covered, deterministically (sorted by size, then name).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from interop.api import read
from interop.appmodel.paths import render
from interop.cardkit.as_kind import mapped_card
from interop.conversion import convert_document
from interop.document import Document
from interop.errors import ConversionError
from interop.fidelity import FidelityReport
from interop.fidelity.report import read_back
from interop.model.versions import to_v3
from interop.platform.registry import writable_formats
from tests.conftest import SHARED_CORPUS

NOT_SAMPLES = {".py", ".md", ".txt", ".jsonl", ".tsv"}
VERSION_MARKERS = ("spec", "spec_version")


def _files() -> list[Path]:
    if not SHARED_CORPUS.is_dir():
        return []
    return sorted(
        (
            p
            for p in SHARED_CORPUS.rglob("*")
            if p.is_file()
            and p.suffix.lower() not in NOT_SAMPLES
            and not p.name.startswith(".")
            and "chats" not in p.parts
        ),
        key=lambda p: (p.stat().st_size, p.name),
    )


@functools.cache
def _read(path: Path) -> Document:
    return read(path)


def _sample() -> list[Path]:
    """The smallest readable file of each source format."""
    chosen: dict[str, Path] = {}
    for path in _files():
        try:
            fmt = _read(path).format
        except Exception:
            continue
        chosen.setdefault(fmt, path)
    return sorted(chosen.values())


def _params() -> list[Any]:
    sample = _sample()
    if not sample:
        return [pytest.param(None, None, marks=pytest.mark.skip(reason=f"shared corpus not found at {SHARED_CORPUS}"))]
    targets = sorted(f.name for f in writable_formats())
    return [pytest.param(p, t, id=f"{p.name}->{t}") for p in sample for t in targets]


# --- the independent comparison -----------------------------------------------------------


def _sections(doc: Document) -> tuple[dict[str, Any], list[Any]]:
    """(``{"root": ..., "card": ..., "book": ...}``, entries) in the report's path sections."""
    out: dict[str, Any] = {}
    book: Any = None
    mapped = doc.card if doc.card is not None else mapped_card(doc)  # a NovelAI scenario's own card
    filled: set[str] = set()
    if mapped is not None:
        card = to_v3(mapped)  # the library's upgrade: a V1/V2 card (and its V3 stash) as CCv3
        raw = card.dump()
        data = raw.get("data") if isinstance(raw.get("data"), dict) else {}
        out["root"] = {k: v for k, v in raw.items() if k not in (*VERSION_MARKERS, "data")}
        filled = card.filled  # spec defaults the upgrade filled in: in neither file
        out["card"] = {k: v for k, v in data.items() if k != "character_book" and f"data.{k}" not in filled}
        book = data.get("character_book")
    if doc.lorebook is not None:
        book, filled = doc.lorebook.dump(), set()  # a standalone book is read as it is
    entries: list[Any] = []
    if isinstance(book, dict):
        entries = book.get("entries") if isinstance(book.get("entries"), list) else []
        entries = [
            {k: v for k, v in e.items() if f"entries.{i}.{k}" not in filled} if isinstance(e, dict) else e
            for i, e in enumerate(entries)
        ]
        out["book"] = {k: v for k, v in book.items() if k != "entries"}
    return out, entries


def _diff(a: Any, b: Any, path: tuple[Any, ...], found: list[tuple[str, tuple[Any, ...]]]) -> None:
    """("removed" | "added" | "changed", path) for every leaf that differs (type-strict)."""
    if type(a) is dict and type(b) is dict:
        for key, value in a.items():
            if key not in b:
                found.append(("removed", (*path, key)))
            else:
                _diff(value, b[key], (*path, key), found)
        found.extend(("added", (*path, key)) for key in b if key not in a)
    elif type(a) is list and type(b) is list and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, (*path, index), found)
    elif type(a) is not type(b) or a != b:
        found.append(("changed", path))


def differences(source: Document, output: Document) -> list[tuple[str, tuple[Any, ...]]]:
    mine, my_entries = _sections(source)
    theirs, their_entries = _sections(output)
    found: list[tuple[str, tuple[Any, ...]]] = []
    for section in sorted(mine.keys() | theirs.keys()):
        if section not in theirs:
            found.extend(("removed", (section, key)) for key in mine[section])
        elif section not in mine:
            found.extend(("added", (section, key)) for key in theirs[section])
        else:
            _diff(mine[section], theirs[section], (section,), found)
    for index in range(max(len(my_entries), len(their_entries))):
        if index >= len(their_entries):
            found.append(("removed", ("entry", index)))
        elif index >= len(my_entries):
            found.append(("added", ("entry", index)))
        else:
            _diff(my_entries[index], their_entries[index], ("entry", index), found)
    return found


# --- what the report names -----------------------------------------------------------------


def _related(a: str, b: str) -> bool:
    """``a`` is ``b``, encloses it or lies inside it."""
    return a == b or b.startswith((a + ".", a + "[")) or a.startswith((b + ".", b + "["))


def _generic(path: tuple[Any, ...]) -> str:
    """``entry[3].extensions.x`` as the added lines name it: ``entry.extensions.x``."""
    if path[0] == "entry" and len(path) > 1 and isinstance(path[1], int):
        return "entry" + render(path[1:])[len(f"[{path[1]}]") :] if len(path) > 2 else "entry"
    return render(path)


def unnamed(report: FidelityReport, found: list[tuple[str, tuple[Any, ...]]]) -> list[str]:
    flagged = [item.path for item in report.items if item.fate != "kept"]
    added = [line.split(" = ", 1)[0].split(": ", 1)[0] for line in report.added]
    wrapped = any("wrapped in a new card" in w for w in report.warnings)
    missing = []
    for kind, path in found:
        name = render(path)
        if any(_related(p, name) for p in flagged):
            continue
        if kind == "added" and (
            any(_related(a, _generic(path)) for a in added) or (wrapped and path[0] in ("card", "root"))
        ):
            continue
        missing.append(f"{kind} {name}")
    return missing


@pytest.mark.parametrize(("path", "target"), _params())
def test_every_difference_is_named(path: Path, target: str) -> None:
    source = _read(path)
    try:
        conversion = convert_document(source, target)
    except ConversionError:
        pytest.skip(f"{target} does not hold a {source.kind} like this one (refused, see test_corpus_matrix)")
    output = read_back(conversion.data, target, source.source)  # the target's reader, not the journal
    if output is None:
        pytest.skip(f"{target} output cannot be read back")
    missing = unnamed(conversion.report, differences(source, output))
    assert not missing, f"{path.name} -> {target}: differs from its source without a named finding:\n" + "\n".join(
        missing[:25]
    )
