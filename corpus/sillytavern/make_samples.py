"""Write the project's own SillyTavern world-info samples (authored here, MIT like the project).

Run from anywhere: ``python corpus/sillytavern/make_samples.py``. The files are
committed; the generator documents how each was made and can recreate them.

* ``modern_world.json``: late-2025 entry template, every field and enum value
  (positions 0-7, selectiveLogic 0-3, roles 0-2, regex keys, inclusion groups
  with weights/override/scoring, sticky/cooldown/delay, outlets, character
  filters, triggers, match* sources, recursion levels, ignoreBudget).
* ``legacy_world.json``: 2023-2024 layouts (no selectiveLogic, ``role: null``,
  ``sticky: 0``, boolean ``delayUntilRecursion``), an unknown field, an object
  key that differs from ``uid`` and an entry without ``uid``.
* ``card_import_world.json``: a world made by "Import Card Lore": ``originalData``,
  per-entry ``extensions`` with foreign keys, an unknown top-level key.
* ``odd_values_world.json``: values a hand-edited file may hold (string
  booleans, a partial set of match* flags, ``"a, b"`` groups, numeric strings).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

MATCH_FLAGS = (
    "matchPersonaDescription",
    "matchCharacterDescription",
    "matchCharacterPersonality",
    "matchCharacterDepthPrompt",
    "matchScenario",
    "matchCreatorNotes",
)


def template(uid: int, **values: Any) -> dict[str, Any]:
    """A late-2025 entry: the template fields in ST's order, then uid/displayIndex."""
    entry: dict[str, Any] = {
        "uid": uid,
        "key": [],
        "keysecondary": [],
        "comment": "",
        "content": "",
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
        **{flag: False for flag in MATCH_FLAGS},
        "delayUntilRecursion": False,
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
        "characterFilter": {"isExclude": False, "names": [], "tags": []},
    }
    entry.update(values)
    return entry


def modern() -> dict[str, Any]:
    e = [
        template(0, comment="Harbor town of Saltmere", key=["Saltmere", "harbor town"],
                 content="Saltmere is a fog-bound harbor town of slate roofs and lantern-lit piers.",
                 position=0, order=90),
        template(1, comment="The Tidewardens", key=["Tidewarden", "/tide ?wardens?/i"], keysecondary=["oath", "badge"],
                 selectiveLogic=1, content="The Tidewardens keep the sea-walls and answer to no guild.",
                 position=1, order=110, caseSensitive=True),
        template(2, comment="Lighthouse keeper", key=["/keeper\\b/"], keysecondary=["lamp", "beacon"],
                 selectiveLogic=2, content="Old Maren has kept the Gull Rock light for forty winters.",
                 position=2, matchWholeWords=True, scanDepth=6),
        template(3, comment="Smugglers", key=["smuggler", "contraband"], keysecondary=["night", "cove"],
                 selectiveLogic=3, content="Smugglers use the drowned caves below the chapel.",
                 position=3, caseSensitive=False, matchWholeWords=False),
        template(4, comment="Weather omen (system)", key=["storm", "squall"],
                 content="[A storm is gathering over the bay.]", position=4, depth=2, role=0,
                 sticky=3, cooldown=5, delay=2),
        template(5, comment="Narrator aside (user)", key=["fog"], content="The fog muffles every footstep.",
                 position=4, depth=0, role=1, probability=35, useProbability=True),
        template(6, comment="Echo (assistant)", key=["echo"], content="Somewhere, a bell answers.",
                 position=4, depth=1, role=2, probability=50, useProbability=False),
        template(7, comment="Dialogue style", key=["tavern"], content="<Speech in Saltmere is clipped and salty.>",
                 position=5, matchCharacterDescription=True, matchScenario=True),
        template(8, comment="Example tail", key=["example"], content="Sailors swear by the three gulls.",
                 position=6, matchPersonaDescription=True, matchCharacterPersonality=True,
                 matchCharacterDepthPrompt=True, matchCreatorNotes=True),
        template(9, comment="Map outlet", key=[], constant=True, content="North pier, chapel, Gull Rock.",
                 position=7, outletName="TownMap"),
        template(10, comment="Tavern rumor A", key=["rumor"], keysecondary=["mayor", "debt"],
                 content="They say the mayor owes the smugglers.",
                 group="Rumors", groupWeight=70, useGroupScoring=True),
        template(11, comment="Tavern rumor B", key=["rumor"], content="They say the light went dark on purpose.",
                 group="Rumors,Secrets", groupWeight=30, groupOverride=True, useGroupScoring=False),
        template(12, comment="Chapel secret (recursion 2)", key=["chapel"],
                 content="The chapel crypt opens at low tide.",
                 delayUntilRecursion=2, excludeRecursion=True, preventRecursion=True),
        template(13, comment="Only for Maren", key=["gull"], content="Maren feeds the gulls at dawn.",
                 characterFilter={"isExclude": False, "names": ["Maren"], "tags": ["2f1c"]},
                 triggers=["normal", "continue"]),
        template(14, comment="Not for outsiders", key=["password"], content="The password is 'brine'.",
                 characterFilter={"isExclude": True, "names": ["Visitor"], "tags": []},
                 triggers=["impersonate", "swipe", "regenerate", "quiet"], ignoreBudget=True,
                 vectorized=True, automationId="qr-password", disable=True, addMemo=False),
        template(15, comment="Delayed (boolean)", key=["tide table"], content="High tide at the ninth bell.",
                 delayUntilRecursion=True, sticky=0, cooldown=0, delay=0),
    ]
    return {"entries": {str(x["uid"]): x for x in e}}


def legacy() -> dict[str, Any]:
    old = {
        "uid": 0, "key": ["Ashford"], "keysecondary": [], "comment": "Ashford village",
        "content": "Ashford is a mill village on the river Ash.", "constant": False, "selective": True,
        "order": 100, "position": 0, "disable": False, "displayIndex": 0, "addMemo": True,
        "group": "", "probability": 100, "useProbability": True, "depth": 4,
        "excludeRecursion": False, "preventRecursion": False, "delayUntilRecursion": False,
        "scanDepth": None, "caseSensitive": None, "matchWholeWords": None, "automationId": "",
        "role": None, "sticky": 0, "cooldown": 0, "delay": 0, "vectorized": False,
    }
    mid = {
        "uid": 1, "key": ["miller"], "keysecondary": ["flour"], "comment": "The miller",
        "content": "Hobb the miller grinds for three villages.", "constant": False, "selective": True,
        "selectiveLogic": 0, "order": 50, "position": 1, "disable": False, "excludeRecursion": False,
        "probability": 100, "useProbability": True, "depth": 4, "group": "", "displayIndex": 1,
        "addMemo": True, "title": "Miller (old editor title)",
    }
    bare = {"key": ["river Ash"], "content": "The river Ash floods every spring.", "comment": "River"}
    moved = {"uid": 7, "key": ["bridge"], "content": "A toll bridge crosses the Ash.", "comment": "Bridge",
             "selective": False, "constant": False, "order": 100, "position": 4, "depth": 3, "role": None}
    return {"entries": {"0": old, "1": mid, "2": bare, "5": moved}}


def card_import() -> dict[str, Any]:
    book_entries = [
        {"id": 0, "keys": ["Vell"], "secondary_keys": [], "comment": "Vell", "content": "Vell is a desert city.",
         "constant": False, "selective": False, "insertion_order": 100, "enabled": True, "position": "before_char",
         "case_sensitive": False, "name": "Vell", "priority": 5,
         "extensions": {"position": 0, "display_index": 0, "risuai": {"folder": "cities"}}},
        {"id": 1, "keys": ["sandstorm"], "secondary_keys": ["wind"], "comment": "Sandstorms",
         "content": "Sandstorms close the roads for days.", "constant": False, "selective": True,
         "insertion_order": 120, "enabled": True, "position": "after_char", "name": "Storms", "priority": 1,
         "use_regex": False, "extensions": {"position": 4, "depth": 2, "role": 0, "display_index": 1}},
    ]
    original = {"name": "Vell Lore", "description": "Cities of the red desert", "scan_depth": 8,
                "token_budget": 700, "recursive_scanning": True, "extensions": {"chub": {"id": 42}},
                "entries": book_entries}
    w0 = template(0, comment="Vell", key=["Vell"], content="Vell is a desert city.", selective=False,
                  extensions={"position": 0, "display_index": 0, "risuai": {"folder": "cities"}})
    w1 = template(1, comment="Sandstorms", key=["sandstorm"], keysecondary=["wind"], order=120,
                  content="Sandstorms close the roads for days.", position=4, depth=2,
                  extensions={"position": 4, "depth": 2, "role": 0, "display_index": 1})
    w2 = template(2, comment="Added in SillyTavern", key=["oasis"], content="The oasis of Qen never dries.",
                  extensions={})
    for w in (w0, w1, w2):
        del w["characterFilter"]
    return {"entries": {"0": w0, "1": w1, "2": w2}, "originalData": original, "editorNote": "kept as is"}


def odd_values() -> dict[str, Any]:
    a = template(0, comment="String switches", key=["lantern"], content="Lanterns burn whale oil.",
                 disable="false", probability="80", group="Light, Fire")
    for flag in MATCH_FLAGS[2:]:
        del a[flag]
    b = template(1, comment="Odd filter", key="lamp, wick", content="Wicks are traded by the yard.",
                 characterFilter={"isExclude": "yes", "names": ["Ilse"], "tags": [], "mode": "legacy"},
                 delayUntilRecursion=0, role="system", group=None)
    return {"entries": {"0": a, "1": b}}


def main() -> None:
    for name, build in (("modern_world", modern), ("legacy_world", legacy), ("card_import_world", card_import),
                        ("odd_values_world", odd_values)):
        text = json.dumps(build(), ensure_ascii=False, indent=4) + "\n"
        (HERE / f"{name}.json").write_text(text, encoding="utf-8")
        print(f"wrote {name}.json")


if __name__ == "__main__":
    main()
