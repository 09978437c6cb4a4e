"""Catalog migrations started over HTTP: uploaded files -> ``catalog.migrate_run.migrate`` in a background thread.

Each job is a run record in the catalog (catalog/runlog.py, origin ``web``), so the
"Recent migrations" list shows CLI and web migrations together; the JSON state file
below only carries a running job's live progress between worker processes.

Uploading to ``POST /migrations`` is how a user asks to catalog files, so only
here are inputs stored: under ``<catalog data dir>/service/uploads/<job>/<n>/<name>``
while the job runs, deleted when it ends (the catalog holds what was read from them)
unless the server keeps uploads (``ServiceConfig.keep_uploads``). Outputs go to
``<data dir>/service/outputs/<target>/``. Job state is a JSON file per job,
replaced atomically as the run advances, so any worker process of the server
can answer ``GET /migrations/{id}``; one migration runs at a time per process.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..catalog.database import Catalog
from ..catalog.migrate_run import RunSummary, migrate
from ..catalog.pipeline import FileOutcome
from ..catalog.runlog import finish_run, recent_runs, start_run
from ..errors import CatalogError, InteropError
from ..io import write_atomic
from .uploads import SpooledUpload, Upload

PROGRESS_EVERY_S = 0.2
_RUN_LOCK = threading.Lock()
_JOB_ID_CHARS = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class JobPaths:
    root: Path

    @classmethod
    def of(cls, catalog: Catalog) -> JobPaths:
        return cls(catalog.data_dir / "service")

    def state(self, job_id: str) -> Path:
        return self.root / "jobs" / f"{job_id}.json"

    def uploads(self, job_id: str) -> Path:
        return self.root / "uploads" / job_id

    @property
    def outputs(self) -> Path:
        return self.root / "outputs"


def valid_job_id(job_id: str) -> bool:
    """24 hex digits for a web job, 32 (a uuid) for a CLI run."""
    return len(job_id) in (24, 32) and set(job_id) <= _JOB_ID_CHARS


def _save(path: Path, state: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(state, ensure_ascii=False).encode("utf-8"), fsync=False)


def load_job(catalog: Catalog, job_id: str) -> dict[str, Any]:
    if not valid_job_id(job_id):
        raise CatalogError(f"no migration job {job_id!r}")
    try:
        return _checked(json.loads(JobPaths.of(catalog).state(job_id).read_text("utf-8")))
    except FileNotFoundError:
        pass
    found = next((run for run in recent_runs(catalog, limit=None, run_id=job_id)), None)
    if found is None:
        raise CatalogError(f"no migration job {job_id!r}")
    return found


def _checked(state: dict[str, Any]) -> dict[str, Any]:
    """A job left queued or running by a server process that is gone will never finish: say so."""
    if state.get("status") in ("queued", "running") and not _alive(state.get("pid")):
        state = {**state, "status": "failed", "error": "interrupted: the server process running it stopped"}
    return state


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recent_jobs(catalog: Catalog, limit: int = 20) -> list[dict[str, Any]]:
    """The catalog's runs (CLI and web), newest first; a running web job with its live progress."""
    paths = JobPaths.of(catalog)
    jobs = []
    for run in recent_runs(catalog, limit=limit):
        if run["origin"] == "web" and run["status"] == "running":
            try:
                live = _checked(json.loads(paths.state(run["id"]).read_text("utf-8")))
                run = {**run, **{k: live[k] for k in ("status", "done", "imported", "failed", "error") if k in live}}
            except (OSError, ValueError):
                pass
        jobs.append(run)
    return jobs


def start_job(
    catalog: Catalog,
    uploads: list[Upload | SpooledUpload],
    targets: tuple[str, ...],
    *,
    wait: bool = False,
    keep: bool = False,
) -> dict[str, Any]:
    """Store the uploads, record the job as queued and run it in a thread; returns the first state."""
    paths = JobPaths.of(catalog)
    job_id = secrets.token_hex(12)
    folder = paths.uploads(job_id)
    files: list[Path] = []
    names: dict[str, str] = {}
    for number, upload in enumerate(uploads):
        path = folder / str(number) / upload.name
        if isinstance(upload, SpooledUpload):
            upload.save(path)  # copied from the spool, never held in memory
        else:
            write_atomic(path, upload.data, fsync=False)
        files.append(path)
        names[str(path)] = upload.name
    state: dict[str, Any] = {
        "id": job_id,
        "status": "queued",
        "targets": list(targets),
        "total": len(files),
        "done": 0,
        "imported": 0,
        "failed": 0,
        "created": time.time(),
        "pid": os.getpid(),
        "summary": None,
        "error": None,
        "origin": "web",
    }
    _save(paths.state(job_id), state)
    start_run(
        catalog,
        job_id,
        origin="web",
        files=files,
        targets=targets,
        out_dir=paths.outputs,
        sources=[upload.name for upload in uploads],
    )
    thread = threading.Thread(
        target=_run,
        args=(catalog, paths, dict(state), files, names, targets, keep),
        name=f"migration-{job_id}",
        daemon=True,
    )
    thread.start()
    if wait:
        thread.join()
        return load_job(catalog, job_id)
    return state


def _run(
    catalog: Catalog,
    paths: JobPaths,
    state: dict[str, Any],
    files: list[Path],
    names: dict[str, str],
    targets: tuple[str, ...],
    keep: bool = False,
) -> None:
    where = paths.state(state["id"])
    with _RUN_LOCK:
        state["status"] = "running"
        state["started"] = time.time()
        _save(where, state)
        last = 0.0

        def progress(_outcome: FileOutcome, summary: RunSummary) -> None:
            nonlocal last
            state["done"] = summary.files["seen"]
            state["imported"] = summary.files["imported"]
            state["failed"] = summary.files["failed"]
            now = time.monotonic()
            if now - last >= PROGRESS_EVERY_S:
                last = now
                _save(where, state)

        try:
            summary = migrate(catalog, files, targets, paths.outputs, progress=progress)
        except InteropError as exc:
            state.update(status="failed", error=exc.reason)
        except Exception as exc:  # a bug: keep the server up, say so in the job
            state.update(status="failed", error=f"internal error: {type(exc).__name__}")
        else:
            data = summary.to_json()
            # Name files as the user uploaded them, never by where the server keeps them.
            for failure in data["failures"]:
                failure["file"] = names.get(failure["file"], Path(failure["file"]).name)
            state.update(status="done", done=len(files), summary=data)
            state["imported"] = data["files"]["imported"]
            state["failed"] = data["files"]["failed"]
        if not keep:  # not kept forever: the catalog holds what was read from them
            shutil.rmtree(paths.uploads(state["id"]), ignore_errors=True)
        state["finished"] = time.time()
        _save(where, state)
        try:
            finish_run(catalog, state["id"], state["summary"], state["error"])
        except Exception:  # the JSON state above still says how it ended
            pass
