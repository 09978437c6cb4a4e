"""Progress of a long run on standard error, with or without a terminal (issue 21: migrate).

On a terminal one line is redrawn in place (at most 10 times a second); when
standard error is a file or a pipe (CI logs, ``nohup``, ``2> log``) a full line
is written every ``interval`` seconds instead, so the log shows the run moving
without being flooded. The ETA is only shown once it means something: it is
the remaining count over the rate measured since the first item finished (the
set-up before it, opening the catalog and starting processes, is not a rate),
and it waits for ``warmup`` items and ``min_elapsed`` seconds of that.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


def format_duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Progress:
    """``update(done, detail)`` as items finish; ``finish()`` once at the end (always prints the last state)."""

    def __init__(
        self,
        total: int,
        *,
        label: str = "migrating",
        stream: TextIO | None = None,
        tty: bool | None = None,
        interval: float = 5.0,
        warmup: int = 5,
        min_elapsed: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.interval = 0.1 if self.tty else interval
        self.warmup = warmup
        self.min_elapsed = min_elapsed
        self.clock = clock
        self.started = clock()
        self.first: tuple[float, int] | None = None  # (time, count) when the first item finished
        self.done = 0
        self.detail = ""
        self.last_shown: float | None = None
        self.width = 0

    def update(self, done: int, detail: str = "") -> None:
        now = self.clock()
        if self.first is None and done > 0:
            self.first = (now, done)
        self.done, self.detail = done, detail
        if self.last_shown is None or now - self.last_shown >= self.interval:
            self._show(now)

    def rate(self, now: float | None = None) -> float | None:
        """Items per second since the first one finished (None until there is a span to measure)."""
        if self.first is None:
            return None
        now = self.clock() if now is None else now
        span = now - self.first[0]
        return (self.done - self.first[1]) / span if span > 0 and self.done > self.first[1] else None

    def eta(self, now: float | None = None) -> float | None:
        """Seconds left, or None while the measured rate is too young to mean anything."""
        now = self.clock() if now is None else now
        rate = self.rate(now)
        if rate is None or self.first is None or self.done < self.warmup or now - self.first[0] < self.min_elapsed:
            return None
        return (self.total - self.done) / rate

    def line(self, now: float | None = None) -> str:
        now = self.clock() if now is None else now
        percent = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        parts = [f"{self.label}: {self.done}/{self.total} files{percent}"]
        if self.detail:
            parts.append(self.detail)
        rate = self.rate(now)
        if rate is not None:
            parts.append(f"{rate:.0f} files/s" if rate >= 10 else f"{rate:.1f} files/s")
        eta = self.eta(now)
        parts.append(f"ETA {format_duration(eta)}" if eta is not None else "ETA estimating")
        return ", ".join(parts)

    def finish(self) -> None:
        now = self.clock()
        text = (
            f"{self.label}: {self.done}/{self.total} files"
            + (f", {self.detail}" if self.detail else "")
            + f", {format_duration(now - self.started)}"
        )
        self._write(text, final=True)

    def _show(self, now: float) -> None:
        self.last_shown = now
        self._write(self.line(now), final=False)

    def _write(self, text: str, *, final: bool) -> None:
        if self.tty:
            pad = " " * max(0, self.width - len(text))
            self.stream.write("\r" + text + pad + ("\n" if final else ""))
            self.width = 0 if final else len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
