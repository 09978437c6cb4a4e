"""Write the Agnai sample files of this folder (authored for the project; run from anywhere).

Shapes follow ../shared/reference/agnai-novelai.md section 1: a book made in
Agnai's editor, books as Agnai's SillyTavern and Chub ("Venus") importers
store them, and two native character exports (``DownloadModal`` "Agnaistic":
the stored character minus ``_id``). All text is original.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def entry(name: str, text: str, keywords: list[str], priority: int, weight: int, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "entry": text,
        "keywords": keywords,
        "priority": priority,
        "weight": weight,
        "enabled": extra.pop("enabled", True),
        **extra,
    }


def editor_book() -> dict[str, Any]:
    """A book written in Agnai's memory editor and exported: six fields per entry, some fresh 0/0 entries,
    wildcard and punctuated keywords as users type them."""
    return {
        "kind": "memory",
        "name": "Saltmarsh Harbour",
        "description": "Places and people of a foggy fishing town.",
        "entries": [
            entry(
                "The Lantern Inn",
                "The Lantern Inn is a crooked three-storey tavern on the quay; {{char}} rents the attic room.",
                ["lantern inn", "tavern", "inn*"],
                80,
                20,
            ),
            entry(
                "Harbourmaster",
                "Old Mrs. Quill keeps the harbour ledger and distrusts {{user}}.",
                ["Mrs. Quill", "harbourmaster", "ledger"],
                60,
                40,
            ),
            entry(
                "Fog bells",
                "Bells ring from the breakwater whenever the fog rolls in; three rings mean a ship is lost.",
                ["fog", "bell?"],
                100,
                100,
            ),
            entry(
                "Smugglers",
                "The Brine Cutters move rum through the sea caves below the lighthouse.",
                ["smuggl*", "brine_cutters", "sea caves"],
                0,
                0,
            ),
            entry(
                "Unused draft",
                "A half-written note about the lighthouse keeper.",
                ["lighthouse keeper"],
                0,
                0,
                enabled=False,
            ),
            entry("灯台", "灯台は町の北の岬に立っている。", ["灯台"], 50, 50),
        ],
    }


def sillytavern_import_book() -> dict[str, Any]:
    """A SillyTavern world imported into Agnai (convertFromSTExported) and exported again: priority and
    weight 0 (ST order discarded), name from comment, ST integer position, the ST-only passthrough
    fields, depth/budget/recursion defaults 50/500/false, book name from the file name."""

    def st(name: str, text: str, keys: list[str], **extra: Any) -> dict[str, Any]:
        base = entry(name, text, keys, 0, 0)
        base.update(
            {
                "constant": False,
                "position": 0,
                "excludeRecursion": False,
                "probability": 100,
                "useProbability": True,
                "secondaryKeys": [],
                "selective": True,
                "selectiveLogic": 0,
            }
        )
        base.update(extra)
        return base

    return {
        "kind": "memory",
        "name": "Clockwork Court",
        "description": "",
        "entries": [
            st(
                "Queen Aurelia",
                "Queen Aurelia rules the Clockwork Court from a throne of brass gears.",
                ["Aurelia", "queen"],
                secondaryKeys=["throne", "court"],
                position=1,
            ),
            st(
                "Gearwrights",
                "Gearwrights are the guild that winds the city's great clock every dawn.",
                ["gearwright", "guild"],
                probability=75,
            ),
            st(
                "The Great Clock",
                "If the Great Clock stops, every automaton in the city stops with it.",
                ["great clock", "/clock ?tower/i"],
                constant=True,
                position=4,
            ),
            st(
                "Tin soldiers",
                "Tin soldiers patrol at night and obey only written orders.",
                ["tin soldier", "patrol"],
                excludeRecursion=True,
                selectiveLogic=3,
                enabled=False,
            ),
        ],
        "scanDepth": 50,
        "tokenBudget": 500,
        "recursiveScanning": False,
    }


def chub_import_book() -> dict[str, Any]:
    """A Chub "Venus" lorebook imported into Agnai (convertFromSTVenus): ids renumbered to the array
    index, weight from the source's extensions.weight, and the whole source book with its entries
    emptied kept as the book's extensions."""

    def venus(i: int, name: str, text: str, keys: list[str], priority: int, weight: int, **extra: Any) -> dict:
        base = entry(name, text, keys, priority, weight)
        base.update(
            {
                "comment": name,
                "constant": False,
                "position": "before_char",
                "excludeRecursion": False,
                "probability": 100,
                "useProbability": False,
                "secondaryKeys": [],
                "selective": False,
                "selectiveLogic": 0,
                "id": i,
            }
        )
        base.update(extra)
        return base

    return {
        "kind": "memory",
        "name": "Verdant Reach",
        "description": "Lore for a jungle expedition setting.",
        "entries": [
            venus(
                0,
                "Expedition camp",
                "Base camp sits on a river island; supplies arrive by barge every fifth day.",
                ["camp", "river island"],
                10,
                400,
            ),
            venus(
                1,
                "Howler monkeys",
                "Howler troops warn of jaguars long before anyone sees them.",
                ["howler", "monkey"],
                5,
                300,
                secondaryKeys=["jaguar"],
                selective=True,
            ),
            venus(
                2,
                "Ruined ziggurat",
                "The ziggurat's upper terraces are safe; the lower stair floods at night.",
                ["ziggurat", "ruins"],
                10,
                100,
                position="after_char",
            ),
        ],
        "scanDepth": 50,
        "tokenBudget": 500,
        "recursiveScanning": False,
        "extensions": {
            "name": "Verdant Reach",
            "description": "Lore for a jungle expedition setting.",
            "is_creation": False,
            "scan_depth": 8,
            "token_budget": 900,
            "recursive_scanning": True,
            "extensions": {"chub": {"id": 1837265, "full_path": "lorebooks/example/verdant-reach"}},
            "entries": {},
        },
    }


def wpp_character() -> dict[str, Any]:
    """A character made in Agnai with a W++ persona, an embedded book, a depth insert and everything else
    the native export holds (user id, avatar path, voice, sprite, json schema settings, ...)."""
    return {
        "kind": "character",
        "userId": "8c6b7d1e-2f4a-4d1b-9c1e-5b8a7f3e2d10",
        "name": "Captain Mirela Voss",
        "description": "A weary airship captain. Works best with a narrator-style preset.",
        "appearance": "tall woman, silver braid, long blue coat, brass goggles",
        "avatar": "/assets/avatars/3f0c2b9a.png",
        "persona": {
            "kind": "wpp",
            "attributes": {
                "species": ["human"],
                "personality": ["dry humour", "protective", "stubborn"],
                "occupation": ["airship captain"],
                "likes": ["storms", "black tea"],
            },
        },
        "greeting": "*The deck lurches as Mirela grips the wheel.* Hold on to something, {{user}}!",
        "scenario": "{{user}} has booked passage on the airship Kestrel across the Shattered Sea.",
        "sampleChat": "{{user}}: Is it always this rough?\n{{char}}: Only on days ending in 'y'.",
        "culture": "en-us",
        "tags": ["adventure", "airship", "sfw"],
        "visualType": "sprite",
        "sprite": {"body": "body_3", "hair": "braid_2", "eyes": "eyes_1", "attributes": {"hair": "#c0c0c0"}},
        "voice": {"service": "webspeechsynthesis", "voiceId": "en-GB-female", "pitch": 0.9, "rate": 1.1},
        "voiceDisabled": False,
        "json": {"enabled": False, "schema": [], "response": "", "history": ""},
        "folder": "/airships",
        "favorite": True,
        "alternateGreetings": ["*Mirela studies a cracked barometer.* Storm's coming. Best stay below, {{user}}."],
        "characterBook": {
            "_id": "__bundled__characterbook__",
            "kind": "memory",
            "name": "Kestrel lore",
            "description": "",
            "userId": "characterBook",
            "entries": [
                {
                    "name": "The Kestrel",
                    "entry": "The Kestrel is a three-masted airship with a patched gas envelope.",
                    "keywords": ["Kestrel", "airship"],
                    "priority": 100,
                    "weight": 100,
                    "enabled": True,
                    "id": 0,
                    "comment": "ship",
                    "selective": False,
                    "secondaryKeys": [],
                    "constant": False,
                    "position": "before_char",
                },
                {
                    "name": "Shattered Sea",
                    "entry": "The Shattered Sea is a field of floating islands and storms.",
                    "keywords": ["Shattered Sea", "islands"],
                    "priority": 90,
                    "weight": 50,
                    "enabled": True,
                    "id": 1,
                    "comment": "",
                    "selective": True,
                    "secondaryKeys": ["storm"],
                    "constant": False,
                    "position": "after_char",
                },
            ],
            "scanDepth": 20,
            "tokenBudget": 600,
            "recursiveScanning": False,
            "extensions": {},
        },
        "extensions": {"talkativeness": "0.6", "fav": False},
        "systemPrompt": "Write {{char}}'s next reply in a lively, nautical tone.",
        "postHistoryInstructions": "Keep replies under four paragraphs.",
        "insert": {"depth": 4, "prompt": "[{{char}} hides that the Kestrel is out of fuel.]"},
        "creator": "interop samples",
        "characterVersion": "1.2",
        "imageSettings": {"type": "sd", "style": "anime", "prefix": "", "suffix": "", "negative": ""},
        "createdAt": "2024-05-02T18:22:41.118Z",
        "updatedAt": "2024-09-14T07:03:10.552Z",
    }


def text_character() -> dict[str, Any]:
    """A character that came into Agnai from a V2 card: plain-text persona (description + personality
    joined by a newline), the card's extensions kept whole (including its own depth_prompt and agnai
    keys), no book, sparse optional fields."""
    return {
        "kind": "character",
        "name": "Pell the Archivist",
        "description": "",
        "persona": {
            "kind": "text",
            "attributes": {
                "text": [
                    "Pell is a soft-spoken gnome who catalogues a library nobody else can find.\n"
                    "Curious, pedantic, kind."
                ]
            },
        },
        "greeting": "Shh. *Pell peers over a stack of atlases.* Are you lost, or looking?",
        "scenario": "",
        "sampleChat": "",
        "tags": [],
        "alternateGreetings": [],
        "extensions": {
            "depth_prompt": {"prompt": "Pell whispers.", "depth": 2, "role": "system"},
            "agnai": {"voice": {"service": "elevenlabs", "voiceId": "pNInz6obpgDQGcFmaJgB"}},
            "world": "Endless Stacks",
        },
        "insert": {"depth": 2, "prompt": "Pell whispers."},
        "systemPrompt": "",
        "postHistoryInstructions": "",
        "creator": "",
        "characterVersion": "",
    }


SAMPLES = {
    "book_editor.json": editor_book,
    "book_from_sillytavern.json": sillytavern_import_book,
    "book_from_chub.json": chub_import_book,
    "character_wpp.json": wpp_character,
    "character_text_persona.json": text_character,
}


def main() -> None:
    for name, make in SAMPLES.items():
        (HERE / name).write_text(json.dumps(make(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
