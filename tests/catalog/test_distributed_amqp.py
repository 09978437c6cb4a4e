"""`migrate --broker` on RabbitMQ (AMQP 0-9-1 through kombu's pyamqp transport), as on Redis.

On RabbitMQ an unacknowledged delivery belongs to the consumer's channel: when
the worker's connection closes (the process killed, the machine gone) the broker
puts the message back at once; there is no visibility timeout to wait for or to
tune, and none of kombu's Redis ack emulation (nor its patch) is involved. With
``task_acks_late`` the ack leaves only after the batch's catalog transaction
commits, so a worker killed mid-batch loses nothing, and the batch redone by
another worker finds its rows and duplicates nothing. Reuses the Redis test's
helpers (tests/catalog/test_distributed.py); skipped, saying why, when the
broker is unreachable (``INTEROP_TEST_AMQP``, default the local RabbitMQ).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from .samples import make_folder
from .test_distributed import (
    N_FILES,
    _cli,
    assert_run_exact,
    batches_by_worker,
    finish,
    kill_group,
    start_worker,
    submit,
    wait_for_committed,
    wait_ready,
)
from .test_resume import TARGETS, assert_complete_and_unique

AMQP = os.environ.get("INTEROP_TEST_AMQP", "pyamqp://guest@127.0.0.1:5672//")


@pytest.fixture
def amqp_broker(queue: str) -> Iterator[str]:
    """The RabbitMQ broker; this test's queue and exchange are deleted after (nothing else is touched)."""
    kombu = pytest.importorskip("kombu", reason="kombu is not installed (pip install 'interop-cards[queue]')")
    try:
        with kombu.Connection(AMQP, connect_timeout=3) as conn:
            conn.ensure_connection(max_retries=1)
    except Exception as exc:
        pytest.skip(f"RabbitMQ not reachable at {AMQP}: {exc}")
    yield AMQP
    with kombu.Connection(AMQP, connect_timeout=3) as conn:
        channel = conn.default_channel
        channel.queue_delete(queue)
        channel.exchange_delete(queue)


@pytest.fixture
def queue() -> str:
    return f"interop-test-{uuid.uuid4().hex[:12]}"


@pytest.mark.postgres
def test_a_run_on_rabbitmq_with_a_worker_killed_mid_run_loses_and_duplicates_nothing(
    tmp_path: Path, pg_url: str, amqp_broker: str, queue: str
) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    make_folder(src, N_FILES)
    workers = {name: start_worker(tmp_path, name, amqp_broker, pg_url, queue) for name in ("w1", "w2")}
    try:
        wait_ready(tmp_path, *workers)
        run = submit(tmp_path, src, out, amqp_broker, pg_url, queue)
        wait_for_committed(pg_url, 150, run, *workers.values())
        victim = max(batches_by_worker(pg_url).items(), key=lambda kv: kv[1])[0].split("@")[0]
        survivor = next(name for name in workers if name != victim)
        kill_group(workers[victim])  # SIGKILL: its connection drops and RabbitMQ requeues what it held
        assert workers[victim].returncode == -signal.SIGKILL
        summary = finish(run)
    finally:
        for worker in workers.values():
            kill_group(worker, signal.SIGTERM)
    assert_run_exact(pg_url, summary, src)
    assert_complete_and_unique(pg_url, out, N_FILES)
    assert batches_by_worker(pg_url)[f"{survivor}@test"] > 0


@pytest.mark.postgres
def test_detach_and_status_on_rabbitmq(tmp_path: Path, pg_url: str, amqp_broker: str, queue: str) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    make_folder(src, 30)
    env = {**os.environ, "INTEROP_DATA_DIR": str(tmp_path / "data")}
    common = ("--to", TARGETS, "--out-dir", str(out), "--db", pg_url, "--broker", amqp_broker, "--queue", queue)
    detached = subprocess.run(
        _cli("migrate", str(src), *common, "--batch-size", "7", "--detach"), capture_output=True, env=env, check=False
    )
    assert detached.returncode == 0, detached.stderr.decode()
    run_id = detached.stdout.decode().strip()
    worker = start_worker(tmp_path, "solo", amqp_broker, pg_url, queue)  # the tasks wait in RabbitMQ until then
    try:
        wait_for_committed(pg_url, 30, worker)
    finally:
        kill_group(worker, signal.SIGTERM)
    status = subprocess.run(_cli("migrate", "--status", run_id, "--db", pg_url, "--json"), capture_output=True, env=env)
    assert status.returncode == 0, status.stderr.decode()
    data = json.loads(status.stdout)
    assert data["run"]["state"] == "finished" and data["run"]["batches_done"] == 5
    assert data["files"]["imported"] == 30 and data["files"]["failed"] == 0
    assert_complete_and_unique(pg_url, out, 30)
