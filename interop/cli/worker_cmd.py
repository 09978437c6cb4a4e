"""``interop worker``: a Celery worker that does the files ``interop migrate --broker`` enqueues."""

from __future__ import annotations

import os
import socket

import click

from ..catalog.distributed import DEFAULT_QUEUE, DEFAULT_VISIBILITY_TIMEOUT, make_app
from .catalog_open import open_named
from .common import db_option


@click.command("worker")
@click.option(
    "--broker",
    envvar="INTEROP_BROKER",
    required=True,
    metavar="URL",
    help="Celery broker: pyamqp://user@host:5672/vhost (RabbitMQ) or redis://host:6379/N.",
)
@db_option
@click.option("--concurrency", "-c", default=1, show_default=True, type=click.IntRange(1, 256), help="Processes.")
@click.option(
    "--pool",
    type=click.Choice(["prefork", "solo", "threads"]),
    default="prefork",
    show_default=True,
    help="Celery execution pool (solo: one task at a time in this process).",
)
@click.option("--queue", default=DEFAULT_QUEUE, show_default=True, help="Broker queue to consume.")
@click.option(
    "--visibility-timeout",
    default=DEFAULT_VISIBILITY_TIMEOUT,
    show_default=True,
    type=click.FloatRange(1),
    help="Seconds before a task a dead worker held is handed to another (Redis); must exceed a batch's time.",
)
@click.option("--name", default=None, help="Worker name (default interop-<pid>@<host>).")
@click.option("--loglevel", default="WARNING", show_default=True, help="Celery log level.")
def command(
    broker: str,
    db: str | None,
    concurrency: int,
    pool: str,
    queue: str,
    visibility_timeout: float,
    name: str | None,
    loglevel: str,
) -> None:
    """Run a worker for `interop migrate --broker` runs until stopped (Ctrl-C or SIGTERM: warm shutdown).

    Every worker must reach the same catalog (--db, PostgreSQL for more than
    one machine) and see the runs' source files and output folder at the same
    paths as the submitting command. Start as many as there are cores, on as
    many machines as you like; a batch is acknowledged only after its catalog
    transaction commits, so a worker killed at any point loses nothing.
    """
    # Fail here, once, rather than in every task: the catalog is created if new (as every command
    # does; PostgreSQL serialises concurrent creators) and refused if at another schema revision.
    open_named(db).dispose()
    app = make_app(broker, db=db, queue=queue, visibility_timeout=visibility_timeout)
    argv = [
        "worker",
        f"--concurrency={concurrency}",
        f"--pool={pool}",
        f"--queues={queue}",
        f"--loglevel={loglevel}",
        f"--hostname={name or f'interop-{os.getpid()}@{socket.gethostname()}'}",
        "--without-gossip",
        "--without-mingle",
    ]
    app.worker_main(argv)
