"""RisuAI's legacy ``risuai`` PNG chunk (issue 19 item 1): emotion images become real assets.

Format facts from kwaroran/RisuAI ``src/ts/characterCards.ts`` (2023 versions): ``exportChar`` writes
``chara`` = a TavernAI V1 card and ``risuai`` = ``base64(msgpack({data: character, type: 101}))`` with
``character.emotionImages`` as ``[name, <image bytes>]``; ``importCharacter`` reads ``risuai`` when
``chara`` is not a ``chara_card_v2`` card. Today's Risu reads a V3 card instead
(``importCharacterCardSpec``: assets of type ``emotion`` become ``emotionImages``, with ``__asset:N``
from ``chara-ext-asset_:N`` chunks and ``embeded://`` from CHARX members; ``extensions.risuai``
``viewScreen``/``sdData``/``bias``/``customScripts``/``utilityBot``), which is what the card is written as.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import msgpack
import pytest

from interop.api import read_bytes, write
from interop.containers.png import scan
from interop.fidelity import fidelity_report
from interop.limits import Limits
from tests.conftest import SHARED_CORPUS, corpus_params
from tests.png_bytes import chunk, solid_png, with_chunks
from tests.validator import assert_identity

RIKA = SHARED_CORPUS / "cards-png" / "risu_sample_rika.png"
SMILE, TEARS = solid_png((8, 8), (250, 200, 0)), solid_png((6, 6), (0, 0, 240))


def _text(keyword: str, value: bytes) -> bytes:
    return chunk(b"tEXt", keyword.encode("latin-1") + b"\0" + value)


def _b64json(obj: Any) -> bytes:
    return base64.b64encode(json.dumps(obj).encode())


def _character(**extra: Any) -> dict[str, Any]:
    """A Risu character as exportChar serialised it (its own field names, images as bytes)."""
    return {
        "name": "Mira",
        "firstMessage": "Hello, {{user}}.",
        "desc": "A lighthouse keeper.",
        "notes": "",
        "chats": [],
        "chatPage": 0,
        "image": "assets/mira.png",
        "emotionImages": [["joy", SMILE], ["sadness", TEARS]],
        "bias": [["storm", -5]],
        "globalLore": [],
        "viewScreen": "emotion",
        "chaId": "5f1c2a",
        "sdData": [["always", "solo, 1girl"], ["negative", ""]],
        "utilityBot": False,
        "customscript": [{"comment": "r", "in": "a", "out": "b", "type": "editoutput"}],
        "exampleMessage": "<START>{{char}}: The lamp is lit.",
        **extra,
    }


def _legacy_png(character: dict[str, Any] | None = None, *, chara: dict[str, Any] | None = None) -> bytes:
    packed = msgpack.packb({"data": character or _character(), "type": 101}, use_bin_type=True)
    v1 = chara or {"name": "Mira", "description": "A lighthouse keeper.", "first_mes": "Hello, {{user}}.",
                   "mes_example": "<START>", "personality": "", "scenario": "", "avatar": "none"}  # fmt: skip
    return with_chunks(
        solid_png((20, 30), (10, 120, 90)), _text("chara", _b64json(v1)), _text("risuai", base64.b64encode(packed))
    )


def _texts(png: bytes) -> dict[str, bytes]:
    return {t.keyword: bytes(t.payload()) for t in scan(png).texts}


def test_emotion_images_and_risu_data_become_a_v3_card_with_assets() -> None:
    doc = read_bytes(_legacy_png(), filename="mira.png")
    assert doc.card is not None and doc.card.spec == "chara_card_v3"
    data = doc.card.dump()["data"]
    assert [(a["type"], a["name"], a["ext"]) for a in data["assets"]] == [
        ("emotion", "joy", "png"),
        ("emotion", "sadness", "png"),
    ]
    assert [doc.assets[a["uri"]] for a in data["assets"]] == [SMILE, TEARS]
    risuai = data["extensions"]["risuai"]
    assert (risuai["viewScreen"], risuai["sdData"], risuai["bias"]) == (
        "emotion",
        [["always", "solo, 1girl"], ["negative", ""]],
        [["storm", -5]],
    )
    assert risuai["customScripts"][0]["in"] == "a" and risuai["utilityBot"] is False
    assert risuai["character"]["chaId"] == "5f1c2a"  # the rest of Risu's character, whole
    # Card fields from the Risu character: the V1 chara holds exportChar's constant "<START>".
    assert (data["mes_example"], data["first_mes"]) == ("<START>{{char}}: The lamp is lit.", "Hello, {{user}}.")
    # The picture no longer carries the chunk: its data is in the card now.
    assert doc.image is not None and "risuai" not in _texts(doc.image)


def test_risu_charx_carries_emotions_as_members_risu_reads() -> None:
    out = write(read_bytes(_legacy_png(), filename="mira.png"), "risu-charx")
    with zipfile.ZipFile(io.BytesIO(out)) as zf:
        card = json.loads(zf.read("card.json"))
        emotions = [a for a in card["data"]["assets"] if a["type"] == "emotion"]
        assert [a["name"] for a in emotions] == ["joy", "sadness"]
        assert [zf.read(a["uri"].removeprefix("embeded://")) for a in emotions] == [SMILE, TEARS]
    assert card["data"]["extensions"]["risuai"]["viewScreen"] == "emotion"


def test_png_writes_asset_chunks_and_drops_the_legacy_chunk() -> None:
    source = _legacy_png()
    out = write(read_bytes(source, filename="mira.png"), "png")
    texts = _texts(out)
    assert "risuai" not in texts  # its content is in ccv3 + the asset chunks (one copy)
    card = json.loads(binascii.a2b_base64(texts["ccv3"]))
    for asset in card["data"]["assets"]:
        number = asset["uri"].removeprefix("__asset:")
        assert (
            binascii.a2b_base64(texts[f"chara-ext-asset_:{number}"]) == {"joy": SMILE, "sadness": TEARS}[asset["name"]]
        )
    assert_identity("png", out, filename="mira.png")


def test_ccv3_json_carries_the_emotion_images_as_data_urls_and_png_takes_them_back() -> None:
    """RisuAI's V3 import reads ``data:`` asset URIs (importCharacterCardSpec: ``uri.startsWith('data:')``)."""
    doc = read_bytes(_legacy_png(), filename="mira.png")
    out = write(doc, "ccv3")
    assert not fidelity_report(doc, "ccv3", out).by_fate("lost")
    assets = json.loads(out)["data"]["assets"]
    emotions = {a["name"]: base64.b64decode(a["uri"].partition(",")[2]) for a in assets if a["type"] == "emotion"}
    assert emotions == {"joy": SMILE, "sadness": TEARS}
    icon = next(a for a in assets if a["type"] == "icon")
    assert b"risuai" not in base64.b64decode(icon["uri"].partition(",")[2])  # the picture without the chunk
    # Back to PNG: asset chunks again, under the numbers they had.
    back = read_bytes(write(read_bytes(out, filename="mira.json"), "png"), filename="mira.png")
    assert {a.uri: back.assets[a.uri] for a in back.card.data.assets or [] if a.type == "emotion"} == {  # type: ignore[union-attr]
        a.uri: doc.assets[a.uri]
        for a in doc.card.data.assets or []
        if a.type == "emotion"  # type: ignore[union-attr]
    }
    # Left out on request: then the report names each image.
    small = write(doc, "ccv3", embed_picture=False)
    lost = {i.path for i in fidelity_report(doc, "ccv3", small).by_fate("lost")}
    assert {f'asset["{a.uri}"]' for a in doc.card.data.assets or []} <= lost  # type: ignore[union-attr]


def test_beside_a_v2_card_the_chunk_is_not_read() -> None:
    chara = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Card", "first_mes": "hi"}}
    doc = read_bytes(_legacy_png(chara=chara), filename="v2.png")
    assert doc.card is not None and doc.card.data.name == "Card" and not doc.assets
    assert any("legacy chunk is not read" in w for w in doc.warnings)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"%%%not base64%%%", "not valid"),
        (base64.b64encode(b"\xc1"), "not valid msgpack"),
        (base64.b64encode(msgpack.packb({"data": {"name": "x"}, "type": 7})), "type 101"),
    ],
)
def test_a_broken_chunk_is_named_and_the_v1_card_read(payload: bytes, reason: str) -> None:
    png = with_chunks(
        solid_png((4, 4), (1, 2, 3)),
        _text("chara", _b64json({"name": "V", "first_mes": "a", "description": "d"})),
        _text("risuai", payload),
    )
    doc = read_bytes(png, filename="broken.png")
    assert doc.card is not None and doc.card.spec is None and not doc.assets
    assert any("risuai" in w and reason in w for w in doc.warnings), doc.warnings


def test_the_read_limits_bound_the_chunk() -> None:
    small = read_bytes(_legacy_png(), filename="m.png", limits=Limits(max_text_bytes=200))
    assert not small.assets and any("risuai" in w and "limit" in w for w in small.warnings)
    nested: Any = "x"
    for _ in range(40):
        nested = [nested]
    deep = read_bytes(_legacy_png(_character(deep=nested)), filename="m.png", limits=Limits(max_json_depth=30))
    assert not deep.assets and any("deeper than 30" in w for w in deep.warnings)


@pytest.mark.parametrize("path", corpus_params([RIKA] if RIKA.is_file() else [], "RisuAI sample card"))
def test_risu_sample_card(path: Path) -> None:
    """RisuAI's own public/sample/rika.png: 28 emotion images (WEBP, 2.6 MB) in the legacy chunk."""
    source = path.read_bytes()
    raw = next(t for t in scan(source).texts if t.keyword == "risuai")
    expected = msgpack.unpackb(binascii.a2b_base64(bytes(raw.payload())), raw=False)["data"]["emotionImages"]
    doc = read_bytes(source, filename=path.name)
    assets = doc.card.dump()["data"]["assets"]  # type: ignore[union-attr]
    assert [(a["type"], a["name"]) for a in assets] == [("emotion", name) for name, _ in expected]
    assert [doc.assets[a["uri"]] for a in assets] == [blob for _, blob in expected]
    assert sum(len(blob) for _, blob in expected) > 2_500_000
    # The V1 chara's own fields stay (SillyTavern reads talkativeness from it), Risu's come over them.
    chara = next(t for t in scan(source).texts if t.keyword == "chara")
    v1 = json.loads(binascii.a2b_base64(bytes(chara.payload())))
    assert json.loads(write(doc, "ccv3"))["data"]["extensions"]["talkativeness"] == v1["talkativeness"]
    assert doc.card.data.character_book is None  # type: ignore[union-attr]  # globalLore is empty
    charx = write(doc, "risu-charx")
    with zipfile.ZipFile(io.BytesIO(charx)) as zf:
        card = json.loads(zf.read("card.json"))
        members = {
            a["name"]: zf.read(a["uri"].removeprefix("embeded://"))
            for a in card["data"]["assets"]
            if a["type"] == "emotion"
        }
    assert members == dict(expected)
    assert not fidelity_report(doc, "risu-charx", charx).by_fate("lost")
    assert_identity("png", write(doc, "png"), filename=path.name)
