"""Standard output that cannot take the output (``ulimit -f``, a full disk, a closed pipe): exit 3 with one
line "output could not be written safely", or a quiet stop for a reader that went away; never "internal error"
and never a silently truncated output (interop/cli/stdout.py)."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXIT_INPUT = 3
MAIN = "import sys; from interop.cli import main; sys.argv = ['interop', *sys.argv[1:]]; main()"


def big_card(tmp_path: Path) -> Path:
    card = tmp_path / "card.json"
    card.write_text(json.dumps({"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "N" * 20_000}}))
    return card


def interop(
    args: list[str], stdout: int, *, fsize: int | None = None, unbuffered: bool = False
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"  # stdout.buffer is then a raw file whose write may write only part

    def limit_file_size() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(
        [sys.executable, "-c", MAIN, *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        env={**env, "PYTHONPATH": str(REPO)},
        preexec_fn=limit_file_size,
    )


def assert_output_fault(proc: subprocess.CompletedProcess[str], reason: str) -> None:
    assert proc.returncode == EXIT_INPUT, proc.stderr[-2000:]
    assert proc.stderr.strip() == f"interop: error: standard output: output could not be written safely: {reason}"


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_convert_to_stdout_past_ulimit_f_exits_3(tmp_path: Path, unbuffered: bool) -> None:
    # was "internal error" exit 4 (buffered), or exit 0 with the output cut at 1,024 bytes (PYTHONUNBUFFERED)
    card = big_card(tmp_path)
    out = tmp_path / "out.json"
    with out.open("wb") as handle:
        proc = interop(
            ["convert", str(card), "--to", "ccv3", "-o", "-"], handle.fileno(), fsize=1024, unbuffered=unbuffered
        )
    assert_output_fault(proc, "File too large")
    with out.open("wb") as handle:  # the same command with room to write: the whole card
        proc = interop(
            ["convert", str(card), "--to", "ccv3", "-o", "-"], handle.fileno(), fsize=1 << 20, unbuffered=unbuffered
        )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_bytes())["data"]["name"] == "N" * 20_000


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("command", ["convert", "inspect"])
def test_stdout_on_a_full_device_exits_3(tmp_path: Path, command: str) -> None:
    # inspect's few buffered lines failed only at interpreter exit ("Exception ignored", exit 120)
    card = big_card(tmp_path)
    args = {"convert": ["convert", str(card), "--to", "ccv3", "-o", "-"], "inspect": ["inspect", str(card)]}[command]
    with open("/dev/full", "wb") as full:
        proc = interop(args, full.fileno())
    assert_output_fault(proc, "No space left on device")


def test_stdout_to_a_closed_pipe_stops_quietly(tmp_path: Path) -> None:
    card = big_card(tmp_path)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away (`interop ... | head` after head exits)
    try:
        proc = interop(["convert", str(card), "--to", "ccv3", "-o", "-"], write_end)
    finally:
        os.close(write_end)
    assert proc.returncode == 141 and proc.stderr == "", proc.stderr[-2000:]
