"""Running the app: one uvicorn process, or N workers that each own a listening socket.

With several workers, uvicorn shares one listening socket and the workers race
to accept; connections made in a burst (a client opening its keep-alive pool)
mostly land on whichever worker is idle at that instant: measured, 31 of 32
connections on one of two workers, so one core served nearly everything. On
Linux each worker here binds its own socket with ``SO_REUSEPORT`` and the
kernel spreads new connections across them by hash, evenly on average. The
parent only supervises: it restarts a worker that dies and stops them all on
SIGINT/SIGTERM.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import signal
import socket
import sys
import time
from typing import Any

import uvicorn

from .config import ENV_CONFIG, ServiceConfig
from .idle import PROTOCOL

APP = "interop.service.app:app_from_env"
UVICORN: dict[str, Any] = {
    "log_level": "warning",
    "server_header": False,
    "proxy_headers": False,
    "timeout_graceful_shutdown": 5,
    "http": PROTOCOL,  # uvicorn's, plus a timeout for idle half-sent requests
}


def serve(config: ServiceConfig, host: str, port: int, workers: int = 1, options: dict[str, Any] | None = None) -> None:
    """Serve until interrupted. Every worker builds its app from ``config`` (via the environment).

    ``options`` override uvicorn's settings (``root_path``, ``proxy_headers``, ``forwarded_allow_ips``,
    ``log_level``, ``access_log``: the ``interop serve`` flags)."""
    config = dataclasses.replace(config, allowed_hosts=(*config.allowed_hosts, host))  # its own name is fine
    os.environ[ENV_CONFIG] = config.to_env()
    settings = {**UVICORN, **(options or {})}
    if workers == 1 or not sys.platform.startswith("linux"):
        uvicorn.run(APP, factory=True, host=host, port=port, workers=workers, **settings)
        return
    # Bound, never listening: fixes the port (even --port 0) and holds it while workers start.
    holder = _socket(host, port, listen=False)
    port = holder.getsockname()[1]
    ctx = multiprocessing.get_context("spawn")
    procs = [_start(ctx, host, port, settings) for _ in range(workers)]
    holder.close()
    stopping = False

    def stop(_signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while not stopping:
            time.sleep(0.5)
            for i, proc in enumerate(procs):
                if not proc.is_alive() and not stopping:
                    procs[i] = _start(ctx, host, port, settings)  # a crashed worker is replaced
    finally:
        for proc in procs:
            if proc.is_alive():
                os.kill(proc.pid, signal.SIGTERM)
        for proc in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()


def _start(ctx: Any, host: str, port: int, settings: dict[str, Any]) -> Any:
    proc = ctx.Process(target=_worker, args=(host, port, settings), daemon=False)
    proc.start()
    return proc


def _worker(host: str, port: int, settings: dict[str, Any]) -> None:
    sock = _socket(host, port, listen=True)
    server = uvicorn.Server(uvicorn.Config(APP, factory=True, **settings))
    server.run(sockets=[sock])


def _socket(host: str, port: int, *, listen: bool) -> socket.socket:
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host.strip("[]"), port))
        if listen:
            sock.listen(2048)
            sock.set_inheritable(True)
    except OSError:
        with contextlib.suppress(OSError):
            sock.close()
        raise
    return sock
