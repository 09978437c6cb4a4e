"""Issue 21, one job system: CLI and web migrations are the catalog's run records, listed together."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from fastapi.testclient import TestClient

from interop.catalog.database import open_catalog
from interop.catalog.runlog import recent_runs
from interop.cli import cli

from ..conftest import PROJECT_CORPUS

CARDS = PROJECT_CORPUS / "cards"


def _wait(client: TestClient, job_id: str) -> dict[str, Any]:
    for _ in range(400):
        state = client.get(f"/api/v1/migrations/{job_id}").json()
        if state["status"] in ("done", "failed"):
            return state
        time.sleep(0.05)
    raise AssertionError("the web migration did not finish")


def test_cli_and_web_migrations_are_one_list(make_client: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'catalog.sqlite'}"
    result = CliRunner().invoke(
        cli, ["migrate", str(CARDS / "ilse_v3.json"), "--db", db, "--to", "ccv3", "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output
    client = make_client(db=db)
    web = client.post("/api/v1/migrations", files={"files": ("tom.json", (CARDS / "old_tom_v1.json").read_bytes())})
    assert web.status_code == 202
    assert _wait(client, web.json()["id"])["status"] == "done"

    jobs = client.get("/api/v1/migrations").json()["jobs"]
    assert [(j["origin"], j["status"], j["total"], j["imported"]) for j in jobs] == [
        ("web", "done", 1, 1),
        ("cli", "done", 1, 1),
    ]
    # The CLI run answers on the same endpoint as a web job, from its run record.
    cli_run = client.get(f"/api/v1/migrations/{jobs[1]['id']}").json()
    assert cli_run["origin"] == "cli" and cli_run["summary"]["files"]["imported"] == 1
    # And the catalog itself holds both (what `interop catalog runs` can read).
    catalog = open_catalog(db)
    try:
        assert {r["origin"] for r in recent_runs(catalog)} == {"cli", "web"}
    finally:
        catalog.dispose()


def test_a_cli_runs_failures_are_counted_in_its_record(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'catalog.sqlite'}"
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    result = CliRunner().invoke(cli, ["migrate", str(bad), "--db", db, "--to", "ccv3", "--out", str(tmp_path / "o")])
    assert result.exit_code == 3, result.output  # nothing migrated at all (issue 23)
    catalog = open_catalog(db)
    try:
        (run,) = recent_runs(catalog)
    finally:
        catalog.dispose()
    assert (run["origin"], run["status"], run["failed"], run["imported"]) == ("cli", "done", 1, 0)
