"""``interop serve`` as a process: refuses to expose the catalog without a token; workers serve and stop cleanly."""

from __future__ import annotations

import json
import signal
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from interop.cli import EXIT_INPUT, cli

from ..conftest import PROJECT_CORPUS
from .conftest import start_server, stop_server

CARDS = PROJECT_CORPUS / "cards"


def test_binding_off_loopback_without_token_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INTEROP_TOKEN", raising=False)
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == EXIT_INPUT
    assert result.stderr.strip().splitlines() == [
        "interop: error: binding to 0.0.0.0 exposes the catalog to the network: set --token or INTEROP_TOKEN "
        "(required for every request that writes to the catalog)"
    ]


def test_two_workers_serve_and_stop_on_sigterm(tmp_path: Path) -> None:
    proc, base = start_server(tmp_path, workers=2)
    try:
        with urllib.request.urlopen(base + "/api/v1/formats", timeout=10) as response:
            assert json.load(response)["platforms"]
        with urllib.request.urlopen(base + "/", timeout=10) as response:
            assert response.headers["content-security-policy"].startswith("default-src 'self'")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            stop_server(proc)


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as response:
        return response.status, response.read()


def test_serving_on_is_printed_once_the_port_answers_and_requests_are_logged(tmp_path: Path) -> None:
    proc, base = start_server(tmp_path)
    try:
        _get(base + "/api/v1/formats")
        log = (tmp_path / "server.log").read_text()
        deadline = 50
        while "serving on" not in log and deadline:
            time.sleep(0.1)
            deadline -= 1
            log = (tmp_path / "server.log").read_text()
    finally:
        stop_server(proc)
    lines = log.splitlines()
    serving = [i for i, line in enumerate(lines) if "interop: serving on" in line]
    assert len(serving) == 1, log
    assert lines[serving[0]].startswith(f"interop: serving on {base}/"), log
    # uvicorn says it is running only once it listens; our line comes after it, never before.
    running = next(i for i, line in enumerate(lines) if "Uvicorn running on" in line)
    assert serving[0] > running, log
    assert any('"GET /api/v1/formats HTTP/1.1" 200' in line for line in lines), log  # the access log
    assert lines[0].startswith("interop: catalog "), log  # the database it serves, named first (issue 21)


def test_no_access_log_and_log_level(tmp_path: Path) -> None:
    proc, base = start_server(tmp_path, "--no-access-log", "--log-level", "warning")
    try:
        _get(base + "/api/v1/formats")
    finally:
        stop_server(proc)
    log = (tmp_path / "server.log").read_text()
    assert "GET /api/v1/formats" not in log
    assert "Uvicorn running on" not in log  # an info line, below --log-level warning


def test_root_path_and_proxy_headers(tmp_path: Path) -> None:
    proc, base = start_server(tmp_path, "--root-path", "/interop/", "--proxy-headers", "--forwarded-allow-ips", "*")
    try:
        _, page = _get(base + "/catalog")
        html = page.decode()
        assert 'href="/interop/static/style.css"' in html and 'src="/interop/static/app.js"' in html
        assert 'data-root="/interop"' in html and 'href="/interop/playground"' in html
        assert "127.0.0.1" not in html  # no scheme or host baked into links
        # The proxy strips the prefix before forwarding (uvicorn's --root-path): files answer without it.
        assert _get(base + "/static/style.css")[0] == 200
        _, docs = _get(base + "/docs")
        assert b'href="/interop/static/swagger-ui/swagger-ui.css"' in docs
        assert b'data-openapi="/interop/openapi.json"' in docs
        request = urllib.request.Request(
            base + "/api/v1/migrations",
            data=_multipart("files", "c.json", (CARDS / "ilse_v3.json").read_bytes()),
            headers={"Content-Type": "multipart/form-data; boundary=XyZ", "X-Forwarded-Proto": "https"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            status_url = json.load(response)["status_url"]
        assert status_url.startswith("https://") and "/interop/api/v1/migrations/" in status_url
    finally:
        stop_server(proc)


def _multipart(field: str, name: str, data: bytes) -> bytes:
    return (
        (
            f'--XyZ\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + b"\r\n--XyZ--\r\n"
    )
