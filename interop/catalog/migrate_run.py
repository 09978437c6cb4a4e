"""A migration run: many files -> catalog + converted outputs, resumable and parallel.

Workers (``--jobs N`` processes) do everything that costs CPU: read, convert,
fidelity report, atomic output writes. The parent alone writes the
database, each file all-or-nothing (``recorder.BatchRecorder``). Why the parent: SQLite has one writer
at a time anyway, so per-worker sessions would only add lock waits and
busy retries; workers stay free of database connections (nothing to
re-open after fork, nothing to leak when one dies); and recording is a small
share of the time per file (see ``benchmarks/migrate.py``). Several *processes*
(two ``interop migrate`` runs on one PostgreSQL catalog) are still safe: the
recorder's inserts are idempotent (``ON CONFLICT``), with a retry on conflicts.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..io import remove_stale_temp_files
from ..limits import DEFAULT_LIMITS, Limits
from ..mappings import FATES
from .database import Catalog
from .pipeline import FileOutcome, RunConfig, init_worker, process_file, process_in_worker
from .recorder import BatchRecorder

_DONE = (
    "SELECT source_files.sha256, migrations.target, migrations.status, migrations.output_path, "
    "migrations.output_sha256 FROM source_files JOIN migrations ON migrations.source_file_id = source_files.id "
    "WHERE source_files.status = 'imported' AND migrations.target IN ({}) AND migrations.status IN ('done', 'skipped')"
)
"""``load_done``'s statement on a SQLite file catalog's driver connection (no SQLAlchemy to import)."""


def load_done(
    catalog: Catalog, targets: Iterable[str], *, shas: list[str] | None = None
) -> dict[str, dict[str, tuple[str, str] | None]]:
    """sha256 -> {target: (output path, sha256)} for every finished (done or skipped) migration of the targets
    (of the files ``shas`` only, when given: a distributed worker asks per batch)."""
    done: dict[str, dict[str, tuple[str, str] | None]] = {}
    targets = list(targets)
    if shas is None and catalog.sqlite() is not None:
        with catalog.transaction() as driver:
            return _done_of(driver.execute(_DONE.format(", ".join("?" * len(targets))), targets), done)
    from sqlalchemy import select

    from .tables import MIGRATIONS, SOURCE_FILES

    stmt = (
        select(
            SOURCE_FILES.c.sha256,
            MIGRATIONS.c.target,
            MIGRATIONS.c.status,
            MIGRATIONS.c.output_path,
            MIGRATIONS.c.output_sha256,
        )
        .join(MIGRATIONS, MIGRATIONS.c.source_file_id == SOURCE_FILES.c.id)
        .where(SOURCE_FILES.c.status == "imported", MIGRATIONS.c.target.in_(targets))
        .where(MIGRATIONS.c.status.in_(("done", "skipped")))
    )
    if shas is not None:
        if not shas:
            return done
        stmt = stmt.where(SOURCE_FILES.c.sha256.in_(shas))
    with catalog.engine.connect() as conn:
        return _done_of(conn.execute(stmt), done)


def _done_of(
    rows: Iterable[Any], done: dict[str, dict[str, tuple[str, str] | None]]
) -> dict[str, dict[str, tuple[str, str] | None]]:
    for sha, target, status, path, out_sha in rows:
        done.setdefault(sha, {})[target] = (path, out_sha) if status == "done" else None
    return done


def file_tally(outcome: FileOutcome) -> dict[str, Any]:
    """What a run summary needs of one file, as plain JSON-able data."""
    item = outcome.item
    kind = None
    if item is not None:
        if item.card is not None:
            kind = "card+book" if item.card.book is not None else "card"
        elif item.book is not None:
            kind = "book"
    book = item.any_book if item is not None else None
    return {
        "path": outcome.path,
        "status": outcome.status,
        "sha256": outcome.sha256,
        "error": outcome.error,
        "format": outcome.format,
        "read_ms": round(outcome.read_ms, 3),
        "write_ms": round(outcome.write_ms, 3),
        "item": kind,
        "entries": len(book.entries) if book is not None else 0,
        "targets": [
            [t.target, t.status, t.reason, t.counts, t.has_losses, t.convert_ms, t.report_ms, t.write_ms]
            for t in outcome.targets
        ],
    }


@dataclass
class TargetTally:
    written: int = 0
    skipped: int = 0
    failed: int = 0
    fates: Counter[str] = field(default_factory=Counter)
    with_losses: int = 0
    skip_reasons: Counter[str] = field(default_factory=Counter)


@dataclass
class RunSummary:
    files: Counter[str] = field(default_factory=Counter)
    """seen, imported, duplicate, unchanged, ignored, failed"""
    cards: int = 0
    lorebooks: int = 0
    embedded_lorebooks: int = 0
    entries: int = 0
    formats: Counter[str] = field(default_factory=Counter)
    targets: dict[str, TargetTally] = field(default_factory=dict)
    failures: list[tuple[str, str]] = field(default_factory=list)
    timings_ms: Counter[str] = field(default_factory=Counter)
    wall_s: float = 0.0
    fidelity: bool = False
    database_busy_ms: float = 0.0
    """Wall time of the catalog writer (it overlaps the other phases); ``timings_ms["database"]`` is the wait."""
    database_cpu_ms: float = 0.0
    """CPU time the catalog writer used in this process (SQLite's work, or the PostgreSQL client's)."""
    stale_temp_files: list[str] = field(default_factory=list)
    """Orphaned ``write_atomic`` temporary files (a killed earlier run's) removed from the output folders."""

    def add(self, outcome: FileOutcome, seen: set[str]) -> None:
        self.add_tally(file_tally(outcome), seen)

    def add_tally(self, tally: dict[str, Any], seen: set[str]) -> None:
        """Count one file from its ``file_tally`` (distributed runs read these back from the catalog)."""
        self.files["seen"] += 1
        status = tally["status"]
        sha256 = tally["sha256"]
        if status == "imported" and sha256 in seen:
            status = "duplicate"
        if sha256 is not None:
            seen.add(sha256)
        self.files[status] += 1
        if status == "failed":
            self.failures.append((tally["path"], tally["error"] or "unknown error"))
        if status != "imported":
            return
        self.formats[tally["format"] or "?"] += 1
        self.timings_ms["read"] += tally["read_ms"]
        self.timings_ms["write"] += tally["write_ms"]
        item = tally["item"]
        if item == "card":
            self.cards += 1
        elif item == "card+book":
            self.cards += 1
            self.embedded_lorebooks += 1
        elif item == "book":
            self.lorebooks += 1
        self.entries += tally["entries"]
        for target, t_status, reason, counts, has_losses, convert_ms, report_ms, write_ms in tally["targets"]:
            tally_t = self.targets.setdefault(target, TargetTally())
            self.timings_ms["convert"] += convert_ms
            self.timings_ms["report"] += report_ms
            self.timings_ms["write"] += write_ms
            if t_status == "done":
                tally_t.written += 1
            elif t_status == "skipped":
                tally_t.skipped += 1
                tally_t.skip_reasons[reason or "?"] += 1
            else:
                tally_t.failed += 1
                self.failures.append((tally["path"], f"{target}: {reason}"))
            if counts is not None:
                self.fidelity = True
                tally_t.fates.update({f: counts.get(f, 0) for f in FATES})
                tally_t.with_losses += bool(has_losses)

    @property
    def nothing_done(self) -> bool:
        """Something failed and nothing else happened: no output written, no target skipped, no file unchanged.

        A run where every file or every output failed (a full disk, an unwritable
        --out, a folder of unreadable files) must not look like success (exit 0).
        """
        if not self.failures or self.files["unchanged"]:
            return False
        return not any(t.written or t.skipped for t in self.targets.values())

    @property
    def files_per_s(self) -> float:
        return self.files["seen"] / self.wall_s if self.wall_s else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "files": {
                k: self.files.get(k, 0) for k in ("seen", "imported", "duplicate", "unchanged", "ignored", "failed")
            },
            "cards": self.cards,
            "lorebooks": self.lorebooks,
            "embedded_lorebooks": self.embedded_lorebooks,
            "entries": self.entries,
            "formats": dict(sorted(self.formats.items())),
            "targets": {
                name: {
                    "written": t.written,
                    "skipped": t.skipped,
                    "failed": t.failed,
                    "skip_reasons": dict(t.skip_reasons),
                    "fates": {f: t.fates.get(f, 0) for f in FATES} if self.fidelity else None,
                    "files_with_losses": t.with_losses if self.fidelity else None,
                }
                for name, t in self.targets.items()
            },
            "failures": [{"file": f, "reason": r} for f, r in self.failures],
            "timings_ms": {k: round(v, 1) for k, v in sorted(self.timings_ms.items())},
            "database_busy_ms": round(self.database_busy_ms, 1),
            "database_cpu_ms": round(self.database_cpu_ms, 1),
            "wall_s": round(self.wall_s, 3),
            "files_per_s": round(self.files_per_s, 1),
        }


def _sha256_of(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def split_copies(files: list[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The files to process, and the later copies (path, sha256) of bytes met earlier in ``files``.

    Two byte-identical files are one source file in the catalog, but their
    titles (and so their output names and bytes) can differ when the title comes
    from the file name (SillyTavern worlds). Converting both left one output on
    disk that the catalog never recorded, and which one was recorded depended
    on batch boundaries, so a killed and resumed run could differ from an
    uninterrupted one (issue 23 item 11). The first in input order (sorted:
    the same in every run) is the one converted; later copies are counted as
    duplicates and write nothing. Only files whose sizes collide are hashed here.
    """
    by_size: dict[int, list[int]] = {}
    for index, path in enumerate(files):
        try:
            info = os.stat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            by_size.setdefault(info.st_size, []).append(index)
    copies: dict[int, str] = {}
    for indexes in by_size.values():
        if len(indexes) < 2:
            continue
        first: set[str] = set()
        for index in indexes:
            sha = _sha256_of(files[index])
            if sha is None:
                continue
            if sha in first:
                copies[index] = sha
            first.add(sha)
    keep = [path for index, path in enumerate(files) if index not in copies]
    return keep, [(files[index], sha) for index, sha in sorted(copies.items())]


def _outcomes(config: RunConfig, files: list[Path], jobs: int) -> Iterator[FileOutcome]:
    if jobs <= 1:
        for path in files:
            yield process_file(config, path)
        return
    # spawn, not fork: the parent holds database connections a forked child must not inherit.
    import multiprocessing  # only a run with workers needs it

    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(jobs, initializer=init_worker, initargs=(config,)) as pool:
        chunk = max(1, min(16, len(files) // (jobs * 8) or 1))
        yield from pool.imap(process_in_worker, files, chunksize=chunk)


def migrate(
    catalog: Catalog,
    files: list[Path],
    targets: tuple[str, ...],
    out_dir: Path,
    *,
    jobs: int = 1,
    pretty: bool = True,
    progress: Callable[[FileOutcome, RunSummary], None] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    options: dict[str, Any] | None = None,
) -> RunSummary:
    """Import ``files`` into ``catalog`` and write each as every target under ``out_dir``."""
    start = time.perf_counter()
    config = RunConfig(
        targets=targets,
        out_dir=out_dir,
        data_dir=catalog.data_dir,
        done=load_done(catalog, targets),
        pretty=pretty,
        limits=limits,
        options=dict(options or {}),
    )
    summary = RunSummary()
    # a run killed mid-write (SIGKILL) leaves `.<name>.XXXXXXXX.tmp` beside its outputs: the resumed run
    # removes those older than an hour (younger ones may be a concurrent run's write in progress)
    for target in targets:
        summary.stale_temp_files.extend(str(p) for p in remove_stale_temp_files(out_dir / target))
    seen: set[str] = set()
    files, copies = split_copies(files)
    # Files are counted in order once their batch is committed: a file the database
    # refuses is only known to have failed then.
    uncounted: deque[FileOutcome] = deque()

    def count_until(last: FileOutcome | None) -> None:
        while uncounted:
            outcome = uncounted.popleft()
            if outcome.recorded_before and outcome.status == "imported" and outcome.sha256 not in config.done:
                # another run (a concurrent migrate on this catalog) imported it since this one started:
                # its summary counts the import, this one counts the file unchanged, not imported twice
                outcome.status = "unchanged"
            summary.add(outcome, seen)
            if progress is not None:
                progress(outcome, summary)
            if outcome is last:
                return

    recorder = BatchRecorder(catalog, on_committed=lambda batch: count_until(batch[-1]))
    try:
        for outcome in _outcomes(config, files, jobs):
            uncounted.append(outcome)
            recorder.add(outcome)
        recorder.flush()
        count_until(None)
        for path, sha in copies:
            copy = FileOutcome(str(path), "duplicate", sha256=sha)
            summary.add(copy, seen)
            if progress is not None:
                progress(copy, summary)
    finally:
        recorder.close()
        # what the run waited for; the writer thread's own time overlaps the other phases
        summary.timings_ms["database"] += recorder.waited_ms
        summary.database_busy_ms = recorder.busy_ms
        summary.database_cpu_ms = recorder.cpu_ms
    os.sync()  # outputs are not fsynced one by one (see pipeline.write_output)
    summary.wall_s = time.perf_counter() - start
    return summary
