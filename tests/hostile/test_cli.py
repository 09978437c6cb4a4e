"""Every hostile case through every CLI command (issue 23): one line naming the file, the README's exit code,
no traceback, and no terminal control character from card text in human output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from interop.cli import cli
from tests.hostile.cases import CASE_IDS, CASES, TERMINAL_ESCAPES, Case, special_files

REPO = Path(__file__).resolve().parents[2]
EXIT_INPUT = 3  # README: "an input could not be read ... or an output could not be written safely"
CONTROL = ("\x1b", "\x07", "\x9b", "\r", "\x08")


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def assert_clean(result: Result, *, human: bool = True) -> None:
    """No traceback, no internal error, and (human output) no control character reaches the terminal."""
    text = result.stdout + result.stderr
    assert "Traceback" not in text and "internal error" not in text, text[-2000:]
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code != 4, text[-2000:]
    if human:
        found = [c for c in CONTROL if c in text]
        assert not found, f"control characters {found!r} reached the terminal: {text[:400]!r}"


def assert_one_line_error(result: Result, path: Path) -> None:
    assert result.exit_code == EXIT_INPUT, result.stdout + result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("interop: error: ") and str(path) in lines[0], lines[0]


def write_case(tmp_path: Path, case: Case) -> Path:
    path = tmp_path / case.filename
    path.write_bytes(case.data)
    return path


def target_of(case: Case) -> str:
    return "risu-charx" if case.kind == "card" else "risu-lorebook"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_hostile_case_through_every_command(tmp_path: Path, case: Case) -> None:
    path = write_case(tmp_path, case)
    out = tmp_path / "out"
    commands = {
        "inspect": ["inspect", str(path)],
        "convert": ["convert", str(path), "--to", target_of(case), "-o", str(out / "x")],
        "convert-ccv3": [
            "convert",
            str(path),
            "--to",
            "ccv3" if case.kind == "card" else "lorebook_v3",
            "-o",
            str(out / "y"),
        ],
        "validate": ["validate", str(path)],
        "roundtrip": ["roundtrip", str(path), "--via", target_of(case)],
        "diff": ["diff", str(path), str(path)],
    }
    for name, args in commands.items():
        result = run(*args)
        assert_clean(result)
        if case.error is not None:
            assert_one_line_error(result, path)
        else:
            assert result.exit_code in (0, 1), f"{name}: {result.stdout}{result.stderr}"
    result = run("inspect", "--json", str(path))
    assert_clean(result, human=False)
    assert result.exit_code == (EXIT_INPUT if case.error is not None else 0)
    json.loads(result.stdout)


def test_migrate_and_catalog_over_every_case(tmp_path: Path) -> None:
    """One run over all cases and special files: failures named, specials skipped, human output inert."""
    src = tmp_path / "src"
    src.mkdir()
    for case in CASES:
        write_case(src, case)
    specials = [s for s in special_files(src) if s.path.parent == src]
    db = f"sqlite:///{tmp_path / 'catalog.sqlite'}"
    result = run("migrate", str(src), "--to", "ccv3,sillytavern-world", "--out", str(tmp_path / "out"), "--db", db)
    assert_clean(result)
    for special in specials:
        assert f"skipped {special.path}: not a regular file ({special.kind})" in result.stderr
    summary = run("migrate", str(src), "--to", "ccv3", "--out", str(tmp_path / "out"), "--db", db, "--json")
    assert_clean(summary, human=False)
    failures = {Path(f["file"]).name for f in json.loads(summary.stdout[summary.stdout.index("{") :])["failures"]}
    assert {c.filename for c in CASES if c.error is not None} <= failures
    for args in (["list"], ["search", "gate"], ["search", "safe"], ["stats"]):
        result = run("catalog", *args, "--db", db)
        assert_clean(result)
        assert result.exit_code == 0, result.stdout + result.stderr
    listing = run("catalog", "list", "--db", db, "--json")
    refs = [item["ref"] for item in json.loads(listing.stdout)]
    for ref in refs:
        assert_clean(run("catalog", "show", ref, "--db", db))


def test_terminal_escapes_are_shown_as_visible_escapes_by_inspect(tmp_path: Path) -> None:
    # item 7: CSI clear, OSC 52 clipboard, OSC 8 link and a bare CR in the card name
    case = next(c for c in CASES if c.name == "json_terminal_escapes")
    path = write_case(tmp_path, case)
    human = run("inspect", str(path))
    assert human.exit_code == 0
    assert "\\e[2J" in human.stdout and "\\e]52;c;" in human.stdout and "safe text\\rFAKE" in human.stdout
    data = json.loads(run("inspect", "--json", str(path)).stdout)  # JSON output: the text unchanged
    assert data[0]["name"] == "Esc" + TERMINAL_ESCAPES


@pytest.mark.parametrize("name", ["dev_zero", "fifo", "symlink_to_device"])
def test_special_file_named_on_the_command_line_is_refused_at_once(tmp_path: Path, name: str) -> None:
    # item 6: `inspect /dev/zero` never returned; a FIFO blocked on open
    special = next(s for s in special_files(tmp_path) if s.name == name)
    code = "import sys; from interop.cli import main; sys.argv = ['interop', 'inspect', sys.argv[1]]; main()"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(special.path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == EXIT_INPUT, proc.stderr
    assert proc.stderr.strip() == f"interop: error: {special.path}: not a regular file ({special.kind})"


def _convert_in_subprocess(card: Path, out: Path, fsize: int) -> subprocess.CompletedProcess[str]:
    """``interop convert`` with RLIMIT_FSIZE (``ulimit -f``): writes past it fail with EFBIG
    (Python ignores SIGXFSZ, so the process is not killed)."""
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[3]),) * 2); "
        "from interop.cli import main; "
        "sys.argv = ['interop', 'convert', sys.argv[1], '--to', 'ccv3', '-o', sys.argv[2]]; main()"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(card), str(out), str(fsize)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def test_convert_past_the_file_size_limit_exits_3_output_not_written_safely(tmp_path: Path) -> None:
    # item 8: was "internal error" exit 4
    card = tmp_path / "card.json"
    card.write_text(json.dumps({"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "N" * 4000}}))
    out = tmp_path / "out" / "card.json"
    proc = _convert_in_subprocess(card, out, 1024)
    assert proc.returncode == EXIT_INPUT, proc.stderr
    assert proc.stderr.strip() == f"interop: error: {out}: output could not be written safely: File too large"
    assert not out.exists() and list(out.parent.iterdir()) == []  # no temporary file left
    assert _convert_in_subprocess(card, out, 1 << 20).returncode == 0


def test_convert_into_an_unwritable_place_exits_3(tmp_path: Path) -> None:
    card = tmp_path / "card.json"
    card.write_text(json.dumps({"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "N"}}))
    (tmp_path / "file").write_bytes(b"")
    result = run("convert", str(card), "--to", "ccv3", "-o", str(tmp_path / "file" / "out.json"))
    assert_clean(result)
    assert result.exit_code == EXIT_INPUT
    assert "output could not be written safely" in result.stderr


def _card_folder(tmp_path: Path, n: int) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(n):
        card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": f"Card {i}"}}
        (src / f"card{i}.json").write_text(json.dumps(card))
    return src


def test_migrate_whose_every_output_fails_exits_3(tmp_path: Path) -> None:
    # issue 23: "a migrate whose every output fails exits 0"
    src = _card_folder(tmp_path, 3)
    out = tmp_path / "out"
    out.mkdir()
    (out / "ccv3").write_bytes(b"")  # the target folder is a file: no output can be written
    db = f"sqlite:///{tmp_path / 'c.sqlite'}"
    result = run("migrate", str(src), "--to", "ccv3", "--out", str(out), "--db", db)
    assert_clean(result)
    assert result.exit_code == EXIT_INPUT, result.stdout + result.stderr
    assert "interop: error: nothing was migrated: all 3 attempts failed" in result.stderr
    assert result.stdout.count("output could not be written safely") == 3


def test_migrate_of_only_unreadable_files_exits_3_and_a_partial_failure_exits_0(tmp_path: Path) -> None:
    src = tmp_path / "bad"
    src.mkdir()
    (src / "a.json").write_text("{not json")
    db = f"sqlite:///{tmp_path / 'c.sqlite'}"
    result = run("migrate", str(src), "--to", "ccv3", "--out", str(tmp_path / "out"), "--db", db)
    assert result.exit_code == EXIT_INPUT, result.stdout + result.stderr
    good = _card_folder(tmp_path, 1)
    (good / "broken.json").write_text("{not json")
    result = run("migrate", str(good), "--to", "ccv3", "--out", str(tmp_path / "out2"), "--db", db)
    assert result.exit_code == 0, result.stdout + result.stderr  # some work done: --strict makes this exit 1


def test_migrate_of_a_fifo_named_on_the_command_line_fails_that_file_and_returns(tmp_path: Path) -> None:
    # item 6: `migrate` hung forever on a FIFO (open blocks without a writer) or died on /dev/zero
    fifo = next(s for s in special_files(tmp_path / "in") if s.name == "fifo").path
    card = _card_folder(tmp_path, 1) / "card0.json"
    db = f"sqlite:///{tmp_path / 'c.sqlite'}"
    code = "import sys; from interop.cli import main; sys.argv = ['interop', *sys.argv[1:]]; main()"
    args = ["migrate", str(fifo), "/dev/zero", str(card), "--to", "ccv3", "--out", str(tmp_path / "out"), "--db", db]
    proc = subprocess.run(
        [sys.executable, "-c", code, *args, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads(proc.stdout)
    assert summary["files"]["imported"] == 1 and summary["files"]["failed"] == 2
    assert {(f["file"], f["reason"]) for f in summary["failures"]} == {
        (str(fifo), "not a regular file (FIFO)"),
        ("/dev/zero", "not a regular file (character device)"),
    }


CORPUS = REPO / "corpus"


@pytest.mark.parametrize("name", ["dev_zero", "fifo", "symlink_to_device"])
@pytest.mark.parametrize("command", ["activate", "convert", "book"])
def test_special_file_as_a_chat_or_book_is_refused_at_once(tmp_path: Path, name: str, command: str) -> None:
    # hostile2: `activate --chat /dev/zero` read without end (Path.read_bytes); a FIFO blocked on open.
    # The same for `convert --behaviour` and for an activation book.
    special = next(s for s in special_files(tmp_path) if s.name == name)
    world, card, chat = (
        CORPUS / "sillytavern" / "card_import_world.json",
        CORPUS / "cards" / "ilse_v3.json",
        CORPUS / "chats" / "harbor.jsonl",
    )
    args = {
        "activate": ["activate", str(world), "--chat", str(special.path)],
        "convert": [
            "convert",
            str(card),
            "--to",
            "ccv3",
            "-o",
            str(tmp_path / "o.json"),
            "--behaviour",
            str(special.path),
        ],
        "book": ["activate", str(special.path), "--chat", str(chat)],
    }[command]
    code = "import sys; from interop.cli import main; sys.argv = ['interop', *sys.argv[1:]]; main()"
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == EXIT_INPUT, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"interop: error: {special.path}"), proc.stderr[-2000:]
    assert "not a regular file" in lines[0]
