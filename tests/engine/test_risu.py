"""RisuAI profile on the scenario corpus, hand-checked against risu.md §6 (activation), §3.5 (decorators), §0.13.

Risu's view of the harbor chat: the greeting is not a message (chat length = 3 + 1), and the
default scan depth 5 slices from index 3 - 5 = -2, i.e. only the last two messages (§6 step 5).
"""

from __future__ import annotations

from interop.activation.result import Reason
from interop.engine import evaluate, simulate
from interop.engine.chat_input import Chat, Message
from interop.formats.risu.activation import RisuSettings, migrate_entry
from tests.engine.scenario import book, chat, fired, outcome, words

R = "risu_harbor"


def run(settings: RisuSettings | None = None, seed: int = 0):
    return evaluate([book("risu_harbor.json", "risu")], chat("harbor.jsonl"), "risu", settings=settings, seed=seed)


def e(i: int) -> str:
    return f"{R}#{i}"


def test_matching_rules() -> None:
    result = run()
    got = outcome(result)
    assert got[e(0)] == (True, Reason.KEY_MATCH)  # comma-split keys (§1 key)
    # §6 step 5 quirk: depth 5 > 3 messages slices fewer messages; "Glass Isles" is in the dropped one.
    # It still fires in pass 2, through entry 2's content (recursion text, §6 step 6).
    assert result.record(e(1)).step == 2 and result.record(e(1)).where == "lorebook Glass Isles (depth 3)"
    # @@scan_depth 3 covers all three messages
    assert got[e(2)] == (True, Reason.KEY_MATCH) and result.record(e(2)).step == 1
    # plain keys are substrings: "ferry" in "ferrymen"; full-word mode splits on spaces only
    assert got[e(3)] == (True, Reason.KEY_MATCH)
    assert got[e(4)] == (False, Reason.NO_MATCH)
    # spaces are removed from text and key: "old Captain" matches "oldcaptain"
    assert got[e(5)] == (True, Reason.KEY_MATCH)


def test_regex_key_quirks() -> None:
    got = outcome(run())
    # §0.13: "/roderick/i" compiles to the pattern "/roderick" (the leading slash stays)
    assert got[e(6)] == (False, Reason.NO_MATCH)
    # no flags: the key is skipped
    assert got[e(7)] == (False, Reason.NO_MATCH)


def test_regex_key_with_slash_in_text_and_non_slash_key() -> None:
    entries = [
        {"key": "/dock/i", "content": "Dock lore.", "insertorder": 1, "useRegex": True, "comment": "slash"},
        {"key": "dock, /dock/i", "content": "Mixed.", "insertorder": 2, "useRegex": True, "comment": "mixed"},
    ]
    talk = Chat((Message("Alex", "user", "Meet me at the /DOCK tonight."),))
    got = outcome(evaluate([entries], talk, "risu"))
    assert got["book0#0"] == (True, Reason.KEY_MATCH)
    # a key not starting with "/" ends the regex search with "no match" (§0.13)
    assert got["book0#1"] == (False, Reason.NO_MATCH)


def test_secondary_keys_see_recursion_text_of_the_same_pass() -> None:
    result = run()
    # "guild" appears only in entry 0's content, activated earlier in the same pass (§6 step 6)
    assert outcome(result)[e(8)] == (True, Reason.KEY_MATCH) and result.record(e(8)).step == 1


def test_decorators() -> None:
    result = run()
    got = outcome(result)
    assert got[e(9)] == (False, Reason.ADDITIONAL_KEYS)  # @@additional_keys: an AND group
    assert got[e(10)] == (False, Reason.EXCLUDE_KEYS)  # @@exclude_keys: "strike" present
    assert got[e(11)] == (False, Reason.DECORATOR_CONDITION)  # @@activate_only_after 5 > chat length 4
    assert got[e(12)] == (False, Reason.DECORATOR_CONDITION)  # @@is_greeting 1, greeting 0
    assert got[e(14)] == (False, Reason.PROBABILITY)  # @@probability 0
    assert got[e(15)] == (True, Reason.CONSTANT)  # alwaysActive
    assert got[e(16)] == (False, Reason.NO_KEYS)  # empty key: skipped before decorators
    assert got[e(17)] == (False, Reason.DECORATOR_DONT_ACTIVATE)


def test_fallback_decorator_and_placement() -> None:
    result = run()
    placed = {a.entry_id: a for a in result.activated}
    # @@instruct_depth returns false in Risu, so the @@@depth fallback runs (§3.5)
    assert (placed[e(13)].position, placed[e(13)].depth, placed[e(13)].role) == ("depth", 3, "assistant")
    assert placed[e(0)].position == "lorebook" and placed[e(0)].role == "system"


def test_inject_lore_and_unrecursive() -> None:
    result = run()
    placed = {a.entry_id: a for a in result.activated}
    # @@inject_lore appends to the entry titled "Roderick's debt" and is not inserted itself (§6 step 8)
    assert placed[e(0)].content == "Roderick owes the guild. He pays in pearls."
    assert e(18) not in placed and result.record(e(18)).fired
    # @@unrecursive: 19 fires but its content is not scanned, so "lighthouse" stays off
    assert outcome(result)[e(19)] == (True, Reason.KEY_MATCH)
    assert outcome(result)[e(20)] == (False, Reason.NO_MATCH)


def test_order_ascending_insertorder() -> None:
    result = run()
    assert [a.entry_id for a in result.activated] == [e(i) for i in (0, 1, 2, 3, 5, 8, 13, 15, 19)]
    assert result.steps == 3


def test_recursion_off() -> None:
    result = run(RisuSettings(recursive=False))
    # 1 needs entry 2's content; 8's secondary key needs entry 0's content
    assert outcome(result)[e(1)] == (False, Reason.NO_MATCH)
    assert outcome(result)[e(8)] == (False, Reason.SECONDARY_LOGIC)


def test_budget_walk_keeps_going() -> None:
    # §6 step 7: sorted by priority, each entry kept if it still fits; no stop at the first misfit
    entries = [
        {"key": "tide", "content": "one two three four five six seven eight", "insertorder": 10, "comment": "A"},
        {"key": "tide", "content": "@@priority 5\none two three four five", "insertorder": 30, "comment": "B"},
        {"key": "tide", "content": "@@priority 1\none two", "insertorder": 20, "comment": "C"},
        {"key": "tide", "content": "@@ignore_on_max_context\none", "insertorder": 40, "comment": "D"},
    ]
    talk = Chat((Message("Alex", "user", "The tide rises."),))
    result = evaluate([entries], talk, "risu", settings=RisuSettings(token_budget=10), tokenizer=words)
    got = outcome(result)
    assert got["book0#0"] == (True, Reason.KEY_MATCH)  # priority 10 (insertorder): 8 tokens
    assert got["book0#1"] == (False, Reason.BUDGET)  # priority 5: 8 + 5 > 10
    assert got["book0#2"] == (True, Reason.KEY_MATCH)  # priority 1: 8 + 2 = 10 fits
    assert got["book0#3"] == (False, Reason.BUDGET)  # priority -1000: 11 > 10
    assert [a.entry_id for a in result.activated] == ["book0#0", "book0#2"]  # ascending insertorder


def test_keep_activate_after_match_persists_in_chat_state() -> None:
    entries = [{"key": "storm", "content": "@@keep_activate_after_match\nStorm lore.", "insertorder": 1, "id": "s1"}]
    talk = Chat(
        (
            Message("Alex", "user", "A storm!"),
            Message("Mira", "assistant", "Take cover."),
            Message("Alex", "user", "It is calm now."),
        )
    )
    results = simulate([entries], talk, "risu", settings=RisuSettings(scan_depth=1))
    assert [outcome(r)["book0#0"] for r in results] == [
        (True, Reason.KEY_MATCH),  # turn 1: matched, remembered in __internal_ka_s1
        (True, Reason.KEEP_AFTER_MATCH),  # turn 3: "storm" is out of the window, still active
    ]


def test_child_entry_copies_its_parent() -> None:
    parent = {"key": "zzz", "content": "Parent lore.", "insertorder": 1, "id": "p1", "comment": "Parent"}
    child = {"key": "", "content": "", "insertorder": 2, "id": "p1", "mode": "child", "alwaysActive": True}
    result = evaluate([[parent], [child]], Chat((Message("Alex", "user", "hello"),)), "risu")
    assert outcome(result)["book1#0"] == (True, Reason.CHILD)
    assert [a.content for a in result.activated] == ["Parent lore."]


def test_legacy_entries_are_migrated() -> None:
    # risu.md §0.3: activationPercent -> @@probability, @@end -> @@depth 0 on first open
    entries = [{"key": "tide", "content": "@@end\nTide lore.", "insertorder": 1, "activationPercent": 100}]
    result = evaluate([entries], Chat((Message("Alex", "user", "tide"),)), "risu")
    assert [(a.position, a.depth) for a in result.activated] == [("depth", 0)]


def test_probability_is_seeded() -> None:
    entries = [{"key": "tide", "content": f"@@probability 50\nLore {i}.", "insertorder": i} for i in range(8)]
    talk = Chat((Message("Alex", "user", "tide"),))
    once = RisuSettings(recursive=False)  # one pass: one roll per entry
    first = fired(evaluate([entries], talk, "risu", settings=once, seed=3))
    assert first == fired(evaluate([entries], talk, "risu", settings=once, seed=3))
    assert 0 < len(first) < 8


# ---- issue 12: RisuAI classes R1-R3 (src/ts/process/lorebook.svelte.ts, loadLoreBookV3Prompt) ----


def _risu_chat(*texts: str) -> Chat:
    greeting = Message("Mira", "assistant", "Welcome.", greeting=True)
    return Chat((greeting, *(Message("Alex", "user", t) for t in texts)), user="Alex")


def test_regex_keys_only_work_on_the_oldest_message() -> None:
    """R1. ``searchMatch`` assigns ``arg.keys[0] = regexString.replace('/'+regexFlag, '')`` inside
    its loop over the scanned texts (oldest message first). On the second text the key is
    ``/dragon``, whose "flags" ``dragon`` make ``new RegExp`` throw: ``catch { return false }``.
    So "/dragon/i" fires only when the match is in the oldest message of the window."""
    entry = [{"key": "/dragon/i", "useRegex": True, "content": "Dragon lore.", "insertorder": 100}]
    late = evaluate([entry], _risu_chat("hello there", "the /dragon roars"), "risu")
    early = evaluate([entry], _risu_chat("the /dragon roars", "hello there"), "risu")
    assert fired(late) == [] and fired(early) == ["book0#0"]
    assert any("RisuAI bug" in w for w in late.warnings)


def test_regex_key_decays_into_an_empty_regex() -> None:
    """R1. Key ``/gim/s``: first text: pattern ``/gim`` with flags ``s`` (no match in "hello");
    second text: ``"/gim".split('/').pop()`` is ``gim``, the pattern becomes "" and
    ``new RegExp("", "gim")`` matches anything."""
    entry = [{"key": "/gim/s", "useRegex": True, "content": "Anything.", "insertorder": 100}]
    assert fired(evaluate([entry], _risu_chat("hello", "world"), "risu")) == ["book0#0"]
    assert fired(evaluate([entry], _risu_chat("hello"), "risu")) == []


def test_position_without_argument_fails_the_lorebook_prompt() -> None:
    """R2. ``case 'position': if(arg[0].startsWith('pt_') || ...)``: ccardlib's ``parseDecorators``
    filters empty arguments, so ``@@position`` alone calls ``undefined.startsWith`` and the
    TypeError escapes ``loadLoreBookV3Prompt``: no lorebook prompt at all."""
    entries = [
        {"key": "dragon", "content": "Dragon lore.", "insertorder": 100},
        {"key": "guild", "content": "@@position\nGuild lore.", "insertorder": 100},
    ]
    result = evaluate([entries], _risu_chat("the dragon and the guild"), "risu")
    assert result.activated == [] and fired(result) == []
    assert result.error is not None and "@@position" in result.error
    assert result.record("book0#1").reason == Reason.PLATFORM_ERROR


def test_depth_accepts_hexadecimal() -> None:
    """R3. ``case 'depth': const int = parseInt(arg[0])``: ``parseInt("0x4")`` is 4 (a 0x prefix
    switches to base 16 when no radix is given)."""
    entry = [{"key": "dragon", "content": "@@depth 0x4\nDragon lore.", "insertorder": 100}]
    result = evaluate([entry], _risu_chat("the dragon"), "risu")
    assert [(a.position, a.depth) for a in result.activated] == [("depth", 4)]


# ---- issue 24 items 5 and 6 (RisuAI at kwaroran/RisuAI 460ecae2, 2025-12-31) ----------------


def test_legacy_activation_percent_is_a_truth_test() -> None:
    """``updateLorebooks`` (src/ts/characters.ts): ``bookVersion ??= 1``; below 2, ``if
    (v.activationPercent)`` is a truth test and the value goes into a template literal. So 0 adds
    no ``@@probability`` (the entry fires), "50" adds ``@@probability 50``, and a string "0" is
    truthy and adds ``@@probability 0``; ``bookVersion: "2"`` passes ``>= 2`` and is left alone
    (each case run through the real function in Node 20)."""
    assert migrate_entry({"content": "A", "activationPercent": 0})["content"] == "A"
    assert migrate_entry({"content": "B", "activationPercent": "50"})["content"] == "@@probability 50\nB"
    assert migrate_entry({"content": "C", "activationPercent": 0.5})["content"] == "@@probability 0.5\nC"
    assert migrate_entry({"content": "D", "activationPercent": "0"})["content"] == "@@probability 0\nD"
    kept = {"content": "E", "activationPercent": 30, "bookVersion": "2"}
    assert migrate_entry(kept) is kept
    entries = [{"key": "tide", "content": "Tide lore.", "insertorder": 1, "activationPercent": 0}]
    assert fired(evaluate([entries], Chat((Message("Alex", "user", "tide"),)), "risu")) == ["book0#0"]


def test_string_insertorder_sorts_as_a_number() -> None:
    """``loadLoreBookV3Prompt`` keeps ``order`` and ``priority`` as the raw ``insertorder`` and sorts
    with ``b.priority - a.priority`` and ``b.order - a.order``: subtraction converts "10" to 10,
    so a string sorts numerically (budget walk by priority, output ascending by order)."""
    entries = [
        {"key": "", "alwaysActive": True, "content": "ten", "insertorder": "10", "comment": "a"},
        {"key": "", "alwaysActive": True, "content": "two", "insertorder": "2", "comment": "b"},
        {"key": "", "alwaysActive": True, "content": "five", "insertorder": 5, "comment": "c"},
    ]
    talk = Chat((Message("Alex", "user", "hello"),))
    result = evaluate([entries], talk, "risu")
    assert [a.content for a in result.activated] == ["two", "five", "ten"]
    assert [a.order for a in result.activated] == [2, 5, 10]
    tight = RisuSettings(token_budget=result.activated[0].tokens)  # room for one entry: the highest priority
    assert [a.content for a in evaluate([entries], talk, "risu", settings=tight).activated] == ["ten"]
