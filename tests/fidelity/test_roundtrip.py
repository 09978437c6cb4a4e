"""roundtrip(): source -> target -> source, and which differences the report predicted."""

from __future__ import annotations

from interop.document import Document
from interop.fidelity.roundtrip import document_changes, roundtrip
from interop.model import Card, Lorebook
from tests.st_exporter import FLAT

FULL_V2_FIELDS = dict.fromkeys(
    ("description", "personality", "scenario", "first_mes", "mes_example", "creator_notes", "system_prompt"), ""
) | {"post_history_instructions": "", "creator": "", "character_version": "", "tags": [], "alternate_greetings": []}


def card() -> Document:
    data = {
        "name": "Ilse",
        **FULL_V2_FIELDS,
        "group_only_greetings": [],
        "nickname": "Cap",
        "extensions": {"x": {"y": 1}},
        "character_book": {"name": "B", "entries": [{"keys": ["a"], "content": "A", "id": 1, "use_regex": False}]},
    }
    return Document(
        format="ccv3", card=Card.model_validate({"spec": "chara_card_v3", "spec_version": "3.0", "data": data})
    )


def test_lossless_trip_is_identical() -> None:
    doc = card()
    assert doc.card is not None and doc.card.data.character_book is not None
    doc.card.data.character_book = None
    leg = roundtrip(doc, "ccv2")
    assert leg.back_format == "ccv3" and leg.identical and leg.ok
    assert leg.forward is not None and not leg.forward.has_losses
    assert leg.backward is not None


def test_a_trip_through_a_card_adds_only_required_fields_and_sillytavern_flat_keys() -> None:
    """CCv3 requires enabled/insertion_order/extensions on an entry; SillyTavern's importer
    (``convertCharacterBook``, public/scripts/world-info.js) reads settings only from flat
    ``extensions`` keys, which every card writer adds as ST's exporter writes them."""
    leg = roundtrip(card(), "ccv2")
    assert leg.back_format == "ccv3" and leg.ok and not leg.identical and leg.only_additions
    added = {c.path[2:] for c in leg.changes}
    assert {("enabled",), ("insertion_order",)} <= added
    assert {p[1] for p in added if p[0] == "extensions"} <= FLAT
    assert leg.forward is not None and not leg.forward.has_losses
    assert "entry.enabled = true (1 entries)" in leg.forward.added


def test_lossy_trip_differs_as_predicted() -> None:
    leg = roundtrip(card(), "lorebook_v3")
    assert not leg.identical and leg.ok
    removed = {c.path for c in leg.changes if c.kind == "removed"}
    assert ("card", "nickname") in removed and ("card", "extensions", "x", "y") in removed
    assert {"card.nickname", "card.extensions.x.y"} <= leg.predicted_paths()
    assert leg.unpredicted == []


def test_a_card_without_book_is_skipped_for_lorebook_targets() -> None:
    doc = Document(format="ccv3", card=Card.model_validate({"spec": "chara_card_v3", "data": {"name": "X"}}))
    leg = roundtrip(doc, "character_book")
    assert leg.skipped is not None and "no lorebook" in leg.skipped
    assert leg.forward is None and not leg.identical and leg.ok


def test_additions_are_changes_but_not_failures() -> None:
    # A sparse standalone book written as a card comes back with what the card
    # writer had to fill in; no source field changed.
    book = Document(format="lorebook_v3", lorebook=Lorebook.model_validate({"entries": [{"keys": ["a"]}]}))
    changes = document_changes(book, book)
    assert changes == []
    leg = roundtrip(book, "ccv1")
    assert leg.ok
    assert all(c.kind == "added" for c in leg.changes)



def test_without_a_way_back_a_move_counts_only_where_the_report_says() -> None:
    """A read-only source (.byaf) converted to CHARX: the files move to the CHARX layout and the
    report says where; the round trip accepts exactly those moves (bytes found at the new address,
    descriptor changed only in its uri), nothing else."""
    from dataclasses import replace

    from interop.api import read, read_bytes, write
    from interop.fidelity.roundtrip import _moved_as_reported, roundtrip
    from tests.conftest import PROJECT_CORPUS

    doc = read(PROJECT_CORPUS / "backyard" / "nell_harbour.byaf")
    leg = roundtrip(doc, "charx")
    assert leg.no_way_back and leg.ok and not leg.identical
    assert 'asset["embeded://characters/nell/images/portrait.png"]' in leg.moved
    assert "card.assets[0]" in leg.moved
    charx = read_bytes(write(doc, "charx"), format="charx")
    wrong = replace(leg, moves={k: 'asset["embeded://elsewhere.png"]' for k in leg.moves})
    assert "card.assets[0]" not in _moved_as_reported(wrong, doc, charx)
