"""CLI: one-line errors with exit codes, --debug tracebacks, never touching inputs."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from interop.cli import EXIT_CHECK_FAILED, EXIT_INPUT, cli

CARDS = Path(__file__).parents[2] / "corpus" / "cards"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_inspect_json_lists_format_counts_and_warnings() -> None:
    code, out, _ = run("inspect", "--json", str(CARDS / "ilse_v3.json"), str(CARDS / "ilse_v3_1_newer.json"))
    assert code == 0
    info = json.loads(out)
    assert info[0]["format"] == "ccv3"
    assert info[0]["name"] == "Captain Ilse Varga"
    assert info[0]["entries"] == 3
    assert info[0]["assets"] == 2
    assert any("3.1" in w for w in info[1]["warnings"])


def test_inspect_folder_skips_tooling_files() -> None:
    code, out, err = run("inspect", str(CARDS))
    assert code == 0, err
    assert "make_cards.py" not in out + err


def test_bad_file_is_one_line_error_with_exit_3(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_bytes(b'{"spec": "chara_card_v3", "data": "nope"}')
    code, _, err = run("inspect", str(bad))
    assert code == EXIT_INPUT
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert "broken.json" in lines[0] and "data" in lines[0]
    assert "Traceback" not in err


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_bytes(b"\x00\x01")
    result = CliRunner().invoke(cli, ["--debug", "convert", str(bad), "--to", "ccv3", "-o", str(tmp_path / "o.json")])
    assert result.exit_code != 0
    assert result.exception is not None  # re-raised for the traceback


def test_convert_writes_output_and_leaves_input_alone(tmp_path: Path) -> None:
    src = tmp_path / "card.json"
    src.write_bytes((CARDS / "ilse_v3.json").read_bytes())
    before = src.read_bytes()
    out = tmp_path / "out" / "card.v2.json"
    code, _, err = run("convert", str(src), "--to", "ccv2", "-o", str(out))
    assert code == 0, err
    assert json.loads(out.read_text())["spec"] == "chara_card_v2"
    assert src.read_bytes() == before


def test_convert_refuses_to_overwrite_its_input(tmp_path: Path) -> None:
    src = tmp_path / "card.json"
    src.write_bytes((CARDS / "ilse_v3.json").read_bytes())
    before = src.read_bytes()
    code, _, err = run("convert", str(src), "--to", "ccv2", "-o", str(src))
    assert code == EXIT_INPUT
    assert "overwrite an input" in err
    assert src.read_bytes() == before


def test_validate_is_permissive_by_default_and_strict_on_request(tmp_path: Path) -> None:
    card = json.loads((CARDS / "ilse_v3.json").read_text())
    del card["data"]["creator"]
    card["data"]["tags"] = "not, a, list"
    path = tmp_path / "c.json"
    path.write_text(json.dumps(card))
    assert run("validate", str(path))[0] == 0
    code, out, _ = run("validate", "--strict", str(path))
    assert code == EXIT_CHECK_FAILED
    assert "data.creator" in out and "data.tags" in out


def test_strict_validation_accepts_what_the_spec_allows() -> None:
    # String entry ids, spec_version 3.1, arbitrary extension keys: all spec-legal.
    code, out, _ = run("validate", "--strict", str(CARDS / "ilse_v3.json"), str(CARDS / "ilse_v3_1_newer.json"))
    assert code == 0, out


def test_schema_exports_the_canonical_model() -> None:
    code, out, _ = run("schema")
    assert code == 0
    schema = json.loads(out)
    assert "data" in schema["properties"]
    entry = schema["$defs"]["LorebookEntry"]["properties"]
    assert entry["id"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert entry["keys"] == {"items": {"type": "string"}, "title": "Keys", "type": "array"}
    code, out, _ = run("schema", "--model", "lorebook")
    assert "entries" in json.loads(out)["$defs"]["Lorebook"]["properties"]


def test_limits_are_configurable_from_the_cli() -> None:
    code, _, err = run("--input-limit", "max_json_depth=3", "inspect", str(CARDS / "ilse_v3.json"))
    assert code == EXIT_INPUT
    assert "nesting deeper than 3" in err
    code, _, err = run("--input-limit", "bogus=3", "inspect", str(CARDS / "ilse_v3.json"))
    assert code == 2
    assert "bogus" in err
