"""A real server for the tests that need one (event loop, memory, sockets): ``runner.serve`` with a
given ``ServiceConfig`` in a subprocess on a free loopback port."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .conftest import free_port, stop_server, wait_ready

_SERVE = (
    "import json, sys\n"
    "from interop.service.config import ServiceConfig\n"
    "from interop.service.runner import serve\n"
    "serve(ServiceConfig(**json.loads(sys.argv[1])), '127.0.0.1', int(sys.argv[2]))\n"
)


@contextmanager
def live_server(tmp: Path, **config: Any) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """(process, base URL) of a server answering on 127.0.0.1; stopped on exit."""
    config.setdefault("db", f"sqlite:///{tmp / 'catalog.sqlite'}")
    config.setdefault("warm_up", False)
    port = free_port()
    log = tmp / f"server-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", _SERVE, json.dumps(config), str(port)], stdout=out, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(proc, base, log)
        yield proc, base
    finally:
        stop_server(proc)
