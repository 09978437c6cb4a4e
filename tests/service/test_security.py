"""Request-level protections against a hostile client (issue 23): memory of concurrent uploads and
the cap on them (item 9), Origin/Host checks (item 10), idle half-sent requests."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import httpx

from .live import live_server

MB = 1024 * 1024


def peak_rss(pid: int) -> int:
    """The process's peak resident set size in bytes (``VmHWM``, Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc")


def half_sent_upload(base: str, declared: int = 10 * MB) -> socket.socket:
    """A POST that declares a large body, sends its first bytes and then waits."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    head = (
        f"POST /api/v1/inspect HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Length: {declared}\r\n"
        "Content-Type: multipart/form-data; boundary=x\r\n\r\n--x\r\n"
    )
    sock.sendall(head.encode())
    return sock


def test_concurrent_large_uploads_keep_memory_bounded(tmp_path: Path) -> None:
    # 8 x 60 MB at once took the server from 135 MB to 1.3 GB: each body was held ~3 times.
    size, clients, cap = 60 * MB, 8, 4
    body = b"\x89PNG\r\n\x1a\n" + bytes(size)
    with live_server(tmp_path, max_concurrent_uploads=cap) as (proc, base):
        before = peak_rss(proc.pid)
        answers: list[httpx.Response] = []

        def upload() -> None:
            files = {"file": ("big.png", body, "image/png")}
            answers.append(httpx.post(base + "/api/v1/inspect", files=files, timeout=300))

        threads = [threading.Thread(target=upload) for _ in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        grown = peak_rss(proc.pid) - before
    assert len(answers) == clients
    assert all(a.status_code in (400, 429) and "reason" in a.json()["error"] for a in answers)
    assert grown < cap * size * 1.5  # at most one copy per upload in progress (was ~2.5 x 8 copies)


def test_uploads_over_the_cap_get_429_with_retry_after(tmp_path: Path) -> None:
    with live_server(tmp_path, max_concurrent_uploads=2) as (_proc, base):
        held = [half_sent_upload(base) for _ in range(2)]
        time.sleep(0.5)  # both are being read now
        files = {"file": ("card.json", b"{}", "application/json")}
        busy = httpx.post(base + "/api/v1/inspect", files=files, timeout=30)
        reads = httpx.get(base + "/api/v1/formats", timeout=30)  # reads are not capped
        for sock in held:
            sock.close()
        time.sleep(0.5)
        after = httpx.post(base + "/api/v1/inspect", files=files, timeout=30)
    assert busy.status_code == 429
    assert int(busy.headers["retry-after"]) >= 1
    assert "busy" in busy.json()["error"]["reason"]
    assert reads.status_code == 200
    assert after.status_code != 429  # slots are given back when a client goes away
