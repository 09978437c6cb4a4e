"""What RisuAI, Agnai and NovelAI load from a card written from their own sources.

Facts: RisuAI ``src/ts/characterCards.ts`` (``convertCharbook``), Agnai ``common/memory.ts``
(``characterBookToNative``), NovelAI (no card import); ../shared/reference/risu.md 3.1 and
agnai-novelai.md 1.4.
"""

from __future__ import annotations

import json

import pytest

from interop import api
from interop.fidelity import fidelity_report
from interop.fidelity.apps import apps_for
from interop.formats.agnai import app_model as agnai_check
from interop.formats.risu import app_model as risu_check
from interop.formats.sillytavern import app_load as st
from tests.conftest import PROJECT_CORPUS


def test_the_judging_app() -> None:
    """The target's app; for a generic card target the source's app, else SillyTavern."""
    assert apps_for("sillytavern", "ccv3") == ["sillytavern"]
    assert apps_for("ccv3", "ccv3") == ["sillytavern"]
    assert apps_for("risu", "ccv3") == ["risu"]
    assert apps_for("agnai", "sillytavern") == ["sillytavern"]
    assert apps_for("sillytavern", "risu") == []


CARD_BOOK_TARGETS = ("ccv3", "ccv2", "png", "charx", "character_book", "lorebook_v3")


def _disabled(doc: api.Document) -> list[int]:
    assert doc.book is not None
    return [i for i, e in enumerate(doc.book.entries) if e.enabled is False]


@pytest.mark.parametrize("target", CARD_BOOK_TARGETS)
def test_risu_disabled_entry_keeps_its_dont_activate_line_in_a_card(target: str) -> None:
    """``convertCharbook`` drops ``enabled``, and Risu's engine honours ``@@dont_activate``: a Risu entry
    switched off with that line (read as ``enabled: false``) gets it back in the card's content, so
    Risu loads it off; the report says ``translated`` and the way back gives the Risu file again.
    SillyTavern knows the decorator (``KNOWN_DECORATORS``, public/scripts/world-info.js) and loads the
    entry disabled (``disable = !enabled``, ``convertCharacterBook``) either way."""
    path = PROJECT_CORPUS / "risu" / "lantern_harbor_lorebook.json"
    doc = api.read(path)
    off = _disabled(doc)
    assert off, "the sample has a Risu-disabled entry"
    data = api.write(doc, target)
    report = fidelity_report(doc, target, data)
    verdict = next(v for v in report.apps if v.app == "risu")
    assert [f for f in verdict.findings if f.path[-1] == "enabled"] == []
    for index in off:
        assert report.item(f"entry[{index}].enabled").fate == "translated"  # type: ignore[union-attr]
        assert report.item(f"entry[{index}].content").fate == "kept"  # type: ignore[union-attr]
    out = api.read_bytes(data, format=target)
    assert out.book is not None
    for index in off:
        entry = out.book.entries[index]
        assert entry.content.startswith("@@dont_activate\n") and entry.enabled is False  # type: ignore[union-attr]
        assert risu_check.loaded(entry.dump())["enabled"] is False
    loaded = st.load(data, "out")
    if loaded is not None:
        assert all(loaded.entries[i]["disable"] is True for i in off)
    source = [e for e in json.loads(path.read_text())["data"]]
    back = json.loads(api.write(out, "risu-lorebook"))["data"]
    assert [e["content"] for e in back] == [e["content"] for e in source]
    assert api.write(out, target) == data  # written again into the same format: no second line


def test_only_risu_disabled_entries_get_the_line() -> None:
    """An entry disabled in SillyTavern gets no line: ST would load a different content."""
    world = {"entries": {"0": {"uid": 0, "key": ["a"], "content": "A", "disable": True}}}
    doc = api.read_bytes(json.dumps(world).encode(), filename="w.json")
    entry = json.loads(api.write(doc, "ccv3"))["data"]["character_book"]["entries"][0]
    assert entry["content"] == "A" and entry["enabled"] is False


def test_risu_loads_an_entry_with_dont_activate_as_off() -> None:
    assert risu_check.loaded({"keys": ["k"], "content": "@@dont_activate\nX"})["enabled"] is False
    assert risu_check.loaded({"keys": ["k"], "content": "X\n@@dont_activate"})["enabled"] is True


def test_risu_card_import_splits_keys_on_commas() -> None:
    """``key = keys.join(', ')``, split on ',' later: a key holding a comma becomes two keys."""
    assert risu_check.loaded({"keys": ["a, b", "c"]})["keys"] == ["a", "b", "c"]
    assert risu_check.loaded({"keys": ["x"], "use_regex": True})["use_regex"] is False  # keys[0] lacks '/'


def test_agnai_card_import_defaults() -> None:
    """``memoryEntryToNative``: name 'Unnamed', priority 100, weight = insertion_order (100)."""
    assert agnai_check.loaded({"keys": ["k"], "content": "c", "enabled": True}) == {
        "keywords": ["k"], "entry": "c", "name": "Unnamed", "priority": 100, "weight": 100, "enabled": True,
    }


def test_agnai_book_to_a_card_loads_the_same_in_agnai() -> None:
    doc = api.read(PROJECT_CORPUS / "agnai" / "book_from_sillytavern.json")
    verdict = next(v for v in fidelity_report(doc, "ccv3").apps if v.app == "agnai")
    assert verdict.compared > 0 and verdict.findings == []


def test_novelai_has_no_card_import() -> None:
    doc = api.read(PROJECT_CORPUS / "novelai" / "veyra_v6.lorebook")
    verdict = next(v for v in fidelity_report(doc, "ccv3").apps if v.app == "novelai")
    assert verdict.findings == [] and "no character-card import" in verdict.notes[0]
