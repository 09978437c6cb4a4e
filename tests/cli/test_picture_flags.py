"""``--no-embed-picture`` on convert and migrate (issue 19 item 5): ccv3 leaves the card picture out."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from interop.cli import cli
from tests.conftest import PROJECT_CORPUS

V2_PNG = PROJECT_CORPUS / "png" / "v2_chara_only.png"


def _main_icons(path: Path) -> list[dict[str, Any]]:
    assets = json.loads(path.read_bytes())["data"].get("assets") or []
    return [a for a in assets if a.get("type") == "icon" and a.get("name") == "main"]


def test_convert_keeps_the_picture_unless_told(tmp_path: Path) -> None:
    kept, left = tmp_path / "kept.json", tmp_path / "left.json"
    for out, flag in ((kept, []), (left, ["--no-embed-picture"])):
        result = CliRunner().invoke(cli, ["convert", str(V2_PNG), "--to", "ccv3", "-o", str(out), "-q", *flag])
        assert result.exit_code == 0, result.output
    assert [a["uri"][:22] for a in _main_icons(kept)] == ["data:image/png;base64,"]
    assert "assets" not in json.loads(left.read_bytes())["data"]


def test_migrate_keeps_the_picture_unless_told(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(V2_PNG, src / V2_PNG.name)
    for flag, icons in (([], 1), (["--no-embed-picture"], 0)):
        out = tmp_path / f"out{icons}"
        db = f"sqlite:///{tmp_path / f'c{icons}.sqlite'}"
        args = ["migrate", str(src), "--to", "ccv3", "--out", str(out), "--db", db, *flag]
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        (written,) = (out / "ccv3").glob("*.json")
        assert len(_main_icons(written)) == icons


def test_migrate_refuses_the_flag_with_a_broker(tmp_path: Path) -> None:
    args = ["migrate", str(V2_PNG.parent), "--to", "ccv3", "--out", str(tmp_path / "o"), "--no-embed-picture"]
    result = CliRunner().invoke(cli, [*args, "--broker", "redis://127.0.0.1:1/0"])
    assert result.exit_code == 2 and "--no-embed-picture" in result.output
