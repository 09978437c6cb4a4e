"""SillyTavern entry settings <-> RisuAI decorators (``interop.transforms.st_risu``), through the
Risu and SillyTavern adapters. Hand-written knob cases: ``cases/*.md`` (``test_transcripts.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from deepdiff import DeepDiff

from interop.api import read, read_bytes, write
from interop.cardkit.as_kind import as_lorebook
from interop.containers.risum import read_risum
from interop.formats.risu import lorebook_from_risu_entries, risu_entries_from_lorebook
from interop.formats.sillytavern.model import STEntryExt
from interop.mappings import load
from interop.model import Lorebook
from interop.model.conflict import Conflict
from interop.platform.registry import get_platform
from interop.transforms import st_risu
from interop.transforms.st_risu import decorator_counts, to_risu
from tests.conftest import corpus_params, shared_files
from tests.formats.test_risu import (
    CHARX,
    EXPORTS,
    LOREBOOK,
    MODULE,
    _assert_only_spec_fields_added,
    _by_comment,
    _json,
    _members,
)
from tests.validator import assert_via

# --- Risu decorators -> SillyTavern fields ------------------------------------------


def test_risu_decorators_become_fields_only_when_exact() -> None:
    book = read(LOREBOOK).lorebook
    assert book is not None
    st = lambda e: e.ext("sillytavern").get("entry", {})  # noqa: E731
    dock = _by_comment(book, "Dry Dock")
    assert st(dock) == {"insertion_position": 4, "depth": 2, "role": 0}
    assert not dock.content.startswith("@@")
    smugglers = _by_comment(book, "Smugglers (regex keys)")
    assert st(smugglers) == {"trigger_percent": 40, "use_probability": True}
    assert smugglers.content.startswith("@@exclude_keys customs officer\n")  # no ST field for it: stays
    tobin = _by_comment(book, "Old Tobin")
    assert st(tobin) == {"delay": 4, "match_whole_words": True}
    assert tobin.content.startswith("\nOld Tobin")  # the blank line after the block is body
    festival = _by_comment(book, "Festival of Wicks")
    assert festival.enabled is False and not festival.content.startswith("@@")
    # A fallback chain (@@instruct_depth / @@@depth) is Risu's to evaluate: untouched.
    mira = _by_comment(book, "Mira")
    assert mira.content.startswith("@@instruct_depth 3\n@@@depth 3\n@@role assistant\n") and not st(mira)
    assert "sillytavern" not in (mira.extensions or {})
    # inject decorators, @@@end: kept as written.
    assert _by_comment(book, "Lantern Oath").content.startswith("@@inject_lore Lantern Harbor\n")
    assert _by_comment(book, "Fog (legacy multiple mode)").content.startswith("@@@end\n")


def test_edited_fields_regenerate_decorators() -> None:
    book = read(LOREBOOK).lorebook
    assert book is not None
    dock = _by_comment(book, "Dry Dock")
    dock.extensions["sillytavern"]["entry"]["depth"] = 7
    raw = {e["comment"]: e for e in risu_entries_from_lorebook(book)}
    assert raw["Dry Dock"]["content"].startswith("@@depth 7\n@@role system\nThe dry dock")
    assert "sillytavern" not in raw["Dry Dock"]["extentions"] or not raw["Dry Dock"]["extentions"]["sillytavern"].get(
        "entry"
    )
    back = lorebook_from_risu_entries(list(raw.values()))
    assert _by_comment(back, "Dry Dock").ext("sillytavern")["entry"]["depth"] == 7


# --- SillyTavern -> Risu -> SillyTavern -----------------------------------------------


ST_WORLDS = shared_files("st-worldinfo")


@pytest.mark.parametrize("target", ["risu-lorebook", "risum"])
@pytest.mark.parametrize("path", corpus_params(ST_WORLDS, "SillyTavern world"))
def test_sillytavern_world_through_risu_comes_back_deep_equal(path: Path, target: str) -> None:
    # exact: the world file comes back type-strict deep-equal, entry contents included
    assert_via("sillytavern-world", target, path, exact=True)
    doc = read(path)
    risu = read_bytes(write(doc, target), filename=f"through.{target}")
    assert risu.format == target
    assert risu.lorebook is not None and doc.lorebook is not None
    assert not DeepDiff(doc.lorebook.dump(), risu.lorebook.dump())  # and the canonical book is untouched


@pytest.mark.parametrize("path", corpus_params(ST_WORLDS, "SillyTavern world"))
def test_sillytavern_knobs_become_risu_decorators(path: Path) -> None:
    world = _json(path.read_bytes())["entries"]
    raw = _json(write(read(path), "risu-lorebook"))["data"]
    for native, entry in zip(world.values(), raw, strict=True):
        names = decorator_counts(entry["content"])
        generated = entry.get("extentions", {}).get("interop_stash", {}).get("decorators", {}).get("text", "")
        assert entry["content"].startswith(generated)
        expect_probability = native.get("useProbability") is True and native.get("probability", 100) < 100
        assert ("@@probability" in generated) == expect_probability
        if native.get("disable") is True:
            assert "@@dont_activate" in generated
        if native.get("position") == 4 and isinstance(native.get("role"), int):
            assert generated.count("@@depth ") == 1 and names["role"] >= 1


def _st_world() -> bytes:
    entries = {
        "0": {
            "uid": 0,
            "key": ["Anna, the smith", "forge"],
            "keysecondary": ["hammer", "anvil"],
            "comment": "Anna",
            "content": "@@activate\nAnna runs the forge.",
            "constant": False,
            "selective": True,
            "selectiveLogic": 2,
            "order": 120,
            "position": 4,
            "depth": 3,
            "role": 1,
            "disable": False,
            "probability": 35,
            "useProbability": True,
            "delay": 2,
            "matchWholeWords": False,
            "sticky": 3,
        },
        "1": {
            "uid": 1,
            "key": ["river"],
            "keysecondary": ["boat"],
            "comment": "River",
            "content": "Wide river.",
            "constant": False,
            "selective": True,
            "selectiveLogic": 3,
            "order": 100,
            "position": 1,
            "disable": True,
            "probability": 100,
            "useProbability": True,
            "matchWholeWords": True,
        },
    }
    return json.dumps({"entries": entries}).encode()


def test_sillytavern_knobs_translate_like_risus_importer() -> None:
    doc = read_bytes(_st_world(), filename="world.json")
    assert doc.format == "sillytavern-world"
    raw = _json(write(doc, "risu-lorebook"))["data"]
    assert raw[0]["content"] == (
        "@@match_partial_word\n@@activate_only_after 2\n@@exclude_keys hammer\n@@exclude_keys anvil\n"
        "@@depth 3\n@@role user\n@@probability 35\n@@activate\nAnna runs the forge."
    )
    assert raw[0]["selective"] is False and raw[0]["key"] == "Anna, the smith, forge"
    assert raw[0]["extentions"]["interop_stash"]["entry"]["keys"] == ["Anna, the smith", "forge"]
    assert raw[0]["extentions"]["sillytavern"]["entry"]["sticky"] == 3  # no Risu equivalent: stashed
    assert raw[1]["content"] == "@@dont_activate\n@@match_full_word\n@@additional_keys boat\nWide river."
    back = read_bytes(write(doc, "risu-lorebook"), filename="x.json")
    assert back.lorebook is not None and doc.lorebook is not None
    assert back.lorebook.entries[0].content == "@@activate\nAnna runs the forge."  # the user's line stays
    assert _json(write(back, "sillytavern-world")) == _json(_st_world())
    # Edited in Risu: the generated lines no longer match, so they are read as Risu decorators.
    raw[1]["content"] = raw[1]["content"].replace("@@dont_activate\n", "")
    edited = lorebook_from_risu_entries(raw)
    assert edited.entries[1].enabled is not False
    assert edited.entries[1].ext("sillytavern")["entry"]["optional_logic"] == 3


def test_flat_sillytavern_card_extensions_become_decorators() -> None:
    entry = {
        "keys": ["moon"],
        "secondary_keys": ["tide"],
        "content": "The moon.",
        "selective": True,
        "insertion_order": 10,
        "enabled": True,
        "extensions": {
            "position": 4,
            "depth": 1,
            "role": 2,
            "probability": 60,
            "useProbability": True,
            "selectiveLogic": 1,
            "delay": 0,
            "match_whole_words": None,
            "group": "sky",
        },
    }
    card = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {"name": "Luna", "character_book": {"entries": [entry]}},
    }
    doc = read_bytes(json.dumps(card).encode(), filename="card.json")
    members = _members(write(doc, "risu-charx"))
    raw = read_risum(members["module.risum"]).module["lorebook"][0]
    assert raw["content"] == "@@exclude_keys_all tide\n@@depth 1\n@@role assistant\n@@probability 60\nThe moon."
    assert raw["selective"] is False and raw["extentions"]["group"] == "sky"
    assert "position" not in raw["extentions"] and "probability" not in raw["extentions"]
    back = read_bytes(write(doc, "risu-charx"), filename="x.charx")
    assert back.card is not None and doc.card is not None
    _assert_only_spec_fields_added(doc.card.dump(), back.card.dump())


def test_translated_knobs_use_the_sillytavern_adapters_names() -> None:

    namespaced, flat = st_risu.LAYOUTS
    prefix = st_risu.ST_ENTRY + "."
    assert {getattr(namespaced, f).removeprefix(prefix) for f in vars(namespaced)} <= set(STEntryExt.model_fields)
    # The flat spelling is SillyTavern's card flavour of the same field (mappings/sillytavern.json).
    rows = json.loads((Path(__file__).resolve().parents[2] / "mappings" / "sillytavern.json").read_text("utf-8"))
    card_native: dict[str, str] = {}
    for row in rows["fields"]:
        canonical, native = row.get("canonical") or "", row.get("native", "")
        if row.get("flat"):
            card_native.setdefault(canonical, f"extensions.{row['flat']}")
        if native.startswith("extensions.") and canonical.startswith(prefix):
            card_native[canonical] = native
    for attribute in vars(namespaced):
        assert getattr(flat, attribute) == card_native[getattr(namespaced, attribute)], attribute


def test_knobs_without_a_decorator_are_recorded_as_losses_where_they_stay() -> None:

    entry: dict[str, Any] = {
        "content": "x",
        "secondary_keys": ["a, b"],  # a comma: no decorator argument can carry it
        "extensions": {
            "sillytavern": {
                "entry": {"optional_logic": 1, "delay": 2, "use_probability": True, "trigger_percent": 12.5}
            }
        },
    }
    generated = to_risu(entry)
    assert generated.text == "@@activate_only_after 2\n"
    ns = ("extensions", "sillytavern", "entry")
    assert [(c.path, c.fate) for c in generated.losses] == [
        ((*ns, "optional_logic"), "approximated"),
        ((*ns, "trigger_percent"), "approximated"),
    ]
    assert all(isinstance(c, Conflict) and c.detail for c in generated.losses)
    assert generated.losses.under("entry", 0)[0].path == ("entry", 0, *ns, "optional_logic")
    translated = {"content": "x", "extensions": {"sillytavern": {"entry": {"delay": 3, "match_whole_words": True}}}}
    assert not to_risu(translated).losses
    # The platform offers them per book, at report paths.

    book = Lorebook.model_validate({"entries": [translated, entry]})
    losses = get_platform("risu").hazards(book)
    assert [c.path for c in losses] == [("entry", 1, *ns, "optional_logic"), ("entry", 1, *ns, "trigger_percent")]


# --- Risu -> SillyTavern -> Risu ----------------------------------------------------------


THROUGH_SILLYTAVERN = [*EXPORTS, MODULE, CHARX]


def _st_paths(record: dict[str, Any]) -> list[str]:
    return [p for p in record["fields"] if p.startswith("extensions.sillytavern.")]


def _at(entry: dict[str, Any], path: str) -> Any:
    node: Any = entry
    for part in path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


@pytest.mark.parametrize("via", ["sillytavern-world", "sillytavern-card"])
@pytest.mark.parametrize("path", corpus_params(THROUGH_SILLYTAVERN, "Risu lorebook"))
def test_risu_decorators_come_back_from_sillytavern(path: Path, via: str) -> None:
    """Risu -> ST -> Risu gives every entry's Risu data back deep-equal (content lines, decorators, enabled)."""

    doc = read(path)
    through = read_bytes(write(doc, via), format=via)
    back = read_bytes(write(through, doc.format), format=doc.format)
    before = [e.dump() for e in as_lorebook(doc).entries]
    after = [e.dump() for e in as_lorebook(back).entries]
    assert len(before) == len(after)
    # The raw Risu content, with the user's decorator lines, is written back byte for byte.
    raw_before = [e["content"] for e in risu_entries_from_lorebook(as_lorebook(doc)) if e.get("mode") != "folder"]
    raw_after = [e["content"] for e in risu_entries_from_lorebook(as_lorebook(back)) if e.get("mode") != "folder"]
    assert raw_after == raw_before
    for old, new in zip(before, after, strict=True):
        assert new.get("content") == old.get("content")
        risu = old["extensions"]["risuai"]
        assert not DeepDiff(risu, new["extensions"]["risuai"])
        record = risu.get("decorators")
        if record is None:
            continue
        if "enabled" in record["fields"]:
            assert new.get("enabled") is False
        for st_path in _st_paths(record):
            assert _at(new, st_path) == _at(old, st_path), st_path
        if "extensions.sillytavern.entry" in record["created"]:
            # No SillyTavern template default is left behind: the extensions are the original ones.
            assert not DeepDiff(old["extensions"], new["extensions"])


def test_real_sillytavern_settings_are_kept_on_the_way_back() -> None:
    """A knob set in SillyTavern is not a template default: it stays, next to the decorators."""
    world = _json(write(read(LOREBOOK), "sillytavern-world"))
    dry_dock = next(e for e in world["entries"].values() if e["comment"] == "Dry Dock")
    dry_dock["sticky"] = 3  # set by the user in SillyTavern
    dry_dock["depth"] = 5  # and the depth decorator changed
    through = read_bytes(json.dumps(world).encode(), format="sillytavern-world")
    raw = _json(write(through, "risu-lorebook"))["data"]
    entry = next(e for e in raw if e["comment"] == "Dry Dock")
    assert entry["content"].startswith("@@depth 5\n@@role system\n")
    assert entry["extentions"]["sillytavern"]["entry"]["sticky"] == 3
    back = read_bytes(write(through, "risu-lorebook"), format="risu-lorebook")
    canonical = next(e.dump() for e in back.lorebook.entries if e.comment == "Dry Dock")
    assert canonical["extensions"]["sillytavern"]["entry"]["depth"] == 5
    assert canonical["extensions"]["sillytavern"]["entry"]["sticky"] == 3


def test_st_enums_of_the_decorator_rewrite_come_from_the_sillytavern_table() -> None:

    table = load("sillytavern")
    assert st_risu.ROLE_NAMES == ("system", "user", "assistant")
    assert {json.loads(k): v for k, v in table.enum_values("entry", "role").items()} == dict(
        enumerate(st_risu.ROLE_NAMES)
    )
    assert st_risu.LOGIC_CODES == {"and_any": 0, "not_all": 1, "not_any": 2, "and_all": 3}
    assert st_risu.AT_DEPTH == 4 and st_risu.AT_DEPTH_VALUES == ("at_depth", "atDepth", 4)
    assert st_risu.LOGIC_BY_DECORATOR == {"exclude_keys_all": 1, "exclude_keys": 2, "additional_keys": 3}
