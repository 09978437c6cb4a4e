"""``interop serve`` as a process: refuses to expose the catalog without a token; workers serve and stop cleanly."""

from __future__ import annotations

import json
import signal
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from interop.cli import EXIT_INPUT, cli

from .conftest import start_server, stop_server


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
