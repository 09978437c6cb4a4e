"""One flag name per concept, `-` for standard input/output, several inputs, default names (issue 21, CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from interop.cli import EXIT_INPUT, EXIT_USAGE, cli

CORPUS = Path(__file__).parents[2] / "corpus"
CARD = CORPUS / "cards" / "ilse_v3.json"
NEWER = CORPUS / "cards" / "ilse_v3_1_newer.json"
WORLD = CORPUS / "sillytavern" / "card_import_world.json"
CHAT = CORPUS / "chats" / "harbor.jsonl"


def run(*args: str, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=stdin)


def help_of(*command: str) -> str:
    result = run(*command, "--help")
    assert result.exit_code == 0, result.output
    return result.stdout


# --- one name per concept, old spellings hidden but accepted ---


@pytest.mark.parametrize(
    ("command", "new", "old"),
    [
        (("inspect",), "--from", "--format"),
        (("convert",), "--from", "--format"),
        (("migrate",), "--out-dir", "--out"),
        (("catalog", "export"), "--output", "--out"),
        ((), "--input-limit", "--limit"),
    ],
)
def test_old_spelling_is_hidden_from_help(command: tuple[str, ...], new: str, old: str) -> None:
    text = help_of(*command)
    assert new in text
    assert f"{old} " not in text and f"{old}," not in text


def test_inspect_old_format_flag_still_reads_as_that_format() -> None:
    for flag in ("--from", "--format"):
        result = run("inspect", "--json", flag, "ccv2", str(CARD))
        assert result.exit_code == 0, (flag, result.output)
        assert json.loads(result.stdout)[0]["format"] == "ccv2"  # detection would say ccv3


@pytest.mark.parametrize("flag", ["--input-limit", "--limit"])
def test_input_size_limit_under_both_spellings(flag: str) -> None:
    result = run(flag, "max_file_bytes=100", "inspect", str(CARD))
    assert result.exit_code == EXIT_INPUT
    assert "exceeds the limit" in result.stderr


@pytest.mark.parametrize("flag", ["--out-dir", "--out"])
def test_migrate_out_dir_under_both_spellings(tmp_path: Path, flag: str) -> None:
    out = tmp_path / "out"
    result = run("migrate", str(CARD), "--to", "ccv2", flag, str(out), "--db", f"sqlite:///{tmp_path / 'c.sqlite'}")
    assert result.exit_code == 0, result.output
    assert [p.name for p in (out / "ccv2").iterdir()]


# --- `-` is standard input / standard output ---


def test_inspect_reads_standard_input() -> None:
    result = run("inspect", "--json", "-", stdin=CARD.read_bytes())
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)[0]
    assert info["file"] == "-" and info["format"] == "ccv3" and info["name"] == "Captain Ilse Varga"


def test_convert_stdin_to_stdout_keeps_messages_off_stdout() -> None:
    result = run("convert", "-", "--to", "ccv2", "-o", "-", stdin=CARD.read_bytes())
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout_bytes)["spec"] == "chara_card_v2"  # nothing but the card
    assert "-> - (ccv2)" in result.stderr


def test_convert_stdin_defaults_to_stdout() -> None:
    result = run("convert", "-", "--to", "sillytavern-world", stdin=WORLD.read_bytes())
    assert result.exit_code == 0, result.output
    assert "entries" in json.loads(result.stdout_bytes)


def test_stdin_input_is_limited_like_a_file() -> None:
    result = run("--input-limit", "max_file_bytes=100", "inspect", "-", stdin=CARD.read_bytes())
    assert result.exit_code == EXIT_INPUT
    assert "standard input" in result.stderr


def test_activate_reads_the_chat_from_standard_input() -> None:
    from_file = run("activate", str(WORLD), "--chat", str(CHAT), "--json")
    from_stdin = run("activate", str(WORLD), "--chat", "-", "--json", stdin=CHAT.read_bytes())
    assert from_file.exit_code == 0, from_file.output
    assert from_stdin.exit_code == 0, from_stdin.output
    assert json.loads(from_stdin.stdout)["activated"] == json.loads(from_file.stdout)["activated"]


def test_activate_reads_a_book_from_standard_input() -> None:
    from_file = run("activate", str(WORLD), "--chat", str(CHAT), "--json")
    from_stdin = run("activate", "-", "--chat", str(CHAT), "--json", stdin=WORLD.read_bytes())
    assert from_stdin.exit_code == 0, from_stdin.output
    assert len(json.loads(from_stdin.stdout)["activated"]) == len(json.loads(from_file.stdout)["activated"])


def test_standard_input_is_read_once() -> None:
    result = run("activate", "-", "--chat", "-", stdin=b"")
    assert result.exit_code == EXIT_USAGE


# --- several inputs, default names ---


def test_convert_several_inputs_into_a_folder_without_a_catalog(tmp_path: Path) -> None:
    out = tmp_path / "converted"
    result = run("convert", str(CARD), str(WORLD), "--to", "ccv3", "--out-dir", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["card_import_world.ccv3.json", "ilse_v3.ccv3.json"]
    assert not list(tmp_path.glob("*.sqlite"))


def test_one_output_file_for_several_inputs_is_a_usage_error(tmp_path: Path) -> None:
    result = run("convert", str(CARD), str(NEWER), "--to", "ccv2", "-o", str(tmp_path / "x.json"))
    assert result.exit_code == EXIT_USAGE
    assert "--out-dir" in result.output
    assert not (tmp_path / "x.json").exists()


def test_two_inputs_with_one_output_name_are_refused_before_writing(tmp_path: Path) -> None:
    twin = tmp_path / "a" / CARD.name
    twin.parent.mkdir()
    twin.write_bytes(CARD.read_bytes())
    result = run("convert", str(CARD), str(twin), "--to", "ccv2", "--out-dir", str(tmp_path / "o"))
    assert result.exit_code == EXIT_USAGE
    assert not (tmp_path / "o").exists()


def test_unreadable_input_among_several_is_reported_and_the_rest_converted(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_bytes(b"{")
    result = run("convert", str(bad), str(CARD), "--to", "ccv2", "--out-dir", str(tmp_path / "o"), "-q")
    assert result.exit_code == EXIT_INPUT
    assert "broken.json" in result.stderr
    assert (tmp_path / "o" / "ilse_v3.ccv2.json").exists()


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        (CARD, "png", "ilse_v3.png"),  # not ilse_v3.png.png
        (CARD, "charx", "ilse_v3.charx"),
        (CARD, "ccv2", "ilse_v3.ccv2.json"),
        (WORLD, "risum", "card_import_world.risum"),
        (CORPUS / "png" / "v2_chara_only.png", "png", "v2_chara_only.converted.png"),  # never the input's own name
    ],
)
def test_default_output_name_has_no_doubled_suffix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: Path, target: str, expected: str
) -> None:
    monkeypatch.chdir(tmp_path)
    local = tmp_path / source.name
    local.write_bytes(source.read_bytes())
    result = run("convert", source.name, "--to", target, "-q")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir() if p != local) == [expected]


def test_convert_json_reports_every_input(tmp_path: Path) -> None:
    result = run("convert", str(CARD), str(WORLD), "--to", "ccv3", "--out-dir", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    items = json.loads(result.stdout)
    assert [i["source"] for i in items] == [str(CARD), str(WORLD)]
    assert all(Path(i["output"]).exists() and i["report"]["target"]["format"] == "ccv3" for i in items)


# --- a missing input is "input could not be read" (3), not a usage error ---


@pytest.mark.parametrize(
    "args",
    [
        ("inspect", "{missing}"),
        ("convert", "{missing}", "--to", "ccv3"),
        ("validate", "{missing}"),
        ("diff", "{missing}", str(CARD)),
        ("roundtrip", "{missing}", "--via", "ccv2"),
        ("activate", "{missing}", "--chat", str(CHAT)),
        ("activate", str(WORLD), "--chat", "{missing}"),
        ("migrate", "{missing}", "--to", "ccv3", "--out-dir", "{tmp}/o", "--db", "sqlite:///{tmp}/c.sqlite"),
    ],
)
def test_missing_input_exits_3_with_one_line(tmp_path: Path, args: tuple[str, ...]) -> None:
    missing = str(tmp_path / "no-such-card.json")
    result = run(*(a.format(missing=missing, tmp=tmp_path) for a in args))
    assert result.exit_code == EXIT_INPUT, result.output
    lines = result.stderr.strip().splitlines()
    assert lines == [f"interop: error: {missing}: no such file or directory"]


# --- shell completion, as the README documents it ---


def _complete(env: dict[str, str]) -> str:
    import os
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "interop"],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_bash_completion_script_and_answers() -> None:
    assert "_interop_completion" in _complete({"_INTEROP_COMPLETE": "bash_source"})
    words = _complete({"_INTEROP_COMPLETE": "bash_complete", "COMP_WORDS": "interop con", "COMP_CWORD": "1"})
    assert "plain,convert" in words.splitlines()
    words = _complete(
        {"_INTEROP_COMPLETE": "bash_complete", "COMP_WORDS": "interop convert x --to risu", "COMP_CWORD": "4"}
    )
    assert {"plain,risu-lorebook", "plain,risum"} <= set(words.splitlines())


def test_binary_output_is_not_written_to_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import interop.cli.convert_cmd as convert_cmd

    monkeypatch.setattr(convert_cmd, "_stdout_is_terminal", lambda: True)
    refused = run("convert", "-", "--to", "png", stdin=CARD.read_bytes())
    assert refused.exit_code == EXIT_USAGE
    assert "binary" in refused.output and not refused.stdout_bytes.startswith(b"\x89PNG")
    text = run("convert", "-", "--to", "ccv2", stdin=CARD.read_bytes())  # JSON is fine on a terminal
    assert text.exit_code == 0 and json.loads(text.stdout_bytes)["spec"] == "chara_card_v2"
    monkeypatch.setattr(convert_cmd, "_stdout_is_terminal", lambda: False)
    piped = run("convert", "-", "--to", "png", stdin=CARD.read_bytes())
    assert piped.exit_code == 0 and piped.stdout_bytes.startswith(b"\x89PNG")
