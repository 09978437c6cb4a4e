"""CHARX zip container: reading, deterministic writing and every safety guard."""

from __future__ import annotations

import io
import stat
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interop.containers.charx import (
    CARD_JSON,
    ZIP_DEFLATED,
    ZIP_STORED,
    _inflate,
    is_safe_member_name,
    member_names,
    read_charx,
    write_charx,
)
from interop.errors import (
    CorruptInputError,
    FormatError,
    InteropError,
    LimitExceededError,
    OutputError,
    UnsafeInputError,
)
from interop.limits import Limits, MiB
from tests.conftest import PROJECT_CORPUS
from tests.zip_bytes import make_zip

CARD = b'{"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "Zip"}}'
SAMPLES = PROJECT_CORPUS / "charx"


def central_entries(data: bytes) -> list[int]:
    """Offsets of the central-directory file headers (to patch declared fields in crafted files)."""
    offsets, start = [], 0
    while (found := data.find(b"PK\x01\x02", start)) >= 0:
        offsets.append(found)
        start = found + 4
    return offsets


def patch_central(data: bytes, index: int, field_offset: int, fmt: str, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, central_entries(data)[index] + field_offset, value)
    return bytes(out)


# Central directory header field offsets (APPNOTE 4.3.12).
CD_VERSION_NEEDED, CD_FLAGS, CD_COMPRESSED, CD_SIZE, CD_EXTERNAL = 6, 8, 20, 24, 38


# --- reading -------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", [ZIP_DEFLATED, ZIP_STORED], ids=["deflate", "stored"])
def test_reads_members_in_order_with_their_compression(method: int) -> None:
    data = make_zip([("card.json", CARD), ("assets/icon/images/main.png", b"png"), ("x_meta/main.json", b"{}")],
                    method=method)
    archive = read_charx(data)
    assert archive.card_raw == CARD
    assert archive.order == ["card.json", "assets/icon/images/main.png", "x_meta/main.json"]
    assert list(archive.members) == ["assets/icon/images/main.png", "x_meta/main.json"]
    assert archive.members["x_meta/main.json"] == b"{}"
    assert archive.compression == dict.fromkeys(archive.order, method)
    assert archive.prefix == b""


def test_card_json_need_not_be_first() -> None:
    archive = read_charx(make_zip([("module.risum", b"\x6f\x00"), ("card.json", CARD)]))
    assert archive.order == ["module.risum", "card.json"]
    assert archive.card_raw == CARD


JPEG = b"\xff\xd8\xff\xe0" + b"\x00\x10JFIF\x00" + bytes(range(200)) + b"\xff\xd9"


def appended_zip(prefix: bytes) -> bytes:
    """Risu's way: the zip built alone, then appended, so its offsets ignore the JPEG."""
    return prefix + make_zip([("card.json", CARD), ("assets/a.png", b"A")])


def absolute_zip(prefix: bytes) -> bytes:
    """Self-extractor style: zipfile appending to the JPEG, so offsets count the JPEG."""
    buffer = io.BytesIO(prefix)
    buffer.seek(0, io.SEEK_END)
    with zipfile.ZipFile(buffer, "a") as zf:
        zf.writestr("card.json", CARD)
        zf.writestr("assets/a.png", b"A")
    return buffer.getvalue()


@pytest.mark.parametrize("build", [appended_zip, absolute_zip], ids=["relative-offsets", "absolute-offsets"])
def test_jpeg_prefixed_zip_records_the_prefix(build: Callable[[bytes], bytes]) -> None:
    archive = read_charx(build(JPEG))
    assert archive.prefix == JPEG
    assert archive.card_raw == CARD
    assert archive.members == {"assets/a.png": b"A"}


def test_jpeg_prefixed_sample_in_corpus() -> None:
    data = (SAMPLES / "jpeg_prefixed.charx").read_bytes()
    archive = read_charx(data)
    assert archive.prefix.startswith(b"\xff\xd8\xff") and archive.prefix.endswith(b"\xff\xd9")
    assert data == archive.prefix + data[len(archive.prefix) :]
    assert "module.risum" in archive.members


def test_directory_entries_and_comment_are_noted_not_kept() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("assets/", b"")
        zf.writestr("card.json", CARD)
        zf.comment = b"made by hand"
    archive = read_charx(buffer.getvalue())
    assert archive.order == ["card.json"]
    assert any("directory entry assets/" in n for n in archive.notes)
    assert any("comment" in n for n in archive.notes)


def test_missing_card_json() -> None:
    with pytest.raises(FormatError, match="no card\\.json"):
        read_charx(make_zip([("assets/a.png", b"A")]))
    with pytest.raises(FormatError, match=r"found inner/card\.json"):
        read_charx(make_zip([("inner/card.json", CARD)]))


@pytest.mark.parametrize("data", [b"hello", b"\x89PNG\r\n\x1a\n" + b"\x00" * 30, b"\xff\xd8\xff\xe0no zip here"])
def test_not_a_zip(data: bytes) -> None:
    with pytest.raises(FormatError, match="not a zip"):
        read_charx(data, filename="x.charx")


def test_truncated_zip() -> None:
    data = make_zip([("card.json", CARD), ("assets/a.bin", bytes(range(256)) * 20)])
    for cut in (len(data) // 3, len(data) - 10):
        with pytest.raises(CorruptInputError):
            read_charx(data[:cut])


def test_unknown_zip_version_is_corrupt_input() -> None:
    """zipfile raises NotImplementedError for it (found by the fuzz test below)."""
    data = patch_central(make_zip([("card.json", CARD)]), 0, CD_VERSION_NEEDED, "<H", 64)
    with pytest.raises(CorruptInputError, match=r"version 6\.4"):
        read_charx(data)
    assert member_names(data) is None


def test_corrupted_member_data_is_corrupt_input() -> None:
    data = bytearray(make_zip([("card.json", CARD)], method=ZIP_STORED))
    data[30 + len("card.json") + 5] ^= 0xFF  # inside the stored bytes: CRC no longer matches
    with pytest.raises(CorruptInputError) as info:
        read_charx(bytes(data))
    assert info.value.location == "card.json"


# --- safety guards ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../evil.txt", "zip-slip"),
        ("assets/../../evil.txt", "zip-slip"),
        ("/etc/passwd", "absolute"),
        ("C:/Windows/evil.dll", "drive letter"),
        ("c:evil", "drive letter"),
        ("..\\evil.txt", "backslash"),
        ("assets\\..\\..\\evil", "backslash"),
        ("assets//double.png", "not normalised"),
        ("./card.json", "not normalised"),
        ("assets/\x01ctl.png", "control character"),
    ],
)
def test_unsafe_paths_are_refused(name: str, reason: str) -> None:
    data = make_zip([("card.json", CARD), (name, b"x")])
    with pytest.raises(UnsafeInputError, match=reason) as info:
        read_charx(data, filename="bad.charx")
    assert info.value.file == "bad.charx"
    assert info.value.location is not None
    assert not is_safe_member_name(name)


def test_symlink_member_is_refused() -> None:
    data = make_zip([("card.json", CARD), ("assets/link.png", b"/etc/passwd")])
    data = patch_central(data, 1, CD_EXTERNAL, "<I", (stat.S_IFLNK | 0o777) << 16)
    with pytest.raises(UnsafeInputError, match="symbolic link") as info:
        read_charx(data)
    assert info.value.location == "assets/link.png"


def test_special_file_member_is_refused() -> None:
    data = make_zip([("card.json", CARD), ("assets/fifo", b"")], mode=stat.S_IFIFO | 0o644)
    with pytest.raises(UnsafeInputError, match="special file"):
        read_charx(data)


def test_encrypted_member_is_refused() -> None:
    data = make_zip([("card.json", CARD), ("assets/secret.png", b"x" * 50)])
    data = patch_central(data, 1, CD_FLAGS, "<H", 0x1)
    with pytest.raises(UnsafeInputError, match="encrypted") as info:
        read_charx(data)
    assert info.value.location == "assets/secret.png"


def test_duplicate_member_names_are_refused() -> None:
    data = make_zip([("card.json", CARD), ("card.json", b'{"spec": "other"}')])
    with pytest.raises(UnsafeInputError, match="duplicate") as info:
        read_charx(data)
    assert info.value.location == "card.json"


def test_too_many_entries() -> None:
    data = make_zip([("card.json", CARD)] + [(f"assets/other/other/{i}.bin", b"") for i in range(10)])
    with pytest.raises(LimitExceededError, match="entries"):
        read_charx(data, limits=Limits(max_zip_entries=5))
    assert len(read_charx(data, limits=Limits(max_zip_entries=11)).members) == 10


def test_member_too_large() -> None:
    data = make_zip([("card.json", CARD), ("assets/big.bin", bytes(range(256)) * 40)])
    with pytest.raises(LimitExceededError, match="10240 uncompressed bytes") as info:
        read_charx(data, limits=Limits(max_member_bytes=5000))
    assert info.value.location == "assets/big.bin"


def test_bomb_by_ratio() -> None:
    data = make_zip([("card.json", CARD), ("assets/zeros.bin", bytes(2 * MiB))])
    assert len(data) < 10_000
    with pytest.raises(LimitExceededError, match="compression ratio") as info:
        read_charx(data)
    assert info.value.location == "assets/zeros.bin"


def test_small_members_compress_freely() -> None:
    """Below 1 MiB the ratio is not judged: JSON and blank images compress very well."""
    data = make_zip([("card.json", CARD), ("assets/zeros.bin", bytes(MiB - 1))])
    assert len(read_charx(data).members["assets/zeros.bin"]) == MiB - 1


def test_bomb_by_total_size() -> None:
    members = [("card.json", CARD)] + [(f"assets/{i}.bin", bytes(range(256)) * 400) for i in range(4)]
    data = make_zip(members)
    with pytest.raises(LimitExceededError, match="in total"):
        read_charx(data, limits=Limits(max_total_uncompressed=300_000))
    assert len(read_charx(data, limits=Limits(max_total_uncompressed=500_000)).members) == 4


def test_declared_size_smaller_than_the_real_data() -> None:
    """A member that claims 100 bytes but inflates to 2 MiB is never returned in full."""
    data = make_zip([("card.json", CARD), ("assets/liar.bin", bytes(2 * MiB))])
    data = patch_central(data, 1, CD_SIZE, "<I", 100)
    with pytest.raises(CorruptInputError) as info:
        read_charx(data)
    assert info.value.location == "assets/liar.bin"


def test_declared_compressed_size_cannot_hide_a_bomb() -> None:
    """Raising compress_size makes the declared ratio look harmless; the real span still gives it away."""
    data = make_zip([("card.json", CARD), ("assets/zeros.bin", bytes(2 * MiB))])
    data = patch_central(data, 1, CD_COMPRESSED, "<I", 2 * MiB)
    with pytest.raises(LimitExceededError, match=r"compression ratio of 100[0-9]:1"):
        read_charx(data)


def test_limits_enforced_while_inflating() -> None:
    """The chunked reader stops on produced bytes, whatever the central directory said."""
    data = make_zip([("card.json", CARD), ("assets/data.bin", bytes(range(256)) * 5000)])
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = zf.getinfo("assets/data.bin")
        with pytest.raises(LimitExceededError, match="inflates to"):
            _inflate(zf, info, info.compress_size, Limits(max_member_bytes=100_000), 0, None)
        with pytest.raises(LimitExceededError, match="in total"):
            _inflate(zf, info, info.compress_size, Limits(max_total_uncompressed=300_000), 200_000, None)
        with pytest.raises(LimitExceededError, match="compression ratio"):
            _inflate(zf, info, 1000, Limits(), 0, None)


def test_declared_size_larger_than_the_limit() -> None:
    data = make_zip([("card.json", CARD), ("assets/small.bin", b"tiny")], method=ZIP_STORED)
    data = patch_central(data, 1, CD_SIZE, "<I", 300 * MiB)
    with pytest.raises(LimitExceededError, match="declares"):
        read_charx(data)


def test_entry_count_checked_before_parsing() -> None:
    data = make_zip([("card.json", CARD), ("a.bin", b"")])
    assert member_names(data) == ["card.json", "a.bin"]
    assert member_names(data, limits=Limits(max_zip_entries=1)) is None
    assert member_names(b"not a zip") is None


def test_unsupported_compression_method() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_BZIP2) as zf:
        zf.writestr("card.json", CARD)
    with pytest.raises(FormatError, match="compression method 12"):
        read_charx(buffer.getvalue())


# --- writing -----------------------------------------------------------------------------------------


def test_write_is_deterministic_and_card_json_comes_first() -> None:
    members = {"module.risum": b"\x6f\x00abc", "assets/icon/images/main.png": b"png", "x_meta/main.json": b"{}"}
    first = write_charx(CARD, members)
    assert first == write_charx(CARD, dict(members))
    archive = read_charx(first)
    assert archive.order == ["card.json", *members]
    assert archive.members == members
    for info in zipfile.ZipFile(io.BytesIO(first)).infolist():
        assert info.date_time == (1980, 1, 1, 0, 0, 0)
        assert stat.S_ISREG(info.external_attr >> 16)


def test_write_compression_per_member() -> None:
    members = {"module.risum": b"m" * 100, "x_meta/a.json": b"{}" * 50}
    data = write_charx(CARD, members, compression={CARD_JSON: ZIP_STORED, "module.risum": ZIP_STORED})
    assert read_charx(data).compression == {
        "card.json": ZIP_STORED,
        "module.risum": ZIP_STORED,
        "x_meta/a.json": ZIP_DEFLATED,
    }
    stored = write_charx(CARD, members, compression=ZIP_STORED)
    assert set(read_charx(stored).compression.values()) == {ZIP_STORED}


def test_write_with_prefix_reads_back() -> None:
    jpeg = b"\xff\xd8\xff\xdb" + b"\x42" * 100 + b"\xff\xd9"
    data = write_charx(CARD, {"assets/a.png": b"a"}, prefix=jpeg)
    assert data.startswith(jpeg)
    archive = read_charx(data)
    assert archive.prefix == jpeg
    assert archive.members == {"assets/a.png": b"a"}


@pytest.mark.parametrize("name", ["../x", "/abs", "a\\b", "dir/", "card.json"])
def test_write_refuses_bad_member_names(name: str) -> None:
    with pytest.raises(OutputError):
        write_charx(CARD, {name: b"x"})


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.charx")), ids=lambda p: p.name)
def test_sample_rewrite_is_byte_identical(path: Path) -> None:
    """Our samples use the writer's own conventions, so unpack -> repack gives the very same file."""
    data = path.read_bytes()
    archive = read_charx(data)
    again = write_charx(archive.card_raw, archive.members, prefix=archive.prefix, compression=archive.compression)
    assert again == data


# --- fuzzing -----------------------------------------------------------------------------------------

VALID = write_charx(CARD, {"module.risum": b"\x6f\x00" + bytes(range(64)), "assets/icon/images/main.png": b"P" * 300})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(VALID) - 1), st.integers(0, 255)), min_size=1, max_size=8),
       st.integers(1, len(VALID)))
def test_mutated_archives_raise_only_interop_errors(edits: list[tuple[int, int]], cut: int) -> None:
    data = bytearray(VALID)
    for position, value in edits:
        data[position] = value
    for candidate in (bytes(data), bytes(data[:cut])):
        try:
            read_charx(candidate)
        except InteropError:
            pass
