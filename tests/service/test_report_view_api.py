"""Issue 19 items 3/4: the API answers the same report view the CLI prints and --json gives."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from fastapi.testclient import TestClient

from interop.cli import cli

from ..conftest import PROJECT_CORPUS

ODD = PROJECT_CORPUS / "sillytavern" / "odd_values_world.json"


def files(*paths: Path) -> list[tuple[str, tuple[str, bytes]]]:
    names = ["file"] if len(paths) == 1 else ["a", "b"]
    return [(n, (p.name, p.read_bytes())) for n, p in zip(names, paths, strict=True)]


def test_convert_answers_the_view_the_cli_prints(client: TestClient, tmp_path: Path) -> None:
    response = client.post("/api/v1/convert?to=ccv3", files=files(ODD), headers={"Accept": "application/json"})
    assert response.status_code == 200, response.text
    view = response.json()["view"]
    result = CliRunner().invoke(cli, ["convert", str(ODD), "--to", "ccv3", "-o", str(tmp_path / "o.json"), "--details"])
    lines = result.stdout.splitlines()
    assert view["verdict"] == lines[1]
    assert [a["summary"] for a in view["apps"]] == [line.strip() for line in lines if line.startswith("  at ")]
    printed = " ".join(result.stdout.split())  # long lines are wrapped
    assert view["added"] and all(" ".join(line.split()) in printed for line in view["added"])
    assert view["reading_warnings"] == [w.removeprefix("warning: ") for w in result.stderr.splitlines()]


def test_roundtrip_and_diff_answer_the_cli_json(client: TestClient, tmp_path: Path) -> None:
    legs = client.post("/api/v1/roundtrip?via=ccv3", files=files(ODD)).json()["legs"]
    cli_legs = json.loads(CliRunner().invoke(cli, ["roundtrip", str(ODD), "--via", "ccv3", "--json"]).stdout)
    assert [leg["view"] for leg in legs] == [leg["view"] for leg in cli_legs["files"][0]["legs"]]
    other = tmp_path / "other.json"
    assert CliRunner().invoke(cli, ["convert", str(ODD), "--to", "ccv3", "-o", str(other), "-q"]).exit_code == 0
    answer = client.post("/api/v1/diff", files=files(ODD, other)).json()
    printed = json.loads(CliRunner().invoke(cli, ["diff", str(ODD), str(other), "--json"]).stdout)
    assert answer["view"] == printed["view"] and answer["view"]["verdict"].startswith("DIFFERENT")
