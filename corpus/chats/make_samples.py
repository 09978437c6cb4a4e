"""Writes the activation scenarios: chats (JSON Lines) and small native lorebooks, one rule each.

Run from the repo root: ``python corpus/chats/make_samples.py``. Everything is
authored here for the project (a harbour town, "Vellmar"); expected outcomes are
asserted, with the reference sections, in tests/engine/.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

HARBOR_HEADER = {
    "greeting_index": 0,
    "generation_type": "normal",
    "user": "Alex",
    "persona_description": "Alex is a cartographer from the inland hills.",
    "character": {
        "name": "Mira",
        "file": "mira",
        "tags": ["t-guide"],
        "description": "Mira is a harbor pilot of Vellmar.",
        "personality": "Dry humour, patient.",
        "scenario": "Night falls over the Saltmarket.",
        "depth_prompt": "",
        "creator_notes": "",
    },
}
HARBOR = [
    {
        "name": "Mira",
        "role": "assistant",
        "text": "Welcome to Vellmar, traveler. The tide is turning.",
        "greeting": True,
    },
    {"name": "Alex", "role": "user", "text": "I need passage to the Glass Isles. Is the ferry running?"},
    {
        "name": "Mira",
        "role": "assistant",
        "text": "The ferrymen are on strike, but old Captain Roderick might take you.",
    },
    {"name": "Alex", "role": "user", "text": "Where can I find Roderick? And what is this KRAKEN-BELL I keep hearing?"},
]
STORM = [
    {"name": "Mira", "role": "assistant", "text": "The sky darkens over the piers.", "greeting": True},
    {"name": "Alex", "role": "user", "text": "Is that a storm coming? I saw a gull, a lantern and a ghost."},
    {"name": "Mira", "role": "assistant", "text": "Aye. Stay inside tonight."},
    {"name": "Alex", "role": "user", "text": "The gull again!"},
    {"name": "Mira", "role": "assistant", "text": "Quiet now."},
    {"name": "Alex", "role": "user", "text": "Still the gull and a ghost."},
    {"name": "Mira", "role": "assistant", "text": "Hush."},
    {"name": "Alex", "role": "user", "text": "Calm seas. A ghost?"},
]


def st_entry(uid: int, keys: list[str], content: str, **fields: Any) -> dict[str, Any]:
    """A full late-2025 SillyTavern entry (template values), overridden by ``fields``."""
    entry: dict[str, Any] = {
        "uid": uid,
        "key": keys,
        "keysecondary": [],
        "comment": "",
        "content": content,
        "constant": False,
        "vectorized": False,
        "selective": True,
        "selectiveLogic": 0,
        "addMemo": True,
        "order": 100,
        "position": 0,
        "disable": False,
        "ignoreBudget": False,
        "excludeRecursion": False,
        "preventRecursion": False,
        "matchPersonaDescription": False,
        "matchCharacterDescription": False,
        "matchCharacterPersonality": False,
        "matchCharacterDepthPrompt": False,
        "matchScenario": False,
        "matchCreatorNotes": False,
        "delayUntilRecursion": 0,
        "probability": 100,
        "useProbability": True,
        "depth": 4,
        "outletName": "",
        "group": "",
        "groupOverride": False,
        "groupWeight": 100,
        "scanDepth": None,
        "caseSensitive": None,
        "matchWholeWords": None,
        "useGroupScoring": None,
        "automationId": "",
        "role": 0,
        "sticky": None,
        "cooldown": None,
        "delay": None,
        "triggers": [],
        "displayIndex": uid,
    }
    entry.update(fields)
    return entry


def world(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"entries": {str(e["uid"]): e for e in entries}}


def st_matching() -> dict[str, Any]:
    """Key rules, secondary logic, gates and decorators (sillytavern.md §7 steps 3-5)."""
    e = st_entry
    return world(
        [
            e(
                0,
                ["roderick"],
                "Captain Roderick is a one-eyed smuggler with debts to the harbor guild.",
                comment="Roderick",
                order=10,
            ),
            e(1, ["ferry"], "Crossings leave at dawn.", comment="Ferry (whole word)", order=20),
            e(
                2,
                ["ferry"],
                "The boatmen union controls every crossing.",
                comment="Ferry (substring)",
                matchWholeWords=False,
                order=30,
                position=1,
            ),
            e(
                3,
                ["Kraken-Bell"],
                "Case-sensitive bell lore.",
                comment="Kraken bell (case)",
                caseSensitive=True,
                order=40,
            ),
            e(
                4,
                ["kraken-bell"],
                "The bell on the breakwater rings when sea monsters pass.",
                comment="Kraken bell",
                order=50,
                position=4,
                depth=2,
                role=1,
            ),
            e(
                5,
                ["glass isles"],
                "The Glass Isles lie three days west.",
                comment="Glass Isles (scan depth 4)",
                scanDepth=4,
                order=60,
            ),
            e(
                6,
                ["strike"],
                "Dockworkers walked out last week.",
                comment="Strike AND_ANY",
                keysecondary=["guild", "ferrymen"],
                selectiveLogic=0,
                order=70,
            ),
            e(
                7,
                ["strike"],
                "NOT_ALL lore.",
                comment="Strike NOT_ALL",
                keysecondary=["ferrymen", "captain"],
                selectiveLogic=1,
                order=80,
            ),
            e(
                8,
                ["strike"],
                "Nobody official is involved yet.",
                comment="Strike NOT_ANY",
                keysecondary=["guild", "navy"],
                selectiveLogic=2,
                order=90,
            ),
            e(
                9,
                ["strike"],
                "AND_ALL lore.",
                comment="Strike AND_ALL",
                keysecondary=["ferrymen", "navy"],
                selectiveLogic=3,
                order=100,
            ),
            e(
                10,
                ["/where can i find \\w+\\?/i"],
                "Ask at the Salt Anchor tavern.",
                comment="Regex question",
                order=110,
            ),
            e(11, [], "Vellmar is a free port.", comment="Constant", constant=True, order=120, position=2),
            e(12, ["roderick"], "Disabled lore.", comment="Disabled", disable=True, order=130),
            e(13, ["roderick"], "@@dont_activate\nA secret nobody should see.", comment="Decorator off", order=140),
            e(
                14,
                ["zzzz"],
                "@@activate\nThe harbor bells ring at midnight.",
                comment="Decorator on",
                order=150,
                position=7,
                outletName="harbor",
            ),
            e(
                15,
                ["pilot"],
                "Pilots guide ships past the reef.",
                comment="Description source",
                matchCharacterDescription=True,
                order=160,
            ),
            e(
                16,
                ["roderick"],
                "Impersonation-only lore.",
                comment="Trigger impersonate",
                triggers=["impersonate"],
                order=170,
            ),
            e(
                17,
                ["roderick"],
                "Lore hidden from Mira.",
                comment="Filter excludes mira",
                characterFilter={"isExclude": True, "names": ["mira"], "tags": []},
                order=180,
            ),
            e(18, ["{{char}}"], "Mira was born on a fishing boat.", comment="Macro key", order=190),
            e(19, ["/(unclosed/i"], "Broken regex lore.", comment="Bad regex", order=200),
        ]
    )


def st_recursion() -> dict[str, Any]:
    """Recursion flags and delayed levels (sillytavern.md §7 steps 5 and 8)."""
    e = st_entry
    return world(
        [
            e(0, ["roderick"], "Roderick sails the Black Gull.", comment="Roderick", order=100),
            e(1, ["black gull"], "The Black Gull is a fast cutter with red sails.", comment="Black Gull", order=90),
            e(
                2,
                ["red sails"],
                "Red sails mark smugglers.",
                comment="Red sails (non-recursable)",
                excludeRecursion=True,
                order=80,
            ),
            e(
                3,
                ["cutter"],
                "Cutters carry a lantern mast.",
                comment="Cutter (prevents recursion)",
                preventRecursion=True,
                order=70,
            ),
            e(4, ["lantern"], "Lanterns are lit at dusk.", comment="Lantern", order=60),
            e(
                5,
                ["roderick"],
                "His debts are held by merchants.",
                comment="Delayed level 1",
                delayUntilRecursion=1,
                order=50,
            ),
            e(
                6,
                ["roderick"],
                "He once served the admiralty.",
                comment="Delayed level 2",
                delayUntilRecursion=2,
                order=40,
            ),
        ]
    )


def st_groups() -> dict[str, Any]:
    """Inclusion groups, scoring, override and probability (sillytavern.md §7 steps 6-7)."""
    e = st_entry
    return world(
        [
            e(0, ["roderick"], "Rumor: he sank a navy sloop.", comment="Rumor A", group="rumors"),
            e(1, ["roderick"], "Rumor: he was born at sea.", comment="Rumor B", group="rumors"),
            e(2, ["roderick"], "Rumor: he hides pearls in his boot.", comment="Rumor C", group="rumors"),
            e(
                3,
                ["roderick"],
                "Override, lower order.",
                comment="Prio low",
                group="captains",
                groupOverride=True,
                order=50,
            ),
            e(
                4,
                ["roderick"],
                "Override, higher order.",
                comment="Prio high",
                group="captains",
                groupOverride=True,
                order=60,
            ),
            e(5, ["roderick"], "No override, highest order.", comment="Captain plain", group="captains", order=200),
            e(
                6,
                ["roderick", "captain"],
                "Two keys match.",
                comment="Scored two",
                group="scored",
                useGroupScoring=True,
            ),
            e(7, ["roderick"], "One key matches.", comment="Scored one", group="scored", useGroupScoring=True),
            e(8, ["roderick"], "Zero per cent.", comment="Probability zero", probability=0),
        ]
    )


def st_timed() -> dict[str, Any]:
    """Sticky, cooldown and delay with per-chat state (sillytavern.md §7 step 10)."""
    e = st_entry
    return world(
        [
            e(0, ["storm"], "A storm batters the harbor.", comment="Sticky storm", sticky=3),
            e(1, ["gull"], "Gulls steal from the fish stalls.", comment="Cooldown gull", cooldown=3),
            e(2, ["ghost"], "A drowned sailor walks the pier.", comment="Delayed ghost", delay=5),
            e(3, ["lantern"], "Lantern keepers guard the quay.", comment="Sticky then cooldown", sticky=1, cooldown=3),
        ]
    )


def words(count: int, word: str = "salt") -> str:
    return " ".join([word] * count)


def st_budget() -> dict[str, Any]:
    """Budget, ignoreBudget, positions, depth, role, outlet (sillytavern.md §7 steps 7 and 9)."""
    e = st_entry
    return world(
        [
            e(0, ["roderick"], words(40), comment="Forty before", order=300, position=0),
            e(1, ["roderick"], words(40, "brine"), comment="Forty at depth", order=200, position=4, depth=2, role=2),
            e(2, ["roderick"], words(30, "tar"), comment="Thirty overflows", order=50, position=1),
            e(
                3,
                ["roderick"],
                words(10, "rope"),
                comment="Ignores budget",
                order=40,
                position=7,
                outletName="harbor",
                ignoreBudget=True,
            ),
            e(4, ["roderick"], words(5, "net"), comment="After overflow", order=10),
        ]
    )


def st_depth() -> dict[str, Any]:
    """Min-activations widening (sillytavern.md §7 step 8)."""
    e = st_entry
    return world(
        [
            e(0, ["passage"], "Passage costs three silver.", comment="Passage", order=20),
            e(1, ["tide"], "Tide tables hang at the harbormaster's office.", comment="Tide", order=10),
        ]
    )


def risu_entry(key: str, content: str, comment: str, order: int, **fields: Any) -> dict[str, Any]:
    entry = {
        "key": key,
        "secondkey": "",
        "insertorder": order,
        "comment": comment,
        "content": content,
        "mode": "normal",
        "alwaysActive": False,
        "selective": False,
        "extentions": {"risu_case_sensitive": False},
        "useRegex": False,
        "bookVersion": 2,
    }
    entry.update(fields)
    return entry


def risu_harbor() -> dict[str, Any]:
    """Risu matching, decorators and recursion (risu.md §6, §3.5, §0.13)."""
    r = risu_entry
    data = [
        r("roderick, captain", "Roderick owes the guild.", "Roderick's debt", 100),
        r("Glass Isles", "The Glass Isles lie west.", "Glass Isles (default depth)", 101),
        r("glass isles", "@@scan_depth 3\nThe Glass Isles are ringed by reefs.", "Glass Isles (depth 3)", 102),
        r("ferry", "Boatmen control the crossings.", "Ferry (partial)", 103),
        r("ferry", "@@match_full_word\nFull-word ferry lore.", "Ferry (full word)", 104),
        r("oldcaptain", "Veteran captains drink at the Salt Anchor.", "Spaces stripped", 105),
        r("/roderick/i", "Regex lore.", "Regex with flags", 106, useRegex=True),
        r("/roderick/", "Regex lore without flags.", "Regex without flags", 107, useRegex=True),
        r("roderick", "His ship is the Black Gull.", "Secondary via recursion", 108, selective=True, secondkey="guild"),
        r("roderick", "@@additional_keys navy, guard\nNavy lore.", "Additional keys", 109),
        r("roderick", "@@exclude_keys strike\nExcluded lore.", "Exclude keys", 110),
        r("roderick", "@@activate_only_after 5\nLate lore.", "Only after 5", 111),
        r("roderick", "@@is_greeting 1\nAlternate greeting lore.", "Greeting 1", 112),
        r("roderick", "@@instruct_depth 2\n@@@depth 3\n@@role assistant\nMira leans closer.", "Fallback depth", 113),
        r("roderick", "@@probability 0\nNever rolled in.", "Probability zero", 114),
        r("", "Vellmar is a free port.", "Always active", 115, alwaysActive=True),
        r("", "@@activate\nNo key, not always active.", "No key", 116),
        r("roderick", "@@dont_activate\nSuppressed lore.", "Dont activate", 117),
        r("roderick", "@@inject_lore Roderick's debt\nHe pays in pearls.", "Injected addendum", 118),
        r("strike", "@@unrecursive\nStrikers block the lighthouse.", "Unrecursive strike", 119),
        r("lighthouse", "The lighthouse keeper sees everything.", "Lighthouse", 120),
    ]
    return {"type": "risu", "ver": 1, "data": data}


def agnai_harbor() -> dict[str, Any]:
    """Agnai keyword rules, budget and weights (agnai-novelai.md §1.6)."""

    def a(name: str, keywords: list[str], entry: str, priority: int, weight: int, **fields: Any) -> dict[str, Any]:
        return {
            "name": name,
            "entry": entry,
            "keywords": keywords,
            "priority": priority,
            "weight": weight,
            "enabled": True,
            **fields,
        }

    return {
        "kind": "memory",
        "name": "Harbor",
        "description": "Vellmar harbour lore",
        "userId": "local",
        "entries": [
            a("Roderick", ["roderick"], "Roderick is a smuggler.", 10, 5),
            a("Ferry wildcard", ["ferry*"], "Ferrymen strike every spring.", 5, 1),
            a("Ferry one char", ["ferr?"], "The ferry crosses twice daily in calm seas and storms alike.", 5, 3),
            a("Underscore stripped", ["kraken_bell"], "Underscore lore.", 4, 2),
            a("Parentheses stripped", ["(kraken)-bell"], "The kraken-bell warns of sea monsters.", 1, 4),
            a("Disabled", ["roderick"], "Disabled lore.", 9, 9, enabled=False),
            a("Guild", ["guild"], "Guild lore.", 3, 3),
            a("Constant ignored", [], "Agnai has no constant entries.", 8, 8, constant=True),
            a("Tide", ["tide"], "The tide is strong.", 0, 0),
        ],
    }


def ccv3_harbor() -> dict[str, Any]:
    """The CCv3 spec's semantics (spec/character-card-v3.txt, lorebook and decorator sections)."""

    def c(i: int, keys: list[str], content: str, order: int, **fields: Any) -> dict[str, Any]:
        return {
            "keys": keys,
            "content": content,
            "extensions": {},
            "enabled": True,
            "insertion_order": order,
            "use_regex": False,
            "id": i,
            "name": f"entry {i}",
            **fields,
        }

    entries = [
        c(0, ["roderick"], "Roderick owes the guild money.", 20, priority=5),
        c(1, ["ferry"], "Ferrymen guard their routes jealously.", 10, priority=5),
        c(2, ["guild"], "Guild lore.", 11),
        c(3, ["roderick"], "Navy lore.", 12, selective=True, secondary_keys=["navy"]),
        c(4, ["roderick"], "Disabled lore.", 13, enabled=False),
        c(5, ["roderick"], "@@activate_only_after 3\nLate lore.", 14),
        c(6, ["roderick"], "@@risu_only_decorator 4\n@@@depth 1\n@@role user\nMira lowers her voice.", 30, priority=5),
        c(
            7,
            [],
            "Vellmar is a free port city ruled by merchant princes and old smuggling families alike today.",
            5,
            constant=True,
            priority=9,
        ),
        c(8, ["/navy/i"], "Regex constant lore.", 15, use_regex=True, constant=True),
        c(
            9,
            ["/where can i find \\w+/i"],
            "Questions about people are answered in the harbor office.",
            40,
            use_regex=True,
            priority=1,
        ),
        c(10, ["roderick"], "@@exclude_keys strike\nExcluded lore.", 16),
        c(11, ["roderick"], "@@additional_keys navy\nAdditional lore.", 17),
        c(12, ["roderick"], "@@dont_activate\nSuppressed lore.", 18),
        c(13, ["roderick"], "@@ignore_on_max_context\nOld gossip fills the taverns nightly.", 19, priority=50),
    ]
    book = {
        "name": "Harbor",
        "description": "Vellmar harbour lore",
        "scan_depth": 2,
        "token_budget": 40,
        "recursive_scanning": False,
        "extensions": {},
        "entries": entries,
    }
    return {"spec": "lorebook_v3", "data": book}


def write_json(name: str, value: Any) -> None:
    (HERE / name).write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def write_chat(name: str, header: dict[str, Any], messages: list[dict[str, Any]]) -> None:
    lines = [json.dumps(header, ensure_ascii=False)] + [json.dumps(m, ensure_ascii=False) for m in messages]
    (HERE / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    write_chat("harbor.jsonl", HARBOR_HEADER, HARBOR)
    write_chat("storm.jsonl", {**HARBOR_HEADER, "character": {"name": "Mira"}}, STORM)
    write_json("st_matching.json", st_matching())
    write_json("st_recursion.json", st_recursion())
    write_json("st_groups.json", st_groups())
    write_json("st_timed.json", st_timed())
    write_json("st_budget.json", st_budget())
    write_json("st_depth.json", st_depth())
    write_json("risu_harbor.json", risu_harbor())
    write_json("agnai_harbor.json", agnai_harbor())
    write_json("ccv3_harbor.json", ccv3_harbor())


if __name__ == "__main__":
    main()
