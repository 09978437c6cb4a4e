"""Every hostile case through every ``/api/v1`` endpoint that takes a file (issue 23): a 4xx with the
error JSON for what the library refuses, never a 5xx, in bounded CPU time; and a responsive server
(another client is answered while the heaviest case works, tests/service/test_responsive.py for
regex and entry counts)."""

from __future__ import annotations

import resource
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from interop.errors import LimitExceededError
from tests.hostile.cases import CASE_IDS, CASES, Case, ztxt_bomb
from tests.service.live import live_server
from tests.service.test_api import ILSE, wait_job

CPU_BOUND_S = 8.0
"""Generous, as in test_library: "bounded", not a speed target."""
CHAT = "Alex: the gate is open\nBea: is it?"


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # the TestClient app runs in this process
    return usage.ru_utime + usage.ru_stime


def one_file(endpoint: str, field: str = "file", **params: Any) -> Callable[[TestClient, Case], Any]:
    def call(client: TestClient, case: Case) -> Any:
        files = [(field, (case.filename, case.data, "application/octet-stream"))]
        return client.post(f"/api/v1/{endpoint}", files=files, params=params)

    return call


def diff(client: TestClient, case: Case) -> Any:
    files = {"a": (case.filename, case.data), "b": (ILSE.name, ILSE.read_bytes())}
    return client.post("/api/v1/diff", files=files)


def activate(client: TestClient, case: Case) -> Any:
    files = [("book", (case.filename, case.data, "application/octet-stream"))]
    return client.post("/api/v1/activate", files=files, data={"chat_text": CHAT})


def migrations(client: TestClient, case: Case) -> Any:
    files = [("files", (case.filename, case.data, "application/octet-stream"))]
    return client.post("/api/v1/migrations", files=files, data={"to": "ccv3"})


ENDPOINTS: dict[str, Callable[[TestClient, Case], Any]] = {
    "inspect": one_file("inspect", picture=True),
    "convert": one_file("convert", to="ccv3"),
    "convert-lorebook": one_file("convert", to="lorebook_v3"),
    "roundtrip": one_file("roundtrip", via="ccv3"),
    "validate": one_file("validate", strict=True),
    "diff": diff,
    "activate": activate,
    "migrations": migrations,
}
NAMES_THE_FILE = {"inspect", "convert", "convert-lorebook", "roundtrip", "validate", "diff", "activate"}


def assert_error_json(response: Any, case: Case, endpoint: str) -> None:
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    error = response.json()["error"]
    assert isinstance(error["reason"], str) and error["reason"]
    assert "internal error" not in error["reason"]
    if case.error is not None and endpoint in NAMES_THE_FILE:
        assert error["file"] == case.filename


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from interop.service import ServiceConfig, create_app

    db = f"sqlite:///{tmp_path_factory.mktemp('hostile') / 'catalog.sqlite'}"
    config = ServiceConfig(db=db, warm_up=False, allowed_hosts=("testserver",))
    with TestClient(create_app(config)) as test_client:
        yield test_client


@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_case_through_endpoint(client: TestClient, case: Case, endpoint: str) -> None:
    started = cpu_seconds()
    response = ENDPOINTS[endpoint](client, case)
    assert response.status_code < 500, response.text[:300]
    if endpoint == "migrations" and response.status_code == 202:
        state = wait_job(client, response.json()["id"])
        assert state["status"] == "done", state
        failures = state["summary"]["failures"]
        if case.error is not None:  # refused while reading: counted as failed, named as uploaded
            assert [f["file"] for f in failures] == [case.filename]
        assert not any("internal error" in f["reason"] for f in failures), failures
    elif case.error is not None or response.status_code >= 400:
        assert_error_json(response, case, endpoint)
        if endpoint in ("inspect", "validate"):
            assert response.status_code == (413 if issubclass(case.error or object, LimitExceededError) else 400)
    assert cpu_seconds() - started < CPU_BOUND_S


def test_server_answers_others_while_the_heaviest_case_is_read(tmp_path: Path) -> None:
    bomb = ztxt_bomb()
    with live_server(tmp_path) as (_proc, base):
        done: dict[str, Any] = {}

        def hostile() -> None:
            for _ in range(3):  # a few in a row, so the probe surely lands while one is read
                files = {"file": ("ztxt_bomb.png", bomb, "image/png")}
                done["status"] = httpx.post(base + "/api/v1/inspect", files=files, timeout=120).status_code
            done["at"] = time.monotonic()

        thread = threading.Thread(target=hostile)
        thread.start()
        time.sleep(0.3)
        asked = time.monotonic()
        probe = httpx.get(base + "/api/v1/formats", timeout=60)
        latency = time.monotonic() - asked
        thread.join(timeout=300)
    assert probe.status_code == 200 and done["status"] == 413
    assert latency < 1.0 and done["at"] > asked + latency
