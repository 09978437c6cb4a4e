"""Hostile load on a real server (issue 23, items 3 and 9): peak memory under concurrent large
uploads, and how long another client waits while a catastrophic-regex request runs.

    python benchmarks/hostile_service.py memory [--clients 8] [--mb 60] [--endpoint inspect|migrations]
    python benchmarks/hostile_service.py blocking
    python benchmarks/hostile_service.py ... --src /path/to/other/checkout   # compare with another tree

``memory``: starts the server (``runner.serve``, defaults of ``ServiceConfig``), sends ``--clients``
concurrent uploads of ``--mb`` MB (a PNG signature then zeros: read, refused 400) and prints the
server's VmHWM (peak resident memory, /proc) before and after, and the status codes.
``blocking``: posts a SillyTavern world of 40 distinct catastrophic regex keys with a 4,000-character
chat to ``/activate`` (every platform) and, 0.5 s later, ``GET /formats``: prints both latencies.
Run it from a directory outside any checkout (``cd /tmp``) so ``--src`` decides which code runs.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

SERVE = (
    "import json, sys\nfrom interop.service.config import ServiceConfig\nfrom interop.service.runner import serve\n"
    "serve(ServiceConfig(**json.loads(sys.argv[1])), '127.0.0.1', int(sys.argv[2]))\n"
)


def start(src: str) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = {"db": f"sqlite:///{tempfile.mkdtemp()}/catalog.sqlite", "warm_up": False}
    env = {**os.environ, "PYTHONPATH": src}
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE, json.dumps(config), str(port)], env=env, cwd=tempfile.gettempdir()
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            httpx.get(base + "/api/v1/formats", timeout=2)
            return proc, base
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start")


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def memory(base: str, pid: int, clients: int, mb: int, endpoint: str) -> None:
    body = b"\x89PNG\r\n\x1a\n" + bytes(mb * 1024 * 1024)
    before = peak_mb(pid)
    codes: list[int] = []

    def upload() -> None:
        field, data = ("files", {"to": "ccv3"}) if endpoint == "migrations" else ("file", None)
        answer = httpx.post(f"{base}/api/v1/{endpoint}", files={field: ("big.png", body)}, data=data, timeout=600)
        codes.append(answer.status_code)

    threads = [threading.Thread(target=upload) for _ in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if endpoint == "migrations":
        time.sleep(5)  # let the jobs read their files
    print(f"{clients} x {mb} MB to /{endpoint}: codes {sorted(codes)} in {time.monotonic() - started:.1f} s")
    print(f"server peak RSS (VmHWM): {before:.0f} MB before -> {peak_mb(pid):.0f} MB after")


def blocking(base: str) -> None:
    entries = {
        str(i): {"uid": i, "key": [f"/(x+x+)+y{i}/"], "content": f"c{i}", "useRegex": True, "use_regex": True}
        for i in range(40)
    }
    book = json.dumps({"entries": entries}).encode()
    result: dict[str, str] = {}

    def hostile() -> None:
        started = time.monotonic()
        answer = httpx.post(
            base + "/api/v1/activate",
            files={"book": ("evil.json", book, "application/json")},
            data={"chat_text": "Alex: " + "x" * 4000},
            timeout=600,
        )
        result["hostile"] = f"{answer.status_code} in {time.monotonic() - started:.2f} s"

    thread = threading.Thread(target=hostile)
    thread.start()
    time.sleep(0.5)
    started = time.monotonic()
    probe = httpx.get(base + "/api/v1/formats", timeout=600)
    result["probe"] = f"{probe.status_code} in {time.monotonic() - started:.2f} s"
    thread.join()
    print(f"hostile /activate (40 catastrophic keys, {len(book)} bytes): {result['hostile']}")
    print(f"GET /formats sent 0.5 s later: {result['probe']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("memory", "blocking"))
    parser.add_argument("--src", default=str(Path(__file__).resolve().parents[1]), help="checkout to run")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--mb", type=int, default=60)
    parser.add_argument("--endpoint", choices=("inspect", "migrations"), default="inspect")
    args = parser.parse_args()
    proc, base = start(args.src)
    try:
        if args.what == "memory":
            memory(base, proc.pid, args.clients, args.mb, args.endpoint)
        else:
            blocking(base)
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
