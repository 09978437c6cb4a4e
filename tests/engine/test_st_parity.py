"""Issue 12: the SillyTavern classes where the engine differed from the real app.

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

from interop.engine import STSettings, evaluate, simulate
from interop.engine.chat import Chat, Message, chat_from_records
from interop.engine.result import Reason
from interop.engine.tokenizers import CharsTokenizer
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
