"""Standard output as an output like any other: written whole, or reported as not written safely.

A write to standard output can fail like a write to a file: past ``ulimit -f`` (EFBIG), on a
full disk or ``/dev/full`` (ENOSPC), over quota (EDQUOT), or on an I/O error (EIO). Those are
exit 3 "output could not be written safely", not a bug. A reader that went away (EPIPE) is
not an error at all: the command stops quietly, as Unix tools do.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import BinaryIO

OUTPUT_ERRNOS = frozenset(
    code for code in (errno.EFBIG, errno.ENOSPC, getattr(errno, "EDQUOT", None), errno.EIO) if code is not None
)
"""The errors a write can meet on a healthy system: the output, not the program, is at fault."""


def is_output_fault(exc: OSError) -> bool:
    """A write that failed for lack of room or a broken device, not a named file (those carry a
    ``filename``, and every output file goes through ``io.write_atomic``, which names it)."""
    return exc.errno in OUTPUT_ERRNOS and exc.filename is None


def write_bytes(data: bytes, stream: BinaryIO | None = None) -> None:
    """All of ``data`` to binary standard output, then flushed.

    An unbuffered stream (``python -u``, ``PYTHONUNBUFFERED``) is a raw file whose ``write``
    may write only part (e.g. up to ``ulimit -f``) and return the count: a short write would
    silently truncate the output, so write the rest until it is all written or an error says why.
    """
    out = stream if stream is not None else sys.stdout.buffer
    view = memoryview(data)
    while view:
        written = out.write(view)
        if written is None:  # a non-blocking stream that is full: nothing written yet
            continue
        view = view[written:]
    out.flush()


def flush() -> None:
    """Flush standard output now, so that a failure is reported by the command and not lost at exit."""
    stream = sys.stdout
    if stream is not None and not stream.closed:
        stream.flush()


def silence() -> None:
    """Point file descriptor 1 at /dev/null: what is still buffered for a failed standard output
    is dropped at exit instead of failing again with "Exception ignored" on stderr."""
    try:
        fileno = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (click's CliRunner)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fileno)
    finally:
        os.close(devnull)
