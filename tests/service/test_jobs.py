"""Uploads to ``POST /migrations`` are not kept forever (issue 23): deleted when the job ends,
unless the server is configured to keep them; the catalog still has everything read from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from interop.service.jobs import JobPaths

from .test_api import CARDS, ILSE, migrate, wait_job


def run_job(client: Any) -> tuple[dict[str, Any], Path]:
    files = [(p.name, p.read_bytes()) for p in (ILSE, CARDS / "brasshaven.lorebook_v3.json")]
    answer = migrate(client, files, to="ccv3")
    assert answer.status_code == 202, answer.text
    state = wait_job(client, answer.json()["id"])
    assert state["status"] == "done", state
    return state, JobPaths.of(client.app.state.catalog).uploads(state["id"])


def test_uploads_are_deleted_when_the_job_ends(make_client: Any) -> None:
    client = make_client()
    state, uploads = run_job(client)
    assert state["summary"]["files"]["imported"] == 2
    assert not uploads.exists()
    items = client.get("/api/v1/catalog/items").json()["items"]
    assert len(items) == 2
    card = next(i for i in items if i["kind"] == "card")
    exported = client.get(f"/api/v1/catalog/items/{card['ref']}/export", params={"to": "ccv3"})
    assert exported.status_code == 200  # the catalog did not need the uploaded file


def test_uploads_can_be_kept(make_client: Any) -> None:
    _state, uploads = run_job(make_client(keep_uploads=True))
    assert sorted(p.name for p in uploads.rglob("*.json")) == sorted([ILSE.name, "brasshaven.lorebook_v3.json"])
