"""interop.io: atomic writes that fail typed (issue 23 item 8) and get the umask (issue 21)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from interop import io as interop_io
from interop.errors import OutputError
from interop.io import write_atomic

REPO = Path(__file__).resolve().parents[1]
UNNAMED = bool(interop_io._anonymous)


@pytest.fixture(autouse=True, params=["unnamed", "named"])
def write_mode(request: Any, monkeypatch: Any) -> str:
    """Every test runs both ways outputs are made: an unnamed file linked in (Linux O_TMPFILE, the
    default where it works) and the named temporary file plus rename (elsewhere, or without /proc)."""
    if request.param == "unnamed" and not UNNAMED:
        pytest.skip("no O_TMPFILE or /proc on this system: outputs always take the named temporary file")
    monkeypatch.setattr(interop_io, "_anonymous", request.param == "unnamed")
    return str(request.param)


def _disk_full_after(room: int, monkeypatch: Any) -> None:
    """Writes into temporary files (a disk holding ``room`` more bytes) stop short, then fail with ENOSPC."""
    real = os.write
    temps: set[int] = set()
    real_open = os.open

    def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        fd = real_open(path, flags, *args, **kwargs)
        tmpfile = getattr(os, "O_TMPFILE", 0)
        if str(path).endswith(".tmp") or (tmpfile and flags & tmpfile == tmpfile):
            temps.add(fd)
        return fd

    def write(fd: int, data: Any) -> int:
        nonlocal room
        if fd not in temps:
            return real(fd, data)
        if room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        done = real(fd, bytes(data[:room]))
        room -= done
        return done

    monkeypatch.setattr(interop_io.os, "open", open_)
    monkeypatch.setattr(interop_io.os, "write", write)


@pytest.mark.parametrize("room", [0, 3])
def test_a_full_disk_is_an_output_error_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: Any, room: int
) -> None:
    _disk_full_after(room, monkeypatch)  # room 3: a short write first, then the error
    with pytest.raises(OutputError, match="output could not be written safely: No space left on device") as info:
        write_atomic(tmp_path / "card.json", b'{"name": "x"}')
    assert info.value.file == str(tmp_path / "card.json")
    assert list(tmp_path.iterdir()) == []


def test_a_short_write_is_continued(tmp_path: Path, monkeypatch: Any) -> None:
    real = os.write
    monkeypatch.setattr(interop_io.os, "write", lambda fd, data: real(fd, bytes(data[:5])))
    data = bytes(range(256)) * 3
    write_atomic(tmp_path / "card.bin", data)
    monkeypatch.undo()
    assert (tmp_path / "card.bin").read_bytes() == data
    assert [p.name for p in tmp_path.iterdir()] == ["card.bin"]


def test_an_unwritable_place_is_an_output_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"x")
    with pytest.raises(OutputError, match="output could not be written safely"):
        write_atomic(tmp_path / "file" / "card.json", b"{}")  # a parent that is a file: also fails for root


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only (0555) folder anyway")
def test_a_read_only_folder_is_an_output_error(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(OutputError, match="Permission denied"):
            write_atomic(folder / "card.json", b"{}")
    finally:
        folder.chmod(0o755)


def _write_under_umask(mask: int, path: Path, mode: str) -> int:
    code = (
        "import os, sys; os.umask(int(sys.argv[1], 8)); from interop import io; "
        "io._anonymous = sys.argv[3] == 'unnamed'; "
        "io.write_atomic(sys.argv[2], b'{}'); print(oct(os.stat(sys.argv[2]).st_mode & 0o777))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, oct(mask)[2:], str(path), mode],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    return int(out.stdout.strip(), 8)


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002, 0o077])
def test_outputs_get_the_process_umask_not_0600(tmp_path: Path, mask: int, write_mode: str) -> None:
    # issue 21: mkstemp creates 0600; a plain open() would give 0666 & ~umask, so must the output
    assert _write_under_umask(mask, tmp_path / "out.json", write_mode) == 0o666 & ~mask


def test_a_write_into_a_missing_folder_uses_a_temporary_name_the_stale_cleanup_knows(
    tmp_path: Path, monkeypatch: Any, write_mode: str
) -> None:
    made: list[str] = []
    real = interop_io._new_temp_file

    def spy(folder: str, name: str) -> tuple[int, str]:
        fd, tmp = real(folder, name)
        made.append(tmp)
        return fd, tmp

    monkeypatch.setattr(interop_io, "_new_temp_file", spy)
    out = tmp_path / "new" / "card.json"
    write_atomic(out, b"{}", fsync=False)
    assert out.read_bytes() == b"{}"
    if write_mode == "unnamed":  # no name until complete: nothing for the stale cleanup to find, ever
        assert made == [] and [p.name for p in out.parent.iterdir()] == ["card.json"]
        return
    assert len(made) == 1 and Path(made[0]).parent == out.parent and not Path(made[0]).exists()
    assert interop_io._TEMP_NAME.fullmatch(Path(made[0]).name)  # what remove_stale_temp_files deletes


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link"])
def test_an_input_is_never_overwritten(tmp_path: Path, how: str) -> None:
    source = tmp_path / "card.json"
    source.write_bytes(b"source")
    target = {"same path": source, "symlink": tmp_path / "link.json", "hard link": tmp_path / "hard.json"}[how]
    if how == "symlink":
        target.symlink_to(source)
    elif how == "hard link":
        os.link(source, target)
    with pytest.raises(OutputError, match="refusing to overwrite an input file") as info:
        write_atomic(target, b"output", inputs=[tmp_path / "other.json", str(source)])
    assert info.value.file == str(target)
    assert source.read_bytes() == b"source"


def test_a_missing_target_or_another_file_is_written(tmp_path: Path) -> None:
    source = tmp_path / "card.json"
    source.write_bytes(b"source")
    (tmp_path / "old.json").write_bytes(b"old")
    for name in ("new.json", "old.json"):
        write_atomic(tmp_path / name, b"output", inputs=[source, tmp_path / "gone.json"])
        assert (tmp_path / name).read_bytes() == b"output"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.json", "new.json", "old.json"]


def test_an_existing_output_is_replaced_whole_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "card.json"
    out.write_bytes(b"an older and longer output")
    link = tmp_path / "other-name.json"
    os.link(out, link)  # a replace gives the name a new file: another name of the old one keeps the old bytes
    write_atomic(out, b"new", fsync=False)
    assert out.read_bytes() == b"new" and link.read_bytes() == b"an older and longer output"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.json", "other-name.json"]


def test_without_proc_the_unnamed_file_gives_way_to_the_named_one(tmp_path: Path, monkeypatch: Any) -> None:
    if not UNNAMED:
        pytest.skip("no O_TMPFILE or /proc on this system")
    monkeypatch.setattr(interop_io, "_anonymous", True)

    def no_proc(fd: int, name: str) -> None:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", f"/proc/self/fd/{fd}")

    monkeypatch.setattr(interop_io, "_link_by_fd", no_proc)
    real_isdir = os.path.isdir
    monkeypatch.setattr(interop_io.os.path, "isdir", lambda p: False if str(p).startswith("/proc") else real_isdir(p))
    write_atomic(tmp_path / "card.json", b"{}", fsync=False)
    assert (tmp_path / "card.json").read_bytes() == b"{}"
    assert interop_io._anonymous is False  # the rest of the run takes the named file at once
    assert [p.name for p in tmp_path.iterdir()] == ["card.json"]
    before = len(os.listdir("/proc/self/fd"))
    write_atomic(tmp_path / "card2.json", b"{}", fsync=False)
    assert len(os.listdir("/proc/self/fd")) == before  # no descriptor left open by the fallback


def test_a_file_system_without_unnamed_files_takes_the_named_one(tmp_path: Path, monkeypatch: Any) -> None:
    if not UNNAMED:
        pytest.skip("no O_TMPFILE or /proc on this system")
    monkeypatch.setattr(interop_io, "_anonymous", True)
    real_open = os.open

    def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_TMPFILE == os.O_TMPFILE:
            raise OSError(errno.EOPNOTSUPP, os.strerror(errno.EOPNOTSUPP), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(interop_io.os, "open", open_)
    write_atomic(tmp_path / "card.json", b"{}", fsync=False)
    monkeypatch.undo()
    assert (tmp_path / "card.json").read_bytes() == b"{}"
    assert interop_io._anonymous is True  # only that file system: others keep the unnamed file
