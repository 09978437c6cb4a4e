"""`interop migrate` and `interop catalog` as a user sees them (issue 21: progress, Ctrl-C, catalog named)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import interop.catalog.runlog as runlog
from interop.cli import cli

CARDS = Path(__file__).parents[2] / "corpus" / "cards"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def cards(tmp_path: Path) -> Path:
    folder = tmp_path / "cards"
    shutil.copytree(CARDS, folder)
    return folder


def test_progress_lines_without_a_terminal_and_the_catalog_named(cards: Path, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'c.sqlite'}"
    result = run("migrate", str(cards), "--to", "ccv3", "--out-dir", str(tmp_path / "o"), "--db", db)
    assert result.exit_code == 0, result.output
    err = result.stderr.splitlines()
    assert err[0] == f"interop: catalog {db}"
    progress = [line for line in err if line.startswith("migrating: ")]
    assert progress, result.stderr  # CliRunner's stderr is no terminal: plain lines, not a redrawn bar
    total = json.loads(
        run("migrate", str(cards), "--to", "ccv3", "--out-dir", str(tmp_path / "o"), "--db", db, "--json").stdout
    )
    assert progress[-1].startswith(f"migrating: {total['files']['seen'] - total['files']['ignored']}/")
    assert "\r" not in result.stderr


def test_ctrl_c_says_how_to_resume_and_the_rerun_finishes(
    cards: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 'c.sqlite'}"
    args = ("migrate", str(cards), "--to", "ccv3", "--out-dir", str(tmp_path / "o"), "--db", db)
    real = runlog.migrate  # the run under the CLI's recorded run

    def interrupted(*a: Any, progress: Any, **kw: Any) -> Any:
        seen = 0

        def then_ctrl_c(outcome: Any, summary: Any) -> None:
            nonlocal seen
            progress(outcome, summary)
            seen += 1
            if seen == 2:
                raise KeyboardInterrupt

        return real(*a, progress=then_ctrl_c, **kw)

    monkeypatch.setattr(runlog, "migrate", interrupted)
    result = run(*args)
    assert result.exit_code == 130
    assert "interop: interrupted after 2 of " in result.stderr
    assert result.stderr.strip().splitlines()[-1].endswith("rerun the same command to resume")
    assert "Traceback" not in result.output

    monkeypatch.setattr(runlog, "migrate", real)
    again = run(*args, "--json")
    assert again.exit_code == 0, again.output
    files = json.loads(again.stdout)["files"]
    assert files["unchanged"] >= 2  # what was done before Ctrl-C is not redone


def test_catalog_commands_name_the_database_and_list_says_showing_n_of_m(cards: Path, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'c.sqlite'}"
    assert run("migrate", str(cards), "--to", "ccv3", "--out-dir", str(tmp_path / "o"), "--db", db).exit_code == 0
    everything = json.loads(run("catalog", "list", "--db", db, "--json", "--limit", "1000").stdout)
    assert len(everything) > 2
    result = run("catalog", "list", "--db", db, "--limit", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == f"showing 2 of {len(everything)} (--limit 2)"
    cards_only = json.loads(run("catalog", "list", "--db", db, "--json", "--kind", "card", "--limit", "1000").stdout)
    result = run("catalog", "list", "--db", db, "--kind", "card", "--json", "--limit", "1")
    assert json.loads(result.stdout) == cards_only[:1]  # standard output stays one JSON document
    assert f"showing 1 of {len(cards_only)}" in result.stderr
    for args in (("list",), ("stats",), ("runs",), ("search", "tide"), ("show", everything[0]["ref"]), ("upgrade",)):
        result = run("catalog", *args, "--db", db)
        assert result.exit_code == 0, (args, result.output)
        assert result.stderr.splitlines()[0] == f"interop: catalog {db}", args


def test_catalog_names_the_database_with_its_password_hidden(tmp_path: Path) -> None:
    result = run("catalog", "stats", "--db", "postgresql://ann:secret@127.0.0.1:1/cards")
    assert result.exit_code != 0
    assert "secret" not in result.output
    assert result.stderr.splitlines()[0] == "interop: catalog postgresql+psycopg://ann:***@127.0.0.1:1/cards"


def test_catalog_upgrade_and_export_report_in_json(
    cards: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 'c.sqlite'}"
    upgraded = run("catalog", "upgrade", "--db", db, "--json")
    assert upgraded.exit_code == 0, upgraded.output
    info = json.loads(upgraded.stdout)
    assert info["before"] is None and info["after"] == info["head"]
    assert (
        run(
            "migrate", str(cards / "ilse_v3.json"), "--to", "ccv3", "--out-dir", str(tmp_path / "o"), "--db", db
        ).exit_code
        == 0
    )
    monkeypatch.chdir(tmp_path)
    exported = run("catalog", "export", "card:1", "--to", "png", "--db", db, "--json")
    assert exported.exit_code == 0, exported.output
    data = json.loads(exported.stdout)
    assert data["output"] == str(tmp_path / "Captain_Ilse_Varga.png")  # one suffix, not .png.png
    assert Path(data["output"]).stat().st_size == data["bytes"]
