"""The PNG chunk walker, text-chunk reader and splicer (no card semantics here)."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from interop.containers.png import (
    PNG_SIGNATURE,
    _resync,
    find_text,
    iter_chunks,
    make_chunk,
    make_text_chunk,
    scan,
    splice_text_chunks,
    text_chunks,
)
from interop.errors import ConversionError, CorruptInputError, InteropError, LimitExceededError
from interop.limits import Limits
from tests.png_bytes import chunk, solid_png, split, with_chunks
from tests.strategies import mutated_bytes


def base_png(size: tuple[int, int] = (8, 6)) -> bytes:
    return solid_png(size, (10, 200, 30))


def ztxt(keyword: bytes, text: bytes) -> bytes:
    return chunk(b"zTXt", keyword + b"\0\0" + zlib.compress(text))


def itxt(keyword: bytes, text: str, *, compressed: bool) -> bytes:
    raw = text.encode("utf-8")
    body = zlib.compress(raw) if compressed else raw
    return chunk(b"iTXt", keyword + b"\0" + bytes([int(compressed), 0]) + b"ja\0" + "説明".encode() + b"\0" + body)


def test_walks_every_chunk_with_offsets_and_views() -> None:
    png = with_chunks(base_png(), chunk(b"tEXt", b"Comment\0hello"))
    chunks = list(iter_chunks(png))
    assert [c.type for c in chunks] == ["IHDR", "IDAT", "tEXt", "IEND"]
    assert chunks[0].offset == 8 and chunks[0].length == 13
    assert [c.index for c in chunks] == [0, 1, 2, 3]
    assert bytes(chunks[2].data) == b"Comment\0hello"
    assert isinstance(chunks[1].data, memoryview)
    assert all(c.crc_ok for c in chunks)
    assert chunks[-1].end == len(png)
    assert chunks[2].location == f"chunk #2 tEXt at offset {chunks[2].offset}"


def test_bad_crc_is_reported_not_fatal() -> None:
    bad = bytearray(chunk(b"tEXt", b"Comment\0hello"))
    bad[-1] ^= 0xFF
    png = with_chunks(base_png(), bytes(bad))
    texts = text_chunks(png)
    assert texts[0].text == "hello"
    assert texts[0].crc_ok is False


def test_bad_signature() -> None:
    with pytest.raises(CorruptInputError) as err:
        list(iter_chunks(b"GIF89a" + b"\0" * 40))
    assert err.value.location == "signature at offset 0"
    with pytest.raises(CorruptInputError, match="too short"):
        list(iter_chunks(b"\x89PN"))


def test_truncated_file_raises_with_chunk_location() -> None:
    png = base_png()
    idat_offset = 8 + 25
    with pytest.raises(CorruptInputError) as err:
        list(iter_chunks(png[: idat_offset + 20]))
    assert err.value.location == f"chunk #1 IDAT at offset {idat_offset}"
    assert "past the end" in err.value.reason


def test_truncated_header_raises() -> None:
    png = base_png()
    parts = split(png)
    cut = PNG_SIGNATURE + b"".join(parts[:-1]) + parts[-1][:7]
    with pytest.raises(CorruptInputError, match="truncated chunk"):
        list(iter_chunks(cut))


def test_length_past_end_of_last_chunk() -> None:
    parts = split(base_png())
    broken = bytearray(chunk(b"tEXt", b"chara\0abc"))
    broken[0:4] = struct.pack(">I", 10_000)
    png = PNG_SIGNATURE + b"".join(parts[:-1]) + bytes(broken)
    with pytest.raises(CorruptInputError) as err:
        list(iter_chunks(png))
    assert err.value.location.startswith("chunk #2 tEXt at offset")
    assert "runs past the end" in err.value.reason


def test_chunk_over_limit() -> None:
    png = with_chunks(base_png(), chunk(b"tEXt", b"big\0" + b"x" * 5000))
    with pytest.raises(LimitExceededError) as err:
        list(iter_chunks(png, Limits(max_chunk_bytes=4096)))
    assert err.value.location.startswith("chunk #2 tEXt")


def test_resync_skips_garbage_between_chunks() -> None:
    """RisuAI's stream writer can leave a headless tail of a foreign tEXt chunk (risu.md 4.4)."""
    foreign = chunk(b"tEXt", b"parameters\0steps 20")
    garbage = foreign[7:]
    png = with_chunks(base_png(), garbage, chunk(b"tEXt", b"ccv3\0e30="))
    chunks = list(iter_chunks(png))
    assert [c.type for c in chunks] == ["IHDR", "IDAT", "tEXt", "IEND"]
    assert chunks[2].gap_before == len(garbage)
    assert [t.keyword for t in text_chunks(png)] == ["ccv3"]
    with pytest.raises(CorruptInputError):
        list(iter_chunks(png, strict=True))


def test_resync_hashing_is_bounded() -> None:
    """Fake headers whose lengths fit make every candidate expensive to verify: the walk gives up."""
    fake = struct.pack(">I", 4000) + b"IDAT"
    real = chunk(b"tEXt", b"ccv3\0e30=")
    data = b"\xff" * 4 + fake * 200 + b"\0" * 4000 + real
    assert _resync(data, 0, Limits(), [10**9]) == len(data) - len(real)
    assert _resync(data, 0, Limits(), [50_000]) is None


def test_invalid_type_without_recovery_raises() -> None:
    png = base_png()
    parts = split(png)
    png = PNG_SIGNATURE + parts[0] + b"\0\0\0\x01\x01\x02\x03\x04" + b"\0" * 5
    with pytest.raises(CorruptInputError, match="invalid chunk type"):
        list(iter_chunks(png))


def test_missing_iend_and_trailing_bytes() -> None:
    parts = split(base_png())
    no_iend = PNG_SIGNATURE + b"".join(parts[:-1])
    assert [c.type for c in iter_chunks(no_iend)] == ["IHDR", "IDAT"]
    trailing = base_png() + b"PK\x03\x04 trailing zip"
    assert [c.type for c in iter_chunks(trailing)][-1] == "IEND"
    assert scan(trailing).end == len(trailing) - len(b"PK\x03\x04 trailing zip")


def test_text_kinds_and_encodings() -> None:
    png = with_chunks(
        base_png(),
        chunk(b"tEXt", b"Comment\0caf\xe9"),
        ztxt(b"Chara", b"e30="),
        itxt(b"ccv3", "星 ✨", compressed=True),
        itxt(b"Description", "plain 説明", compressed=False),
        chunk(b"tEXt", b"naidata\0eyJ4IjoxfQ=="),
    )
    texts = text_chunks(png)
    assert [(t.keyword, t.kind) for t in texts] == [
        ("Comment", "tEXt"),
        ("Chara", "zTXt"),
        ("ccv3", "iTXt"),
        ("Description", "iTXt"),
        ("naidata", "tEXt"),
    ]
    assert texts[0].text == "café"
    assert texts[1].text == "e30=" and texts[1].compressed
    assert texts[2].text == "星 ✨"
    assert texts[3].text == "plain 説明"
    assert texts[4].payload() == b"eyJ4IjoxfQ=="
    assert [t.index for t in texts] == [2, 3, 4, 5, 6]
    assert [t.keyword for t in find_text(texts, "chara")] == ["Chara"]
    assert [t.keyword for t in find_text(texts, "CCV3")] == ["ccv3"]


def test_text_chunk_without_keyword_terminator_is_not_listed() -> None:
    png = with_chunks(base_png(), chunk(b"tEXt", b"no separator here"), chunk(b"iTXt", b"key\0\0"))
    assert text_chunks(png) == []


def test_ztxt_bomb_is_capped() -> None:
    bomb = ztxt(b"ccv3", b"\0" * (8 * 1024 * 1024))
    assert len(bomb) < 20_000
    png = with_chunks(base_png(), bomb)
    (text,) = text_chunks(png, Limits(max_text_bytes=1024 * 1024))
    with pytest.raises(LimitExceededError) as err:
        text.payload()
    assert err.value.location is not None and "zTXt" in err.value.location


def test_itxt_bomb_is_capped() -> None:
    png = with_chunks(base_png(), itxt(b"chara", "A" * 3_000_000, compressed=True))
    (text,) = text_chunks(png, Limits(max_text_bytes=100_000))
    with pytest.raises(LimitExceededError):
        _ = text.text


def test_broken_and_truncated_zlib() -> None:
    good = zlib.compress(b"x" * 1000)
    png = with_chunks(
        base_png(),
        chunk(b"zTXt", b"a\0\0" + b"not zlib at all"),
        chunk(b"zTXt", b"b\0\0" + good[: len(good) // 2]),
    )
    first, second = text_chunks(png)
    with pytest.raises(CorruptInputError, match="bad zlib"):
        first.payload()
    with pytest.raises(CorruptInputError, match="truncated zlib"):
        second.payload()


def test_itxt_bad_utf8() -> None:
    png = with_chunks(base_png(), chunk(b"iTXt", b"k\0\0\0\0\0\xff\xfe"))
    with pytest.raises(CorruptInputError, match="UTF-8"):
        _ = text_chunks(png)[0].text


def test_splice_removes_all_kinds_keeps_rest_byte_for_byte() -> None:
    icc_like = chunk(b"gAMA", struct.pack(">I", 45455))
    foreign = chunk(b"tEXt", b"parameters\0steps: 20")
    stale = [chunk(b"tEXt", b"chara\0old"), ztxt(b"CCV3", b"old"), itxt(b"Chara", "old", compressed=False)]
    parts = split(base_png())
    png = PNG_SIGNATURE + parts[0] + icc_like + stale[0] + parts[1] + foreign + stale[1] + stale[2] + parts[2]
    out = splice_text_chunks(png, [("chara", "bmV3"), ("ccv3", "bmV3IHYz")], lambda k: k.lower() in ("chara", "ccv3"))
    assert split(out) == [
        parts[0],
        icc_like,
        parts[1],
        foreign,
        chunk(b"tEXt", b"chara\0bmV3"),
        chunk(b"tEXt", b"ccv3\0bmV3IHYz"),
        parts[2],
    ]
    assert all(c.crc_ok for c in iter_chunks(out))


def test_splice_keeps_apng_chunks_and_trailing_bytes() -> None:
    frames = [Image.new("RGB", (16, 16), c) for c in ((255, 0, 0), (0, 0, 255))]
    buf = io.BytesIO()
    frames[0].save(buf, format="PNG", save_all=True, append_images=frames[1:], duration=100)
    apng = buf.getvalue() + b"TRAILER"
    kinds = [c.type for c in iter_chunks(apng)]
    assert {"acTL", "fcTL", "fdAT"} <= set(kinds)
    out = splice_text_chunks(apng, [("ccv3", "e30=")], lambda k: False)
    assert out.endswith(b"IEND\xaeB`\x82TRAILER")
    original = [bytes(c.data) for c in iter_chunks(apng) if c.type != "IEND"]
    rewritten = [bytes(c.data) for c in iter_chunks(out) if c.type not in ("IEND", "tEXt")]
    assert original == rewritten


def test_splice_adds_missing_iend_and_drops_resync_garbage() -> None:
    parts = split(base_png())
    garbage = chunk(b"tEXt", b"Title\0x")[5:]
    png = PNG_SIGNATURE + parts[0] + garbage + parts[1]
    out = splice_text_chunks(png, [("ccv3", "e30=")], lambda k: False)
    assert split(out) == [parts[0], parts[1], chunk(b"tEXt", b"ccv3\0e30="), parts[2]]


def test_make_chunk_and_text_chunk_validation() -> None:
    assert make_chunk("IEND", b"") == b"\0\0\0\0IEND\xaeB`\x82"
    with pytest.raises(ConversionError):
        make_chunk("IE D", b"")
    with pytest.raises(ConversionError):
        make_text_chunk("", "x")
    with pytest.raises(ConversionError):
        make_text_chunk("k" * 80, "x")
    with pytest.raises(ConversionError):
        make_text_chunk("星", "x")
    with pytest.raises(ConversionError):
        make_text_chunk("chara", "a\0b")


SAMPLE = with_chunks(
    base_png((4, 4)),
    chunk(b"tEXt", b"chara\0e30="),
    ztxt(b"ccv3", b"eyJhIjoxfQ=="),
    itxt(b"naidata", "{}", compressed=True),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_bytes(SAMPLE))
def test_mutated_bytes_only_raise_interop_errors(data: bytes) -> None:
    try:
        for text in text_chunks(data, Limits(max_text_bytes=4096)):
            _ = text.text
            _ = text.crc_ok
        splice_text_chunks(data, [("ccv3", "e30=")], lambda k: k == "chara")
    except InteropError:
        pass


@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_only_raise_interop_errors(tail: bytes) -> None:
    try:
        list(iter_chunks(PNG_SIGNATURE + tail))
    except InteropError:
        pass
