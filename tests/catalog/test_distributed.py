"""Distributed runs: real `interop worker` processes, PostgreSQL and Redis on loopback, faults injected.

Each test uses its own PostgreSQL database and its own Celery queue; on the
shared Redis it picks a database number nobody uses and deletes only its own
keys afterwards. The broker-outage test starts a private redis-server (append-
only file, fsync always) on a free loopback port and kills it, so the shared
one is never stopped. Faults are injected on events the run signals through
the catalog (committed files), never after a fixed sleep.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from interop.catalog.database import normalize_url

from .samples import make_folder
from .test_resume import TARGETS, assert_complete_and_unique, count_in_catalog

N_FILES = 500
BATCH = 10  # 50 tasks: the faults land mid-run
VISIBILITY = "4"  # seconds before a dead worker's task is handed to another
SHARED_REDIS = os.environ.get("INTEROP_TEST_REDIS", "redis://127.0.0.1:6379")


def _redis_client(url: str) -> Any:
    redis = pytest.importorskip("redis", reason="the redis client is not installed (pip install 'celery[redis]')")
    return redis.Redis.from_url(url, socket_connect_timeout=2)


@pytest.fixture
def queue() -> str:
    return f"interop-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def shared_broker(queue: str, tmp_path: Path) -> Iterator[str]:
    """A database number of the shared Redis that holds no keys; only this test's keys are deleted after.

    Without a shared Redis, a private redis-server is started instead.
    """
    try:
        client = _redis_client(f"{SHARED_REDIS}/0")
        client.ping()
    except Exception:
        private = PrivateRedis(tmp_path / "redis")  # skips, saying why, when redis-server is missing
        private.start()
        try:
            yield private.url
        finally:
            private.stop()
        return
    numbers = list(range(1, 16))
    uuid_seed = uuid.uuid4().int
    numbers = numbers[uuid_seed % 15 :] + numbers[: uuid_seed % 15]
    for n in numbers:
        if _redis_client(f"{SHARED_REDIS}/{n}").dbsize() == 0:
            break
    else:
        pytest.skip("no empty database number on the shared Redis")
    url = f"{SHARED_REDIS}/{n}"
    yield url
    forget_queue(_redis_client(url), queue)


def forget_queue(client: Any, queue: str) -> None:
    """Delete this test's keys (its queue and bindings), nothing else."""
    for key in client.scan_iter(match=f"*{queue}*"):
        client.delete(key)
    for member in client.zrange("_kombu.binding_deadlines", 0, -1):
        if queue.encode() in member:
            client.zrem("_kombu.binding_deadlines", member)
    for tag, payload in client.hgetall("unacked").items():  # shared by every queue of the database
        if queue.encode() in payload:
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateRedis:
    """A redis-server of our own, persisting every write, that can be killed and started again."""

    def __init__(self, folder: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed (apt-get install redis-server)")
        self.binary = binary
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if _redis_client(self.url).ping():
                    return
            except Exception:
                time.sleep(0.05)
        pytest.fail("the private redis-server did not start")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.kill()


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "from interop.cli import main; main()", *args]


def wait_ready(tmp: Path, *names: str) -> None:
    """Until every named worker has said it is ready (so the work is shared from the start)."""
    deadline = time.monotonic() + 120
    for name in names:
        log = tmp / f"{name}.log"
        while b" ready." not in log.read_bytes():
            if time.monotonic() > deadline:
                pytest.fail(f"worker {name} did not start: {log.read_text()[-2000:]}")
            time.sleep(0.05)


def start_worker(tmp: Path, name: str, broker: str, db: str, queue: str) -> subprocess.Popen[bytes]:
    log = (tmp / f"{name}.log").open("wb")
    return subprocess.Popen(
        _cli(
            "worker",
            "--broker",
            broker,
            "--db",
            db,
            "--queue",
            queue,
            "--name",
            f"{name}@test",
            "--concurrency",
            "1",
            "--visibility-timeout",
            VISIBILITY,
            "--loglevel",
            "INFO",
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "INTEROP_DATA_DIR": str(tmp / "data")},
        start_new_session=True,  # its own process group: a kill takes the pool's children too
    )


def submit(tmp: Path, src: Path, out: Path, broker: str, db: str, queue: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        _cli(
            "migrate",
            str(src),
            "--to",
            TARGETS,
            "--out",
            str(out),
            "--db",
            db,
            "--broker",
            broker,
            "--queue",
            queue,
            "--batch-size",
            str(BATCH),
            "--resend-after",
            "8",  # a task lost in delivery by a killed broker is sent again
            "--json",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "INTEROP_DATA_DIR": str(tmp / "data")},
    )


def committed_files(db: str) -> int:
    return count_in_catalog(db, "SELECT coalesce(sum(files), 0) FROM run_batches")


def wait_for_committed(db: str, at_least: int, *watch: subprocess.Popen[bytes]) -> int:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        done = committed_files(db)
        if done >= at_least:
            return done
        for proc in watch:
            if proc.poll() is not None:
                pytest.fail(f"a process ended early (rc={proc.returncode})")
        time.sleep(0.02)
    pytest.fail(f"the run never reached {at_least} committed files")


def kill_group(proc: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
    proc.wait(timeout=30)


def finish(proc: subprocess.Popen[bytes], timeout: float = 240) -> dict[str, Any]:
    stdout, stderr = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, stderr.decode()[-3000:]
    return json.loads(stdout)


def assert_run_exact(db: str, summary: dict[str, Any], src: Path) -> None:
    """Every file is counted once in the run: by the summary, and by the batches' file lists."""
    files = summary["files"]
    assert files["seen"] == N_FILES and files["imported"] == N_FILES, files
    assert files["failed"] == 0 and files["duplicate"] == 0 and files["unchanged"] == 0, summary["failures"]
    assert summary["run"]["state"] == "finished"
    assert summary["run"]["files_done"] == N_FILES and summary["run"]["batches_done"] == N_FILES // BATCH
    engine = create_engine(normalize_url(db))
    with engine.connect() as conn:
        outcomes = conn.execute(text("SELECT outcomes FROM run_batches")).scalars().all()
    engine.dispose()
    paths = [t["path"] for batch in outcomes for t in json.loads(batch)]
    assert sorted(paths) == sorted(str(p.resolve()) for p in src.rglob("*") if p.is_file())
    written = summary["targets"]
    assert written["ccv3"]["written"] == N_FILES
    assert written["lorebook_v3"]["written"] + written["lorebook_v3"]["skipped"] == N_FILES


def batches_by_worker(db: str) -> dict[str, int]:
    engine = create_engine(normalize_url(db))
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT worker, count(*) FROM run_batches GROUP BY worker")).all()
    engine.dispose()
    return {worker: n for worker, n in rows}


@pytest.mark.postgres
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(
    tmp_path: Path, pg_url: str, shared_broker: str, queue: str
) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    make_folder(src, N_FILES)
    workers = {name: start_worker(tmp_path, name, shared_broker, pg_url, queue) for name in ("w1", "w2")}
    try:
        wait_ready(tmp_path, *workers)
        run = submit(tmp_path, src, out, shared_broker, pg_url, queue)
        wait_for_committed(pg_url, 150, run, *workers.values())
        # the victim is one that was working (it has committed batches), killed mid-batch
        victim = max(batches_by_worker(pg_url).items(), key=lambda kv: kv[1])[0].split("@")[0]
        survivor = next(name for name in workers if name != victim)
        kill_group(workers[victim])  # SIGKILL, pool children included
        assert workers[victim].returncode == -signal.SIGKILL
        summary = finish(run)
    finally:
        for worker in workers.values():
            kill_group(worker, signal.SIGTERM)
    assert_run_exact(pg_url, summary, src)
    assert_complete_and_unique(pg_url, out, N_FILES)
    assert batches_by_worker(pg_url)[f"{survivor}@test"] > 0


@pytest.mark.postgres
def test_the_broker_going_away_mid_run_loses_nothing(tmp_path: Path, pg_url: str, queue: str) -> None:
    broker = PrivateRedis(tmp_path / "redis")
    broker.start()
    src, out = tmp_path / "in", tmp_path / "out"
    make_folder(src, N_FILES)
    workers = [start_worker(tmp_path, name, broker.url, pg_url, queue) for name in ("w1", "w2")]
    try:
        wait_ready(tmp_path, "w1", "w2")
        run = submit(tmp_path, src, out, broker.url, pg_url, queue)
        wait_for_committed(pg_url, 150, run, *workers)
        broker.kill()  # SIGKILL: no shutdown save, only the append-only file survives
        time.sleep(0.5)  # the workers notice the broker is gone (their tasks in flight still commit)
        broker.start()  # same port, same data folder
        summary = finish(run)
    finally:
        for worker in workers:
            kill_group(worker, signal.SIGTERM)
        broker.stop()
    assert_run_exact(pg_url, summary, src)
    assert_complete_and_unique(pg_url, out, N_FILES)


@pytest.mark.postgres
def test_detach_status_runs_and_a_resumed_run(tmp_path: Path, pg_url: str, shared_broker: str, queue: str) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    make_folder(src, 40)
    (src / "notes.md").write_text("# not a card\n")  # ignored by the walk, counted in the summary
    env = {**os.environ, "INTEROP_DATA_DIR": str(tmp_path / "data")}
    common = ("--to", TARGETS, "--out", str(out), "--db", pg_url, "--broker", shared_broker, "--queue", queue)
    detached = subprocess.run(
        _cli("migrate", str(src), *common, "--batch-size", "7", "--detach"), capture_output=True, env=env, check=False
    )
    assert detached.returncode == 0, detached.stderr.decode()
    run_id = detached.stdout.decode().strip()
    assert len(run_id) == 32

    def cli_json(*args: str) -> Any:
        proc = subprocess.run(_cli(*args, "--json"), capture_output=True, env=env, check=False)
        assert proc.returncode == 0, proc.stderr.decode()
        return json.loads(proc.stdout)

    (listed,) = cli_json("catalog", "runs", "--db", pg_url)
    assert listed["id"] == run_id and listed["state"] == "running" and listed["files_done"] == 0
    assert listed["files"] == 40 and listed["batches"] == 6 and listed["ignored"] == 1

    # the broker loses every queued task (as a crash can lose one in delivery); they are sent again
    forget_queue(_redis_client(shared_broker), queue)
    resent = subprocess.run(
        _cli("migrate", "--status", run_id, "--db", pg_url, "--broker", shared_broker, "--queue", queue, "--resend"),
        capture_output=True,
        env=env,
        check=False,
    )
    assert resent.returncode == 0, resent.stderr.decode()
    assert f"run {run_id}: sent 6 uncommitted batches again" in resent.stderr.decode()

    worker = start_worker(tmp_path, "solo", shared_broker, pg_url, queue)
    try:
        wait_for_committed(pg_url, 40, worker)
        status = cli_json("migrate", "--status", run_id, "--db", pg_url)
        assert status["run"]["state"] == "finished" and status["run"]["batches_done"] == 6
        assert status["files"] == {
            "seen": 41,
            "imported": 40,
            "duplicate": 0,
            "unchanged": 0,
            "ignored": 1,
            "failed": 0,
        }
        assert status["cards"] + status["lorebooks"] == 40

        # the same folder again: every file is found finished, nothing is redone
        again = subprocess.run(_cli("migrate", str(src), *common, "--json"), capture_output=True, env=env, check=False)
        assert again.returncode == 0, again.stderr.decode()
        summary = json.loads(again.stdout)
        assert summary["files"]["unchanged"] == 40 and summary["files"]["imported"] == 0
    finally:
        kill_group(worker, signal.SIGTERM)
    runs = cli_json("catalog", "runs", "--db", pg_url)
    assert [r["state"] for r in runs] == ["finished", "finished"]


def test_broker_options_need_a_broker(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from interop.cli import cli

    (tmp_path / "in").mkdir()
    base = ["migrate", str(tmp_path / "in"), "--to", "ccv3", "--out", str(tmp_path / "out")]
    for extra in (["--detach"], ["--batch-size", "5"], ["--queue", "q"]):
        result = CliRunner().invoke(cli, [*base, *extra], env={"INTEROP_BROKER": ""})
        assert result.exit_code == 2 and "go with --broker" in result.output
    result = CliRunner().invoke(cli, ["migrate", "--status", "x", "--resend"], env={"INTEROP_BROKER": ""})
    assert result.exit_code == 2 and "--resend needs --broker" in result.output
    result = CliRunner().invoke(cli, ["migrate", "--to", "ccv3"])
    assert result.exit_code == 2 and "--status RUN" in result.output
    result = CliRunner().invoke(cli, [*base, "--broker", "redis://127.0.0.1:1/0", "--jobs", "2"])
    assert result.exit_code == 2 and "interop worker" in result.output
