"""Safe file input and output: bounded reads of regular files only; atomic replace, never onto an input file."""

from __future__ import annotations

import contextlib
import errno
import os
import random
import re
import stat
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from .errors import InteropError, LimitExceededError, OutputError, UnsafeInputError

_BLOCK = 1 << 20
_KINDS = (
    (stat.S_ISDIR, "directory"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISSOCK, "socket"),
)


def file_kind(mode: int) -> str:
    """``regular file``, ``directory``, ``character device``, ``FIFO``, ... for an ``st_mode``."""
    if stat.S_ISREG(mode):
        return "regular file"
    return next((name for test, name in _KINDS if test(mode)), "special file")


def special_kind(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is (links followed) when it is not a regular file; None for a regular file or no file."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else file_kind(mode)


def read_limited(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path``, refusing anything past ``limit`` bytes.

    Devices (``/dev/zero``), FIFOs and sockets are refused before a byte is read
    (UnsafeInputError): they never end, or block forever. The open is
    non-blocking so a FIFO without a writer cannot hang it. The size is bounded by
    counting what is read, not by ``stat().st_size``, which a growing file or a
    special file does not tell truthfully.
    """
    name = os.fspath(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags)
    except OSError as exc:
        raise InteropError(exc.strerror or "cannot read file", file=str(name)) from None
    # os.read on the descriptor, no file object: FileIO would fstat it again and buffer for nothing
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeInputError(f"not a regular file ({file_kind(info.st_mode)})", file=str(name))
        if info.st_size > limit:
            raise LimitExceededError(f"file of {info.st_size} bytes exceeds the limit of {limit}", file=str(name))
        os.set_blocking(fd, True)
        parts: list[bytes] = []
        total = 0
        want = max(info.st_size + 1, 65536)  # usually one read, and a second that proves the end
        try:
            while total <= limit:
                ask = min(want, limit + 1 - total)
                block = os.read(fd, ask)
                if not block:
                    break
                parts.append(block)
                total += len(block)
                # short: the end, which a 1-byte read proves (os.read allocates what it is asked for:
                # a 1 MB ask is an mmap and munmap per file); full: the file grew, read on in blocks
                want = _BLOCK if len(block) == ask else 1
        except OSError as exc:
            raise InteropError(exc.strerror or "cannot read file", file=str(name)) from None
    finally:
        os.close(fd)
    if total > limit:
        raise LimitExceededError(f"file has more than {limit} bytes (the limit)", file=str(name))
    return parts[0] if len(parts) == 1 else b"".join(parts)


_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})
"""``stat`` errors that mean "no file there" (``pathlib.Path.exists`` returns False on these, raises on others)."""


def _is_an_input(target: str, inputs: Iterable[str | os.PathLike[str]]) -> bool:
    """Is ``target`` (links followed) one of ``inputs``: ``os.path.samefile`` with the target stat'ed once."""
    try:
        info = os.stat(target)
    except OSError as exc:
        if exc.errno in _MISSING:  # only an existing file can be one of the inputs
            return False
        raise
    for source in inputs:
        try:
            other = os.stat(source)
        except OSError:
            continue
        if other.st_ino == info.st_ino and other.st_dev == info.st_dev:
            return True
    return False


def _write_all(fd: int, data: bytes) -> None:
    """``data`` to ``fd`` with ``os.write`` (one call for a file; a short write is continued)."""
    done = os.write(fd, data)
    if done < len(data):
        view = memoryview(data)
        while done < len(view):
            done += os.write(fd, view[done:])


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
    fsync: bool = True,
) -> Path:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``.

    A reader (or a crash) never sees a half-written file; refusing to write onto
    any of ``inputs`` means a conversion can never destroy its own source. Any
    OSError (read-only directory, full disk, ``ulimit -f``) becomes OutputError
    ("output could not be written safely", CLI exit 3) and leaves no temporary
    file. The file gets the mode a plain ``open()`` would give it (0666 less the
    umask), not mkstemp's private 0600.
    ``fsync=False`` skips the per-file flush to disk for bulk runs that sync
    once at the end and re-verify outputs when resumed (the catalog's migrate).

    Plain ``os`` calls on a string path, no file object or ``Path`` arithmetic: a bulk run
    writes thousands of small files, and a buffered file costs an fstat, an ioctl and an lseek
    per file besides the Python work (open, write, close, rename is all an output needs).
    """
    target = os.fspath(path)
    replace_atomically(target, data, inputs=inputs, fsync=fsync)
    return Path(target)


def replace_atomically(
    target: str, data: bytes, *, inputs: Iterable[str | os.PathLike[str]] = (), fsync: bool = True
) -> None:
    """``write_atomic`` for a string path, returning nothing (the catalog's bulk writes)."""
    if inputs and _is_an_input(target, inputs):
        raise OutputError("refusing to overwrite an input file", file=str(Path(target)))
    # the folder part with its separator: the temporary name is made with no os.path call
    cut = (target.rfind(os.sep) if os.altsep is None else max(target.rfind(os.sep), target.rfind(os.altsep))) + 1
    if _anonymous and _write_unnamed(target, cut, data, fsync):
        return
    try:
        try:
            fd, tmp = _new_temp_file(target[:cut], target[cut:])
        except FileNotFoundError:  # the folder is made only when missing: a bulk run writes thousands of files
            os.makedirs(target[:cut], exist_ok=True)
            fd, tmp = _new_temp_file(target[:cut], target[cut:])
    except OSError as exc:
        raise _output_error(exc, target) from None
    try:
        try:
            _write_all(fd, data)  # a full disk fails here, inside the try
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)  # may report a deferred write error (NFS): also inside the try
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _output_error(exc, target) from None
        raise


_UNNAMED_FLAGS = os.O_WRONLY | getattr(os, "O_TMPFILE", 0) | getattr(os, "O_CLOEXEC", 0)
_anonymous = hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd")
"""Outputs are written as unnamed files (Linux ``O_TMPFILE``) and given their name once complete
(``linkat`` of ``/proc/self/fd/N``): a new output costs no temporary name and no rename, about a
quarter of the system time of an output, and a killed run leaves no temporary file at all.
Turned off for the process when ``/proc`` cannot be used; a file system without ``O_TMPFILE``
takes the named temporary file of ``_new_temp_file`` per write."""
_UNSUPPORTED = frozenset({errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL})
_root_fd: int | None = None


def _link_by_fd(fd: int, name: str) -> None:
    """Give the open unnamed file ``fd`` the name ``name`` (fails with FileExistsError if taken).

    ``os.link`` calls ``linkat`` with AT_SYMLINK_FOLLOW, which resolves the ``/proc`` link to the
    file itself, only when given a directory descriptor: the root's, which the absolute source
    path makes irrelevant (and which means the same in a forked child)."""
    global _root_fd
    if _root_fd is None:
        _root_fd = os.open("/", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    os.link(f"/proc/self/fd/{fd}", name, src_dir_fd=_root_fd, follow_symlinks=True)


def _write_unnamed(target: str, cut: int, data: bytes, fsync: bool) -> bool:
    """``replace_atomically`` through an unnamed file; False when this system or file system cannot
    (nothing left behind: the caller takes the named temporary file, which also reports any error
    of the target itself)."""
    global _anonymous
    folder = target[:cut] or "."
    try:
        try:
            fd = os.open(folder, _UNNAMED_FLAGS, 0o666)
        except FileNotFoundError:
            os.makedirs(folder, exist_ok=True)
            fd = os.open(folder, _UNNAMED_FLAGS, 0o666)
    except OSError as exc:
        if exc.errno in _UNSUPPORTED:
            return False
        raise _output_error(exc, target) from None
    published = False
    try:
        _write_all(fd, data)  # a full disk fails here: nothing has a name yet
        if fsync:
            os.fsync(fd)
        try:
            _link_by_fd(fd, target)
        except FileExistsError:  # an existing output is replaced: named, then renamed over it
            tmp = _link_temp_name(fd, target[:cut], target[cut:])
            try:
                os.replace(tmp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            if not os.path.isdir("/proc/self/fd"):
                _anonymous = False  # no /proc: every later write takes the named temporary file
            closing, fd = fd, -1
            os.close(closing)
            return False
        published = True
        closing, fd = fd, -1
        os.close(closing)  # inside the try: a deferred write error withdraws the output
    except BaseException as exc:
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
        if published:
            with contextlib.suppress(OSError):
                os.unlink(target)
        if isinstance(exc, OSError):
            raise _output_error(exc, target) from None
        raise
    return True


def _link_temp_name(fd: int, folder: str, name: str) -> str:
    """The unnamed file ``fd`` linked as ``.<name>.XXXXXXXX.tmp`` in ``folder`` (as ``_new_temp_file``)."""
    for tmp in _temp_names(folder, name):
        try:
            _link_by_fd(fd, tmp)
            return tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no usable temporary file name", str(Path(folder or ".")))


_TEMP_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
) | getattr(os, "O_BINARY", 0)

_names = random.Random()
"""Temporary-name randomness, as ``tempfile``'s own name sequence (a ``random.Random``, reseeded in a
forked child): the exclusive create, not the name, is what makes the file safe, and it saves the
``getrandom`` call per output that ``secrets`` makes."""
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_names.seed)


def _new_temp_file(folder: str, name: str) -> tuple[int, str]:
    """A new file ``.<name>.XXXXXXXX.tmp`` in ``folder`` (empty, or ending in a separator), beside
    the target ``name``, open for writing.

    Made like ``tempfile.mkstemp`` (exclusive create, never through a link, a fresh random
    name on a collision), but with the mode a plain ``open()`` gives (0666 less the umask,
    applied by the system) instead of mkstemp's private 0600, so no ``fchmod`` is needed.
    """
    for tmp in _temp_names(folder, name):
        try:
            return os.open(tmp, _TEMP_FLAGS, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no usable temporary file name", str(Path(folder or ".")))


def _temp_names(folder: str, name: str) -> Iterator[str]:
    """Up to 100 fresh ``.<name>.XXXXXXXX.tmp`` names in ``folder`` (what ``remove_stale_temp_files`` knows)."""
    for _ in range(100):
        yield f"{folder}.{name}.{_names.getrandbits(32):08x}.tmp"


def _output_error(exc: OSError, target: str) -> OutputError:
    return OutputError(f"output could not be written safely: {exc.strerror or exc}", file=str(Path(target)))


STALE_TEMP_AGE_S = 3600.0
"""A ``write_atomic`` temporary file this old is an orphan: a write takes seconds, so a concurrent
run's live temporary file is always far younger."""

_TEMP_NAME = re.compile(r"\..+\.[A-Za-z0-9_]{8}\.tmp")  # mkstemp(prefix=".<name>.", suffix=".tmp")


def remove_stale_temp_files(folder: Path, *, older_than: float = STALE_TEMP_AGE_S) -> list[Path]:
    """Delete the temporary files ``write_atomic`` left in ``folder`` when its process was killed
    mid-write (SIGKILL, power loss), if they were last written more than ``older_than`` seconds ago.

    Younger ones may belong to a run writing there now and are left alone; so are anything that is
    not a regular file (a symlink is never followed) and names ``write_atomic`` does not make.
    Returns what was removed; a file that cannot be removed is left (it harms nothing).
    """
    cutoff = time.time() - older_than
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:  # no folder yet (a first run), or not readable: nothing to clean
        return removed
    for entry in entries:
        if not _TEMP_NAME.fullmatch(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_mtime < cutoff:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed
