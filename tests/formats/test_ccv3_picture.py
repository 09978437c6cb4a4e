"""PNG -> ccv3 keeps the picture as the main icon's data URL; ccv3 -> png gives it back (issue 19 item 5).

The spec (``shared/reference/spec/character-card-v3.txt``, ``assets``): a ``uri`` MAY be a base64 data
URL, and ``ccdefault:`` of an icon in a PNG card points to the PNG itself.
"""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path
from typing import Any

import pytest

from interop.api import read, read_bytes, write
from interop.containers.png import scan
from interop.fidelity import fidelity_report
from tests.conftest import PROJECT_CORPUS, corpus_params, shared_files

PNG_SAMPLES = sorted((PROJECT_CORPUS / "png").glob("*.png"))
V2_PNG = PROJECT_CORPUS / "png" / "v2_chara_only.png"
V3_PNG = PROJECT_CORPUS / "png" / "v3_both_st_order.png"
CARD_KEYS = ("chara", "ccv3")


def _image_part(png: bytes) -> list[tuple[str, bytes]]:
    """Every chunk of a PNG but the card's own text chunks (chara, ccv3, chara-ext-asset_*), in order."""
    found = scan(png)
    card = {t.index for t in found.texts if t.keyword.lower() in CARD_KEYS or t.keyword.startswith("chara-ext-")}
    return [(c.type, bytes(c.data)) for c in found.chunks if c.index not in card]


def _card_chunk(png: bytes, keyword: str) -> dict[str, Any]:
    text = next(t for t in scan(png).texts if t.keyword == keyword)
    return json.loads(binascii.a2b_base64(bytes(text.raw)))


def _icons(card: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in card["data"].get("assets") or [] if a.get("type") == "icon" and a.get("name") == "main"]


def _data_url_png(uri: str) -> bytes:
    head, _, payload = uri.partition(",")
    assert head == "data:image/png;base64"
    return base64.b64decode(payload, validate=True)


@pytest.mark.parametrize("path", corpus_params(PNG_SAMPLES, "project PNG cards"))
def test_png_to_ccv3_keeps_the_picture_as_a_data_url(path: Path) -> None:
    source = path.read_bytes()
    card = json.loads(write(read(path), "ccv3"))
    (icon,) = _icons(card)
    assert (icon["type"], icon["name"], icon["ext"]) == ("icon", "main", "png")
    picture = _data_url_png(icon["uri"])
    # The picture is the PNG's image, without the card's text chunks (no stale second card inside).
    assert _image_part(picture) == _image_part(source)
    assert not any(t.keyword.lower() in CARD_KEYS for t in scan(picture).texts)


@pytest.mark.parametrize("path", [V2_PNG, V3_PNG])
def test_ccv3_to_png_gives_the_same_image_back_without_a_second_copy(path: Path) -> None:
    source = path.read_bytes()
    card_json = write(read(path), "ccv3")
    back = write(read_bytes(card_json, filename="card.json"), "png")
    assert _image_part(back) == _image_part(source)  # byte-identical image data (and other chunks)
    # One copy: the icon is the PNG itself (ccdefault:), no data URL and no extra asset chunk for it.
    for keyword in CARD_KEYS:
        assert b"data:image" not in json.dumps(_card_chunk(back, keyword)).encode()
    assert [a["uri"] for a in _icons(_card_chunk(back, "ccv3"))] == ["ccdefault:"]
    chunks_before = sorted(t.keyword for t in scan(source).texts if t.keyword.startswith("chara-ext-"))
    assert sorted(t.keyword for t in scan(back).texts if t.keyword.startswith("chara-ext-")) == chunks_before


def test_the_report_follows_the_picture_both_ways() -> None:
    doc = read(V3_PNG)
    card_json = write(doc, "ccv3")
    there = fidelity_report(doc, "ccv3", card_json)
    image = there.item("image")
    assert image is not None and image.fate == "translated" and "data:image/png" in image.detail
    assert not there.by_fate("lost")
    back_doc = read_bytes(card_json, filename="card.json")
    back = fidelity_report(back_doc, "png", write(back_doc, "png"))
    assert not back.by_fate("lost"), [(i.path, i.detail[:80]) for i in back.by_fate("lost")]
    icon = back.item("card.assets[0]")
    assert icon is not None and icon.fate == "translated" and "ccdefault:" in icon.detail


def test_a_card_that_names_its_own_icon_keeps_it() -> None:
    """A main icon pointing elsewhere (here an HTTPS URL) is the card's choice: no picture is added."""
    doc = read(V3_PNG)
    assert doc.card is not None
    raw = doc.card.dump()
    raw["data"]["assets"] = [{"type": "icon", "uri": "https://example.org/a.png", "name": "main", "ext": "png"}]
    doc.card = type(doc.card).model_validate(raw)
    card = json.loads(write(doc, "ccv3"))
    assert card["data"]["assets"] == raw["data"]["assets"]


def test_embed_picture_false_leaves_it_out() -> None:
    card = json.loads(write(read(V2_PNG), "ccv3", embed_picture=False))
    assert "assets" not in card["data"]
    report = fidelity_report(read(V2_PNG), "ccv3", write(read(V2_PNG), "ccv3", embed_picture=False))
    image = report.item("image")
    assert image is not None and image.fate == "lost"  # named, not silent


@pytest.mark.parametrize(
    "path", corpus_params([p for p in shared_files("cards-png") if p.suffix == ".png"], "PNG cards")
)
def test_shared_png_cards_keep_their_picture(path: Path) -> None:
    card = json.loads(write(read(path), "ccv3"))
    (icon,) = _icons(card)
    legacy = ("tEXt", b"risuai\0")  # RisuAI's legacy chunk: carried as assets, not inside the icon (item 1)
    source = [c for c in _image_part(path.read_bytes()) if (c[0], c[1][:7]) != legacy]
    assert [c for c in _image_part(_data_url_png(icon["uri"])) if (c[0], c[1][:7]) != legacy] == source


def test_a_broken_data_url_is_named_and_kept() -> None:
    card = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {"name": "B", "assets": [{"type": "icon", "uri": "data:image/png;base64,@@@=", "name": "main"}]},
    }
    doc = read_bytes(json.dumps(card).encode(), filename="b.json")
    assert not doc.assets and any("data.assets[0]" in w and "base64" in w for w in doc.warnings)
    assert json.loads(write(doc, "ccv3"))["data"]["assets"] == card["data"]["assets"]


def _with_picture_whole_card(card: Any, doc: Any, ctx: Any) -> Any:
    """``with_picture`` as it was: the whole card dumped, its assets changed, and validated again."""
    from interop.formats.ccv3 import card_json as cj
    from interop.model import Card

    if ctx.options.get(cj.EMBED_PICTURE, True) is False:
        return card
    if ctx.image is None and doc.image is None and not any(uri.startswith(cj.ASSET_CHUNK) for uri in doc.assets):
        return card
    raw = card.dump()
    data = raw.setdefault("data", {})
    assets = data.get("assets", [])
    if not isinstance(assets, list):
        return card
    inlined = cj._inline_asset_chunks(assets, doc)
    if not (cj._picture_as_icon(card, data, assets, doc, ctx) or inlined):
        return card
    out = Card.model_validate(raw)
    out.filled = set(card.filled)
    return out


def test_with_picture_changes_only_the_assets() -> None:
    """The assets-only ``with_picture`` gives the card the whole-card round trip gives (every corpus card,
    with its own picture and with ``--image``)."""
    from interop.formats.ccv3.card_json import with_picture
    from interop.platform.registry import WriteContext
    from interop.transforms.card_for_target import card_for
    from tests.conftest import project_files

    image = V3_PNG.read_bytes()
    checked = changed = 0
    folders = ("cards-png", "cards-json", "cards", "png", "charx", "risu")
    for path in [*shared_files(*folders), *project_files(*folders)]:
        try:
            doc = read(path)
        except Exception:  # not every corpus file is a card
            continue
        if doc.card is None:
            continue
        card = card_for(doc, "ccv3")
        for ctx in (WriteContext(), WriteContext(image=image), WriteContext(options={"embed_picture": False})):
            want = _with_picture_whole_card(card, read(path), ctx)
            got = with_picture(card, read(path), ctx)
            assert (got is card) == (want is card), path
            assert repr(got.dump()) == repr(want.dump()) and got.filled == want.filled, path
            assert sorted(got.model_fields_set) == sorted(want.model_fields_set)
            assert sorted(got.data.model_fields_set) == sorted(want.data.model_fields_set)
            checked += 1
            changed += got is not card
    assert checked > 30 and changed > 10
