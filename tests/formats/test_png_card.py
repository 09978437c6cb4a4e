"""The ``png`` card format: detection, ccv3/chara preference, backfill, assets, round trips."""

from __future__ import annotations

import base64
import io
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from deepdiff import DeepDiff
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from interop.api import detect, detect_all, read_bytes, write
from interop.cardkit.card_image import default_avatar
from interop.containers.png import is_stale_keyword, iter_chunks, text_chunks
from interop.document import Document
from interop.errors import CorruptInputError, FormatError, InteropError, LimitExceededError, UnknownFormatError
from interop.formats.ccv3 import png_card
from interop.formats.ccv3.png_card import BACKFILL_NOTICE, extract_card
from interop.jsonio import load_json
from interop.model import Card, Lorebook
from interop.model.versions import to_v3
from interop.platform.registry import WriteContext, get_format
from tests.conftest import corpus_params, project_files, shared_files
from tests.png_bytes import chunk, solid_png, with_chunks
from tests.st_exporter import strip_writer_additions
from tests.strategies import card_data, card_v3, mutated_bytes
from tests.validator import assert_identity

PROJECT_PNGS = [p for p in project_files("png") if p.suffix == ".png"]
SHARED_PNGS = shared_files("cards-png")
ALL_PNGS = corpus_params(PROJECT_PNGS, "project PNG") + corpus_params(SHARED_PNGS, "shared cards-png")


# --- independent helpers (not the code under test) ------------------------------------


def b64(obj: Any) -> bytes:
    return base64.b64encode(json.dumps(obj, ensure_ascii=False).encode("utf-8"))


def plain_png(size: tuple[int, int] = (6, 4)) -> bytes:
    return solid_png(size, (90, 20, 200))


def card_png(*extra: bytes, base: bytes | None = None) -> bytes:
    return with_chunks(base or plain_png(), *extra)


def payloads(png: bytes) -> dict[str, list[Any]]:
    """Decoded card chunks by lower-case keyword, read with stdlib only."""
    found: dict[str, list[Any]] = {}
    for text in text_chunks(png):
        if text.keyword.lower() in ("chara", "ccv3"):
            found.setdefault(text.keyword.lower(), []).append(json.loads(base64.b64decode(text.payload())))
    return found


def non_card_chunks(png: bytes) -> list[tuple[str, bytes, int]]:
    out = []
    for c in iter_chunks(png):
        if c.type in ("tEXt", "zTXt", "iTXt") and is_stale_keyword(bytes(c.data).split(b"\0", 1)[0].decode("latin-1")):
            continue
        out.append((c.type, bytes(c.data), c.crc))
    return out


def v3_dump(doc: Document) -> dict[str, Any]:
    assert doc.card is not None
    return to_v3(doc.card).dump()


V2 = {
    "spec": "chara_card_v2",
    "spec_version": "2.0",
    "data": {
        "name": "Rook",
        "description": "barge captain",
        "first_mes": "Hm.",
        "creator_notes": "notes",
        "extensions": {"x": None},
        "character_book": {"entries": [{"keys": ["a"], "content": "@@depth 2\nA", "id": 0}]},
    },
    "x_root": 1,
}
V3 = {
    "spec": "chara_card_v3",
    "spec_version": "3.0",
    "data": {
        "name": "Mirei 星",
        "first_mes": "🌠",
        "creator_notes": "original notes",
        "nickname": "Mimi",
        "group_only_greetings": [],
        "character_book": {
            "entries": [
                {"keys": ["s"], "content": "@@depth 4\n@@@instruct_depth 2\nStars", "use_regex": False, "id": "a"}
            ]
        },
    },
}


# --- detection ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_PNGS)
def test_detects_every_png_card(path: Path) -> None:
    assert detect(path.read_bytes()) == "png"


def test_does_not_claim_png_without_card_but_exposes_naidata() -> None:
    png = card_png(chunk(b"tEXt", b"naidata\0" + b64({"lorebookVersion": 5})))
    assert "png" not in [d.format for d in detect_all(png)]
    assert [t.keyword for t in text_chunks(png)] == ["naidata"]
    with pytest.raises(UnknownFormatError):
        read_bytes(plain_png())


def test_novelai_naidata_sample_is_left_to_the_novelai_adapter() -> None:
    data = (Path(__file__).parents[2] / "corpus/novelai/abbey_naidata.png").read_bytes()
    assert "png" not in [d.format for d in detect_all(data)]
    assert "naidata" in [t.keyword for t in text_chunks(data)]


@pytest.mark.parametrize(
    "card_chunk",
    [
        chunk(b"tEXt", b"CHARA\0" + b64(V2)),
        chunk(b"zTXt", b"Ccv3\0\0" + zlib.compress(b64(V3))),
        chunk(b"iTXt", b"chara\0\0\0\0\0" + b64(V2)),
    ],
)
def test_detects_any_kind_any_case(card_chunk: bytes) -> None:
    assert detect(card_png(card_chunk)) == "png"


def test_broken_stream_with_card_is_claimed_and_read_raises_typed_error() -> None:
    png = card_png(chunk(b"tEXt", b"chara\0" + b64(V2)))
    truncated = png[:-30]
    assert detect(truncated) == "png"
    with pytest.raises(CorruptInputError) as err:
        read_bytes(truncated, filename="x.png")
    assert err.value.file == "x.png" and err.value.location is not None


# --- reading --------------------------------------------------------------------------


def test_prefers_ccv3_and_never_decodes_chara_when_ccv3_is_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[str] = []
    real = png_card.decode_payload
    monkeypatch.setattr(png_card, "decode_payload", lambda c, limits: decoded.append(c.keyword) or real(c, limits))
    png = card_png(chunk(b"tEXt", b"chara\0%%%not base64%%%"), chunk(b"tEXt", b"ccv3\0" + b64(V3)))
    doc = read_bytes(png)
    assert decoded == ["ccv3"]
    assert doc.card is not None and doc.card.data.name == "Mirei 星"
    assert doc.warnings == []
    assert doc.native["png"]["used"] == "ccv3 (tEXt, chunk #3)"


@pytest.mark.parametrize("bad", [b"!!!", b64([1, 2]), base64.b64encode(b"{not json")])
def test_falls_back_to_chara_and_trims_notice(bad: bytes) -> None:
    backfill = json.loads(json.dumps(V2))
    backfill["data"]["creator_notes"] = f"{BACKFILL_NOTICE}\n\nnotes"
    png = card_png(chunk(b"tEXt", b"chara\0" + b64(backfill)), chunk(b"tEXt", b"ccv3\0" + bad))
    doc = read_bytes(png)
    assert doc.card is not None and doc.card.data.creator_notes == "notes"
    assert any("ccv3" in w and "unreadable" in w for w in doc.warnings)
    assert any("notice" in w for w in doc.warnings)
    assert doc.native["png"]["used"].startswith("chara")


def test_both_card_chunks_unreadable_raises() -> None:
    png = card_png(chunk(b"tEXt", b"chara\0e30"), chunk(b"tEXt", b"ccv3\0" + base64.b64encode(b"[")))
    with pytest.raises(CorruptInputError) as err:
        read_bytes(png)
    assert err.value.location is not None and "ccv3" in err.value.location


def test_encrypted_risu_card_is_a_typed_error() -> None:
    with pytest.raises(FormatError, match="encrypted"):
        read_bytes(card_png(chunk(b"tEXt", b"chara\0rcc||rccv1||abc||def||e30=")))


def test_raw_json_payload_is_tolerated() -> None:
    doc = read_bytes(card_png(chunk(b"tEXt", b"chara\0" + json.dumps(V2).encode())))
    assert doc.card is not None and doc.card.data.name == "Rook"


@pytest.mark.parametrize("depth", [250, 253, 254, 300, 2000])
@pytest.mark.parametrize("kind", ["array", "object"])
def test_nesting_limit_agrees_with_load_json(depth: int, kind: str) -> None:
    opener, closer = ("[", "]") if kind == "array" else ('{"k":', "}")
    nested = opener * depth + "1" + closer * depth
    # Brackets inside strings must not count: the padding alone has more brackets than the limit.
    text = '{"spec":"chara_card_v3","data":{"name":"[[[' + "[" * 300 + '","extensions":{"x":' + nested + "}}}"
    png = card_png(chunk(b"tEXt", b"ccv3\0" + base64.b64encode(text.encode())))
    try:
        load_json(text.encode())
    except LimitExceededError:
        with pytest.raises(LimitExceededError):
            read_bytes(png)
    else:
        doc = read_bytes(png)
        assert doc.card is not None and doc.card.data.name == "[[[" + "[" * 300


def test_bad_crc_on_card_chunk_is_a_warning() -> None:
    bad = bytearray(chunk(b"tEXt", b"ccv3\0" + b64(V3)))
    bad[-2] ^= 0x55
    doc = read_bytes(card_png(bytes(bad)))
    assert doc.card is not None and doc.card.data.nickname == "Mimi"
    assert any("CRC" in w for w in doc.warnings)


def test_reads_assets_both_spellings_and_container_facts() -> None:
    png = card_png(
        chunk(b"tEXt", b"ccv3\0" + b64(V3)),
        chunk(b"tEXt", b"chara-ext-asset_:0\0" + base64.b64encode(b"\x00icon")),
        chunk(b"tEXt", b"chara-ext-asset_7\0" + base64.b64encode(b"sound")),
        chunk(b"tEXt", b"parameters\0steps 20"),
    )
    doc = read_bytes(png)
    assert doc.assets == {"__asset:0": b"\x00icon", "__asset:7": b"sound"}
    assert doc.image == png
    assert doc.native["container"] == {
        "chunks": ["IHDR", "IDAT", "tEXt", "tEXt", "tEXt", "tEXt", "IEND"],
        "text_keys": ["ccv3", "chara-ext-asset_:0", "chara-ext-asset_7", "parameters"],
    }
    facts = get_format("png").describe(doc)  # type: ignore[misc]
    assert facts == {
        "chunk_runs": ["IHDR", "IDAT", "tEXt x4", "IEND"],
        "card_chunks": ["ccv3 (tEXt, chunk #2)"],
        "used_chunk": "ccv3 (tEXt, chunk #2)",
        "asset_chunks": 2,
    }
    out = write(doc, "png")
    assert [t.keyword for t in text_chunks(out)] == [
        "parameters",
        "chara",
        "ccv3",
        "chara-ext-asset_:0",
        "chara-ext-asset_:7",
    ]
    assert read_bytes(out).assets == doc.assets


def test_assets_without_a_png_place_are_reported() -> None:
    doc = Document(format="charx", card=Card.model_validate(V3))
    doc.assets = {"embeded://assets/icon/images/main.png": b"png", "__asset:2": b"two"}
    out = write(doc, "png")
    assert any("cannot be stored in a PNG card" in w for w in doc.warnings)
    assert read_bytes(out).assets == {"__asset:2": b"two"}


def test_risu_malformed_stream_sample_reads_with_warning() -> None:
    doc = read_bytes((Path(__file__).parents[2] / "corpus/png/v3_risu_malformed_stream.png").read_bytes())
    assert any("malformed bytes" in w for w in doc.warnings)
    out = write(doc, "png")
    assert all(c.gap_before == 0 for c in iter_chunks(out))


# --- writing --------------------------------------------------------------------------


def test_v3_card_gets_ccv3_and_stripped_v2_backfill_with_notice() -> None:
    doc = read_bytes(card_png(chunk(b"tEXt", b"ccv3\0" + b64(V3))))
    found = payloads(write(doc, "png"))
    assert found["ccv3"] == [V3]
    (chara,) = found["chara"]
    assert chara["spec"] == "chara_card_v2" and chara["spec_version"] == "2.0"
    assert chara["data"]["creator_notes"] == f"{BACKFILL_NOTICE}\n\noriginal notes"
    assert chara["data"]["character_book"]["entries"][0]["content"] == "Stars"
    assert "nickname" not in chara["data"]


def test_v2_card_chara_is_written_back_exactly() -> None:
    doc = read_bytes(card_png(chunk(b"tEXt", b"chara\0" + b64(V2))))
    found = payloads(write(doc, "png"))
    assert found["chara"] == [V2]
    assert found["ccv3"][0]["spec"] == "chara_card_v3"
    assert found["ccv3"][0]["data"]["character_book"]["entries"][0]["content"] == "@@depth 2\nA"


def test_v2_backfill_with_notice_round_trips_its_chara() -> None:
    backfill = json.loads(json.dumps(V2))
    backfill["data"]["creator_notes"] = f"notes\n\n{BACKFILL_NOTICE}"
    doc = read_bytes(card_png(chunk(b"tEXt", b"chara\0" + b64(backfill))))
    assert doc.card is not None and doc.card.data.creator_notes == "notes"
    assert payloads(write(doc, "png"))["chara"] == [backfill]


def test_stale_card_chunks_of_every_kind_are_removed() -> None:
    stale = [
        chunk(b"tEXt", b"ccv3\0" + b64({"spec": "chara_card_v3", "data": {"name": "STALE"}})),
        chunk(b"zTXt", b"CHARA\0\0" + zlib.compress(b64({"name": "STALE"}))),
        chunk(b"iTXt", b"Ccv3\0\1\0\0\0" + zlib.compress(b"stale")),
        chunk(b"iTXt", b"chara\0\0\0en\0\0stale"),
        chunk(b"tEXt", b"chara-ext-asset_:3\0c3RhbGU="),
    ]
    template = card_png(*stale, chunk(b"tEXt", b"Comment\0keep me"))
    card_doc = read_bytes(card_png(chunk(b"tEXt", b"ccv3\0" + b64(V3))))
    out = write(card_doc, "png", image=template)
    keys = [(t.keyword, t.kind) for t in text_chunks(out)]
    assert keys == [("Comment", "tEXt"), ("chara", "tEXt"), ("ccv3", "tEXt")]
    assert read_bytes(out).card.data.name == "Mirei 星"  # type: ignore[union-attr]


def test_written_chunks_have_correct_crcs() -> None:
    doc = read_bytes(card_png(chunk(b"tEXt", b"ccv3\0" + b64(V3))))
    out = write(doc, "png")
    for c in iter_chunks(out):
        assert zlib.crc32(c.type.encode() + bytes(c.data)) == c.crc


def test_json_card_without_image_gets_a_deterministic_default_avatar() -> None:
    doc = Document(format="ccv3", card=Card.model_validate(V3))
    first, second = write(doc, "png"), write(doc, "png")
    assert first == second
    with Image.open(io.BytesIO(first)) as img:
        assert img.size == (400, 600)
    written = payloads(first)["ccv3"][0]
    assert {**written, "data": strip_writer_additions(V3["data"], written["data"])} == V3
    assert default_avatar("Mirei") != default_avatar("Rook")


def test_non_png_image_is_converted_and_png_image_kept_verbatim() -> None:
    doc = Document(format="ccv3", card=Card.model_validate(V3))
    jpeg = io.BytesIO()
    Image.new("RGB", (30, 20), (1, 2, 3)).save(jpeg, format="JPEG")
    out = write(doc, "png", image=jpeg.getvalue())
    with Image.open(io.BytesIO(out)) as img:
        assert img.format == "PNG" and img.size == (30, 20)
    template = card_png(chunk(b"gAMA", struct.pack(">I", 45455)))
    out = write(doc, "png", image=template)
    assert non_card_chunks(out) == non_card_chunks(template)
    with pytest.raises(CorruptInputError):
        write(doc, "png", image=b"definitely not an image")


def test_main_icon_asset_becomes_the_picture_when_there_is_no_image() -> None:
    icon = io.BytesIO()
    Image.new("RGB", (12, 18), (9, 9, 9)).save(icon, format="WEBP")
    uri = "embeded://assets/icon/images/main.webp"
    raw = json.loads(json.dumps(V3))
    raw["data"]["assets"] = [
        {"type": "emotion", "uri": "embeded://assets/emotion/images/joy.png", "name": "joy", "ext": "png"},
        {"type": "icon", "uri": uri, "name": "main", "ext": "webp"},
    ]
    doc = Document(format="charx", card=Card.model_validate(raw), assets={uri: icon.getvalue()})
    with Image.open(io.BytesIO(write(doc, "png"))) as img:
        assert img.format == "PNG" and img.size == (12, 18)


def test_lorebook_document_is_written_as_a_card() -> None:
    book = Lorebook.model_validate({"name": "Atlas", "entries": [{"keys": ["k"], "content": "c"}]})
    out = write(Document(format="lorebook_v3", lorebook=book), "png")
    doc = read_bytes(out)
    assert doc.card is not None and doc.card.data.name == "Atlas"
    assert doc.book is not None and doc.book.entries[0].content == "c"


def test_lone_surrogates_survive() -> None:
    card = Card.model_validate({"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "a\ud800b"}})
    doc = read_bytes(write(Document(format="ccv3", card=card), "png"))
    assert doc.card is not None and doc.card.data.name == "a\ud800b"


# --- round trips over the corpora -----------------------------------------------------


@pytest.mark.parametrize("path", ALL_PNGS)
def test_round_trip(path: Path) -> None:
    data = path.read_bytes()
    first = assert_identity("png", path)
    out = write(first, "png")
    second = read_bytes(out)
    assert second.format == "png"
    assert not DeepDiff(v3_dump(first), v3_dump(second)), path.name  # stricter: nothing added either
    # RisuAI's legacy risuai chunk is read into the card and its asset chunks (test_risu_legacy_png.py).
    legacy = "legacy_risuai" in first.native.get("png", {})
    assert non_card_chunks(out) == [c for c in non_card_chunks(data) if not (legacy and c[1].startswith(b"risuai\0"))]
    assert second.assets == first.assets
    card_keys = {t.keyword.lower() for t in text_chunks(data) if t.keyword.lower() in ("chara", "ccv3")}
    if card_keys == {"chara"} and not legacy:
        (source_chara,) = [
            json.loads(base64.b64decode(t.payload())) for t in text_chunks(data) if t.keyword.lower() == "chara"
        ]
        assert not DeepDiff(payloads(out)["chara"][0], source_chara)
    found = payloads(out)
    assert len(found["chara"]) == 1 and len(found["ccv3"]) == 1


def test_apng_sample_keeps_animation_chunks_byte_for_byte() -> None:
    data = (Path(__file__).parents[2] / "corpus/png/v3_apng.png").read_bytes()
    out = write(read_bytes(data), "png")
    anim = [(c.type, bytes(c.data)) for c in iter_chunks(data) if c.type in ("acTL", "fcTL", "fdAT", "IDAT")]
    assert len(anim) >= 5
    assert anim == [(c.type, bytes(c.data)) for c in iter_chunks(out) if c.type in ("acTL", "fcTL", "fdAT", "IDAT")]


# --- properties -----------------------------------------------------------------------

card_v2 = st.builds(lambda data: {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}, card_data)
BASE = plain_png((3, 3))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(card_v3, card_v2))
def test_random_cards_survive_write_read(raw: dict[str, Any]) -> None:
    card = Card.model_validate(raw)
    out = get_format("png").write(Document(format="ccv3", card=card), WriteContext(image=BASE))  # type: ignore[misc]
    doc = read_bytes(out)
    want = to_v3(card).dump()
    got = v3_dump(doc)
    got["data"] = strip_writer_additions(want["data"], got["data"])
    assert not DeepDiff(want, got)
    if raw["spec"] == "chara_card_v2":
        chara = payloads(out)["chara"][0]
        chara["data"] = strip_writer_additions(raw["data"], chara["data"])
        assert not DeepDiff(chara, raw)


SEED = (Path(__file__).parents[2] / "corpus/png/v3_both_st_order.png").read_bytes()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_bytes(SEED, keep_prefix=8, max_ops=5))
def test_mutated_png_cards_only_raise_interop_errors(data: bytes) -> None:
    try:
        doc = read_bytes(data)
        if doc.format == "png":
            write(doc, "png")
            extract_card(data)
    except InteropError:
        pass


# --- assets moved out to a CHARX come back as chunks (asset_origin) ---------------


def _png_view(doc: Document) -> tuple[dict[str, Any], dict[str, bytes], list[str]]:
    """Card, asset bytes, and the order of the asset chunk keywords of a PNG card document."""
    assert doc.card is not None and doc.image is not None
    keys = [c.keyword for c in text_chunks(doc.image) if c.keyword.startswith("chara-ext-asset")]
    return doc.card.dump(), doc.assets, keys


@pytest.mark.parametrize("via", ["charx", "risu-charx"])
def test_png_assets_through_charx_come_back_as_chunks(via: str) -> None:
    path = Path(__file__).resolve().parents[2] / "corpus" / "png" / "v3_assets.png"
    source = read_bytes(path.read_bytes(), filename=path.name)
    uris = [a.uri for a in source.card.data.assets or []] if source.card else []
    assert "ccdefault:" in uris and "__asset:0" in uris  # what the test is about
    middle = read_bytes(write(source, via), format=via)
    assert not any(a.uri in ("ccdefault:", "__asset:0") for a in middle.card.data.assets or [])  # moved out
    back = read_bytes(write(middle, "png"), format="png")
    card, assets, keys = _png_view(back)
    want_card, want_assets, want_keys = _png_view(source)
    card["data"] = strip_writer_additions(want_card["data"], card["data"])  # ST's flat keys (a cross-format write)
    assert not DeepDiff(want_card, card)
    assert assets == want_assets and len(keys) == len(want_keys)  # (the writer spells them chara-ext-asset_:N)
    assert Image.open(io.BytesIO(back.image)).tobytes() == Image.open(io.BytesIO(source.image)).tobytes()
    assert not any("cannot be stored in a PNG" in w for w in middle.warnings)


def test_charx_assets_without_a_png_origin_stay_embeded_uris() -> None:
    """Only a recorded move is undone: a CHARX-born asset is not invented a __asset:N home."""
    path = Path(__file__).resolve().parents[2] / "corpus" / "charx" / "deflate_assets.charx"
    doc = read_bytes(path.read_bytes(), filename=path.name)
    back = read_bytes(write(doc, "png"), format="png")
    assert back.assets == {}
    assert [a.uri for a in back.card.data.assets or []] == [a.uri for a in doc.card.data.assets or []]
    assert any("cannot be stored in a PNG" in w for w in doc.warnings)
