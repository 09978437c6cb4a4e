"""The per-file work of a migration run: read, convert, check fidelity, write outputs.

``process_file`` touches no database: it returns a picklable ``FileOutcome``
so it can run in worker processes while one writer records the outcomes
(see ``migrate_run.py``). Outputs and asset blobs are written here, atomically,
before the outcome is recorded; a run killed in between just rewrites the
same bytes to the same deterministic names when started again.
"""

from __future__ import annotations

import os
import re
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..api import read_bytes, write_with_journal
from ..chatbook import attach_bound_book
from ..conversion import report_of
from ..document import Document
from ..errors import ConversionError, InteropError
from ..findings import Journal
from ..io import read_limited, replace_atomically
from ..limits import DEFAULT_LIMITS, Limits
from ..memo import document_scope
from ..platform.registry import get_format
from .records import Digests, ItemRecord, blobs_of, item_record, sha256_hex


@dataclass
class TargetOutcome:
    target: str
    status: str
    """``done``, ``skipped`` (the target cannot hold this kind of item) or ``failed``."""
    reason: str | None = None
    output_path: str | None = None
    output_sha256: str | None = None
    convert_ms: float = 0.0
    report_ms: float = 0.0
    write_ms: float = 0.0
    counts: dict[str, int] | None = None
    has_losses: bool | None = None
    report_json: str | None = None
    """``report.to_json()`` serialised here, in the worker, to keep the writer's share small."""


@dataclass
class FileOutcome:
    path: str
    status: str
    """``imported``, ``failed`` or ``unchanged``
    (an earlier run already recorded this content with every requested target written)."""
    sha256: str | None = None
    size: int = 0
    format: str | None = None
    platform: str | None = None
    kind: str | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    item: ItemRecord | None = None
    targets: list[TargetOutcome] = field(default_factory=list)
    read_ms: float = 0.0
    write_ms: float = 0.0
    recorded_before: bool = False
    """Set by the recorder: the catalog already held this content as imported when the file was recorded."""


@dataclass
class RunConfig:
    targets: tuple[str, ...]
    out_dir: Path
    data_dir: Path
    done: dict[str, dict[str, tuple[str, str] | None]] = field(default_factory=dict)
    """sha256 -> {target: (output path, output sha256), or None if skipped} already recorded as finished."""
    pretty: bool = True
    limits: Limits = DEFAULT_LIMITS
    options: dict[str, Any] = field(default_factory=dict)
    """Writer options (``WriteContext.options``), e.g. ``embed_picture``."""
    _folders: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    """``str(out_dir / target)`` per target, made once per run (``/assets``: the blob store's)."""

    def folder(self, target: str) -> str:
        """``str(out_dir / target)``: an output's path is then one ``os.path.join`` with its
        (slash-free) name, the same string as the ``Path`` one for less work."""
        folder = self._folders.get(target)
        if folder is None:
            folder = self._folders[target] = str(self.out_dir / target)
        return folder

    def blob_folder(self) -> str:
        """``str(data_dir / "assets")``, the blob store (a format name never holds ``/``)."""
        folder = self._folders.get("/assets")
        if folder is None:
            folder = self._folders["/assets"] = str(self.data_dir / "assets")
        return folder


_SLUG = re.compile(r"[^\w.-]+", re.UNICODE)


def slug(text: str, limit: int = 60) -> str:
    text = unicodedata.normalize("NFKC", text).strip()
    cleaned = _SLUG.sub("_", text).strip("._-")
    return cleaned[:limit] or "untitled"


def output_stem(doc: Document) -> str:
    """The name part every output of ``doc`` shares: its title (else its file's stem), slugged."""
    return slug(doc.title or Path(doc.source or "item").stem)


def output_path(config: RunConfig, doc: Document, sha256: str, target: str, stem: str | None = None) -> str:
    """Deterministic name from content: identical inputs map to one output, reruns to the same file.
    (A string joined by ``os.path``: ``Path`` arithmetic costs more than the rest of an output's naming.)
    ``stem``: ``output_stem(doc)``, made once for all targets of a file."""
    stem = output_stem(doc) if stem is None else stem
    return os.path.join(config.folder(target), f"{stem}-{sha256[:12]}{get_format(target).suffix}")


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def _already_done(config: RunConfig, sha256: str) -> bool:
    """Recorded as finished for every target, and every output still holds the bytes recorded."""
    done = config.done.get(sha256)
    if done is None or any(t not in done for t in config.targets):
        return False
    for target in config.targets:
        output = done[target]
        if output is None:
            continue
        try:
            if sha256_hex(Path(output[0]).read_bytes()) != output[1]:
                return False
        except OSError:
            return False
    return True


def write_output(path: str | Path, data: bytes, *, inputs: tuple[str | Path, ...] = ()) -> None:
    """Atomic replace (temp file + rename) without one fsync per file.

    An fsync per file costs more than a whole conversion and a run writes
    thousands. Durability comes instead from one ``os.sync()`` at the end of the
    run and from resuming, which re-hashes every recorded output and redoes any
    that is missing or differs. A killed process still never leaves a
    half-written file under a final name.
    """
    replace_atomically(os.fspath(path), data, inputs=inputs, fsync=False)


def _internal(exc: BaseException) -> str:
    return f"internal error: {type(exc).__name__}: {exc}"


def convert_target(
    config: RunConfig, doc: Document, sha256: str, target: str, source: Path, stem: str | None = None
) -> TargetOutcome:
    start = time.perf_counter()
    try:
        written = write_with_journal(doc, target, pretty=config.pretty, **config.options)
    except ConversionError as exc:
        return TargetOutcome(target, "skipped", reason=exc.reason, convert_ms=_ms(start))
    except InteropError as exc:
        return TargetOutcome(target, "failed", reason=exc.reason, convert_ms=_ms(start))
    except Exception as exc:  # an adapter bug must not stop a run over thousands of files
        return TargetOutcome(target, "failed", reason=_internal(exc), convert_ms=_ms(start))
    outcome = TargetOutcome(target, "done", convert_ms=_ms(start))
    data = written.data
    output_sha256 = sha256_hex(data)
    # The input file again, byte for byte: reading it back gives the source document.
    read = doc if output_sha256 == sha256 and target == doc.format else None
    _add_report(outcome, doc, target, data, written.journal, read)
    start = time.perf_counter()
    path = output_path(config, doc, sha256, target, stem)
    try:
        write_output(path, data, inputs=(source,))
    except (InteropError, OSError) as exc:
        return TargetOutcome(target, "failed", reason=f"cannot write output: {exc}", convert_ms=outcome.convert_ms)
    outcome.write_ms = _ms(start)
    outcome.output_path = path
    outcome.output_sha256 = output_sha256
    return outcome


def _add_report(
    outcome: TargetOutcome, doc: Document, target: str, data: bytes, journal: Journal, read: Document | None
) -> None:
    """The fidelity report's counts and JSON on ``outcome`` (or why there is none); ``journal``:
    what the writer recorded (the report folds it in instead of re-running rewrites); ``read``:
    ``data`` already read (the source itself when the output is the input file)."""
    start = time.perf_counter()
    try:
        report = report_of(doc, target, data, journal, output_doc=read)
        outcome.counts = {k: int(v) for k, v in report.counts.items()}
        outcome.has_losses = bool(report.has_losses)
        outcome.report_json = report.to_json_text()
    except Exception as exc:  # the report is advisory: record why it is missing, keep the output
        outcome.reason = f"fidelity report unavailable: {exc}"
    outcome.report_ms = _ms(start)


def store_blobs(config: RunConfig, doc: Document, digests: Digests | None = None) -> None:
    """Every binary part of ``doc`` into the blob store (``digests``: the parts already hashed)."""
    for digest, data in blobs_of(doc, digests or sha256_hex).items():
        path = os.path.join(config.blob_folder(), digest[:2], digest)
        if not os.path.isfile(path):  # content-addressed: a blob already stored holds these bytes
            write_output(path, data)


def process_file(config: RunConfig, path: Path) -> FileOutcome:
    """Everything about one input file except the database."""
    start = time.perf_counter()
    try:
        # regular files only, bounded by the limit: a FIFO or /dev/zero must not hang or exhaust the run
        data = read_limited(path, config.limits.max_file_bytes)
    except InteropError as exc:
        return FileOutcome(str(path), "failed", error=exc.reason)
    sha256 = sha256_hex(data)
    digests = Digests((data, sha256))  # a PNG card's picture is ``data``: hashed once for every row
    outcome = FileOutcome(str(path), "imported", sha256=sha256, size=len(data))
    if _already_done(config, sha256):
        outcome.status = "unchanged"
        return outcome
    try:
        doc = read_bytes(data, filename=str(path), limits=config.limits)
        fmt = get_format(doc.format)
        note = attach_bound_book(doc, path)  # a chat's world bound by name: catalogued and carried with it
        if note and doc.chat is not None and doc.chat.lorebook is None:
            doc.warn(note)
        outcome.item = item_record(doc, digests)
    except InteropError as exc:
        outcome.status, outcome.error = "failed", exc.reason
        return outcome
    except Exception as exc:
        outcome.status, outcome.error = "failed", _internal(exc)
        return outcome
    outcome.format, outcome.platform, outcome.kind = doc.format, fmt.platform, doc.kind
    outcome.warnings = list(doc.warnings)
    outcome.read_ms = _ms(start)
    start = time.perf_counter()
    try:
        store_blobs(config, doc, digests)
    except (InteropError, OSError) as exc:
        outcome.status, outcome.error = "failed", f"cannot store assets: {exc}"
        return outcome
    outcome.write_ms = _ms(start)
    with document_scope():  # doc is only read from here on: its targets share the per-source work
        stem = output_stem(doc)
        outcome.targets = [convert_target(config, doc, sha256, t, path, stem) for t in config.targets]
    return outcome


# --- worker-process plumbing ------------------------------------------------

_WORKER_CONFIG: RunConfig | None = None


def init_worker(config: RunConfig) -> None:
    global _WORKER_CONFIG
    _WORKER_CONFIG = config


def process_in_worker(path: Path) -> FileOutcome:
    assert _WORKER_CONFIG is not None, "init_worker was not called"
    return process_file(_WORKER_CONFIG, path)
