"""V1/V2/V3 upgrades and downgrades are lossless (model/versions.py, docs/versions.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from deepdiff import DeepDiff
from hypothesis import given, settings

from interop.model import Card
from interop.model.versions import STASH, spec_of, to_v1, to_v2, to_v3
from tests.conftest import corpus_params, project_files, shared_files
from tests.strategies import card_v3
from tests.validator import corpus_pairs

CARD_FILES = [
    p
    for p in project_files("cards")
    if p.suffix == ".json" and "lorebook" not in p.name and "character_book" not in p.name
] + shared_files("cards-json")


def _card(path: Path) -> Card:
    return Card.model_validate(json.loads(path.read_text(encoding="utf-8")))


ROUND_TRIPS = {
    "v3": [("v2", to_v2, to_v3), ("v1", to_v1, to_v3)],
    "v2": [("v3", to_v3, to_v2), ("v1", to_v1, to_v2)],
    "v1": [("v3", to_v3, to_v1), ("v2", to_v2, to_v1)],
}


# one test per (card file, other version): the versions that apply to each file's own
VERSION_PAIRS = [(path, via) for path in CARD_FILES for via, _, _ in ROUND_TRIPS[spec_of(_card(path))]]


@pytest.mark.parametrize(("path", "via"), corpus_pairs(VERSION_PAIRS, "card JSON"))
def test_there_and_back_is_identity(path: Path, via: str) -> None:
    card = _card(path)
    down, up = next((d, u) for v, d, u in ROUND_TRIPS[spec_of(card)] if v == via)
    back = up(down(card))
    assert spec_of(back) == spec_of(card)
    assert DeepDiff(card.dump(), back.dump()) == {}, f"{spec_of(card)} -> {via} -> {spec_of(card)}"


def test_v3_downgrade_stashes_v3_only_fields_in_one_namespace() -> None:
    card = _card(Path(__file__).parents[2] / "corpus" / "cards" / "ilse_v3.json")
    v2 = to_v2(card)
    assert v2.spec == "chara_card_v2" and v2.spec_version == "2.0"
    stash = v2.data.extensions[STASH]
    assert set(stash["data"]) == {
        "assets",
        "nickname",
        "creator_notes_multilingual",
        "source",
        "group_only_greetings",
        "creation_date",
        "modification_date",
    }
    assert "assets" not in v2.dump()["data"]


def test_strip_decorators_moves_them_to_the_stash_and_back() -> None:
    card = _card(Path(__file__).parents[2] / "corpus" / "cards" / "ilse_v3.json")
    v2 = to_v2(card, strip_decorators=True)
    contents = [e.content for e in v2.data.character_book.entries]
    assert not any(c.lstrip().startswith("@@") for c in contents)
    assert DeepDiff(card.dump(), to_v3(v2).dump()) == {}


def test_newer_spec_version_survives_a_downgrade() -> None:
    card = _card(Path(__file__).parents[2] / "corpus" / "cards" / "ilse_v3_1_newer.json")
    assert to_v3(to_v2(card)).spec_version == "3.1"


def test_v1_upgrade_fills_required_fields_and_keeps_root_extras() -> None:
    card = _card(Path(__file__).parents[2] / "corpus" / "cards" / "old_tom_v1.json")
    v3 = to_v3(card)
    dumped = v3.dump()
    assert dumped["data"]["name"] == "Old Tom"
    assert dumped["data"]["group_only_greetings"] == []
    assert dumped["data"]["tags"] == []
    assert dumped["avatar"] == "none"  # V1 root extras stay at the root


def test_v2_upgrade_adds_use_regex_and_downgrade_removes_it() -> None:
    card = _card(Path(__file__).parents[2] / "corpus" / "cards" / "ilse_v2_st_mirror.json")
    v3 = to_v3(card)
    assert all(e.use_regex is not None for e in v3.data.character_book.entries)
    assert DeepDiff(card.dump(), to_v2(v3).dump()) == {}


@settings(max_examples=60, deadline=None)
@given(card_v3)
def test_random_v3_cards_survive_v2_and_v1(raw: dict) -> None:
    # Spec-valid V3 (docs/versions.md): the fields V3 requires are present.
    data = raw.setdefault("data", {})
    data.setdefault("group_only_greetings", [])
    for entry in (data.get("character_book") or {}).get("entries", []):
        entry.setdefault("use_regex", False)
    card = Card.model_validate(raw)
    assert DeepDiff(card.dump(), to_v3(to_v2(card)).dump()) == {}
    assert DeepDiff(card.dump(), to_v3(to_v1(card)).dump()) == {}


def test_v1_stash_does_not_alias_root_extensions() -> None:
    # A card whose root already has an ``extensions`` object (some V2 exporters mirror it there).
    raw = json.loads((Path(__file__).parents[2] / "corpus" / "cards" / "ilse_v3.json").read_text())
    raw["extensions"] = {"root_tool": {"x": 1}}
    card = Card.model_validate(raw)
    v1 = to_v1(card)
    json.dumps(v1.dump())  # no circular reference
    assert DeepDiff(card.dump(), to_v3(v1).dump()) == {}


def test_book_of_a_v1_file_is_found_in_its_stash() -> None:
    import interop
    from tests.st_exporter import strip_writer_additions

    path = Path(__file__).parents[2] / "corpus" / "cards" / "ilse_v3.json"
    v1_bytes = interop.write(interop.read(path), "ccv1")
    book = json.loads(interop.write(interop.read_bytes(v1_bytes), "lorebook_v3"))
    source = json.loads(path.read_text())["data"]["character_book"]
    assert strip_writer_additions(source, book["data"]) == source


# A V1 card as SillyTavern saves one (../shared/reference/agnai-novelai.md, "TavernAI V1 card": root
# creatorcomment, avatar, chat, talkativeness, fav, create_date, tags), plus a creator.
ST_V1 = {
    "name": "Walter White",
    "description": "A chemistry teacher.",
    "personality": "meticulous",
    "scenario": "Albuquerque, 2008.",
    "first_mes": "Say my name.",
    "mes_example": "<START>",
    "creatorcomment": "Made for testing.",
    "avatar": "none",
    "chat": "Walter White - 2023-5-12 @21h 32m",
    "talkativeness": "0.5",
    "fav": False,
    "create_date": "2023-5-12 @21h 32m 29s 228ms",
    "creator": "heisenberg",
    "tags": "crime, drama, ,teacher",
}


def test_v1_upgrade_carries_what_sillytavern_imports_from_the_root() -> None:
    """SillyTavern's V1 import (src/endpoints/characters.js, ``importFromJson``/``importFromPng`` branch for
    ``name !== undefined``, then ``convertToV2`` -> ``charaFormatData``) reads root ``creatorcomment ??
    creator_notes``, ``talkativeness``, ``creator`` and ``tags`` (a string split on ``,``, trimmed, empty
    parts dropped) into ``data``; our upgrade does the same and V1 -> V3 -> V1 stays the identity."""
    card = Card.model_validate(ST_V1)
    data = to_v3(card).dump()["data"]
    assert data["creator"] == "heisenberg" and data["creator_notes"] == "Made for testing."
    assert data["tags"] == ["crime", "drama", "teacher"]
    assert data["extensions"] == {"talkativeness": "0.5"}
    for down in (to_v1(to_v3(card)), to_v1(to_v2(card))):
        assert DeepDiff(card.dump(), down.dump()) == {}
        assert STASH not in (down.dump().get("extensions") or {})


def test_v1_creator_notes_key_is_read_when_creatorcomment_is_absent() -> None:
    card = Card.model_validate({**{k: v for k, v in ST_V1.items() if k != "creatorcomment"}, "creator_notes": "N"})
    assert to_v3(card).data.creator_notes == "N"


def test_v1_card_shows_its_creator_and_converts_with_it(tmp_path: Path) -> None:
    """``inspect`` shows the V1 card's creator, and ``--to ccv3`` keeps creator, notes, tags and talkativeness."""
    from click.testing import CliRunner

    from interop import api
    from interop.cli import cli
    from interop.fidelity import fidelity_report

    raw = json.dumps(ST_V1).encode()
    path = tmp_path / "walter.json"
    path.write_bytes(raw)
    result = CliRunner().invoke(cli, ["inspect", "--json", str(path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["creator"] == "heisenberg"
    doc = api.read_bytes(raw, filename="walter.json")
    out = json.loads(api.write(doc, "ccv3"))["data"]
    assert (out["creator"], out["creator_notes"], out["tags"]) == (
        "heisenberg",
        "Made for testing.",
        ["crime", "drama", "teacher"],
    )
    assert out["extensions"]["talkativeness"] == "0.5"
    report = fidelity_report(doc, "ccv3")
    assert report.item("card.creator") is not None and report.item("card.creator").fate == "kept"  # type: ignore[union-attr]


# RisuAI's sample is read from its legacy risuai chunk as a V3 card (tests/formats/test_risu_legacy_png.py,
# which checks its talkativeness too).
V1_PNGS = [p for p in shared_files("cards-png") if p.name == "st_old_Megumin_v1.png"]


@pytest.mark.parametrize("path", corpus_params(V1_PNGS, "V1 PNG card"))
def test_real_v1_png_keeps_talkativeness_in_data(path: Path) -> None:
    """Real V1 PNGs (SillyTavern's and RisuAI's samples) carry a root ``talkativeness``; SillyTavern's
    import puts it in ``data.extensions.talkativeness``, and so does a conversion to ccv3."""
    from interop import api

    doc = api.read(path)
    assert doc.card is not None and spec_of(doc.card) == "v1"
    root = doc.card.dump()
    out = json.loads(api.write(doc, "ccv3"))
    assert out["data"]["extensions"]["talkativeness"] == root["talkativeness"]
    assert DeepDiff(root, to_v1(to_v3(doc.card)).dump()) == {}
