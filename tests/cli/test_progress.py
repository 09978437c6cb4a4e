"""Progress lines without a terminal, rate-limited, and an ETA that waits for a real rate (issue 21, migrate)."""

from __future__ import annotations

import io

from interop.cli.progress import Progress, format_duration


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_without_a_terminal_lines_are_written_at_most_once_per_interval() -> None:
    clock, out = Clock(), io.StringIO()
    bar = Progress(1000, stream=out, tty=False, interval=5.0, clock=clock)
    for done in range(1, 301):  # 300 files over 30 s
        clock.now += 0.1
        bar.update(done)
    lines = out.getvalue().splitlines()
    assert 6 <= len(lines) <= 7  # the first file, then every 5 s; never one per file
    assert all("\r" not in line for line in lines)
    assert lines[-1].startswith("migrating: ") and "/1000 files" in lines[-1]
    bar.finish()
    assert out.getvalue().splitlines()[-1].startswith("migrating: 300/1000 files, 30 s")


def test_first_eta_ignores_the_setup_before_the_first_file() -> None:
    """Ten seconds of start-up then 10 files/s: the ETA is the remaining files at 10/s, not at 1/s."""
    clock = Clock()
    bar = Progress(1000, stream=io.StringIO(), tty=False, clock=clock)
    clock.now += 10.0  # opening the catalog, starting worker processes
    bar.update(1)
    assert bar.eta() is None  # one file is no rate
    for done in range(2, 31):
        clock.now += 0.1
        bar.update(done)
    eta = bar.eta()
    assert eta is not None
    assert abs(eta - (1000 - 30) / 10) < 1  # 97 s; counting the set-up would say ~320 s
    assert "ETA 1 min 37 s" in bar.line()


def test_no_eta_before_the_warmup() -> None:
    clock = Clock()
    bar = Progress(100, stream=io.StringIO(), tty=False, warmup=5, min_elapsed=2.0, clock=clock)
    bar.update(1)
    clock.now += 5.0
    bar.update(3)  # a rate, but only 3 files
    assert bar.eta() is None and "ETA estimating" in bar.line()
    clock.now += 1.0
    bar.update(6)
    assert bar.eta() is not None


def test_on_a_terminal_one_line_is_redrawn() -> None:
    clock, out = Clock(), io.StringIO()
    bar = Progress(10, stream=out, tty=True, clock=clock)
    for done in range(1, 11):
        clock.now += 0.5
        bar.update(done)
    bar.finish()
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    assert text.count("\r") == 11


def test_format_duration() -> None:
    assert format_duration(4.4) == "4 s"
    assert format_duration(97) == "1 min 37 s"
    assert format_duration(7300) == "2 h 01 min"
