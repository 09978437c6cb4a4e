"""Agnai profile on the scenario corpus, hand-checked against agnai-novelai.md §1.6.

Prompt lines, newest first (age): 0 "Alex: Where can I find Roderick? ... KRAKEN-BELL ...",
1 "Mira: The ferrymen are on strike, ...", 2 "Alex: ... Is the ferry running?", 3 "Mira: ... The tide is turning."
"""

from __future__ import annotations

from interop.activation.result import Reason
from interop.engine import evaluate
from interop.formats.agnai.activation import AgnaiSettings
from tests.engine.scenario import book, chat, outcome, words

A = "agnai_harbor"


def run(settings: AgnaiSettings | None = None, tokenizer: object = None):
    return evaluate(
        [book("agnai_harbor.json", "agnai")], chat("harbor.jsonl"), "agnai", settings=settings, tokenizer=tokenizer
    )


def e(i: int) -> str:
    return f"{A}#{i}"


def test_keyword_rules() -> None:
    result = run()
    got = outcome(result)
    # §1.6 step 4: whole word, case-insensitive; age = newest matching line
    assert got[e(0)] == (True, Reason.KEY_MATCH) and result.record(e(0)).where == "message 0 (0 = newest)"
    # "*" = any word characters: "ferry*" matches "ferrymen" (line 1)
    assert result.record(e(1)).where == "message 1 (0 = newest)"
    # "?" = one word character, still bounded: "ferr?" skips "ferrymen" and matches "ferry" (line 2)
    assert result.record(e(2)).where == "message 2 (0 = newest)"
    # "_" is stripped: "kraken_bell" looks for "krakenbell"
    assert got[e(3)] == (False, Reason.NO_MATCH)
    # "(" and ")" are stripped, "-" is kept: "kraken-bell" matches KRAKEN-BELL
    assert got[e(4)] == (True, Reason.KEY_MATCH)
    assert got[e(5)] == (False, Reason.DISABLED)
    # no recursion: "guild" is in no chat line
    assert got[e(6)] == (False, Reason.NO_MATCH)
    # no constant entries in Agnai (§1.2: constant is a passthrough)
    assert got[e(7)] == (False, Reason.NO_MATCH)


def test_weight_ordering() -> None:
    # §1.6 step 7: weight descending then age, reversed: highest weight lands last
    assert [a.entry_id for a in run().activated] == [e(8), e(1), e(2), e(4), e(0)]


def test_budget_stops_at_first_misfit() -> None:
    # §1.6 step 6: priority desc, age asc: 0 (4 tokens), 1 (4), 2 (11): 8 + 11 >= 15 -> stop;
    # 4 (6) and 8 (4) would fit but are never tried
    result = run(AgnaiSettings(memory_budget=15), tokenizer=words)
    got = outcome(result)
    assert got[e(0)] == (True, Reason.KEY_MATCH) and got[e(1)] == (True, Reason.KEY_MATCH)
    assert got[e(2)] == (False, Reason.BUDGET)
    assert got[e(4)] == (False, Reason.BUDGET) and got[e(8)] == (False, Reason.BUDGET)
    assert "after the first entry that did not fit" in result.record(e(4)).detail
    assert [a.entry_id for a in result.activated] == [e(1), e(0)]


def test_memory_depth_limits_lines() -> None:
    got = outcome(run(AgnaiSettings(memory_depth=1)))
    assert got[e(0)][0] and not got[e(1)][0] and not got[e(8)][0]
    assert not any(fired for fired, _ in outcome(run(AgnaiSettings(memory_depth=0))).values())
