"""Write the NovelAI sample files of this folder (authored for the project; run from anywhere).

Shapes follow ../shared/reference/agnai-novelai.md section 2: a recent
(lorebookVersion 6) export using every entry field, categories with
subcontexts and defaults, bias groups in both phrase shapes and unknown newer
fields; an old version 2 book; a .scenario and a story export embedding
books; a PNG whose ``naidata`` chunk carries a base64 lorebook. All text is
original; ids are fixed UUIDs so the files are reproducible.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

CAT_PLACES = "0b7e3c52-6a1f-4f0e-8f3c-1d2a4b5c6d70"
CAT_PEOPLE = "5d1f8a90-2c3b-4e6d-9a7b-8c9d0e1f2a31"


def config(priority: int | None = 400, **overrides: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"prefix": "", "suffix": "\n", "tokenBudget": 1, "reservedTokens": 0}
    if priority is not None:
        out["budgetPriority"] = priority
    out.update(
        {
            "trimDirection": "trimBottom",
            "insertionType": "newline",
            "maximumTrimType": "sentence",
            "insertionPosition": -1,
        }
    )
    out.update(overrides)
    return out


def lore(n: int, name: str, text: str, keys: list[str], **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "text": text,
        "contextConfig": fields.pop("contextConfig", config()),
        "lastUpdatedAt": 1717000000000 + n * 61_000,
        "displayName": name,
        "id": f"9f1c{n:04x}-7d2e-4b3a-8c5d-6e7f8091a2b3",
        "keys": keys,
        "searchRange": 1000,
        "enabled": True,
        "forceActivation": False,
        "keyRelative": False,
        "nonStoryActivatable": False,
        "category": "",
        "loreBiasGroups": [
            {
                "phrases": [],
                "ensureSequenceFinish": False,
                "generateOnce": True,
                "bias": 0,
                "enabled": True,
                "whenInactive": False,
            }
        ],
    }
    out.update(fields)
    return out


def v6_book() -> dict[str, Any]:
    return {
        "lorebookVersion": 6,
        "entries": [
            lore(
                1,
                "Veyra (city)",
                "Veyra is a canal city built on the ribs of a sunken leviathan.",
                ["Veyra", "/\\bcanal[- ]city\\b/i", "leviathan"],
                category=CAT_PLACES,
                searchRange=2400,
            ),
            lore(
                2,
                "Tide Council",
                "The Tide Council meets at low water; its nine seats are inherited.",
                ["/Tide ?Council/", "council", "nine seats"],
                category=CAT_PEOPLE,
                loreBiasGroups=[
                    {
                        "phrases": ["Tide Council", "low water"],
                        "ensure_sequence_finish": True,
                        "generate_once": False,
                        "bias": 0.35,
                        "enabled": True,
                        "whenInactive": False,
                    }
                ],
            ),
            lore(
                3,
                "Story setting",
                "[ Setting: Veyra; Genre: nautical mystery; Tone: wistful ]",
                [],
                forceActivation=True,
                contextConfig=config(priority=800, insertionPosition=0, reservedTokens=0.05, trimDirection="doNotTrim"),
            ),
            lore(
                4,
                "Lamplighters",
                "Lamplighters walk the canals at dusk; they are also the city's spies.",
                ["lamplighter*", "Mr. Oss", "dusk"],
                category=CAT_PEOPLE,
                keyRelative=True,
                nonStoryActivatable=True,
                contextConfig=config(
                    priority=350,
                    prefix="----\n",
                    insertionType="sentence",
                    insertionPosition=2,
                    maximumTrimType="newline",
                    allowInsertionInside=True,
                ),
                loreBiasGroups=[
                    {
                        "phrases": [{"sequences": [[4213, 1190]], "type": 2}, {"sequences": [[77]], "type": 2}],
                        "ensureSequenceFinish": False,
                        "generateOnce": True,
                        "bias": -0.2,
                        "enabled": True,
                        "whenInactive": True,
                    }
                ],
            ),
            lore(
                5,
                "Drowned bell",
                "A bell rings under the harbour when someone lies on the Council steps.",
                ["/bell(s)? (under|beneath)/i", "harbour"],
                enabled=False,
                searchRange=500,
            ),
            lore(
                6,
                "Salt script",
                "Salt script is written with a wet finger on slate and fades within an hour.",
                ["salt script", "塩文字"],
                hidden=True,
                advancedConditions=[{"type": "and", "keys": ["slate"]}],
            ),
        ],
        "settings": {"orderByKeyLocations": True},
        "categories": [
            {
                "name": "Places",
                "id": CAT_PLACES,
                "enabled": True,
                "createSubcontext": True,
                "subcontextSettings": {
                    "text": "",
                    "contextConfig": config(priority=-200, suffix="\n\n", tokenBudget=0.2, reservedTokens=64),
                    "lastUpdatedAt": 1717000000000,
                    "displayName": "Places subcontext",
                    "id": "",
                    "keys": [],
                    "searchRange": 1000,
                    "enabled": True,
                    "forceActivation": False,
                    "keyRelative": False,
                    "nonStoryActivatable": False,
                    "category": "",
                    "loreBiasGroups": [],
                },
                "useCategoryDefaults": False,
                "categoryDefaults": {
                    "text": "",
                    "contextConfig": config(),
                    "displayName": "New Lorebook Entry",
                    "keys": [],
                    "searchRange": 1000,
                    "enabled": True,
                },
                "categoryBiasGroups": [
                    {
                        "phrases": ["canal"],
                        "ensureSequenceFinish": False,
                        "generateOnce": True,
                        "bias": 0.1,
                        "enabled": True,
                        "whenInactive": False,
                    }
                ],
                "open": False,
            },
            {
                "name": "People",
                "id": CAT_PEOPLE,
                "enabled": True,
                "createSubcontext": False,
                "subcontextSettings": {"contextConfig": config(priority=-100)},
                "useCategoryDefaults": True,
                "categoryDefaults": {
                    "text": "",
                    "contextConfig": config(priority=300),
                    "searchRange": 1500,
                    "keys": [],
                    "nonStoryActivatable": True,
                },
                "categoryBiasGroups": [],
                "open": True,
            },
        ],
    }


def v2_book() -> dict[str, Any]:
    """An old-style book: few fields per entry, absolute token budgets, no categories key."""
    return {
        "lorebookVersion": 2,
        "entries": [
            {
                "text": "Brother Anselm tends the orchard and never speaks before noon.",
                "contextConfig": {
                    "prefix": "",
                    "suffix": "\n",
                    "tokenBudget": 2048,
                    "reservedTokens": 0,
                    "budgetPriority": 400,
                    "trimDirection": "trimBottom",
                    "insertionType": "newline",
                    "insertionPosition": -1,
                },
                "displayName": "Anselm",
                "keys": ["Anselm", "orchard"],
                "searchRange": 1000,
                "enabled": True,
                "forceActivation": False,
                "keyRelative": False,
                "nonStoryActivatable": False,
            },
            {
                "text": "The abbey bell is cracked and sounds a flat note.",
                "displayName": "Bell",
                "keys": ["bell", "abbey"],
                "enabled": True,
            },
        ],
        "settings": {"orderByKeyLocations": False},
    }


def scenario() -> dict[str, Any]:
    book = v2_book()
    book["lorebookVersion"] = 5
    return {
        "scenarioVersion": 1,
        "title": "The Quiet Abbey",
        "author": "interop samples",
        "description": "A slow mystery in a hillside abbey.",
        "prompt": "The gate creaks as you step into the abbey yard, ${name}.",
        "tags": ["mystery", "slice of life"],
        "context": [
            {
                "text": "You are ${name}, a travelling scribe.",
                "contextConfig": {
                    "prefix": "",
                    "suffix": "\n",
                    "tokenBudget": 2048,
                    "reservedTokens": 0,
                    "budgetPriority": 800,
                    "trimDirection": "trimBottom",
                    "insertionType": "newline",
                    "maximumTrimType": "sentence",
                    "insertionPosition": 0,
                },
            },
            {
                "text": "[ Style: quiet, observant ]",
                "contextConfig": {
                    "prefix": "",
                    "suffix": "\n",
                    "tokenBudget": 2048,
                    "reservedTokens": 2048,
                    "budgetPriority": -400,
                    "trimDirection": "trimBottom",
                    "insertionType": "newline",
                    "maximumTrimType": "sentence",
                    "insertionPosition": -4,
                },
            },
        ],
        "ephemeralContext": [],
        "placeholders": [{"key": "name", "description": "Your name", "defaultValue": "Wren", "longDescription": ""}],
        "settings": {"parameters": {"temperature": 1.05, "max_length": 60}, "preset": "", "trimResponses": True},
        "lorebook": book,
        "author_notes": None,
    }


def story() -> dict[str, Any]:
    book = v6_book()
    book["entries"] = book["entries"][:2]
    return {
        "storyContainerVersion": 1,
        "metadata": {
            "storyMetadataVersion": 1,
            "id": "1a2b3c4d-0000-4e5f-8a9b-0c1d2e3f4a5b",
            "remoteId": "",
            "title": "Canals of Veyra",
            "description": "",
            "textPreview": "The water was black...",
            "favorite": False,
            "tags": [],
            "createdAt": 1717000000000,
            "lastUpdatedAt": 1717003600000,
            "isModified": False,
            "hasDocument": True,
        },
        "content": {
            "storyContentVersion": 6,
            "settings": {"parameters": {"temperature": 1.0}, "preset": "default", "model": "kayra-v1"},
            "document": "BASE64-DOCUMENT-PLACEHOLDER-NOT-DECODED",
            "context": [{"text": "", "contextConfig": {"budgetPriority": 800}}],
            "lorebook": book,
            "storyContextConfig": {"prefix": "", "suffix": "", "tokenBudget": 1, "budgetPriority": 0},
            "ephemeralContext": [],
            "contextDefaults": {"ephemeralDefaults": [], "loreDefaults": []},
            "settingsDirty": False,
            "didGenerate": True,
            "phraseBiasGroups": [],
            "bannedSequenceGroups": [],
        },
    }


def naidata_png() -> bytes:
    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    img = Image.new("RGB", (64, 96), (40, 70, 110))
    info = PngInfo()
    info.add_text("Software", "interop sample generator")
    book = json.dumps(v2_book(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    info.add_text("naidata", base64.b64encode(book).decode("ascii"))
    out = io.BytesIO()
    img.save(out, format="PNG", pnginfo=info)
    return out.getvalue()


SAMPLES = {
    "veyra_v6.lorebook": v6_book,
    "abbey_v2.lorebook": v2_book,
    "quiet_abbey.scenario": scenario,
    "canals_of_veyra.story": story,
}


def main() -> None:
    for name, make in SAMPLES.items():
        (HERE / name).write_text(json.dumps(make(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {HERE / name}")
    (HERE / "abbey_naidata.png").write_bytes(naidata_png())
    print(f"wrote {HERE / 'abbey_naidata.png'}")


if __name__ == "__main__":
    main()
