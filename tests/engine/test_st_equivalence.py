"""Property: the fast SillyTavern scan and the straightforward reference loop agree on random books.

Random worlds mix every feature the candidate filter must not get wrong: whole-word and substring
keys, case, multi-word and regex keys, macros, secondary logic, scan-depth overrides, match*
sources, recursion flags and levels, groups, probabilities, budgets and timed effects.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from interop.activation.state import ChatState
from interop.activation.tokenizers import ApproxTokenizer
from interop.engine.chat_input import Character, Chat, Message
from interop.formats.sillytavern.activation import SillyTavernProfile, STSettings
from interop.formats.sillytavern.activation.scan import STScan
from tests.engine.st_reference import ReferenceScan

WORDS = ["tide", "Tide", "gull", "gulls", "red sails", "kraken-bell", "港口", "{{char}}", "/gul+s?/i", "ferry"]
WORDS += [" ", "tide\ufeff", "/\\1/", "/k/i"]  # blank, BOM-trimmed, octal and case-folding keys (issue 12)
TEXT_WORDS = ["tide", "TIDE", "gulls", "gull", "red", "sails", "kraken-bell", "港口", "Mira", "ferryman", "the", "a"]

entry_strategy = st.fixed_dictionaries(
    {
        "key": st.lists(st.sampled_from(WORDS), max_size=3),
        "keysecondary": st.lists(st.sampled_from(WORDS), max_size=2),
        "selective": st.booleans(),
        "selectiveLogic": st.sampled_from([0, 1, 2, 3, None, "1"]),
        "content": st.lists(st.sampled_from(TEXT_WORDS), min_size=1, max_size=6).map(" ".join),
        "order": st.sampled_from([0, 1, 2, 5, "3", None]),
        "position": st.sampled_from([0, 0, 1, 4, None]),
        "disable": st.sampled_from([False, False, False, "false", "1"]),
        "groupWeight": st.sampled_from([None, 50, "30"]),
        "constant": st.sampled_from([False, False, False, True]),
        "caseSensitive": st.sampled_from([None, True, False]),
        "matchWholeWords": st.sampled_from([None, True, False]),
        "scanDepth": st.sampled_from([None, None, 0, 1, 3]),
        "matchCharacterDescription": st.booleans(),
        "excludeRecursion": st.booleans(),
        "preventRecursion": st.booleans(),
        "delayUntilRecursion": st.sampled_from([0, 0, 1, 2]),
        "group": st.sampled_from(["", "", "g1", "g2", "g1, g2"]),
        "groupOverride": st.booleans(),
        "useGroupScoring": st.sampled_from([None, True]),
        "probability": st.sampled_from([100, 50]),
        "useProbability": st.booleans(),
        "ignoreBudget": st.booleans(),
        "sticky": st.sampled_from([None, 2]),
        "cooldown": st.sampled_from([None, 2]),
    }
)


@settings(max_examples=60, deadline=None)
@given(
    entries=st.lists(entry_strategy, min_size=1, max_size=12),
    messages=st.lists(st.lists(st.sampled_from(TEXT_WORDS), max_size=8).map(" ".join), min_size=1, max_size=6),
    recursive=st.booleans(),
    whole=st.booleans(),
    min_activations=st.sampled_from([0, 0, 2]),
    context=st.sampled_from([200, 8192]),
    seed=st.integers(0, 3),
)
def test_fast_scan_equals_reference(
    entries: list[dict],
    messages: list[str],
    recursive: bool,
    whole: bool,
    min_activations: int,
    context: int,
    seed: int,
) -> None:
    # Every fourth entry has no uid: ST keys them all as "w.undefined" (issue 12).
    world = {"entries": {str(i): ({"uid": i} if i % 4 else {}) | e for i, e in enumerate(entries)}}
    chat = Chat(
        tuple(
            Message("Alex" if i % 2 else "Mira", "user" if i % 2 else "assistant", m) for i, m in enumerate(messages)
        ),
        user="Alex",
        character=Character(name="Mira", description="a gull watcher"),
    )
    config = STSettings(
        recursive=recursive, match_whole_words=whole, min_activations=min_activations, max_context=context
    )
    profile = SillyTavernProfile()
    pool = profile.prepare([("w", world)], config)
    outcomes = []
    for scan in (STScan, ReferenceScan):
        state = ChatState()
        rng = random.Random(seed)
        turns = []
        for count in range(1, len(messages) + 1):  # every prefix: timed effects carry over
            result = scan(pool, chat.prefix(count), config, state, rng, ApproxTokenizer()).run()
            turns.append(
                (
                    [a.entry_id for a in result.activated],
                    sorted((r.entry_id, r.reason) for r in result.log if r.fired),
                )
            )
        outcomes.append(turns)
    assert outcomes[0] == outcomes[1]
