"""The README's main job: ``interop migrate corpus/`` into a fresh SQLite catalog."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from interop.cli import cli

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def test_migrate_the_project_corpus(tmp_path: Path) -> None:
    files = [p for p in CORPUS.rglob("*") if p.is_file() and not p.name.startswith(".")]
    db = f"sqlite:///{tmp_path / 'fresh.sqlite'}"
    targets = "ccv3,sillytavern-world"
    args = ["migrate", str(CORPUS), "--to", targets, "--out", str(tmp_path / "out"), "--db", db, "--json"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    files_ = summary["files"]
    assert files_["imported"] > 0
    assert files_["seen"] == len(files) - sum(1 for p in files if p.name == "MANIFEST.tsv")
    assert files_["ignored"] >= 1  # corpus/README.md and the generator scripts
    for failure in summary["failures"]:
        assert failure["reason"] and "internal error" not in failure["reason"], failure
    # a second run over the same corpus finds everything done
    again = json.loads(CliRunner().invoke(cli, args, catch_exceptions=False).stdout)
    assert again["files"]["unchanged"] == files_["imported"] + files_["duplicate"]
