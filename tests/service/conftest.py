"""Fixtures for the service tests: an app on a temporary catalog, a real server, a real Chromium."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from interop.service import ServiceConfig, create_app

CHROMIUM = Path(os.environ.get("INTEROP_CHROMIUM", "/usr/bin/chromium"))


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[object]:
    """``make_client(**config)``: a TestClient on a fresh SQLite catalog in tmp_path."""
    clients: list[TestClient] = []

    def make(**config: object) -> TestClient:
        config.setdefault("db", f"sqlite:///{tmp_path / 'catalog.sqlite'}")
        config.setdefault("warm_up", False)  # ~0.15 s per app; test_parts checks it once
        config.setdefault("allowed_hosts", ("testserver",))  # TestClient's Host; never a production default
        client = TestClient(create_app(ServiceConfig(**config)))  # type: ignore[arg-type]
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: object) -> TestClient:
    return make_client()  # type: ignore[operator]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(tmp: Path, *extra: str, workers: int = 1) -> tuple[subprocess.Popen[bytes], str]:
    """``interop serve`` in a subprocess on a free loopback port; returns (process, base URL) once it answers."""
    port = free_port()
    log = (tmp / "server.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from interop.cli import main; main()",
            "serve",
            "--port",
            str(port),
            "--db",
            f"sqlite:///{tmp / 'catalog.sqlite'}",
            "--workers",
            str(workers),
            *extra,
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    wait_ready(proc, base, tmp / "server.log")
    return proc, base


def wait_ready(proc: subprocess.Popen[bytes], base: str, log: Path) -> None:
    """Return once ``base`` answers; raise with the server's log if it exits or takes over 60 s."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text()}")
        try:
            with urllib.request.urlopen(base + "/api/v1/formats", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start within 60 s")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("server")
    proc, base = start_server(tmp)
    yield base
    stop_server(proc)


def ensure_chromium() -> Path:
    """Debian's chromium: installed by .ci/run; installed here too when running as root with apt."""
    if CHROMIUM.exists():
        return CHROMIUM
    if shutil.which("apt-get") and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=600)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env, capture_output=True, timeout=1200)
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM} and could not be installed (apt-get install chromium)")
    return CHROMIUM
