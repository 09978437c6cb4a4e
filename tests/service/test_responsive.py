"""CPU-bound requests run off the event loop under one regex budget (issue 23, items 3 and 4): while
a small hostile request works, a second client is answered at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx

from ..engine.test_regex_budget import hostile_world
from ..model.test_entry_limit import ITEMS, many_lore_items
from .live import live_server

BUDGET = 2.0
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
    assert done["hostile"] - started < BUDGET + 15  # one budget (CPU s) for the request, not one per key and platform


def test_a_second_request_answers_while_a_small_upload_expands_to_much_work(tmp_path: Path) -> None:
    # Raised entry limit: a 50 KB archive's 20,000 lore items are converted (seconds of CPU).
    with live_server(tmp_path, max_entries=20_000) as (_proc, base):
        done: dict[str, float] = {}

        def heavy() -> None:
            files = {"file": ("many.byaf", many_lore_items(20_000), "application/zip")}
            httpx.post(base + "/api/v1/convert", params={"to": "ccv3"}, files=files, timeout=300)
            done["heavy"] = time.monotonic()

        thread = threading.Thread(target=heavy)
        thread.start()
        time.sleep(1.0)
        asked = time.monotonic()
        probe = httpx.get(base + "/api/v1/formats", timeout=120)
        probe_latency = time.monotonic() - asked
        thread.join(timeout=300)
    print(f"probe answered in {probe_latency:.3f} s; the conversion ended {done['heavy'] - asked:.1f} s after it")
    assert probe.status_code == 200
    assert done["heavy"] > asked + probe_latency  # it was still converting
    assert probe_latency < 1.0  # inline (bodies under 256 KB ran on the event loop) it waited seconds


def test_the_entry_limit_is_a_413_with_the_error_json(make_client: Any) -> None:
    client = make_client()
    files = {"file": ("many.byaf", many_lore_items(), "application/zip")}
    answer = client.post("/api/v1/convert", params={"to": "ccv3"}, files=files)
    assert answer.status_code == 413
    error = answer.json()["error"]
    assert error["file"] == "many.byaf" and "50000 lorebook entries" in error["reason"]
    raised = make_client(max_entries=ITEMS + 1)
    assert raised.post("/api/v1/inspect", files=files).status_code == 200
