"""CHARX card format: detection, identity round trip, conversion layout, main icon, fuzzing."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from deepdiff import DeepDiff
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

import interop
from interop.cardkit.asset_origin import ORIGINS_MEMBER
from interop.containers.charx import read_charx, write_charx
from interop.containers.png import scan
from interop.document import Document
from interop.errors import InteropError, UnknownFormatError
from interop.model import Card, LorebookDocument
from interop.model.versions import to_v3
from interop.platform.registry import get_format
from tests.conftest import corpus_params, project_files, shared_files
from tests.st_exporter import strip_writer_additions
from tests.strategies import card_v3
from tests.validator import assert_identity

CHARX_FILES = [p for p in project_files("charx") if p.suffix == ".charx"] + shared_files("charx")
SAMPLES = Path(__file__).resolve().parents[2] / "corpus" / "charx"


def small_png(colour: tuple[int, int, int], size: tuple[int, int] = (8, 12)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def v3_card(**data: Any) -> Card:
    return Card.model_validate(
        {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "Ada", "first_mes": "Hi.", **data}}
    )


# --- identity ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", corpus_params(CHARX_FILES, "CHARX"))
def test_read_write_read_identity(path: Path) -> None:
    original = path.read_bytes()
    # files with module.risum detect as risu-charx, built on this one
    doc = assert_identity("charx", path, detected="risu-charx" if b"module.risum" in original else "charx")
    written = interop.write(doc, "charx")
    before, after = read_charx(original), read_charx(written)
    assert DeepDiff(json.loads(before.card_raw), json.loads(after.card_raw)) == {}
    assert after.order == before.order
    assert after.members == before.members  # same names, same bytes, same order
    assert after.prefix == before.prefix
    assert after.compression == before.compression
    again = interop.read_bytes(written, format="charx")
    assert DeepDiff(doc.card.dump(), again.card.dump()) == {}
    assert again.assets == doc.assets and again.members == doc.members


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.charx")), ids=lambda p: p.name)
def test_own_samples_round_trip_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    assert len(data) < 60_000
    assert interop.write(interop.read(path, format="charx"), "charx") == data


def test_edited_card_keeps_every_member() -> None:
    doc = interop.read(SAMPLES / "risu_stored.charx", format="charx")
    doc.card.data.name = "Juniper Vale II"
    written = read_charx(interop.write(doc, "charx"))
    original = read_charx((SAMPLES / "risu_stored.charx").read_bytes())
    assert json.loads(written.card_raw)["data"]["name"] == "Juniper Vale II"
    assert written.members == original.members
    assert written.compression == original.compression


# --- detection and reading ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "best"),
    [("deflate_assets.charx", "charx"), ("risu_stored.charx", "risu-charx"), ("jpeg_prefixed.charx", "risu-charx")],
)
def test_detected_by_content(name: str, best: str) -> None:
    """Every CHARX is ours at 100; the Risu reader claims those with a module.risum above that."""
    data = (SAMPLES / name).read_bytes()
    found = {d.format: d.confidence for d in interop.detect_all(data, filename="misleading.json")}
    assert found["charx"] == 100
    assert interop.detect(data, filename="misleading.json") == best


def test_zip_without_card_json_is_not_charx() -> None:
    data = write_charx(b"{}", {"assets/a.png": b"a"})
    data = data.replace(b"card.json", b"card.jsoN")
    with pytest.raises(UnknownFormatError, match=r"no card\.json"):
        interop.detect(data)


def test_deflate_sample_contents() -> None:
    doc = interop.read(SAMPLES / "deflate_assets.charx")
    assert sorted(doc.assets) == [
        "embeded://assets/background/images/main.png",
        "embeded://assets/emotion/images/alarmed.png",
        "embeded://assets/emotion/images/calm.webp",
        "embeded://assets/icon/images/main.png",
        "embeded://assets/x_ambience/audio/surf.mp3",
    ]
    assert doc.assets["embeded://assets/icon/images/main.png"].startswith(b"\x89PNG")
    assert list(doc.members) == ["x_interop_sample.json"]  # unreferenced root JSON kept opaque
    assert doc.warnings == []
    book = doc.card.data.character_book
    assert book.entries[0].content.startswith("@@depth 3\n@@role system\n")
    assert doc.card.get_extra("x_exporter_note") == "root-level unknown key"
    assert doc.native["container"]["prefix"] is None
    assert doc.native["container"]["compression"] == {"deflate": 7}
    facts = get_format("charx").describe(doc)
    assert facts["asset_types"] == {"icon": 1, "emotion": 2, "background": 1, "x_ambience": 1, "user_icon": 1}
    assert facts["module_risum"] is False and facts["x_meta"] == 0
    assert facts["member_count"] == 7 and facts["opaque_members"] == ["x_interop_sample.json"]


def test_risu_samples_keep_module_and_x_meta_opaque() -> None:
    for name, prefix in (("risu_stored.charx", None), ("jpeg_prefixed.charx", "jpeg")):
        doc = interop.read(SAMPLES / name, format="charx")
        assert list(doc.members) == ["module.risum", "x_meta/main.json", "x_meta/smile.json", "x_meta/stall_sign.json"]
        assert doc.members["module.risum"][:2] == b"\x6f\x00"
        assert doc.native["container"]["prefix"] == prefix
        assert doc.native["container"]["compression"] == {"stored": 5, "deflate": 3}
        facts = get_format("charx").describe(doc)
        assert facts["module_risum"] is True and facts["x_meta"] == 3
        assert facts["asset_types"] == {"icon": 1, "emotion": 1, "x-risu-asset": 1}


def test_asset_list_is_not_rewritten_on_charx_to_charx() -> None:
    """character-foundry's exporter swaps a ccdefault: icon for the first emotion and drops the rest (peers.md)."""
    assets = [
        {"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"},
        {"type": "emotion", "uri": "embeded://assets/emotion/images/joy.png", "name": "joy", "ext": "png"},
        {"type": "background", "uri": "https://example.invalid/bg.png", "name": "main", "ext": "png"},
    ]
    source = write_charx(json.dumps(v3_card(assets=assets).dump()).encode(), {"assets/emotion/images/joy.png": b"J"})
    doc = interop.read_bytes(source)
    out = read_charx(interop.write(doc, "charx"))
    assert json.loads(out.card_raw)["data"]["assets"] == assets
    assert out.members == {"assets/emotion/images/joy.png": b"J"}
    assert doc.warnings == []


def test_non_ascii_member_names_round_trip() -> None:
    """The spec asks for ASCII paths, but Risu keeps Unicode asset names: read and write them back as they are."""
    assets = [{"type": "emotion", "uri": "embeded://assets/emotion/image/웃음.png", "name": "웃음", "ext": "png"}]
    source = write_charx(json.dumps(v3_card(assets=assets).dump()).encode(), {"assets/emotion/image/웃음.png": b"S"})
    doc = interop.read_bytes(source)
    assert doc.assets == {"embeded://assets/emotion/image/웃음.png": b"S"}
    assert read_charx(interop.write(doc, "charx")).members == {"assets/emotion/image/웃음.png": b"S"}


def test_missing_member_is_warned_and_uri_kept() -> None:
    gone = {"type": "icon", "uri": "embeded://assets/icon/images/gone.png", "name": "main", "ext": "png"}
    card = v3_card(assets=[gone])
    data = write_charx(json.dumps(card.dump()).encode(), {"assets/other/other/loose.bin": b"loose"})
    doc = interop.read_bytes(data)
    assert any("gone.png" in w and "does not hold" in w for w in doc.warnings)
    assert doc.members == {"assets/other/other/loose.bin": b"loose"}
    out = read_charx(interop.write(doc, "charx"))
    assert json.loads(out.card_raw)["data"]["assets"][0]["uri"] == "embeded://assets/icon/images/gone.png"
    assert out.members == {"assets/other/other/loose.bin": b"loose"}


def test_bad_card_json_is_a_typed_error_at_card_json() -> None:
    with pytest.raises(InteropError) as info:
        interop.read_bytes(write_charx(b"{not json", {}), filename="broken.charx")
    assert info.value.location == "card.json" and info.value.file == "broken.charx"
    with pytest.raises(InteropError) as info:
        interop.read_bytes(write_charx(b"[1, 2]", {}))
    assert info.value.location == "card.json"


# --- conversion into CHARX -----------------------------------------------------------------------------


def test_png_card_picture_becomes_the_main_icon() -> None:
    picture = small_png((10, 120, 200))
    card = v3_card(assets=[{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}])
    png_card = interop.write(Document(format="ccv3", card=card), "png", image=picture)
    doc = interop.read_bytes(png_card)
    assert doc.format == "png" and doc.image is not None
    out = read_charx(interop.write(doc, "charx"))
    assets = json.loads(out.card_raw)["data"]["assets"]
    assert assets == [{"type": "icon", "uri": "embeded://assets/icon/images/main.png", "name": "main", "ext": "png"}]
    icon = out.members["assets/icon/images/main.png"]
    assert Image.open(io.BytesIO(icon)).tobytes() == Image.open(io.BytesIO(picture)).tobytes()
    keywords = {t.keyword for t in scan(icon).texts}
    assert not keywords & {"chara", "ccv3"}  # no stale second copy of the card inside the icon


def test_picture_added_as_main_icon_when_card_has_no_assets() -> None:
    picture = small_png((200, 10, 10))
    doc = Document(format="png", card=v3_card(), image=picture)
    out = read_charx(interop.write(doc, "charx"))
    assert json.loads(out.card_raw)["data"]["assets"] == [
        {"type": "icon", "uri": "embeded://assets/icon/images/main.png", "name": "main", "ext": "png"}
    ]
    assert out.members == {"assets/icon/images/main.png": picture}


def test_main_icon_with_bytes_is_not_replaced_by_the_picture() -> None:
    icon = small_png((1, 2, 3))
    card = v3_card(assets=[{"type": "icon", "uri": "__asset:0", "name": "main", "ext": "png"}])
    doc = Document(format="png", card=card, image=small_png((9, 9, 9)), assets={"__asset:0": icon})
    out = read_charx(interop.write(doc, "charx"))
    assert out.members == {
        "assets/icon/images/main.png": icon,
        ORIGINS_MEMBER: b'{\n  "embeded://assets/icon/images/main.png": "__asset:0"\n}',
    }
    assert doc.warnings == []
    interop.write(doc, "charx", image=small_png((7, 7, 7)))
    assert any("given image is not embedded" in w for w in doc.warnings)


def test_charx_to_png_to_charx_puts_the_picture_back_at_the_icon_path() -> None:
    """A PNG card cannot hold CHARX members; its picture is the main icon, so it refills that member."""
    charx_doc = interop.read(SAMPLES / "deflate_assets.charx")
    icon = charx_doc.assets["embeded://assets/icon/images/main.png"]
    png_doc = interop.read_bytes(interop.write(charx_doc, "png", image=icon))
    out = read_charx(interop.write(png_doc, "charx"))
    assets = json.loads(out.card_raw)["data"]["assets"]
    assert assets[0]["uri"] == "embeded://assets/icon/images/main.png"
    assert list(out.members) == ["assets/icon/images/main.png"]
    assert Image.open(io.BytesIO(out.members["assets/icon/images/main.png"])).tobytes() == (
        Image.open(io.BytesIO(icon)).tobytes()
    )
    missing = [w for w in png_doc.warnings if "no bytes in the source" in w]
    assert len(missing) == 4 and not any("icon/images/main.png" in w for w in missing)


def test_url_main_icon_is_kept_and_picture_loss_is_warned() -> None:
    card = v3_card(assets=[{"type": "icon", "uri": "https://example.invalid/a.png", "name": "main", "ext": "png"}])
    doc = Document(format="png", card=card, image=small_png((9, 9, 9)))
    out = read_charx(interop.write(doc, "charx"))
    assert json.loads(out.card_raw)["data"]["assets"][0]["uri"] == "https://example.invalid/a.png"
    assert out.members == {}
    assert any("card picture is not embedded" in w for w in doc.warnings)


def test_assets_from_another_format_go_to_spec_folders() -> None:
    assets = [
        {"type": "emotion", "uri": "__asset:0", "name": "Lächeln 😊", "ext": "webp"},
        {"type": "background", "uri": "__asset:1", "name": "../../etc/passwd", "ext": "PNG"},
        {"type": "x_voice", "uri": "__asset:2", "name": "hello", "ext": "mp3"},
        {"type": "other", "uri": "__asset:3", "name": "font", "ext": "ttf"},
        {"type": "emotion", "uri": "__asset:4", "name": "Lächeln 😊", "ext": "webp"},
        {"type": "other", "uri": "__asset:5", "name": None, "ext": None},
        {"type": "emotion", "uri": "https://example.invalid/remote.png", "name": "remote", "ext": "png"},
        {"type": "emotion", "uri": "__asset:9", "name": "lost", "ext": "png"},
        {"type": "emotion", "uri": "__asset:0", "name": "same bytes again", "ext": "webp"},
    ]
    blobs = {f"__asset:{i}": f"blob{i}".encode() for i in range(6)}
    doc = Document(format="png", card=v3_card(assets=assets), assets=blobs)
    out = read_charx(interop.write(doc, "charx"))
    uris = [a["uri"] for a in json.loads(out.card_raw)["data"]["assets"]]
    assert uris == [
        "embeded://assets/emotion/images/Lacheln.webp",
        "embeded://assets/background/images/etc_passwd.png",
        "embeded://assets/x_voice/audio/hello.mp3",
        "embeded://assets/other/fonts/font.ttf",
        "embeded://assets/emotion/images/Lacheln_1.webp",
        "embeded://assets/other/other/asset_5.bin",
        "https://example.invalid/remote.png",
        "__asset:9",
        "embeded://assets/emotion/images/Lacheln.webp",
    ]
    assert out.members["assets/emotion/images/Lacheln.webp"] == b"blob0"
    assert out.members["assets/emotion/images/Lacheln_1.webp"] == b"blob4"
    assert json.loads(out.members.pop(ORIGINS_MEMBER))["embeded://assets/other/fonts/font.ttf"] == "__asset:3"
    assert len(out.members) == 6
    assert all(name.isascii() for name in out.members)
    assert any("__asset:9" in w and "no bytes" in w for w in doc.warnings)


def test_off_type_asset_fields_are_kept_verbatim() -> None:
    assets = [
        {"type": "icon", "uri": ["not", "a", "string"], "name": "main", "ext": 5},
        {"type": None, "uri": "__asset:0", "name": 42, "ext": None},
    ]
    doc = Document(format="png", card=v3_card(assets=assets), image=small_png((3, 3, 3)), assets={"__asset:0": b"x"})
    out = read_charx(interop.write(doc, "charx"))
    written = json.loads(out.card_raw)["data"]["assets"]
    assert written[0] == assets[0]
    assert written[1] == {"type": None, "uri": "embeded://assets/other/other/asset_1.bin", "name": 42, "ext": None}
    assert len(written) == 2 and list(out.members) == ["assets/other/other/asset_1.bin", ORIGINS_MEMBER]
    assert any("main icon points to ['not', 'a', 'string']" in w for w in doc.warnings)
    again = interop.read_bytes(interop.write(doc, "charx"))
    assert again.card.data.assets[0].uri == ["not", "a", "string"]


def test_dangling_main_icon_with_other_ext_is_replaced_with_a_warning() -> None:
    assets = [{"type": "icon", "uri": "embeded://assets/icon/images/main.webp", "name": "main", "ext": "webp"}]
    doc = Document(format="png", card=v3_card(assets=assets), image=small_png((3, 3, 3)))
    out = read_charx(interop.write(doc, "charx"))
    assert json.loads(out.card_raw)["data"]["assets"][0]["uri"] == "embeded://assets/icon/images/main.png"
    assert any("main.webp has no bytes" in w for w in doc.warnings)


def test_unreferenced_asset_bytes_are_kept_with_a_warning() -> None:
    doc = Document(format="png", card=v3_card(), assets={"__asset:7": small_png((5, 5, 5))})
    out = read_charx(interop.write(doc, "charx"))
    assert list(out.members) == ["assets/other/images/asset_7.png"]
    assert any("not referenced" in w for w in doc.warnings)


def test_foreign_container_parts_are_warned_not_dropped_silently() -> None:
    doc = Document(format="png", card=v3_card(), members={"tEXt:parameters": b"steps: 20"})
    interop.write(doc, "charx")
    assert any("tEXt:parameters" in w and "not carried" in w for w in doc.warnings)


def test_v2_card_is_written_as_v3() -> None:
    card = Card.model_validate(
        {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Old", "first_mes": ""}}
    )
    out = read_charx(interop.write(Document(format="ccv2", card=card), "charx"))
    written = json.loads(out.card_raw)
    assert written["spec"] == "chara_card_v3" and written["data"]["name"] == "Old"
    assert out.card_raw.startswith(b"{\n  ")  # pretty-printed


def test_standalone_lorebook_is_wrapped_in_a_card() -> None:
    book = LorebookDocument.model_validate(
        {"spec": "lorebook_v3", "data": {"name": "Atlas", "entries": [{"keys": ["a"], "content": "@@depth 2\nA."}]}}
    ).data
    out = read_charx(interop.write(Document(format="lorebook_v3", lorebook=book), "charx"))
    written = json.loads(out.card_raw)
    assert written["data"]["character_book"]["entries"][0]["content"] == "@@depth 2\nA."


# --- property tests --------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(card_v3)
def test_random_cards_survive_charx(raw: dict[str, Any]) -> None:
    card = Card.model_validate(copy.deepcopy(raw))
    expected = to_v3(card).dump()
    back = interop.read_bytes(interop.write(Document(format="ccv3", card=card), "charx"))
    assert back.format == "charx"
    got = back.card.dump()
    got["data"] = strip_writer_additions(expected["data"], got["data"])
    assert DeepDiff(expected, got) == {}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    card_v3,
    st.lists(st.tuples(st.text(max_size=20), st.sampled_from(["png", "mp3", "bin", "??", ""]), st.binary(max_size=64)),
             max_size=4),
)
def test_random_embedded_assets_survive_charx(raw: dict[str, Any], blobs: list[tuple[str, str, bytes]]) -> None:
    raw = copy.deepcopy(raw)
    raw["data"]["assets"] = [
        {"type": "emotion", "uri": f"__asset:{i}", "name": name, "ext": ext} for i, (name, ext, _) in enumerate(blobs)
    ]
    blob_map = {f"__asset:{i}": content for i, (*_, content) in enumerate(blobs)}
    doc = Document(format="png", card=Card.model_validate(raw), assets=blob_map)
    back = interop.read_bytes(interop.write(doc, "charx"))
    for i, asset in enumerate(back.card.data.assets):
        assert asset.uri.startswith("embeded://assets/emotion/")
        assert asset.uri.isascii()
        assert back.assets[asset.uri] == blobs[i][2]


VALID = (SAMPLES / "risu_stored.charx").read_bytes()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    # Uniform positions mostly hit picture bytes; the tail holds the central directory.
    st.lists(
        st.tuples(st.one_of(st.integers(0, len(VALID) - 1), st.integers(len(VALID) - 700, len(VALID) - 1)),
                  st.integers(0, 255)),
        min_size=1,
        max_size=6,
    ),
    st.integers(1, len(VALID)),
)
def test_mutated_charx_raises_only_interop_errors(edits: list[tuple[int, int]], cut: int) -> None:
    data = bytearray(VALID)
    for position, value in edits:
        data[position] = value
    for candidate in (bytes(data), bytes(data[:cut])):
        try:
            interop.read_bytes(candidate, format="charx")
        except InteropError:
            pass
        try:
            interop.detect(candidate)
        except InteropError:
            pass


# --- independent reader (Node.js tier) ----------------------------------------------------------------------

CF_ORACLE = """
import { parseCard } from '@character-foundry/character-foundry';
import { createHash } from 'node:crypto';
import readline from 'node:readline';
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  const bytes = new Uint8Array(Buffer.from(JSON.parse(line), 'base64'));
  let out;
  try {
    const r = parseCard(bytes);
    out = { container: r.containerFormat, card: r.originalShape,
            assets: r.assets.map(a => [a.path ?? null, createHash('sha256').update(a.data).digest('hex')]) };
  } catch (e) { out = { error: String((e && e.message) || e) }; }
  console.log(JSON.stringify(out));
}
"""


def charx_outputs() -> list[bytes]:
    """What our writer produces: identity write-backs of every sample, and conversions from other formats."""
    outputs = [interop.write(interop.read(p, format="charx"), "charx") for p in sorted(SAMPLES.glob("*.charx"))]
    assets = [
        {"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"},
        {"type": "emotion", "uri": "__asset:0", "name": "joy", "ext": "png"},
    ]
    book = {"entries": [{"keys": ["k"], "content": "@@depth 2\n@@@role user\nBody.", "extensions": {}, "enabled": True,
                         "insertion_order": 0, "use_regex": False}]}
    doc = Document(format="png", card=v3_card(assets=assets, character_book=book), image=small_png((1, 90, 200)),
                   assets={"__asset:0": small_png((200, 90, 1))})
    outputs.append(interop.write(doc, "charx"))
    return outputs


@pytest.mark.node
def test_character_foundry_reads_what_we_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """peers.md: character-foundry is an independent CHARX reader (deflate, stored, JPEG-prefixed)."""
    import base64
    import hashlib

    from tests.node_peers import ensure_package, run_batch

    monkeypatch.setenv("npm_config_omit", "optional")  # sharp (image resizing) is not needed to parse
    prefix = ensure_package("@character-foundry/character-foundry@0.5.0")
    outputs = charx_outputs()
    verdicts = run_batch(prefix, CF_ORACLE, [base64.b64encode(data).decode("ascii") for data in outputs])
    for data, verdict in zip(outputs, verdicts, strict=True):
        assert verdict.get("error") is None, verdict.get("error")
        assert verdict["container"] == "charx"
        archive = read_charx(data)
        assert DeepDiff(json.loads(archive.card_raw), verdict["card"]) == {}
        ours = {path: hashlib.sha256(content).hexdigest() for path, content in archive.members.items()}
        for path, digest in verdict["assets"]:
            assert path in ours and ours[path] == digest
        embedded = {a["uri"][len("embeded://") :] for a in json.loads(archive.card_raw)["data"].get("assets", [])
                    if a["uri"].startswith("embeded://")}
        assert embedded <= {path for path, _ in verdict["assets"]}


# --- round trips through Risu's CHARX layout (asset_origin, module.risum) ---------------

SAMPLES = Path(__file__).resolve().parents[2] / "corpus" / "charx"


def test_charx_through_risu_charx_gets_its_asset_paths_back() -> None:
    source = interop.read_bytes((SAMPLES / "deflate_assets.charx").read_bytes(), format="charx")
    risu = interop.read_bytes(interop.write(source, "risu-charx"), format="risu-charx")
    risu_uris = [a.uri for a in risu.card.data.assets or []]
    assert "embeded://assets/icon/image/main.png" in risu_uris  # Risu's layout on the way
    assert ORIGINS_MEMBER in risu.members
    back = read_charx(interop.write(risu, "charx"))
    want = read_charx((SAMPLES / "deflate_assets.charx").read_bytes())
    assert json.loads(back.card_raw)["data"]["assets"] == json.loads(want.card_raw)["data"]["assets"]
    for name, blob in want.members.items():
        assert back.members.get(name) == blob, name
    assert ORIGINS_MEMBER not in back.members  # nothing left to undo


def test_risu_charx_read_as_plain_charx_keeps_module_and_x_meta_on_the_way_back() -> None:
    data = (SAMPLES / "risu_stored.charx").read_bytes()
    original = read_charx(data)
    plain = interop.read_bytes(interop.write(interop.read_bytes(data, format="risu-charx"), "charx"), format="charx")
    assert plain.format == "charx" and "module.risum" in plain.members
    back = read_charx(interop.write(plain, "risu-charx"))
    for name in ("module.risum", *(n for n in original.members if n.startswith("x_meta/"))):
        assert back.members[name] == original.members[name], name


def test_origins_member_survives_charx_identity_byte_for_byte() -> None:
    card = v3_card(assets=[{"type": "emotion", "uri": "__asset:0", "name": "smile", "ext": "png"}])
    doc = Document(format="png", card=card, assets={"__asset:0": small_png((1, 1, 1))})
    first = interop.write(doc, "charx")
    assert interop.write(interop.read_bytes(first, format="charx"), "charx") == first


def test_damaged_origins_member_is_warned_and_ignored() -> None:
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "A", "assets": []}}
    data = write_charx(json.dumps(card).encode(), {ORIGINS_MEMBER: b"[1, 2]"})
    doc = interop.read_bytes(data, format="charx")
    interop.write(doc, "png")
    assert any(ORIGINS_MEMBER in w for w in doc.warnings)
