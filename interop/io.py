"""Safe file output: atomic replace, never onto an input file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .errors import OutputError


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
    fsync: bool = True,
) -> Path:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``.

    A reader (or a crash) never sees a half-written file; refusing to write onto
    any of ``inputs`` means a conversion can never destroy its own source.
    ``fsync=False`` skips the per-file flush to disk for bulk runs that sync
    once at the end and re-verify outputs when resumed (the catalog's migrate).
    """
    target = Path(path)
    # Only an existing file can be one of the inputs; samefile also catches links.
    if target.exists() and any(_same_file(target, Path(source)) for source in inputs):
        raise OutputError("refusing to overwrite an input file", file=str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target
