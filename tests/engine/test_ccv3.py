"""The ccv3 profile (the spec's neutral semantics), hand-checked against spec/character-card-v3.txt.

Book: scan_depth 2, token_budget 40, recursive_scanning false. Messages newest first (no names):
0 "Where can I find Roderick? ...", 1 "The ferrymen are on strike, ...". Assistant messages so far: 2.
"""

from __future__ import annotations

from interop.activation.result import Reason
from interop.engine import evaluate, simulate
from interop.engine.chat_input import Chat, Message
from interop.model import Lorebook, LorebookEntry
from tests.engine.scenario import book, chat, outcome, words

H = "Harbor"


def run():
    return evaluate([book("ccv3_harbor.json", "ccv3")], chat("harbor.jsonl"), "ccv3", tokenizer=words)


def e(i: int) -> str:
    return f"{H}#{i}"


def test_fields_and_decorators() -> None:
    got = outcome(run())
    assert got[e(0)] == (True, Reason.KEY_MATCH)
    assert got[e(1)] == (True, Reason.KEY_MATCH)  # keys match as substrings ("ferrymen")
    assert got[e(2)] == (False, Reason.NO_MATCH)  # recursive_scanning false: other contents never match
    assert got[e(3)] == (False, Reason.SECONDARY_LOGIC)  # selective: one secondary key must match
    assert got[e(4)] == (False, Reason.DISABLED)  # enabled false: not a match "in any case"
    assert got[e(5)] == (False, Reason.DECORATOR_CONDITION)  # @@activate_only_after 3 > 2 assistant messages
    assert got[e(7)] == (True, Reason.CONSTANT)
    assert got[e(8)] == (False, Reason.NO_MATCH)  # constant is ignored when use_regex is true
    assert got[e(9)] == (True, Reason.KEY_MATCH)  # use_regex: keys are regex patterns
    assert got[e(10)] == (False, Reason.EXCLUDE_KEYS)
    assert got[e(11)] == (False, Reason.ADDITIONAL_KEYS)
    assert got[e(12)] == (False, Reason.DECORATOR_DONT_ACTIVATE)


def test_fallback_decorator() -> None:
    placed = {a.entry_id: a for a in run().activated}
    # an unknown decorator falls back to its @@@ line (decorators section: fallback)
    assert (placed[e(6)].position, placed[e(6)].depth, placed[e(6)].role) == ("depth", 1, "user")


def test_budget_drops_ignore_on_max_context_first_and_orders_by_insertion_order() -> None:
    result = run()
    # 5 + 5 + 4 + 16 + 9 + 6 = 45 > 40: @@ignore_on_max_context goes first, despite priority 50
    assert outcome(result)[e(13)] == (False, Reason.BUDGET)
    assert result.tokens_used == 39
    # insertion_order ascending: lower is added earlier
    assert [a.entry_id for a in result.activated] == [e(7), e(1), e(0), e(6), e(9)]


def test_keep_activate_after_match() -> None:
    lore = Lorebook(
        entries=[
            LorebookEntry(
                keys=["storm"], content="@@keep_activate_after_match\nStorm.", enabled=True, insertion_order=0
            )
        ],
        scan_depth=1,
    )
    talk = Chat(
        (Message("Alex", "user", "A storm!"), Message("Mira", "assistant", "Cover."), Message("Alex", "user", "Calm."))
    )
    results = simulate([lore], talk, "ccv3")
    assert [outcome(r)["book0#0"] for r in results] == [(True, Reason.KEY_MATCH), (True, Reason.KEEP_AFTER_MATCH)]


def test_recursive_scanning_when_the_book_allows_it() -> None:
    data = book("ccv3_harbor.json", "ccv3")
    data = data.model_copy(update={"recursive_scanning": True})
    result = evaluate([data], chat("harbor.jsonl"), "ccv3", tokenizer=words)
    # "guild" is in entry 0's content
    assert outcome(result)[e(2)] == (True, Reason.KEY_MATCH)
    assert result.record(e(2)).where == "recursion (Harbor#0)"
