"""CPU-bound requests run off the event loop under one regex budget (issue 23, items 3 and 4): while
a small hostile request works, a second client is answered at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx

from ..engine.test_regex_budget import hostile_world
from .live import live_server

BUDGET = 4.0
"""The server's regex budget here: long enough that the probe surely lands while the hostile request runs."""


def test_a_second_request_answers_while_a_catastrophic_regex_request_runs(tmp_path: Path) -> None:
    with live_server(tmp_path, regex_budget=BUDGET) as (_proc, base):
        done: dict[str, float] = {}
        answer: dict[str, httpx.Response] = {}

        def hostile() -> None:
            files = {"book": ("evil.json", hostile_world(), "application/json")}
            data = {"chat_text": "Alex: " + "x" * 4000}
            answer["hostile"] = httpx.post(base + "/api/v1/activate", files=files, data=data, timeout=120)
            done["hostile"] = time.monotonic()

        started = time.monotonic()
        thread = threading.Thread(target=hostile)
        thread.start()
        time.sleep(1.0)  # the hostile request is being scanned now (it takes BUDGET seconds)
        asked = time.monotonic()
        probe = httpx.get(base + "/api/v1/formats", timeout=60)
        probe_latency = time.monotonic() - asked
        thread.join(timeout=120)
    assert probe.status_code == 200
    assert "hostile" in done and done["hostile"] > asked + probe_latency  # it was still running
    assert probe_latency < 1.0  # on the event loop it waited for the whole hostile scan
    assert answer["hostile"].status_code == 200
    assert done["hostile"] - started < BUDGET + 10  # one budget for the request, not one per key and platform
