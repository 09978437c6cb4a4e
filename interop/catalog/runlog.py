"""Run records for migrations made in one process: ``interop migrate`` and the web page.

``--broker`` runs were already recorded in ``runs`` (catalog/distributed.py). Recording
the others there too makes one job system: the web page's "Recent migrations" and
``recent_runs`` list CLI and web migrations alike, from the catalog itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..jsonio import escape_lone_surrogates
from ..limits import DEFAULT_LIMITS, Limits
from .database import Catalog
from .migrate_run import RunSummary, migrate
from .pipeline import FileOutcome
from .recorder import sqlite_stamp, storable

if TYPE_CHECKING:
    from .models import Run

# ``models`` (the ORM) and ``distributed`` are imported by the read side below only: recording a
# run is two Core statements, and ``interop migrate``'s start-up counts (issue 19).

ORIGINS = ("cli", "web")


def start_run(
    catalog: Catalog,
    run_id: str,
    *,
    origin: str,
    files: list[Path],
    targets: tuple[str, ...],
    out_dir: Path,
    sources: list[str] | None = None,
    pretty: bool = True,
) -> None:
    """Record a run as running before its first file is read (its id is the caller's)."""
    assert origin in ORIGINS, origin
    row = {
        "id": run_id,
        "created_at": datetime.now(UTC),
        "sources": _json_text(sources if sources is not None else [str(p) for p in files]),
        "targets": ",".join(targets),
        "out_dir": str(out_dir),
        "data_dir": str(catalog.data_dir.resolve()),
        "pretty": pretty,
        "total_files": len(files),
        "batch_count": 0,
        "batch_size": 0,
        "files": _json_text([str(p) for p in files]),
        "ignored": 0,
        "origin": origin,
        "status": "running",
    }
    if catalog.sqlite() is not None:
        # the values as SQLAlchemy binds them on SQLite (a timestamp as text, a boolean as 0 / 1)
        values = {**row, "created_at": sqlite_stamp(row["created_at"]), "pretty": int(pretty)}
        with catalog.transaction() as driver:
            driver.execute(
                f"INSERT INTO runs ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})", [*values.values()]
            )
        return
    from .tables import RUNS

    with catalog.engine.begin() as conn:
        conn.execute(RUNS.insert(), row)


def finish_run(catalog: Catalog, run_id: str, summary: dict[str, Any] | None, error: str | None = None) -> None:
    values = {
        "status": "failed" if error else "done",
        "finished_at": datetime.now(UTC),
        "summary": _json_text(summary) if summary is not None else None,
        "error": storable(error),
    }
    if catalog.sqlite() is not None:
        values["finished_at"] = sqlite_stamp(values["finished_at"])
        with catalog.transaction() as driver:
            driver.execute(
                f"UPDATE runs SET {', '.join(f'{k} = ?' for k in values)} WHERE runs.id = ?", [*values.values(), run_id]
            )
        return
    from .tables import RUNS

    with catalog.engine.begin() as conn:
        conn.execute(RUNS.update().where(RUNS.c.id == run_id).values(values))


def recorded_migrate(
    catalog: Catalog,
    files: list[Path],
    targets: tuple[str, ...],
    out_dir: Path,
    *,
    run_id: str,
    origin: str = "cli",
    sources: list[str] | None = None,
    jobs: int = 1,
    pretty: bool = True,
    progress: Callable[[FileOutcome, RunSummary], None] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    options: dict[str, Any] | None = None,
) -> RunSummary:
    """``migrate_run.migrate`` with its run record: running first, then done with the summary, or failed with why."""
    start_run(catalog, run_id, origin=origin, files=files, targets=targets, out_dir=out_dir, sources=sources)
    try:
        summary = migrate(
            catalog,
            files,
            targets,
            out_dir,
            jobs=jobs,
            pretty=pretty,
            progress=progress,
            limits=limits,
            options=options,
        )
    except KeyboardInterrupt:
        finish_run(catalog, run_id, None, "interrupted (Ctrl-C)")
        raise
    except Exception as exc:
        finish_run(catalog, run_id, None, getattr(exc, "reason", None) or f"internal error: {type(exc).__name__}")
        raise
    finish_run(catalog, run_id, summary.to_json())
    return summary


def _epoch(moment: datetime | None) -> float | None:
    from .distributed import _aware

    moment = _aware(moment)  # SQLite hands timestamps back without their zone (UTC)
    return None if moment is None else moment.timestamp()


def recent_runs(catalog: Catalog, limit: int | None = 20, run_id: str | None = None) -> list[dict[str, Any]]:
    """Every kind of run, newest first (or the one asked for), as job records: id, origin, status, counts,
    targets, summary."""
    from sqlalchemy import func, select

    from .models import Run, RunBatch

    done_files = select(RunBatch.run_id, func.sum(RunBatch.files).label("files")).group_by(RunBatch.run_id).subquery()
    stmt = select(Run, done_files.c.files).outerjoin(done_files, done_files.c.run_id == Run.id)
    stmt = stmt.where(Run.id == run_id) if run_id is not None else stmt.order_by(Run.created_at.desc()).limit(limit)
    with catalog.session() as session:
        rows = session.execute(stmt).all()
    return [_job(run, int(files or 0)) for run, files in rows]


def _job(run: Run, batch_files: int) -> dict[str, Any]:
    summary = json.loads(run.summary) if run.summary else None
    counts = (summary or {}).get("files", {})
    if run.status is None:  # a --broker run: as far as its committed batches go
        status = "done" if batch_files >= run.total_files else "running"
        done = batch_files
    else:
        status = run.status
        done = counts.get("seen", run.total_files if status == "done" else 0)
    return {
        "id": run.id,
        "origin": run.origin,
        "status": status,
        "total": run.total_files,
        "done": done,
        # A --broker run's counts are in its batches' outcomes (`interop catalog runs RUN`), not summed here.
        "imported": None if run.status is None else counts.get("imported", 0),
        "failed": None if run.status is None else counts.get("failed", 0),
        "targets": [t for t in run.targets.split(",") if t],
        "created": _epoch(run.created_at),
        "finished": _epoch(run.finished_at),
        "summary": summary,
        "error": run.error,
        "broker": run.status is None,
    }


def _json_text(value: Any) -> str:
    """JSON as stored text: a file name that is not UTF-8 (a lone surrogate from Python's
    ``surrogateescape``) is written ``\\udcXX``, which the database can store and reads back the same."""
    return escape_lone_surrogates(json.dumps(value, ensure_ascii=False))
