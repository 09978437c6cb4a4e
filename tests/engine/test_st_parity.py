"""Issues 12 and 24: the SillyTavern classes where the engine differed from the real app.

Each expected result is read from SillyTavern's source (1.15-era ``public/scripts/world-info.js``:
``checkWorldInfo``, ``WorldInfoBuffer``, ``filterByInclusionGroups``, ``parseRegexFromString``;
``public/script.js`` ``Generate``; ``public/scripts/tokenizers.js`` ``guesstimate``), as cited per test.
The world is named ``w``; the chat is the greeting "Welcome to Vellmar." by Mira, then
"Tell me about the dragon and the guild." by Alex, unless a test says otherwise. Settings are the
shipped defaults (depth 2: both messages are scanned; whole words on; recursion on).
"""

from __future__ import annotations

import random
from typing import Any

from interop.activation.result import Reason
from interop.activation.tokenizers import CharsTokenizer
from interop.engine import evaluate, simulate
from interop.engine.chat_input import Character, Chat, Message, chat_from_records
from interop.formats.sillytavern.activation import STBook, STSettings
from tests.engine.scenario import fired

GREETING = Message("Mira", "assistant", "Welcome to Vellmar.", greeting=True)
ASK = Message("Alex", "user", "Tell me about the dragon and the guild.")
CHAT = Chat((GREETING, ASK), user="Alex")


def run(entries: dict[str, dict[str, Any]], chat: Chat = CHAT, **kwargs: Any):
    return evaluate([("w", {"entries": entries})], chat, "sillytavern", **kwargs)


def history(record) -> str:
    """A log record's decisions over all passes."""
    return " | ".join((*record.earlier, record.detail))


def placed(result) -> list[str]:
    return [a.entry_id for a in result.activated]


# ---- 1. order inside an outlet -------------------------------------------------------------


def test_outlet_entries_highest_order_first() -> None:
    """checkWorldInfo's assembly sorts by ``sortFn`` (order descending) and builds every position
    list with ``unshift`` except ``WIOutletEntries[entry.outletName].push(content)``: an outlet
    lists its entries highest order first, while the other positions end up ascending."""
    outlet = {"position": 7, "outletName": "o"}
    result = run(
        {
            "0": {"uid": 0, "key": ["dragon"], "content": "D", "order": 10, **outlet},
            "1": {"uid": 1, "key": ["guild"], "content": "G", "order": 90, **outlet},
            "2": {"uid": 2, "key": ["vellmar"], "content": "V", "order": 50, **outlet},
            "3": {"uid": 3, "key": ["dragon"], "content": "B1", "order": 90, "position": 0},
            "4": {"uid": 4, "key": ["guild"], "content": "B2", "order": 10, "position": 0},
        }
    )
    outlets = [a.entry_id for a in result.activated if a.position == "outlet"]
    assert outlets == ["w.1", "w.2", "w.0"]
    assert [a.entry_id for a in result.activated if a.position == "before_char"] == ["w.4", "w.3"]


# ---- 2. position missing or null ----------------------------------------------------------


def test_missing_or_null_position_fires_but_is_injected_nowhere() -> None:
    """The assembly ``switch (entry.position)`` has no case for undefined/null and its ``default``
    only breaks: the entry is activated (it counts toward the budget and feeds recursion) but
    lands in no prompt list."""
    result = run(
        {
            "0": {"uid": 0, "key": ["dragon"], "content": "A griffin guards the dragon."},
            "1": {"uid": 1, "key": ["guild"], "content": "B", "position": None},
            "2": {"uid": 2, "key": ["griffin"], "content": "C", "position": 0},
        }
    )
    assert fired(result) == ["w.0", "w.1", "w.2"]
    assert placed(result) == ["w.2"]  # w.2 fired through w.0's content (recursion, step 2)
    assert result.record("w.2").step == 2
    assert "no position" in result.record("w.0").detail
    assert result.record("w.0").detail.endswith("nothing injected")


def test_missing_position_still_spends_the_budget() -> None:
    """Unplaced entries' contents are in ``newContent`` when the budget is checked."""
    words = lambda text: len(text.split())  # noqa: E731 - a hand-checkable tokenizer
    settings = STSettings(max_context=100, budget=10)  # budget = round(10 x 100 / 100) = 10 tokens
    result = run(
        {
            "0": {"uid": 0, "key": ["dragon"], "content": "one two three four five six", "order": 90},
            "1": {"uid": 1, "key": ["guild"], "content": "seven eight nine ten", "position": 0, "order": 10},
        },
        settings=settings,
        tokenizer=words,
    )
    assert result.record("w.1").reason == Reason.BUDGET  # 6 + 4 >= 10 with the unplaced entry counted
    assert placed(result) == []


# ---- 3. entries without uid -------------------------------------------------------------------


def test_entries_without_uid_collapse_to_world_undefined() -> None:
    """``allActivatedEntries.set(`${entry.world}.${entry.uid}`, entry)``: without a uid both entries
    are "w.undefined", so the second one set replaces the first (a JS Map keeps the key, takes the
    new value), and later passes skip any entry whose key is taken."""
    result = run(
        {
            "0": {"key": ["dragon"], "content": "First", "position": 0},
            "1": {"key": ["guild"], "content": "Second", "position": 0},
            "2": {"key": ["first"], "content": "Third", "position": 0},  # would fire by recursion
        }
    )
    assert placed(result) == ["w.1"]
    assert result.record("w.0").reason == Reason.DUPLICATE_KEY
    assert "'w.undefined'" in result.record("w.0").detail
    assert not result.record("w.2").fired  # "w.undefined" is already activated


# ---- 4. keys " " and BOM-trimmed keys ---------------------------------------------------------


def test_space_key_matches_every_scan_and_bom_is_trimmed() -> None:
    """``substituteParams(key)`` is truthy for " ", then ``matchKeys(text, " ".trim())`` tests the
    empty needle: with whole words, ``(?:^|\\W)()(?:$|\\W)`` matches the scan text (it starts with
    ``\\x01``), without them ``includes("")`` is true. JavaScript's ``trim()`` strips U+FEFF, so
    "dragon\\ufeff" is the key "dragon"."""
    entries = {
        "0": {"uid": 0, "key": [" "], "content": "A", "position": 0},
        "1": {"uid": 1, "key": ["dragon\ufeff"], "content": "B", "position": 0},
        "2": {"uid": 2, "key": [""], "content": "C", "position": 0},  # "" is falsy: skipped
    }
    result = run(entries)
    assert fired(result) == ["w.0", "w.1"]
    assert "blank key" in result.record("w.0").detail  # said in --trace
    assert fired(run(entries, settings=STSettings(match_whole_words=False))) == ["w.0", "w.1"]


# ---- 5. group scoring without selectiveLogic -----------------------------------------------


def test_group_scoring_counts_primary_keys_without_selective_logic() -> None:
    """``getScore`` adds secondary hits only inside ``switch (entry.selectiveLogic)`` cases AND_ANY (0)
    and AND_ALL (3); the switch has no default, so a missing logic scores the primary keys alone
    (e0 = 1, e1 = 2) and e1 wins. The activation check itself reads ``selectiveLogic ?? 0``."""
    group = {"group": "g", "useGroupScoring": True, "position": 0}
    result = run(
        {
            "0": {"uid": 0, "key": ["dragon"], "keysecondary": ["guild", "tell"], "selective": True, **group},
            "1": {"uid": 1, "key": ["dragon", "vellmar"], **group},
        }
    )
    assert fired(result) == ["w.1"]
    assert result.record("w.0").reason == Reason.GROUP_LOST
    assert "score 1 < 2" in history(result.record("w.0"))  # pass 1 (pass 2: the group is taken)


# ---- 6. JavaScript coercion of string-typed fields --------------------------------------------


def test_disable_is_compared_loosely_with_true() -> None:
    """``if (entry.disable == true)``: "false" and even "true" are not == true (ToNumber gives NaN),
    "1" and 1 are."""
    entries = {
        str(i): {"uid": i, "key": ["dragon"], "content": f"E{i}", "position": 0, "disable": value}
        for i, value in enumerate(["false", "true", "1", 1, True, 0])
    }
    result = run(entries)
    assert fired(result) == ["w.0", "w.1", "w.5"]
    assert "is not == true" in result.record("w.1").detail  # said in --trace


def test_string_order_sorts_numerically() -> None:
    """``sortFn = (a, b) => b.order - a.order``: subtraction converts "5" to 5 (and null to 0)."""
    result = run(
        {
            "0": {"uid": 0, "key": ["dragon"], "content": "A", "order": "5", "position": 0},
            "1": {"uid": 1, "key": ["dragon"], "content": "B", "order": 10, "position": 0},
            "2": {"uid": 2, "key": ["dragon"], "content": "C", "order": None, "position": 0},
        }
    )
    assert placed(result) == ["w.2", "w.0", "w.1"]  # ascending: 0, 5, 10
    assert [a.order for a in result.activated] == [0, 5, 10]


def test_string_selective_logic_never_fires() -> None:
    """``const selectiveLogic = entry.selectiveLogic ?? 0`` is then compared with ``===`` to 0..3:
    "1" equals none of them, so ``matchSecondaryKeys`` returns false."""
    result = run(
        {
            "0": {"uid": 0, "key": ["dragon"], "keysecondary": ["guild"], "selective": True, "selectiveLogic": "1"},
            "1": {"uid": 1, "key": ["dragon"], "keysecondary": ["zebra"], "selective": True, "selectiveLogic": 1},
        }
    )
    assert fired(result) == ["w.1"]  # NOT_ALL with the number 1; w.0 would fire under AND_ANY
    assert result.record("w.0").reason == Reason.SECONDARY_LOGIC


def test_string_group_weight_concatenates() -> None:
    """``totalWeight = group.reduce((acc, item) => acc + (item.groupWeight ?? DEFAULT_WEIGHT), 0)``:
    0 + "30" is "030", + 100 is "030100"; the roll is ``Math.random() * "030100"`` (30100) and
    ``rollValue <= currentWeight`` compares with 30 then 30100. With numbers (total 130) a roll
    fraction up to 30/130 would pick w.0; with ST's strings only up to 30/30100."""
    seed = 1
    fraction = random.Random(seed).random()  # the group roll is the run's first random number
    assert 30 / 30100 < fraction <= 30 / 130
    group = {"group": "g", "position": 0}
    result = run(
        {
            "0": {"uid": 0, "key": ["dragon"], "content": "A", "groupWeight": "30", **group},
            "1": {"uid": 1, "key": ["guild"], "content": "B", **group},
        },
        seed=seed,
    )
    assert fired(result) == ["w.1"]
    assert "total '030100'" in history(result.record("w.0"))


# ---- 7. regex keys with JavaScript semantics -----------------------------------------------


def test_regex_keys_follow_javascript() -> None:
    """``parseRegexFromString`` builds ``new RegExp(pattern, flags)``: ``/\\1/`` has no group 1, so
    it is the legacy octal escape U+0001, which every scan text contains (``WorldInfoBuffer.get``
    starts with ``\\x01`` and joins messages with ``\\n\\x01``); without the ``u`` flag ``i`` does not
    fold the Kelvin sign, "ſ" or "İ" into ASCII letters."""
    chat = Chat((GREETING, Message("Alex", "user", "The \u212aing, the ſword and \u0130stanbul.")), user="Alex")
    result = run(
        {
            "0": {"uid": 0, "key": ["/\\1/"], "content": "A", "position": 0},
            "1": {"uid": 1, "key": ["/king/i"], "content": "B", "position": 0},
            "2": {"uid": 2, "key": ["/sword/i"], "content": "C", "position": 0},
            "3": {"uid": 3, "key": ["/istanbul/i"], "content": "D", "position": 0},
            "4": {"uid": 4, "key": ["/king/iu"], "content": "E", "position": 0},  # u: Kelvin folds to k
        },
        chat=chat,
    )
    assert fired(result) == ["w.0", "w.4"]


def test_regex_key_javascript_rejects_is_plain_text() -> None:
    """``new RegExp`` throws on ``a**`` ("nothing to repeat"); ``parseRegexFromString`` catches it
    and returns null, so ``matchKeys`` matches the key as plain text."""
    chat = Chat((GREETING, Message("Alex", "user", "Say /a**/ twice.")), user="Alex")
    result = run({"0": {"uid": 0, "key": ["/a**/"], "content": "A", "position": 0}}, chat=chat)
    assert fired(result) == ["w.0"]
    assert any("JavaScript rejects it" in w for w in result.warnings)


# ---- 8. swipe / regenerate -----------------------------------------------------------------


def test_swipe_turn_drops_the_swiped_reply() -> None:
    """``Generate`` (public/script.js): ``if (type === 'swipe') coreChat.pop()`` before the chat is
    handed to ``checkWorldInfo``, so the reply being replaced is not scanned; afterwards the
    replaced reply is gone from the chat. Triggers see the generation type "swipe"."""
    records = [
        {"name": "Mira", "role": "assistant", "text": "Welcome to Vellmar.", "greeting": True},
        {"name": "Alex", "role": "user", "text": "Tell me about the dragon and the guild."},
        {"name": "Mira", "role": "assistant", "text": "The dragon sleeps."},
        {"name": "Mira", "role": "assistant", "text": "The guild meets at dawn.", "swipe": True},
    ]
    chat = chat_from_records(records)
    assert chat.turns() == [2, 3, 4]
    assert chat.turn(3).generation_type == "swipe" and len(chat.turn(3).messages) == 3
    assert [m.text for m in chat.turn(4).messages][-1] == "The guild meets at dawn."
    assert len(chat.turn(4).messages) == 3  # the replaced reply is gone
    world = {
        "entries": {
            "0": {"uid": 0, "key": ["sleeps"], "content": "A", "position": 0},
            "1": {"uid": 1, "key": ["dragon"], "content": "B", "position": 0, "triggers": ["swipe"]},
        }
    }
    results = simulate([("w", world)], chat, "sillytavern")
    assert [fired(r) for r in results] == [[], ["w.1"], []]


def test_header_swipe_and_regenerate_drop_the_last_reply() -> None:
    """A pending swipe pops the last non-system message; "regenerate" deletes a last message that
    is not the user's (``chat.length = chat.length - 1`` in ``Generate``) before scanning."""
    reply = Message("Mira", "assistant", "The dragon sleeps.")
    world = {"entries": {"0": {"uid": 0, "key": ["sleeps"], "content": "A", "position": 0}}}
    base = Chat((GREETING, ASK, reply), user="Alex")
    for generation, expected in (("normal", ["w.0"]), ("swipe", []), ("regenerate", []), ("continue", ["w.0"])):
        result = evaluate([("w", world)], base.with_generation(generation), "sillytavern")
        assert fired(result) == expected, generation


# ---- 9. the character-count token estimate -------------------------------------------------


def test_character_estimate_counts_utf16_units() -> None:
    """``guesstimate(str) = Math.ceil(str.length / CHARACTERS_PER_TOKEN_RATIO)`` with ratio 3.35
    (public/scripts/tokenizers.js, 1.15): ``length`` counts UTF-16 code units, two per emoji."""
    tokenizer = CharsTokenizer()
    assert tokenizer.count("\U0001f600\U0001f600") == 2  # 4 units / 3.35 -> 2 (code points would give 1)
    assert tokenizer.count("abc") == 1
    assert CharsTokenizer(unit="utf8").count("\U0001f600") == 2  # later ST: 4 UTF-8 bytes / 3.35


# =============================================================================================
# Issue 24: the last differences, read in SillyTavern 1.15.0 (release merge 1c0e7ea95, 2025-12-28)
# and confirmed by running its checkWorldInfo (with Generate's handling of the lists it returns)
# in Node 20 on 4,036 random turns: the fired sets and the prompt lists agree.
# =============================================================================================


def dragon(uid: int, **fields: Any) -> dict[str, Any]:
    return {"uid": uid, "key": ["dragon"], "content": f"C{uid}", **fields}


# ---- 24.1 example-message entries ---------------------------------------------------------


def test_example_message_top_entries_highest_order_first() -> None:
    """``checkWorldInfo`` builds ``EMEntries`` with ``unshift`` (ascending by order); ``Generate``
    (public/script.js, "Add message example WI") then ``mesExamplesArray.unshift``s every
    ``wi_anchor_position.before`` entry and ``push``es every ``after`` one. The top entries end up
    highest order first, the bottom ones ascending."""
    result = run(
        {
            "0": dragon(0, order=10, position=5),
            "1": dragon(1, order=90, position=5),
            "2": dragon(2, order=50, position=5),
            "3": dragon(3, order=80, position=6),
            "4": dragon(4, order=20, position=6),
        }
    )
    assert [a.entry_id for a in result.activated if a.position == "em_top"] == ["w.1", "w.2", "w.0"]
    assert [a.entry_id for a in result.activated if a.position == "em_bottom"] == ["w.4", "w.3"]


# ---- 24.2 numeric fields written as strings or floats --------------------------------------


def turns_chat(*texts: str) -> Chat:
    """The greeting, then alternating user/assistant messages: one turn per reply plus the pending one."""
    messages = [GREETING]
    for i, text in enumerate(texts):
        messages.append(Message("Alex", "user", text) if i % 2 == 0 else Message("Mira", "assistant", text))
    return Chat(tuple(messages), user="Alex")


def test_sticky_and_cooldown_strings_are_numbers() -> None:
    """``WorldInfoTimedEffects``: ``if (!entry[type]) return`` is a truth test and the effect ends at
    ``chat.length + Number(entry[type])``, so ``sticky: "5"`` sticks for five messages and
    ``cooldown: "3"`` holds the entry back for three."""
    chat = turns_chat("Tell me about the dragon.", "It sleeps.", "And the guild?", "They meet.", "Anything else?")
    world = {
        "entries": {
            "0": {"uid": 0, "key": ["dragon"], "content": "S", "position": 0, "sticky": "5"},
            "1": {"uid": 1, "key": ["dragon", "guild"], "content": "K", "position": 0, "cooldown": "3"},
        }
    }
    results = simulate([("w", world)], chat, "sillytavern", settings=STSettings(depth=1))
    # one turn per reply plus the pending one: prompts of 2, 4 and 6 messages, scanning the newest only.
    # Fired at length 2: sticky until 2 + 5 = 7, cooldown until 2 + 3 = 5.
    got = [(r.turn, fired(r)) for r in results]
    assert got == [(2, ["w.0", "w.1"]), (4, ["w.0"]), (6, ["w.0"])]
    assert results[1].record("w.0").reason == Reason.STICKY
    assert results[1].record("w.1").reason == Reason.COOLDOWN  # "guild" is there, but 2 < 2 + 3


def test_delay_string_compares_as_number() -> None:
    """``#checkDelayEffect``: ``if (!entry.delay) continue; if (chat.length < entry.delay)`` (``<``
    converts "5" to 5): the entry waits until the chat has five messages."""
    entry = dragon(0, position=0, delay="5")
    assert fired(run({"0": entry})) == []
    assert run({"0": entry}).record("w.0").reason == Reason.DELAY
    longer = turns_chat("Tell me about the dragon.", "Which one?", "The red dragon.", "Ah.")
    assert fired(run({"0": entry}, chat=longer)) == ["w.0"]  # 5 messages: 5 < 5 is false


def test_scan_depth_strings_and_fractions() -> None:
    """``WorldInfoBuffer.get``: ``depth = entry.scanDepth ?? global``; ``if (depth <= 0) return ''``;
    then ``depthBuffer.slice(0, depth)`` and the match sources and recursion buffer appended. So
    "1" scans the newest message, "0" scans nothing at all, and 0.5 (``slice(0, 0.5)`` takes
    none) still scans the character description."""
    greeting = Message("Mira", "assistant", "The guild waits.", greeting=True)
    chat = Chat((greeting, ASK), user="Alex", character=Character(name="Mira", description="A guild hall."))
    entries = {
        "0": {"uid": 0, "key": ["guild"], "content": "A", "position": 0, "scanDepth": "1"},
        "1": {"uid": 1, "key": ["waits"], "content": "B", "position": 0, "scanDepth": "1"},
        "2": {"uid": 2, "key": ["dragon"], "content": "C", "position": 0, "scanDepth": "0"},
        "3": {"uid": 3, "key": ["hall"], "content": "D", "position": 0, "scanDepth": 0.5},
        "4": {"uid": 4, "key": ["dragon"], "content": "E", "position": 0, "scanDepth": 0.5},
    }
    entries["3"]["matchCharacterDescription"] = True
    result = run(
        entries,
        chat=chat,
        settings=STSettings(recursive=False),
    )
    assert fired(result) == ["w.0", "w.3"]
    assert result.record("w.3").where == "description"


def test_delay_until_recursion_string_is_a_level() -> None:
    """``delayUntilRecursion: "1"`` is truthy: the entry is held back outside recursion, its level is
    the string "1" (``[...new Set(...)]`` keeps it as written) and ``"1" > 1`` is false, so it
    fires in the first recursion pass, through the content of an entry that fired before."""
    result = run(
        {
            "0": {"uid": 0, "key": ["dragon"], "content": "The griffin sleeps.", "position": 0},
            "1": {"uid": 1, "key": ["dragon", "griffin"], "content": "B", "position": 0, "delayUntilRecursion": "1"},
        }
    )
    assert fired(result) == ["w.0", "w.1"]
    assert result.record("w.1").step == 2
    assert "delayUntilRecursion" in history(result.record("w.1"))


def test_depth_and_role_strings_and_floats_go_through_number() -> None:
    """``Generate`` registers each ``WIDepthEntries`` group with ``setExtensionPrompt(..., e.depth,
    false, e.role)``, which stores ``depth: Number(depth)`` and ``role: Number(role ?? SYSTEM)``:
    ``depth: "2"`` is injected at depth 2, ``role: "1"`` as the user and ``role: 2.0`` as the
    assistant (``doChatInject`` picks roles 0, 1, 2 with ``===``)."""
    result = run(
        {
            "0": dragon(0, position=4, depth="2"),
            "1": dragon(1, position=4, depth=1, role="1"),
            "2": dragon(2, position=4, depth=3, role=2.0),
        }
    )
    where = {a.entry_id: (a.depth, a.role) for a in result.activated}
    assert where == {"w.0": (2, "system"), "w.1": (1, "user"), "w.2": (3, "assistant")}


# ---- 24.3 at-depth entries with depth missing, null or fractional -------------------------


def test_at_depth_missing_null_and_fractional_depths() -> None:
    """The assembly looks for a group with ``e.depth === (entry.depth ?? DEFAULT_DEPTH)`` but opens a
    new one with ``depth: entry.depth`` (raw). ``Number(undefined)`` is NaN and ``Number(2.5)`` no
    whole depth, so ``doChatInject`` (``x.depth === i`` for i = 0..10000) never injects those;
    ``Number(null)`` is 0. A missing depth joins a same-role depth-4 group opened by an entry with
    a higher order (walked first), and is then injected at depth 4."""
    alone = run(
        {
            "0": dragon(0, position=4, order=50),
            "1": dragon(1, position=4, order=40, depth=None),
            "2": dragon(2, position=4, order=30, depth=2.5),
            "3": dragon(3, position=4, order=20, depth=-1),
        }
    )
    assert fired(alone) == ["w.0", "w.1", "w.2", "w.3"]
    assert [(a.entry_id, a.depth) for a in alone.activated] == [("w.1", 0)]
    assert "depth missing" in alone.record("w.0").detail and "nothing injected" in alone.record("w.0").detail
    assert "2.5" in alone.record("w.2").detail
    joined = run({"0": dragon(0, position=4, order=90, depth=4), "1": dragon(1, position=4, order=50)})
    assert [(a.entry_id, a.depth) for a in joined.activated] == [("w.1", 4), ("w.0", 4)]
    later = run({"0": dragon(0, position=4, order=10, depth=4), "1": dragon(1, position=4, order=50)})
    assert [(a.entry_id, a.depth) for a in later.activated] == [("w.0", 4)]  # w.1's group came first


def test_at_depth_groups_with_the_same_prompt_key_replace_each_other() -> None:
    """``setExtensionPrompt(`customDepthWI_${e.depth}_${e.role}`, ...)``: ``depth: "2"`` and ``depth: 2``
    open two groups (``"2" === 2`` is false) with one key, so the group registered later replaces
    the earlier one and the earlier group's entries are not in the prompt."""
    result = run({"0": dragon(0, position=4, order=90, depth=2), "1": dragon(1, position=4, order=50, depth="2")})
    assert [(a.entry_id, a.depth) for a in result.activated] == [("w.1", 2)]
    assert "replaced it" in result.record("w.0").detail


# ---- 24.4 budget rounding -------------------------------------------------------------------


def test_budget_rounds_half_up_like_math_round() -> None:
    """``budget = Math.round(world_info_budget * maxContext / 100) || 1``: 25 % of 4098 is 1024.5,
    which ``Math.round`` makes 1025 (Python's ``round`` would give 1024)."""
    assert run({"0": dragon(0)}, settings=STSettings(max_context=4098)).budget == 1025
    assert run({"0": dragon(0)}, settings=STSettings(max_context=4102)).budget == 1026  # 1025.5


# ---- 24.7 order missing or not a number: V8's sort ------------------------------------------


def test_missing_order_placed_by_v8_sort() -> None:
    """``sortFn = (a, b) => b.order - a.order`` is NaN for an entry without ``order``; SortCompare
    reads NaN as 0, so the order comes from V8's TimSort. Orders [none, 10, 150, none, 50, 200]:
    Node 20 sorts the book to uids 0, 5, 2, 4, 1, 3 (``getSortedEntries``), and the assembly's
    second sort plus ``unshift`` gives the before-character list 3, 1, 4, 2, 5, 0 (both checked by
    running ``Array.prototype.sort`` in Node). The trace names the quirk."""
    orders = [None, 10, 150, None, 50, 200]
    entries = {str(i): dragon(i, position=0) | ({} if o is None else {"order": o}) for i, o in enumerate(orders)}
    result = run(entries)
    assert placed(result) == ["w.3", "w.1", "w.4", "w.2", "w.5", "w.0"]
    assert "V8's sort" in result.record("w.0").detail
    assert "V8's sort" not in result.record("w.1").detail


def test_evenly_strategy_sorts_global_entries_before_character_ones() -> None:
    """``getSortedEntries``: "evenly" (and an unknown strategy) is ``[...globalLore,
    ...characterLore].sort(sortFn)``; the sort is stable, so at equal order a global entry comes
    before a character entry, activates first, and after the assembly's ``unshift`` sits after it."""
    global_book = STBook("g", {"entries": {"0": dragon(0, position=0, order=50)}}, "global")
    character_book = STBook("c", {"entries": {"0": dragon(0, position=0, order=50)}}, "character")
    for strategy, expected in ((0, ["c.0", "g.0"]), (7, ["c.0", "g.0"]), (1, ["g.0", "c.0"])):
        settings = STSettings(character_strategy=strategy)
        result = evaluate([character_book, global_book], CHAT, "sillytavern", settings=settings)
        assert placed(result) == expected, strategy
