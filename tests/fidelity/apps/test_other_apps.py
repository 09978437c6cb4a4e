"""What RisuAI, Agnai and NovelAI load from a card written from their own sources.

Facts: RisuAI ``src/ts/characterCards.ts`` (``convertCharbook``), Agnai ``common/memory.ts``
(``characterBookToNative``), NovelAI (no card import); ../shared/reference/risu.md 3.1 and
agnai-novelai.md 1.4.
"""

from __future__ import annotations

from interop import api
from interop.fidelity import fidelity_report
from interop.fidelity.apps import agnai_check, apps_for, risu_check
from tests.conftest import PROJECT_CORPUS


def test_the_judging_app() -> None:
    """The target's app; for a generic card target the source's app, else SillyTavern."""
    assert apps_for("sillytavern", "ccv3") == ["sillytavern"]
    assert apps_for("ccv3", "ccv3") == ["sillytavern"]
    assert apps_for("risu", "ccv3") == ["risu"]
    assert apps_for("agnai", "sillytavern") == ["sillytavern"]
    assert apps_for("sillytavern", "risu") == []


def test_risu_card_import_drops_enabled() -> None:
    """``convertCharbook`` drops ``enabled``: a Risu entry switched off with ``@@dont_activate``
    (read as ``enabled: false``) comes back active from a card, and the report says it is lost."""
    doc = api.read(PROJECT_CORPUS / "risu" / "lantern_harbor_lorebook.json")
    report = fidelity_report(doc, "png")
    verdict = next(v for v in report.apps if v.app == "risu")
    assert verdict.via == "convertCharbook (PNG ccv3 chunk)"
    lost = [f for f in verdict.findings if f.path[-1] == "enabled"]
    assert len(lost) == 1 and lost[0].fate == "lost" and report.has_losses


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
