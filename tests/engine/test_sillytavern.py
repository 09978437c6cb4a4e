"""SillyTavern profile on the scenario corpus, each outcome hand-checked against sillytavern.md §7.

The harbor chat (corpus/chats/harbor.jsonl), newest first with names (§7 step 1):
  0 "Alex: Where can I find Roderick? And what is this KRAKEN-BELL I keep hearing?"
  1 "Mira: The ferrymen are on strike, but old Captain Roderick might take you."
  2 "Alex: I need passage to the Glass Isles. Is the ferry running?"
  3 "Mira: Welcome to Vellmar, traveler. The tide is turning."  (the greeting)
Default settings are the shipped settings.json (§1.4): depth 2, whole words and recursion on.
"""

from __future__ import annotations

from interop.activation.result import Reason
from interop.engine import evaluate, simulate
from interop.formats.sillytavern.activation import STSettings
from tests.engine.scenario import book, chat, fired, outcome, words

M = "st_matching"


def run(name: str, settings: STSettings | None = None, seed: int = 0, tokenizer: object = None):
    return evaluate(
        [book(name + ".json", "sillytavern")],
        chat("harbor.jsonl"),
        "sillytavern",
        settings=settings,
        seed=seed,
        tokenizer=tokenizer,
    )


def test_key_rules_and_secondary_logic() -> None:
    result = run(M)
    got = outcome(result)
    # §7 step 4: plain key, case-insensitive by default
    assert got[f"{M}.0"] == (True, Reason.KEY_MATCH)
    # §7 step 4: whole words use JS ASCII \W boundaries: "ferry" is not a word of "ferrymen",
    # and "Is the ferry running?" (message 2) is outside depth 2 (§7 step 3)
    assert got[f"{M}.1"] == (False, Reason.NO_MATCH)
    # matchWholeWords=false per entry -> plain substring
    assert got[f"{M}.2"] == (True, Reason.KEY_MATCH)
    # caseSensitive=true per entry: "Kraken-Bell" != "KRAKEN-BELL"
    assert got[f"{M}.3"] == (False, Reason.NO_MATCH)
    # hyphens are \W, so "kraken-bell" is bounded by spaces: a whole-word match
    assert got[f"{M}.4"] == (True, Reason.KEY_MATCH)
    # scanDepth 4 overrides the global depth (§1.2, §7 step 3)
    record = result.record(f"{M}.5")
    assert record.fired and record.where == "message 2 (0 = newest)"
    # §1.3 selectiveLogic table: AND_ANY ok (ferrymen), NOT_ALL fails (both present),
    # NOT_ANY ok (guild/navy absent), AND_ALL fails (navy missing)
    assert got[f"{M}.6"] == (True, Reason.KEY_MATCH)
    assert got[f"{M}.7"] == (False, Reason.SECONDARY_LOGIC)
    assert got[f"{M}.8"] == (True, Reason.KEY_MATCH)
    assert got[f"{M}.9"] == (False, Reason.SECONDARY_LOGIC)
    assert "missing ['navy']" in result.record(f"{M}.9").detail
    # §7 step 4: /pattern/flags keys are JS regexes run on the raw text
    assert got[f"{M}.10"] == (True, Reason.KEY_MATCH)


def test_gates_in_st_order() -> None:
    got = outcome(run(M))
    assert got[f"{M}.11"] == (True, Reason.CONSTANT)  # §7 step 5: constant
    assert got[f"{M}.12"] == (False, Reason.DISABLED)  # §7 step 5: disable
    assert got[f"{M}.13"] == (False, Reason.DECORATOR_DONT_ACTIVATE)  # §7 steps 2, 5: @@dont_activate
    assert got[f"{M}.14"] == (True, Reason.DECORATOR_ACTIVATE)  # @@activate without a key match
    assert got[f"{M}.16"] == (False, Reason.TRIGGER_TYPE)  # §1.2 triggers: normal not in [impersonate]
    assert got[f"{M}.17"] == (False, Reason.CHARACTER_FILTER)  # characterFilter names, isExclude


def test_extra_sources_and_macro_keys() -> None:
    result = run(M)
    # §7 step 3: matchCharacterDescription adds the description to the scan text
    assert result.record(f"{M}.15").where == "description"
    # §7 step 4: keys are macro-substituted: {{char}} -> Mira (in "Mira: The ferrymen...")
    assert result.record(f"{M}.18").fired


def test_untranslatable_regex_is_no_match_with_warning() -> None:
    result = run(M)
    assert outcome(result)[f"{M}.19"] == (False, Reason.NO_MATCH)
    assert any("/(unclosed/i" in w for w in result.warnings)


def test_prompt_order_positions_depth_role_outlet() -> None:
    result = run(M)
    # §7 step 9: ascending by order in the final prompt
    assert [a.entry_id for a in result.activated] == [f"{M}.{i}" for i in (0, 2, 4, 5, 6, 8, 10, 11, 14, 15, 18)]
    placed = {a.entry_id: (a.position, a.depth, a.role, a.outlet) for a in result.activated}
    assert placed[f"{M}.0"] == ("before_char", None, None, None)
    assert placed[f"{M}.2"] == ("after_char", None, None, None)
    assert placed[f"{M}.4"] == ("at_depth", 2, "user", None)  # position 4, depth 2, role 1
    assert placed[f"{M}.11"] == ("an_top", None, None, None)
    assert placed[f"{M}.14"] == ("outlet", None, None, "harbor")
    # decorators never reach the prompt
    assert next(a for a in result.activated if a.entry_id == f"{M}.14").content == "The harbor bells ring at midnight."


def test_recursion_flags_and_delay_levels() -> None:
    R = "st_recursion"
    result = run(R)
    got = outcome(result)
    steps = {r.entry_id: r.step for r in result.log}
    # §7 step 8: 0 matches the chat; its content feeds recursion, which activates 1 ("black gull")
    assert got[f"{R}.0"] == (True, Reason.KEY_MATCH) and steps[f"{R}.0"] == 1
    assert result.record(f"{R}.1").where == "recursion" and steps[f"{R}.1"] == 2
    # §7 step 5: excludeRecursion entries cannot be activated in recursion passes
    assert got[f"{R}.2"] == (False, Reason.RECURSION_RULE)
    assert result.record(f"{R}.2").detail == "excludeRecursion"
    # preventRecursion: 3 fires (pass 3) but its content never reaches the buffer, so 4 stays off
    assert got[f"{R}.3"] == (True, Reason.KEY_MATCH) and steps[f"{R}.3"] == 3
    assert got[f"{R}.4"] == (False, Reason.NO_MATCH)
    # delayUntilRecursion levels: level 1 in the first recursion pass, level 2 only once
    # normal recursion is exhausted (§7 step 8)
    assert steps[f"{R}.5"] == 2 and steps[f"{R}.6"] == 4
    assert any("level 2 > 1" in e for e in result.record(f"{R}.6").earlier)
    assert result.steps == 5


def test_delayed_levels_run_even_with_recursion_off() -> None:
    # §7 step 8: "else next delayUntilRecursion level if any remain (this runs even after overflow)";
    # code defaults (§1.4) have recursion off, yet the delayed level pass scans the buffer.
    R = "st_recursion"
    assert fired(run(R, STSettings.code_defaults())) == [f"{R}.0", f"{R}.1", f"{R}.5", f"{R}.6"]


def test_max_recursion_steps_caps_passes() -> None:
    R = "st_recursion"
    result = run(R, STSettings(max_recursion_steps=2))
    assert fired(result) == [f"{R}.0", f"{R}.1", f"{R}.5"]
    assert result.steps == 2


def test_inclusion_groups() -> None:
    G = "st_groups"
    result = run(G, seed=0)
    got = outcome(result)
    # §7 step 6, weighted roll: seed 0 draws 0.844 * 300 = 253 -> third member (Rumor C)
    assert got[f"{G}.2"] == (True, Reason.KEY_MATCH)
    assert "weighted roll won by st_groups.2" in result.record(f"{G}.0").earlier[1]
    # groupOverride: the highest order among prioritized members wins, not the highest order overall
    assert got[f"{G}.4"] == (True, Reason.KEY_MATCH)
    assert got[f"{G}.3"] == (False, Reason.GROUP_LOST) and got[f"{G}.5"] == (False, Reason.GROUP_LOST)
    # group scoring: 2 keys matched beats 1
    assert got[f"{G}.6"] == (True, Reason.KEY_MATCH)
    assert "score 1 < 2" in result.record(f"{G}.7").earlier[1]
    # in the recursion pass losers match again, but their group already has a winner
    assert result.record(f"{G}.0").detail == "group 'rumors' already has an activated entry"
    # §7 step 7: probability 0 fails (roll <= 0 practically never) and is not retried
    assert got[f"{G}.8"] == (False, Reason.PROBABILITY)


def test_group_roll_is_seeded() -> None:
    G = "st_groups"
    # seed 1 draws 0.134 * 300 = 40 -> the first member wins
    assert fired(run(G, seed=1))[0] == f"{G}.0"
    assert fired(run(G, seed=0)) == fired(run(G, seed=0))


def test_budget_ignore_budget_and_placement() -> None:
    B = "st_budget"
    # budget = round(25 % x 400) = 100 tokens (§7 step 7); word tokenizer
    result = run(B, STSettings(max_context=400), tokenizer=words)
    got = outcome(result)
    assert result.budget == 100
    assert got[f"{B}.0"] == (True, Reason.KEY_MATCH)  # 40
    assert got[f"{B}.1"] == (True, Reason.KEY_MATCH)  # 80
    assert got[f"{B}.2"] == (False, Reason.BUDGET)  # 80 + 30 >= 100: overflow
    assert got[f"{B}.3"] == (True, Reason.KEY_MATCH)  # ignoreBudget still added after overflow
    assert got[f"{B}.4"] == (False, Reason.BUDGET)  # after the last ignoreBudget entry the loop breaks
    assert [(a.entry_id, a.position, a.depth, a.role, a.outlet) for a in result.activated] == [
        (f"{B}.3", "outlet", None, None, "harbor"),
        (f"{B}.1", "at_depth", 2, "assistant", None),
        (f"{B}.0", "before_char", None, None, None),
    ]
    assert result.steps == 1  # no recursion after an overflow (§7 step 8)


def test_budget_cap() -> None:
    result = run("st_budget", STSettings(max_context=400, budget_cap=50), tokenizer=words)
    assert result.budget == 50
    assert fired(result) == ["st_budget.0", "st_budget.3"]


def test_min_activations_widens_depth() -> None:
    D = "st_depth"
    one = run(D, STSettings(min_activations=1))
    assert fired(one) == [f"{D}.0"] and one.record(f"{D}.0").step == 2
    # §7 step 8: widen one message at a time, recursing in between, until 2 are active
    two = run(D, STSettings(min_activations=2))
    assert fired(two) == [f"{D}.0", f"{D}.1"]
    assert two.record(f"{D}.1").step == 4
    assert two.record(f"{D}.1").where == "message 3 (0 = newest)"
    assert fired(run(D)) == []


def test_timed_effects_across_turns() -> None:
    T = "st_timed"
    results = simulate([book("st_timed.json", "sillytavern")], chat("storm.jsonl"), "sillytavern")
    assert [r.turn for r in results] == [2, 4, 6, 8]
    turns = [outcome(r) for r in results]
    # turn 2: all match; ghost has delay 5 and the chat has 2 messages (§7 step 10: delay is stateless)
    assert turns[0][f"{T}.0"] == (True, Reason.KEY_MATCH)
    assert turns[0][f"{T}.1"] == (True, Reason.KEY_MATCH)
    assert turns[0][f"{T}.2"] == (False, Reason.DELAY)
    assert turns[0][f"{T}.3"] == (True, Reason.KEY_MATCH)
    # turn 4: storm is sticky (2..5) without its key; gull is cooling down (2..5) though its key is there;
    # lantern's sticky (2..3) expired and started a protected cooldown (4..7)
    assert turns[1][f"{T}.0"] == (True, Reason.STICKY)
    assert turns[1][f"{T}.1"] == (False, Reason.COOLDOWN)
    assert turns[1][f"{T}.2"] == (False, Reason.DELAY)
    assert turns[1][f"{T}.3"] == (False, Reason.COOLDOWN)
    # turn 6: effects ended at 5; gull fires again, ghost's delay is over; lantern still cooling (until 7)
    assert turns[2][f"{T}.0"] == (False, Reason.NO_MATCH)
    assert turns[2][f"{T}.1"] == (True, Reason.KEY_MATCH)
    assert turns[2][f"{T}.2"] == (True, Reason.KEY_MATCH)
    assert turns[2][f"{T}.3"] == (False, Reason.COOLDOWN)
    # turn 8: gull's new cooldown (6..9) holds; lantern's ended
    assert turns[3][f"{T}.1"] == (False, Reason.COOLDOWN)
    assert turns[3][f"{T}.2"] == (True, Reason.KEY_MATCH)
    assert turns[3][f"{T}.3"] == (False, Reason.NO_MATCH)


def test_dry_run_writes_no_timed_state() -> None:
    from interop.engine import ChatState

    state = ChatState()
    evaluate(
        [book("st_timed.json", "sillytavern")],
        chat("storm.jsonl").prefix(2),
        "sillytavern",
        settings=STSettings(dry_run=True),
        state=state,
    )
    assert state.timed == {"sticky": {}, "cooldown": {}}
    evaluate([book("st_timed.json", "sillytavern")], chat("storm.jsonl").prefix(2), "sillytavern", state=state)
    assert set(state.timed["sticky"]) == {"st_timed.0", "st_timed.3"}
    assert state.timed["sticky"]["st_timed.0"]["start"] == 2 and state.timed["sticky"]["st_timed.0"]["end"] == 5


def test_generation_type_enables_triggered_entries() -> None:
    harbor = chat("harbor.jsonl").with_generation("impersonate")
    result = evaluate([book(M + ".json", "sillytavern")], harbor, "sillytavern")
    assert outcome(result)[f"{M}.16"] == (True, Reason.KEY_MATCH)


def test_every_entry_is_logged_once() -> None:
    result = run(M)
    assert [r.entry_id for r in result.log] == [f"{M}.{i}" for i in range(20)]


def test_st_decorator_parser() -> None:
    from interop.formats.sillytavern.activation.profile import parse_st_decorators

    # §7 step 2: known decorators collected; a prefix test makes @@activate_only_after "known" but
    # it never equals "@@activate"; @@@ lines only follow an unknown decorator
    assert parse_st_decorators("@@activate\nBody") == (["@@activate"], "Body")
    assert parse_st_decorators("@@depth 4\n@@@dont_activate\nBody") == (["@@dont_activate"], "Body")
    assert parse_st_decorators("@@activate\n@@@dont_activate\nBody") == (["@@activate"], "Body")
    assert parse_st_decorators("@@activate_only_after 3\nBody") == (["@@activate_only_after 3"], "Body")
    assert parse_st_decorators(" @@activate\nBody") == ([], " @@activate\nBody")  # must start with @@


def test_object_values_order_and_settings_json() -> None:
    from interop.formats.sillytavern.activation.profile import js_object_values_order

    assert [k for k, _ in js_object_values_order({"b": 1, "10": 2, "2": 3, "01": 4})] == ["2", "10", "b", "01"]
    settings = STSettings.from_settings_json(
        {"world_info_settings": {"world_info_depth": 5, "world_info_budget": 400, "world_info_recursive": False}}
    )
    assert (settings.depth, settings.budget, settings.recursive) == (5, 25, False)  # budget > 100 migrates to 25


def test_persona_scenario_injects_and_tag_filter() -> None:
    world = {
        "entries": {
            "0": {"uid": 0, "key": ["cartographer"], "content": "Maps.", "matchPersonaDescription": True},
            "1": {"uid": 1, "key": ["saltmarket"], "content": "Stalls.", "matchScenario": True},
            "2": {"uid": 2, "key": ["lighthouse"], "content": "Light."},
            "3": {"uid": 3, "key": ["cartographer"], "content": "No persona scan."},
            "4": {
                "uid": 4,
                "key": ["roderick"],
                "content": "Guides only.",
                "characterFilter": {"isExclude": False, "names": [], "tags": ["t-guide"]},
            },
            "5": {
                "uid": 5,
                "key": ["roderick"],
                "content": "Not for guides.",
                "characterFilter": {"isExclude": True, "names": [], "tags": ["t-guide"]},
            },
        }
    }
    settings = STSettings(scan_injects=("The lighthouse is dark tonight.",))
    result = evaluate([("w", world)], chat("harbor.jsonl"), "sillytavern", settings=settings)
    got = outcome(result)
    # §7 step 3: persona and scenario only for entries that ask; injected prompts flagged "scan" for all
    assert result.record("w.0").where == "persona" and got["w.3"] == (False, Reason.NO_MATCH)
    assert result.record("w.1").where == "scenario"
    assert result.record("w.2").where == "injected prompt"
    # §7 step 5: tag filter against the character's tag ids, with isExclude inversion
    assert got["w.4"] == (True, Reason.KEY_MATCH) and got["w.5"] == (False, Reason.CHARACTER_FILTER)


def test_scan_depth_zero_scans_nothing() -> None:
    # §7 step 3: depth <= 0 gives an empty text: nothing matches, not even recursion or sources
    world = {
        "entries": {
            "0": {"uid": 0, "key": ["pilot"], "content": "x", "scanDepth": 0, "matchCharacterDescription": True}
        }
    }
    assert outcome(evaluate([("w", world)], chat("harbor.jsonl"), "sillytavern"))["w.0"] == (False, Reason.NO_MATCH)


def test_unplaceable_entries_fire_but_inject_nothing() -> None:
    # §7 step 9: empty content, an outlet without a name and unknown positions are skipped at assembly
    world = {
        "entries": {
            "0": {"uid": 0, "key": ["roderick"], "content": ""},
            "1": {"uid": 1, "key": ["roderick"], "content": "Outlet lore.", "position": 7, "outletName": ""},
            "2": {"uid": 2, "key": ["roderick"], "content": "Future lore.", "position": 9},
            "3": {"uid": 3, "key": ["roderick"], "content": "Placed.", "position": 0},
        }
    }
    result = evaluate([("w", world)], chat("harbor.jsonl"), "sillytavern")
    assert fired(result) == ["w.0", "w.1", "w.2", "w.3"]
    assert [a.entry_id for a in result.activated] == ["w.3"]
    assert result.record("w.1").detail.endswith("outlet position without an outlet name: nothing injected")
