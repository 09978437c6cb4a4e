"""A file's targets share per-source work inside one ``document_scope`` (memoized views, settings,
natives, layouts; shared report bases): no target may change what a later one sees. Each output and
report must be what converting that target alone, from a fresh read and without any memo, gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from interop.api import read_bytes, write_with_journal
from interop.conversion import report_of
from interop.errors import InteropError
from interop.memo import document_scope
from interop.platform.registry import writable_formats

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"


def _files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "MANIFEST.tsv")


def _one(doc_bytes: bytes, name: str, target: str) -> tuple[bytes, str] | str:
    doc = read_bytes(doc_bytes, filename=name)
    return _convert(doc, target)


def _convert(doc: object, target: str) -> tuple[bytes, str] | str:
    try:
        written = write_with_journal(doc, target)  # type: ignore[arg-type]
    except InteropError as exc:
        return f"refused: {exc.reason}"
    return written.data, report_of(doc, target, written.data, written.journal).to_json_text()  # type: ignore[arg-type]


@pytest.mark.parametrize("path", _files() or [None], ids=lambda p: p.name if p else "no-corpus")
def test_targets_in_one_scope_give_what_each_gives_alone(path: Path | None) -> None:
    if path is None:
        pytest.skip(f"the shared corpus is not at {CORPUS}")
    data = path.read_bytes()
    try:
        doc = read_bytes(data, filename=path.name)
    except InteropError as exc:
        pytest.skip(f"not readable: {exc.reason}")
    targets = [fmt.name for fmt in writable_formats()]
    alone = {t: _one(data, path.name, t) for t in targets}
    for order in (targets, targets[::-1]):
        with document_scope():
            shared = {t: _convert(doc, t) for t in order}
        for t in order:
            assert shared[t] == alone[t], f"{path.name} -> {t} differs when converted after other targets"
