"""Behavioural comparison between platforms (issue 8, item 5): compare_behaviour."""

from __future__ import annotations

import importlib.util

import pytest

from interop.activation.result import EntryInfo, Reason
from interop.engine import compare_behaviour, evaluate
from interop.engine.firing_diff import pair_entries
from interop.errors import ConversionError
from interop.model import Lorebook, LorebookEntry
from tests.engine.scenario import chat

WORLD = {
    "entries": {
        "0": {"uid": 0, "key": ["roderick"], "content": "Roderick owes the guild.", "order": 10},
        "1": {"uid": 1, "key": ["ferry"], "content": "Crossings leave at dawn.", "order": 20},
    }
}
RISU = [
    {"key": "roderick", "content": "Roderick owes the guild.", "insertorder": 10},
    {"key": "ferry", "content": "Crossings leave at dawn.", "insertorder": 20},
]


def test_whole_word_vs_substring_difference() -> None:
    # ST (whole words, depth 2) vs Risu (substring, depth-5 slice) on the harbor chat.
    # Turn 2 (greeting + "...Is the ferry running?"): both fire "ferry".
    # Turn 4: only "ferrymen" is in reach: ST's whole-word rule fails (sillytavern.md §7 step 4),
    # Risu's substring rule matches (risu.md §6 step 5).
    diffs = compare_behaviour([("world", WORLD)], "sillytavern", [("risu", RISU)], "risu", [chat("harbor.jsonl")])
    assert [(d.turn, d.source_entry, d.target_entry, d.fired_source, d.fired_target) for d in diffs] == [
        (4, "world.1", "risu#1", False, True)
    ]
    assert diffs[0].source_reason == Reason.NO_MATCH and diffs[0].target_reason.startswith(Reason.KEY_MATCH)
    assert "does not fire on the source" in diffs[0].describe()


def test_same_platform_same_book_has_no_difference() -> None:
    assert compare_behaviour([("w", WORLD)], "sillytavern", [("w", WORLD)], "sillytavern", [chat("harbor.jsonl")]) == []


def test_missing_counterpart_is_reported() -> None:
    diffs = compare_behaviour([("w", WORLD)], "sillytavern", [("r", RISU[:1])], "risu", [chat("harbor.jsonl")])
    assert {(d.source_entry, d.target_entry, d.target_reason) for d in diffs} == {("w.1", None, Reason.NO_COUNTERPART)}


def test_pairing_by_uid_then_keys_and_content() -> None:
    source = [EntryInfo("a", "A", 7, ("x",), "one"), EntryInfo("b", "B", None, ("y",), "two")]
    target = [EntryInfo("t1", "B", None, ("Y",), "two"), EntryInfo("t2", "A", "7", ("z",), "changed")]
    assert pair_entries(source, target) == {"a": "t2", "b": "t1"}


def test_canonical_books_go_through_the_adapter() -> None:
    book = Lorebook(
        name="Harbor",
        entries=[LorebookEntry(keys=["roderick"], content="Roderick lore.", enabled=True, insertion_order=1, id=0)],
    )
    if importlib.util.find_spec("interop.formats.sillytavern") is None:
        with pytest.raises(ConversionError, match="adapter"):
            evaluate([book], chat("harbor.jsonl"), "sillytavern")
        return
    result = evaluate([book], chat("harbor.jsonl"), "sillytavern")
    assert [r.fired for r in result.log] == [True]
    # the migrated book behaves like the neutral spec reading on this chat
    assert compare_behaviour([book], "ccv3", [book], "sillytavern", [chat("harbor.jsonl")]) == []
