"""One regex time budget per run and per request (issue 23, item 3): 40 catastrophic keys cost one
budget, not 40 per-search timeouts on each platform."""

from __future__ import annotations

import json
import time

from interop.activation.jsregex import DEFAULT_BUDGET, BudgetSpent, compile_js, regex_budget
from interop.engine import evaluate
from interop.engine.chat_input import Chat, Message
from interop.engine.sidebyside import side_by_side
from interop.engine.sources import book_from_bytes

EVIL = "(x+x+)+y"
"""Exponential backtracking on a run of x without a y (the regex module cannot shortcut it)."""
TALK = Chat((Message("Alex", "user", "x" * 4000),))
KEYS = 40


def hostile_world() -> bytes:
    """A SillyTavern world whose 40 entries each carry a different catastrophic regex key (so the
    per-key "skip after one timeout" cannot help) and, for CCv3/Risu, the regex flag."""
    entries = {
        str(i): {"uid": i, "key": [f"/{EVIL}{i}/"], "content": f"c{i}", "useRegex": True, "use_regex": True}
        for i in range(KEYS)
    }
    return json.dumps({"entries": entries}).encode()


def test_budget_is_shared_by_every_search_inside() -> None:
    pattern = compile_js(EVIL)
    outcomes: list[str] = []
    with regex_budget(0.2) as budget:
        for _ in range(50):  # each search is cut by what is left of the budget, not by its 5 s timeout
            try:
                pattern.test("x" * 4000, timeout=5)
            except BudgetSpent:
                outcomes.append("spent")
                break
            except TimeoutError:
                outcomes.append("timed out")
        with regex_budget(10) as inner:
            assert inner is budget  # nested: the outermost governs
    assert outcomes[0] == "timed out" and outcomes[-1] == "spent"
    assert 0.2 <= budget.spent < 1.0


def test_forty_catastrophic_keys_cost_one_budget_in_a_run() -> None:
    book = book_from_bytes(hostile_world(), "evil.json", "sillytavern")
    started = time.process_time()
    result = evaluate([book], TALK, "sillytavern")
    spent = time.process_time() - started
    assert not any(r.fired for r in result.log)
    assert any("timed out" in w for w in result.warnings)
    assert spent < DEFAULT_BUDGET + 2.0  # per key it was 40 x 0.25 s = 10 s


def test_forty_catastrophic_keys_cost_one_budget_across_platforms() -> None:
    platforms = ("sillytavern", "risu", "ccv3")
    books = {p: [book_from_bytes(hostile_world(), "evil.json", p)] for p in platforms}
    started = time.process_time()
    result = side_by_side(books, TALK)
    spent = time.process_time() - started
    assert all(not any(r.fired for r in result.results[p].log) for p in platforms)
    assert spent < DEFAULT_BUDGET + 3.0  # per key and platform it was 3 x 40 x 0.25 s = 30 s
