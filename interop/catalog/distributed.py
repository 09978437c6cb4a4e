"""Migration runs spread over many workers on many machines, through Celery and a Redis broker.

``interop migrate ... --broker URL`` records a ``runs`` row and enqueues the
files in batches (one task per batch, only paths in the message); ``interop
worker`` runs a Celery worker whose task does the per-file pipeline of an
embedded run (``pipeline.process_file``) and records the batch with
``recorder.StreamedBatch``, its ``run_batches`` row in the same transaction.
Progress and the summary are read back from the catalog, never from the
broker, so a submitting command can go away (``--detach``) and come back
(``--status RUN``).

Delivery: tasks are acknowledged late (after the catalog transaction commits),
a task whose worker process dies is rejected back to the queue, and a worker
reserves one task at a time. A task the broker delivers again after its batch
committed (the worker died between commit and acknowledgement, or the broker
restored it) finds its ``run_batches`` row and does nothing; one delivered
while the first copy is still running records the same rows (every insert is
idempotent) and its batch row is ignored. Redis redelivers an unacknowledged
task only after the transport's visibility timeout (``--visibility-timeout``),
which must exceed the time a batch takes.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, func, select
from sqlalchemy.dialects import sqlite

from ..errors import CatalogError, InteropError
from ..io import read_limited
from ..jsonio import escape_lone_surrogates
from .database import Catalog, open_catalog
from .migrate_run import RunSummary, file_tally, load_done
from .models import Run, RunBatch
from .pipeline import RunConfig, process_file
from .recorder import StreamedBatch
from .records import sha256_hex

TASK = "interop.migrate_batch"
DEFAULT_QUEUE = "interop.migrate"
DEFAULT_VISIBILITY_TIMEOUT = 300.0
"""Seconds before Redis hands an unacknowledged task to another worker: far above a batch's time
(50 typical files take well under a second), short enough that a dead machine's batch is redone soon."""


def make_app(
    broker: str,
    *,
    db: str | None = None,
    queue: str = DEFAULT_QUEUE,
    visibility_timeout: float = DEFAULT_VISIBILITY_TIMEOUT,
) -> Any:
    """The Celery application shared by the submitting command and the workers."""
    from celery import Celery

    app = Celery("interop", broker=broker, set_as_current=False)
    app.conf.update(
        task_acks_late=True,  # acknowledge after the catalog transaction commits
        task_reject_on_worker_lost=True,  # a worker process that dies puts its task back
        worker_prefetch_multiplier=1,  # reserve one task per process: none stranded on a busy worker
        task_acks_on_failure_or_timeout=True,
        task_ignore_result=True,  # the catalog is the result
        task_serializer="json",
        accept_content=["json"],
        task_default_queue=queue,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # a broker that goes away is waited for, not given up on
        broker_transport_options={
            "visibility_timeout": visibility_timeout,
            # look for tasks of dead workers a few times per visibility timeout
            "unacked_restore_interval": max(1, min(60, int(visibility_timeout / 4))),
            "unacked_restore_throttle": 1,
            # The lock a worker takes for that sweep (a Redis key with an expiry) outlives a
            # broker killed while it was held: at kombu's default of 300 s, nothing would be
            # handed on for five minutes after a restart.
            "unacked_mutex_expire": max(5, min(300, int(visibility_timeout))),
        },
        task_publish_retry=True,
        task_publish_retry_policy={"max_retries": 60, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 2},
        worker_cancel_long_running_tasks_on_connection_loss=False,  # let the batch commit; a redelivery is a no-op
        worker_hijack_root_logger=False,
        worker_enable_remote_control=False,  # stopped by signals; no mailbox keys left in the broker
        interop_db=db,
    )
    app.task(name=TASK, bind=True, max_retries=None)(_migrate_batch_task)
    _free_the_slot_when_an_ack_fails()
    return app


def _free_the_slot_when_an_ack_fails() -> None:
    """Work around kombu's Redis transport freezing a worker whose acknowledgement failed.

    Its ``QoS.ack`` removes the message from Redis' unacknowledged set, and only
    then from the worker's own count of messages in hand; when the broker has just
    gone away the first step raises, the count keeps the message, and with one
    task per process the worker never asks for another (nor notices the broken
    connection): found by ``test_the_broker_going_away_mid_run_loses_nothing``.
    Here the worker's count is released whatever happens; the message stays
    unacknowledged in Redis, so it is handed out again after the visibility
    timeout, and finds its batch committed.
    """
    from kombu.transport import redis as kombu_redis
    from kombu.transport import virtual

    original = kombu_redis.QoS.ack
    if getattr(original, "interop_frees_slot", False):
        return

    def ack(self: Any, delivery_tag: Any) -> None:
        try:
            original(self, delivery_tag)
        except Exception:
            virtual.QoS.ack(self, delivery_tag)
            raise

    ack.interop_frees_slot = True  # type: ignore[attr-defined]
    kombu_redis.QoS.ack = ack


# --- the worker side -------------------------------------------------------------

_CATALOGS: dict[str, Catalog] = {}
_RUNS: dict[tuple[str, str], RunConfig] = {}


def _catalog(url: str | None) -> Catalog:
    """One catalog per worker process, opened on first use (after the pool has forked)."""
    key = url or ""
    if key not in _CATALOGS:
        _CATALOGS[key] = open_catalog(url, create=False)
    return _CATALOGS[key]


def _run_config(catalog: Catalog, run_id: str) -> RunConfig:
    key = (catalog.url, run_id)
    if key not in _RUNS:
        with catalog.session() as s:
            run = s.get(Run, run_id)
        if run is None:
            raise CatalogError(f"run {run_id} is not in this catalog (do the workers use the submitter's --db?)")
        _RUNS[key] = RunConfig(
            targets=tuple(run.targets.split(",")),
            out_dir=Path(run.out_dir),
            data_dir=Path(run.data_dir),
            pretty=run.pretty,
        )
    return _RUNS[key]


def _batch_recorded(catalog: Catalog, run_id: str, batch_no: int) -> bool:
    with catalog.engine.connect() as conn:
        found = conn.execute(
            select(RunBatch.batch_no).where(RunBatch.run_id == run_id, RunBatch.batch_no == batch_no)
        ).first()
    return found is not None


def batch_config(catalog: Catalog, config: RunConfig, paths: list[str]) -> RunConfig:
    """The run's settings plus what the catalog already holds of these files (the embedded run's
    resume rule: a file recorded with every output intact is *unchanged*)."""
    shas: list[str] = []
    for raw in paths:
        try:
            # bounded, regular files only: a FIFO or /dev/zero named in a run must not hang the worker
            shas.append(sha256_hex(read_limited(raw, config.limits.max_file_bytes)))
        except InteropError:
            continue  # process_file records why
    # a copy per batch: tasks of a --pool threads worker share the run's settings
    return dataclasses.replace(config, done=load_done(catalog, config.targets, shas=shas))


def run_batch(catalog: Catalog, run_id: str, batch_no: int, paths: list[str], *, worker: str | None = None) -> bool:
    """Do one batch of a run and record it in one transaction; False if it was already recorded
    (a redelivery). The files' rows are written while the next files are processed
    (``StreamedBatch``); ``database_ms`` is the time the task then waited for the commit."""
    if _batch_recorded(catalog, run_id, batch_no):
        return False
    config = batch_config(catalog, _run_config(catalog, run_id), paths)
    batch = StreamedBatch(catalog)
    try:
        for raw in paths:
            batch.add(process_file(config, Path(raw)))
    except BaseException:
        batch.abort()
        raise
    start = time.perf_counter()

    def batch_row(conn: Connection) -> None:
        insert = sqlite.insert
        if conn.dialect.name == "postgresql":
            from sqlalchemy.dialects import postgresql  # imported by PostgreSQL catalogs only

            insert = postgresql.insert
        conn.execute(
            insert(RunBatch.__table__).on_conflict_do_nothing(),
            {
                "run_id": run_id,
                "batch_no": batch_no,
                "files": len(paths),
                # tallied here: a file the database refused is failed by now
                "outcomes": escape_lone_surrogates(
                    json.dumps([file_tally(o) for o in batch.outcomes], ensure_ascii=False)
                ),
                "worker": (worker or socket.gethostname())[:255],
                "database_ms": (time.perf_counter() - start) * 1000.0,
                "finished_at": datetime.now(UTC),
            },
        )

    batch.commit(hook=batch_row)
    return True


def _migrate_batch_task(task: Any, run_id: str, batch_no: int, paths: list[str]) -> bool:
    catalog = _catalog(task.app.conf.interop_db)
    try:
        return run_batch(catalog, run_id, batch_no, paths, worker=task.request.hostname)
    except Exception as exc:
        # The catalog is unreachable or busy beyond the recorder's retries (or a bug): nothing
        # of the batch committed, so it is tried again later rather than dropped.
        raise task.retry(exc=exc, countdown=min(60, 2 ** min(task.request.retries, 6))) from None


# --- the submitting side -----------------------------------------------------------


def submit(
    app: Any,
    catalog: Catalog,
    files: list[Path],
    *,
    sources: tuple[str, ...],
    targets: tuple[str, ...],
    out_dir: Path,
    pretty: bool = True,
    batch_size: int = 50,
    ignored: int = 0,
) -> str:
    """Record a run and enqueue its files, ``batch_size`` per task; returns the run id."""
    run_id = uuid.uuid4().hex
    paths = [str(Path(p).resolve()) for p in files]
    batches = _batches(paths, batch_size)
    with catalog.engine.begin() as conn:
        conn.execute(
            Run.__table__.insert(),
            {
                "id": run_id,
                "created_at": datetime.now(UTC),
                "sources": json.dumps([str(Path(s).resolve()) for s in sources]),
                "targets": ",".join(targets),
                "out_dir": str(out_dir),
                "data_dir": str(catalog.data_dir.resolve()),
                "pretty": pretty,
                "total_files": len(paths),
                "batch_count": len(batches),
                "batch_size": batch_size,
                "files": escape_lone_surrogates(json.dumps(paths, ensure_ascii=False)),
                "ignored": ignored,
            },
        )
    _send(app, run_id, batches)
    return run_id


def _batches(paths: list[str], batch_size: int) -> dict[int, list[str]]:
    return {i // batch_size: paths[i : i + batch_size] for i in range(0, len(paths), batch_size)}


def _send(app: Any, run_id: str, batches: dict[int, list[str]]) -> None:
    with app.producer_or_acquire() as producer:
        for batch_no, batch in batches.items():
            app.send_task(TASK, args=[run_id, batch_no, batch], producer=producer)


def resend_missing(app: Any, catalog: Catalog, run_id: str) -> int:
    """Send again every batch of the run not committed yet; returns how many.

    For a task the broker lost: Redis hands a message to a worker (``BRPOP``)
    before it is recorded as unacknowledged, so a broker killed in between
    loses it for good. A batch sent twice is harmless: the second copy finds
    its batch committed and does nothing, or writes the same rows.
    """
    with catalog.session() as s:
        run = s.get(Run, run_id)
        if run is None:
            raise CatalogError(f"no run {run_id} in this catalog (see `interop catalog runs`)")
        done = set(s.scalars(select(RunBatch.batch_no).where(RunBatch.run_id == run_id)))
        batches = _batches(json.loads(run.files), run.batch_size)
    missing = {k: v for k, v in batches.items() if k not in done}
    _send(app, run_id, missing)
    return len(missing)


@dataclass
class RunStatus:
    id: str
    created_at: datetime
    targets: str
    total_files: int
    ignored: int
    done_files: int
    batches: int
    batch_count: int
    last_finished: datetime | None

    @property
    def finished(self) -> bool:
        return self.batches >= self.batch_count

    @property
    def state(self) -> str:
        return "finished" if self.finished else "running"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created_at": self.created_at.isoformat(),
            "state": self.state,
            "targets": self.targets.split(","),
            "files": self.total_files,
            "files_done": self.done_files,
            "ignored": self.ignored,
            "batches": self.batch_count,
            "batches_done": self.batches,
            "last_batch_at": self.last_finished.isoformat() if self.last_finished else None,
        }


def _aware(value: datetime | None) -> datetime | None:
    # SQLite hands timestamps back without their zone; they were written in UTC
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


def run_statuses(catalog: Catalog, run_id: str | None = None, limit: int = 50) -> list[RunStatus]:
    """Runs newest first (or the one asked for), with their progress."""
    progress = (
        select(
            RunBatch.run_id,
            func.count().label("batches"),
            func.sum(RunBatch.files).label("files"),
            func.max(RunBatch.finished_at).label("last"),
        )
        .group_by(RunBatch.run_id)
        .subquery()
    )
    stmt = select(Run, progress.c.batches, progress.c.files, progress.c.last).outerjoin(
        progress, progress.c.run_id == Run.id
    )
    stmt = stmt.where(Run.id == run_id) if run_id is not None else stmt.order_by(Run.created_at.desc()).limit(limit)
    with catalog.session() as s:
        rows = s.execute(stmt).all()
    return [
        RunStatus(
            id=run.id,
            created_at=_aware(run.created_at) or datetime.now(UTC),
            targets=run.targets,
            total_files=run.total_files,
            ignored=run.ignored,
            done_files=int(files or 0),
            batches=int(batches or 0),
            batch_count=run.batch_count,
            last_finished=_aware(last),
        )
        for run, batches, files, last in rows
    ]


def run_status(catalog: Catalog, run_id: str) -> RunStatus:
    found = run_statuses(catalog, run_id)
    if not found:
        raise CatalogError(f"no run {run_id} in this catalog (see `interop catalog runs`)")
    return found[0]


def run_summary(catalog: Catalog, run_id: str) -> tuple[RunStatus, RunSummary]:
    """The run's summary from its committed batches, counted in the order the files were listed."""
    status = run_status(catalog, run_id)
    summary = RunSummary()
    seen: set[str] = set()
    database_ms = 0.0
    with catalog.engine.connect() as conn:
        rows = conn.execute(
            select(RunBatch.outcomes, RunBatch.database_ms).where(RunBatch.run_id == run_id).order_by(RunBatch.batch_no)
        )
        for outcomes, db_ms in rows:
            database_ms += db_ms
            for tally in json.loads(outcomes):
                summary.add_tally(tally, seen)
    summary.timings_ms["database"] += database_ms
    summary.database_busy_ms = database_ms
    summary.files["ignored"] += status.ignored
    summary.files["seen"] += status.ignored
    end = status.last_finished if status.finished and status.last_finished else datetime.now(UTC)
    summary.wall_s = max(0.0, (end - status.created_at).total_seconds())
    return status, summary
