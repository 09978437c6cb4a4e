"""Issue 19 item 6: "lost" counts only what a user would miss.

A card field written to a lorebook-kind target has no place there (``not_applicable``); a
value the target applies anyway when the field is absent is ``kept_default``. Both are counted
apart from ``lost``. Checked on real files of the shared corpus: the fates are judged here from
the source file itself (what kind it is, the field's own value), not from the report's wording.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from interop import api
from interop.cli import cli
from interop.fidelity import fidelity_report
from interop.fidelity.view import leaves, view_of
from interop.mappings import FATES
from tests.conftest import PROJECT_CORPUS, SHARED_CORPUS, corpus_params, shared_files

RISU_BOOKS = [p for p in shared_files("risu") if p.suffix == ".json"]
CARDS_WITH_BOOKS = [
    SHARED_CORPUS / "cards-png" / "cf_Arleigh_the_Cheerful_Assassin.png",
    SHARED_CORPUS / "cards-png" / "st_default_Seraphina.png",
]


@pytest.mark.parametrize("path", corpus_params(RISU_BOOKS, "shared-corpus Risu lorebook"))
def test_risu_use_regex_false_is_kept_default_in_a_world(path: Path) -> None:
    """SillyTavern has no use_regex: a key is a regex only when written /pattern/flags
    (SillyTavern public/scripts/world-info.js, parseRegexFromString in checkWorldInfo's key
    matching), so ``use_regex: false`` is what ST applies anyway."""
    doc = api.read(path)
    native = [e for e in json.loads(path.read_bytes())["data"] if e.get("mode") != "folder"]
    report = fidelity_report(doc, "sillytavern-world")
    flags = [i for i in report.items if i.path.endswith(".use_regex")]
    assert sum(1 for i in flags if i.fate == "kept_default") == sum(1 for e in native if e.get("useRegex") is False)
    assert [i.fate for i in flags if i.fate != "kept_default"] == ["translated"] * sum(
        1 for e in native if e.get("useRegex") is True
    )
    assert not [i for i in report.by_fate("lost") if i.path.endswith(".use_regex")]


@pytest.mark.parametrize("path", corpus_params([p for p in CARDS_WITH_BOOKS if p.exists()], "shared-corpus card"))
def test_a_card_to_a_world_file_the_character_is_not_applicable(path: Path) -> None:
    doc = api.read(path)
    assert doc.kind == "card" and doc.book is not None
    report = fidelity_report(doc, "sillytavern-world")
    character = {p for p in leaves(view_of(doc)) if p[0] in ("card", "root")}
    assert character, "the sample has card fields"
    for segments in character:
        name = segments[0] + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in segments[1:])
        item = report.item(name)
        if item is not None and "." in name:
            assert item.fate == "not_applicable", item
    assert report.item("image") is not None and report.item("image").fate == "not_applicable"  # type: ignore[union-attr]
    lost = report.by_fate("lost")
    assert not [i for i in lost if i.path.startswith(("card.", "root.")) or i.path == "image"]
    counts = report.counts
    assert counts["not_applicable"] >= len(character) - 2 and sum(counts.values()) == len(report.items)


def test_a_scenario_s_own_text_is_still_lost_in_a_world() -> None:
    """Not applicable is for a card's fields only: a NovelAI scenario's prompt is its own text."""
    doc = api.read(PROJECT_CORPUS / "novelai" / "quiet_abbey.scenario")
    assert doc.kind != "card"
    report = fidelity_report(doc, "sillytavern-world")
    assert report.item("card.first_mes").fate == "lost"  # type: ignore[union-attr]
    assert report.has_losses


def test_migrate_counts_not_applicable_and_defaults_apart(shared_corpus: Path, tmp_path: Path) -> None:
    out, db = tmp_path / "out", f"sqlite:///{tmp_path / 'cat.db'}"
    result = CliRunner().invoke(
        cli, ["migrate", str(shared_corpus), "--to", "sillytavern-world", "--out", str(out), "--db", db, "--json"]
    )
    assert result.exit_code == 0, result.output
    fates = json.loads(result.stdout[result.stdout.index("{") :])["targets"]["sillytavern-world"]["fates"]
    assert tuple(fates) == FATES
    # every card with a book contributes its character fields; every Risu book its use_regex flags
    assert fates["not_applicable"] > 100 and fates["kept_default"] > 50
    # none of those is also counted lost: recount the lost ones from the source files
    lost_by_hand = 0
    for path in sorted(p for p in shared_corpus.rglob("*") if p.is_file() and p.suffix not in (".tsv", ".md")):
        doc = api.read(path)
        if doc.book is None:
            continue
        report = fidelity_report(doc, "sillytavern-world")
        lost_by_hand += sum(1 for i in report.items if i.fate == "lost")
        if doc.kind == "card":
            assert not [i for i in report.by_fate("lost") if i.path.startswith(("card.", "root."))], path
    assert fates["lost"] == lost_by_hand
