"""Request-level protections against a hostile client (issue 23): memory of concurrent uploads and
the cap on them (item 9), Origin/Host checks (item 10), idle half-sent requests."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from interop.service import ServiceConfig, create_app

from .live import live_server
from .test_api import ILSE

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
    with live_server(tmp_path, max_upload_bytes_in_progress=cap * (size + MB)) as (proc, base):
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


def test_migration_uploads_go_from_the_spool_to_disk(tmp_path: Path) -> None:
    # Not zips, so they are copied from the spool to the job's folder, never read into memory
    # here; the job then reads one file at a time.
    size, clients = 60 * MB, 4
    body = b"\x89PNG\r\n\x1a\n" + bytes(size)
    with live_server(tmp_path) as (proc, base):
        before = peak_rss(proc.pid)
        answers: list[httpx.Response] = []

        def upload() -> None:
            files = {"files": ("big.png", body, "image/png")}
            answers.append(httpx.post(base + "/api/v1/migrations", files=files, data={"to": "ccv3"}, timeout=300))

        threads = [threading.Thread(target=upload) for _ in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        for answer in answers:
            deadline = time.monotonic() + 120
            while httpx.get(answer.json()["status_url"], timeout=30).json()["status"] not in ("done", "failed"):
                assert time.monotonic() < deadline
                time.sleep(0.2)
        grown = peak_rss(proc.pid) - before
    assert [a.status_code for a in answers] == [202] * clients
    assert grown < 2 * size  # was ~3 copies each: 99 MB -> 900 MB


def test_uploads_over_the_cap_get_429_with_retry_after(tmp_path: Path) -> None:
    files = {"file": ("card.json", ILSE.read_bytes(), "application/json")}
    with live_server(tmp_path, max_upload_bytes_in_progress=20 * MB) as (_proc, base):
        held = [half_sent_upload(base, 10 * MB)]
        time.sleep(0.5)  # being read now
        small = httpx.post(base + "/api/v1/inspect", files=files, timeout=30)  # fits beside it
        held.append(half_sent_upload(base, 10 * MB))
        time.sleep(0.5)
        busy = httpx.post(base + "/api/v1/inspect", files=files, timeout=30)
        reads = httpx.get(base + "/api/v1/formats", timeout=30)  # reads are not capped
        for sock in held:
            sock.close()
        time.sleep(0.5)
        after = httpx.post(base + "/api/v1/inspect", files=files, timeout=30)
    assert small.status_code == 200
    assert busy.status_code == 429
    assert int(busy.headers["retry-after"]) >= 1
    assert "busy" in busy.json()["error"]["reason"]
    assert reads.status_code == 200
    assert after.status_code == 200  # the bytes are given back when a client goes away


# --- item 10: a token-less loopback server checks Host (every request) and Origin (writes) --------


def post_card(client: TestClient, **headers: str) -> Any:
    files = [("files", (ILSE.name, ILSE.read_bytes(), "application/json"))]
    return client.post("/api/v1/migrations", files=files, data={"to": "ccv3"}, headers=headers)


def test_cross_origin_writes_are_refused_without_a_token(make_client: Any) -> None:
    client = make_client()
    # A page on another localhost port (or any site) posting to the catalog:
    for origin in ("http://localhost:5173", "http://evil.example", "null", "http://testserver:8080"):
        refused = post_card(client, origin=origin)
        assert refused.status_code == 403, origin
        assert "cross-origin" in refused.json()["error"]["reason"]
    assert client.get("/api/v1/migrations").json() == {"jobs": []}  # nothing planted
    assert post_card(client, origin="http://testserver").status_code == 202  # the page itself
    assert post_card(client).status_code == 202  # no Origin: not a browser (curl, scripts)


def test_foreign_host_headers_are_refused_without_a_token(make_client: Any) -> None:
    client = make_client(allowed_hosts=("testserver", "cards.home.arpa"))
    for host in ("rebind.attacker.example", "localhost.attacker.example", "127.0.0.1.nip.io:8080"):
        refused = client.get("/api/v1/catalog/items", headers={"host": host})
        assert refused.status_code == 403, host
        assert "not a name of this server" in refused.json()["error"]["reason"]
    for host in ("localhost:8080", "127.0.0.1:8080", "[::1]:8080", "LOCALHOST", "cards.home.arpa:80"):
        assert client.get("/api/v1/catalog/items", headers={"host": host}).status_code == 200, host


def test_production_defaults_allow_only_loopback_names(tmp_path: Path) -> None:
    # TestClient's "testserver" is allowed by the tests' app factory only.
    app = create_app(ServiceConfig(db=f"sqlite:///{tmp_path / 'c.sqlite'}", warm_up=False))
    with TestClient(app) as client:
        assert client.get("/api/v1/catalog/stats").status_code == 403
        assert client.get("/api/v1/catalog/stats", headers={"host": "localhost:8080"}).status_code == 200


def test_with_a_token_the_token_is_the_protection(make_client: Any) -> None:
    client = make_client(token="s3cret", allowed_hosts=())
    assert client.get("/api/v1/catalog/items", headers={"host": "cards.example.org"}).status_code == 200
    assert post_card(client, origin="https://tool.example.org").status_code == 401  # no token
    auth = {"origin": "https://tool.example.org", "authorization": "Bearer s3cret"}
    assert post_card(client, **auth).status_code == 202


def test_a_real_server_refuses_a_rebound_host(tmp_path: Path) -> None:
    with live_server(tmp_path) as (_proc, base):
        rebound = httpx.get(base + "/api/v1/catalog/items", headers={"host": "rebind.attacker.example"}, timeout=30)
        own = httpx.get(base + "/api/v1/catalog/items", timeout=30)  # Host: 127.0.0.1:<port>, the bound host
    assert rebound.status_code == 403
    assert own.status_code == 200


# --- idle half-sent requests are timed out (idle.py) ---------------------------------------------


def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed ``sock`` (None: still open after ``seconds``)."""
    sock.settimeout(seconds)
    started = time.monotonic()
    try:
        while sock.recv(65536):
            pass  # a 408/400 answer may come first
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return time.monotonic() - started


def test_idle_half_sent_requests_are_closed_and_give_their_slot_back(tmp_path: Path) -> None:
    with live_server(tmp_path, idle_timeout=1.0, max_upload_bytes_in_progress=10 * MB) as (_proc, base):
        host, port = base.removeprefix("http://").split(":")
        silent = socket.create_connection((host, int(port)))  # connects, sends nothing
        headers = socket.create_connection((host, int(port)))
        headers.sendall(b"GET /api/v1/formats HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers never end
        body = half_sent_upload(base, 10 * MB)  # holds all the upload bytes allowed
        time.sleep(0.3)
        files = {"file": ("card.json", ILSE.read_bytes(), "application/json")}
        busy = httpx.post(base + "/api/v1/inspect", files=files, timeout=30).status_code
        waits = [closed_within(s, 10) for s in (silent, headers, body)]
        after = httpx.post(base + "/api/v1/inspect", files=files, timeout=30).status_code
    assert busy == 429
    assert all(w is not None for w in waits), waits  # before: open forever
    assert after == 200  # the stalled upload's bytes were given back


def test_a_slow_but_steady_upload_is_not_cut(tmp_path: Path) -> None:
    with live_server(tmp_path, idle_timeout=1.0) as (_proc, base):
        data = ILSE.read_bytes()
        body = (
            b'--x\r\nContent-Disposition: form-data; name="file"; filename="ilse.json"\r\n\r\n'
            + data
            + b"\r\n--x--\r\n"
        )
        host, port = base.removeprefix("http://").split(":")
        sock = socket.create_connection((host, int(port)))
        sock.sendall(
            f"POST /api/v1/inspect HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Length: {len(body)}\r\n"
            "Content-Type: multipart/form-data; boundary=x\r\nConnection: close\r\n\r\n".encode()
        )
        pieces = [body[i : i + len(body) // 5 + 1] for i in range(0, len(body), len(body) // 5 + 1)]
        for piece in pieces:  # 5 pieces, 0.5 s apart: 2.5 s in all, never 1 s silent
            time.sleep(0.5)
            sock.sendall(piece)
        sock.settimeout(30)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        sock.close()
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
