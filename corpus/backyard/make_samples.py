"""Write the Backyard AI archive (.byaf) samples of this folder (authored for the project).

Layout from the BYAF v1 spec (ahoylabs/byaf ``specs/v1``): ``manifest.json``
with author, one character under ``characters/<id>/`` with lore items and two
images, two scenarios (sampler settings, example and first messages with
``{user}``/``{character}`` macros, a chat with a swiped AI reply, a background
image); and a sparse archive (empty ``name`` so ``displayName`` names the card,
no images, no lore, one scenario without a first message, an unreferenced file).
Zips are written with fixed timestamps, so reruns give the same bytes. All text
and pictures are original (Pillow solid colours).
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

from PIL import Image

HERE = Path(__file__).resolve().parent
WHEN = "2025-06-10T09:30:00.000Z"


def _png(color: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (16, 16), color).save(out, format="PNG")
    return out.getvalue()


def _json(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode()


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, content in members.items():
            info = zipfile.ZipInfo(name, date_time=(2025, 6, 10, 9, 30, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, content)
    return buffer.getvalue()


def _scenario(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "$schema": "https://backyard.ai/schemas/byaf-scenario.schema.json",
        "schemaVersion": 1,
        "formattingInstructions": "",
        "minP": 0.1,
        "minPEnabled": True,
        "temperature": 1.2,
        "repeatPenalty": 1.05,
        "repeatLastN": 256,
        "topK": 40,
        "topP": 0.9,
        "exampleMessages": [],
        "canDeleteExampleMessages": False,
        "firstMessages": [],
        "narrative": "",
        "promptTemplate": None,
        "grammar": None,
        "messages": [],
    }
    return {**base, **fields}


def full_archive() -> bytes:
    manifest = {
        "$schema": "https://backyard.ai/schemas/byaf-manifest.schema.json",
        "schemaVersion": 1,
        "createdAt": WHEN,
        "author": {"name": "interop-samples", "backyardURL": "https://backyard.ai/hub/user/interop-samples"},
        "characters": ["characters/nell/character.json"],
        "scenarios": ["scenarios/harbour.json", "scenarios/festival.json"],
    }
    character = {
        "$schema": "https://backyard.ai/schemas/byaf-character.schema.json",
        "schemaVersion": 1,
        "id": "nell",
        "name": "Nell",
        "displayName": "Nell Harrow",
        "isNSFW": False,
        "persona": "{character} is a harbour pilot who guides ships past the Teeth. She calls {user} 'landlubber'.",
        "createdAt": WHEN,
        "updatedAt": WHEN,
        "loreItems": [
            {"key": "the Gull, tavern", "value": "The Gull is the harbour tavern where {character} drinks."},
            {"key": "Teeth", "value": "The Teeth are rocks at the harbour mouth; only pilots cross them at night."},
        ],
        "images": [
            {"path": "images/portrait.png", "label": "Portrait"},
            {"path": "images/smile.png", "label": "Smiling"},
        ],
    }
    harbour = _scenario(
        title="Night crossing",
        model="example-8b",
        formattingInstructions="Write {character}'s replies in third person, past tense.",
        narrative="A fog bank rolls in while {user} waits at the pilot station.",
        promptTemplate="ChatML",
        exampleMessages=[
            {"characterID": "nell", "text": "#{user}: Can we go now?\n#{character}: Not until the bell stops."},
            {"characterID": "nell", "text": ""},
        ],
        canDeleteExampleMessages=True,
        firstMessages=[{"characterID": "nell", "text": "Fog's thick, {user}. Hold the lantern high."}],
        backgroundImage="backgrounds/fog.png",
        messages=[
            {"type": "human", "createdAt": WHEN, "updatedAt": WHEN, "text": "Which way?"},
            {
                "type": "ai",
                "outputs": [
                    {"createdAt": WHEN, "updatedAt": WHEN, "text": "Port.", "activeTimestamp": WHEN},
                    {
                        "createdAt": WHEN,
                        "updatedAt": WHEN,
                        "text": "Port, past the second buoy.",
                        "activeTimestamp": "2025-06-10T09:31:00.000Z",
                    },
                ],
            },
        ],
    )
    festival = _scenario(
        title="Lantern festival",
        narrative="The harbour festival; {character} is off duty.",
        firstMessages=[{"characterID": "nell", "text": "No ships tonight, {user}. Dance with me?"}],
        backgroundImage="backgrounds/fog.png",
    )
    return _zip(
        {
            "manifest.json": _json(manifest),
            "characters/nell/character.json": _json(character),
            "characters/nell/images/portrait.png": _png((30, 60, 90)),
            "characters/nell/images/smile.png": _png((200, 120, 40)),
            "scenarios/harbour.json": _json(harbour),
            "scenarios/festival.json": _json(festival),
            "backgrounds/fog.png": _png((120, 120, 130)),
        }
    )


def sparse_archive() -> bytes:
    manifest = {
        "schemaVersion": 1,
        "createdAt": WHEN,
        "characters": ["characters/c1/character.json"],
        "scenarios": ["scenarios/s1.json"],
    }
    character = {
        "schemaVersion": 1,
        "id": "c1",
        "name": "",
        "displayName": "The Cartographer",
        "isNSFW": False,
        "persona": "Draws maps of places that do not exist yet.",
        "createdAt": WHEN,
        "updatedAt": WHEN,
        "loreItems": [],
        "images": [],
    }
    return _zip(
        {
            "manifest.json": _json(manifest),
            "characters/c1/character.json": _json(character),
            "scenarios/s1.json": _json(_scenario(narrative="An empty study.")),
            "notes.txt": b"not referenced by the manifest\n",
        }
    )


SAMPLES = {"nell_harbour.byaf": full_archive, "cartographer_sparse.byaf": sparse_archive}


def main() -> None:
    for name, make in SAMPLES.items():
        (HERE / name).write_bytes(make())
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
