"""RPack and the ``.risum`` container: byte layout, round trips and every malformed case."""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from interop.containers import rpack
from interop.containers.risum import looks_like_risum, module_json_text, read_risum, write_risum
from interop.errors import CorruptInputError, FormatError, InvalidCardError, LimitExceededError
from interop.limits import Limits
from tests.conftest import PROJECT_CORPUS

REFERENCE_TABLE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "rpack-encode-table.hex"
PAYLOAD = {"module": {"name": "Tides", "id": "m-1", "lorebook": [], "assets": [["bell", "", "mp3"]]},
           "type": "risuModule"}


def test_rpack_table_is_the_documented_permutation() -> None:
    assert rpack.table_digest() == rpack.RPACK_TABLE_SHA256
    assert sorted(rpack.ENCODE_TABLE) == list(range(256))
    # Examples risu.md gives: '{' -> 230, '"' -> 32.
    assert rpack.encode(b'{"') == bytes([230, 32])


def test_rpack_table_matches_the_reference_file() -> None:
    if not REFERENCE_TABLE.is_file():
        pytest.skip(f"reference table not found at {REFERENCE_TABLE}")
    table = bytes.fromhex(REFERENCE_TABLE.read_text().replace("\n", " "))
    assert hashlib.sha256(table).hexdigest() == rpack.RPACK_TABLE_SHA256
    assert table == rpack.ENCODE_TABLE


def test_rpack_round_trip_keeps_length() -> None:
    data = bytes(range(256)) * 3 + "лампа 灯台 🏮".encode()
    packed = rpack.encode(data)
    assert len(packed) == len(data)
    assert packed != data
    assert rpack.decode(packed) == data


def _module(assets: list[bytes] = ()) -> bytes:  # type: ignore[assignment]
    return write_risum(PAYLOAD, assets)


def test_write_layout_byte_by_byte() -> None:
    assets = [b"\x00\x01asset", b""]
    data = _module(assets)
    text = module_json_text(PAYLOAD)
    assert data[0] == 111 and data[1] == 0
    assert struct.unpack_from("<I", data, 2)[0] == len(text)
    assert rpack.decode(data[6 : 6 + len(text)]) == text
    pos = 6 + len(text)
    for asset in assets:
        assert data[pos] == 1
        assert struct.unpack_from("<I", data, pos + 1)[0] == len(asset)
        assert rpack.decode(data[pos + 5 : pos + 5 + len(asset)]) == asset
        pos += 5 + len(asset)
    assert data[pos:] == b"\x00"
    assert text.startswith(b'{\n  "module": {\n    "name"')  # 2-space indent, like Risu


def test_read_round_trip_with_assets() -> None:
    assets = [bytes(range(256)), b"ID3 bell"]
    archive = read_risum(_module(assets))
    assert archive.payload == PAYLOAD
    assert archive.module["name"] == "Tides"
    assert archive.assets == assets
    assert archive.trailing == b""
    assert write_risum(archive.json_text, archive.assets) == _module(assets)


def test_trailing_bytes_after_terminator_are_reported_not_fatal() -> None:
    archive = read_risum(_module() + b"junk")
    assert archive.trailing == b"junk"


def test_project_sample_module() -> None:
    path = PROJECT_CORPUS / "risu" / "lantern_harbor_module.risum"
    data = path.read_bytes()
    archive = read_risum(data, filename=path.name)
    assert archive.module["name"] == "Lantern Harbor"
    assert [a[0] for a in archive.module["assets"]] == ["night_sky", "lantern", "bell"]
    assert len(archive.assets) == 3 and archive.assets[0].startswith(b"\x89PNG")
    assert looks_like_risum(data)
    assert write_risum(archive.json_text, archive.assets) == data


def _header(length: int) -> bytes:
    return bytes((111, 0)) + struct.pack("<I", length)


MALFORMED = [
    ("empty", b"", FormatError, "offset 0", "magic"),
    ("bad magic", b"\x70\x00" + _module()[2:], FormatError, "offset 0", "magic byte is 0x70"),
    ("bad version", b"\x6f\x01" + _module()[2:], FormatError, "offset 1", "version 1"),
    ("no version byte", b"\x6f", CorruptInputError, "offset 1", "no version"),
    ("short length field", b"\x6f\x00\x10\x00", CorruptInputError, "offset 2", "needs 4 bytes"),
    ("json length past end", _header(1000) + b"{}", CorruptInputError, "offset 2", "past the end"),
    ("missing terminator", _module()[:-1], CorruptInputError, f"offset {len(_module()) - 1}", "terminator"),
    ("unknown marker", _module()[:-1] + b"\x07", CorruptInputError, f"offset {len(_module()) - 1}", "0x07"),
    ("truncated asset length", _module()[:-1] + b"\x01\x05\x00", CorruptInputError,
     f"offset {len(_module())}", "asset 0 length"),
    ("asset length past end", _module()[:-1] + b"\x01" + struct.pack("<I", 50) + b"abc", CorruptInputError,
     f"offset {len(_module())}", "past the end"),
    ("second asset truncated", _module([b"ok"])[:-1] + b"\x01\xff\xff\xff\xff", CorruptInputError,
     f"offset {len(_module([b'ok']))}", "asset 1"),
    ("bad json", _header(5) + rpack.encode(b'{"mo') + b"x\x00", CorruptInputError, "offset 6", "invalid JSON"),
    ("bad utf-8", _header(4) + rpack.encode(b'"\xff"') + b" \x00", CorruptInputError, "offset 6", "UTF-8"),
    ("json not an object", _header(2) + rpack.encode(b"[]") + b"\x00", InvalidCardError, "offset 6", "'module'"),
    ("wrong type", write_risum({"module": {}, "type": "regex"}), InvalidCardError, "offset 6", "'regex'"),
]


@pytest.mark.parametrize(("data", "error", "location", "reason"), [m[1:] for m in MALFORMED],
                         ids=[m[0] for m in MALFORMED])
def test_malformed_modules_raise_typed_errors_with_offset(
    data: bytes, error: type[Exception], location: str, reason: str
) -> None:
    with pytest.raises(error) as info:
        read_risum(data, filename="bad.risum")
    assert info.value.file == "bad.risum"  # type: ignore[attr-defined]
    assert info.value.location.startswith(location)  # type: ignore[attr-defined]
    assert reason in info.value.reason  # type: ignore[attr-defined]


def test_size_limits() -> None:
    small = Limits(max_member_bytes=10)
    with pytest.raises(LimitExceededError) as info:
        read_risum(_module(), limits=small)
    assert info.value.location == "offset 2"
    text_limit = Limits(max_text_bytes=10)
    with pytest.raises(LimitExceededError):
        read_risum(_module(), limits=text_limit)


def test_detection_needs_magic_version_and_a_fitting_length() -> None:
    assert looks_like_risum(_module())
    assert not looks_like_risum(b"\x6f\x00" + struct.pack("<I", 999) + b"{}\x00")
    assert not looks_like_risum(json.dumps(PAYLOAD).encode())
    assert not looks_like_risum(b"\x6f\x01\x00\x00\x00\x00\x00")


@settings(max_examples=60, deadline=None)
@given(
    hst.dictionaries(hst.text(max_size=8), hst.recursive(
        hst.one_of(hst.none(), hst.booleans(), hst.integers(), hst.text(max_size=20)),
        lambda inner: hst.lists(inner, max_size=3) | hst.dictionaries(hst.text(max_size=5), inner, max_size=3),
        max_leaves=10,
    ), max_size=5),
    hst.lists(hst.binary(max_size=300), max_size=4),
)
def test_any_module_round_trips(module: dict[str, object], assets: list[bytes]) -> None:
    payload = {"module": module, "type": "risuModule"}
    data = write_risum(payload, assets)
    archive = read_risum(data)
    assert archive.payload == payload and archive.assets == assets and archive.trailing == b""


def test_mutated_modules_fail_only_with_typed_errors() -> None:
    import random

    from interop.errors import InteropError

    original = (PROJECT_CORPUS / "risu" / "lantern_harbor_module.risum").read_bytes()
    rng = random.Random(4)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(300):
        data = bytearray(original)
        for _ in range(rng.randint(1, 4)):
            spot = rng.randrange(len(data))
            if rng.random() < 0.3:
                del data[spot : spot + rng.randint(1, 40)]
            else:
                data[spot] = rng.randrange(256)
        try:
            read_risum(bytes(data))
            outcomes["ok"] += 1
        except InteropError:
            outcomes["error"] += 1
    assert outcomes["error"] > 0 and outcomes["ok"] > 0
