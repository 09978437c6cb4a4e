"""Generate the project's own CHARX samples (authored here; no third-party content).

Run from anywhere: ``python corpus/charx/make_samples.py``. Output is
deterministic (fixed zip timestamps, seeded pixels), so re-running it gives the
same files unless Pillow's encoders change.

* ``deflate_assets.charx``: DEFLATE zip in the CCv3 spec layout
  (``assets/{type}/{images|audio}/``) with a main icon, two emotions, a
  background and an audio clip, one unreferenced app JSON at the root, a
  lorebook using decorators, and unknown keys at every level.
* ``risu_stored.charx``: Risu's export layout: STORED members (fflate level 0),
  ``x_meta/*.json`` deflated (Risu writes those at level 6), singular ``image``
  folders, an ``x-risu-asset`` under ``assets/other/``, and a ``module.risum``
  (encoded with ``interop.containers.risum.write_risum``) holding the lorebook
  as Risu's raw internal entries and one regex script.
* ``jpeg_prefixed.charx``: Risu's ``charxJpeg``: a JPEG with a zip appended
  unchanged (zip offsets count from the zip start, not the file start).
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from pathlib import Path
from typing import Any

from PIL import Image

from interop.containers.risum import write_risum

HERE = Path(__file__).resolve().parent
FIXED_DATE = (1980, 1, 1, 0, 0, 0)


def picture(fmt: str, size: tuple[int, int], colour: tuple[int, int, int], seed: int, **save: Any) -> bytes:
    """A small image with a seeded pattern (so files differ and compress like pictures)."""
    rng = random.Random(seed)
    image = Image.new("RGB", size, colour)
    pixels = image.load()
    for _ in range(size[0] * size[1] // 6):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        pixels[x, y] = tuple(min(255, c + rng.randrange(60)) for c in colour)
    out = io.BytesIO()
    image.save(out, format=fmt, **save)
    return out.getvalue()


def fake_audio(seed: int) -> bytes:
    """An ID3v2 header followed by seeded frame-like bytes (not playable; CHARX only carries it)."""
    rng = random.Random(seed)
    body = bytes(rng.randrange(256) for _ in range(1500))
    return b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x90\x64" + body


def zip_bytes(members: list[tuple[str, bytes, int]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, content, method in members:
            info = zipfile.ZipInfo(name, date_time=FIXED_DATE)
            info.compress_type = method
            info.external_attr = 0o100644 << 16
            info.create_system = 3
            zf.writestr(info, content)
    return buffer.getvalue()


def pretty(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, indent=2).encode("utf-8")


def lighthouse_card() -> dict[str, Any]:
    return {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "x_exporter_note": "root-level unknown key",
        "data": {
            "name": "Maren Holt",
            "nickname": "Keeper",
            "description": "{{char}} keeps the lighthouse on Skerry Point and logs every ship that passes.",
            "personality": "dry, patient, superstitious about fog",
            "scenario": "{{user}} washes ashore below the lighthouse during a storm.",
            "first_mes": "*A lantern swings toward you.* \"Another one the sea didn't want. Up you get.\"",
            "mes_example": "<START>\n{{user}}: Do ships still come by?\n{{char}}: Two a week. Fewer in fog.",
            "creator_notes": "Sample card for interop's CHARX tests. Emotions: calm, alarmed.",
            "creator_notes_multilingual": {"de": "Beispielkarte für die CHARX-Tests.", "ja": "テスト用カード"},
            "system_prompt": "Write {{char}}'s replies in past tense.",
            "post_history_instructions": "Keep the storm going until {{user}} reaches the lamp room.",
            "alternate_greetings": ["*The foghorn sounds twice.* \"You're late for the night watch.\""],
            "group_only_greetings": ["\"More of you? Shut the door, the wind's getting in.\""],
            "tags": ["lighthouse", "mystery", "sea"],
            "creator": "interop tests",
            "character_version": "1.2",
            "source": ["https://example.invalid/cards/maren-holt"],
            "creation_date": 1735689600,
            "modification_date": 1767225600,
            "x_data_unknown": {"kept": True, "list": [1, 2, 3]},
            "extensions": {
                "talkativeness": "0.6",
                "fav": False,
                "world": "Skerry Point",
                "depth_prompt": {"prompt": "{{char}} smells of lamp oil.", "depth": 4, "role": "system"},
                "x_some_app": {"theme": "night", "nested": {"deeper": [None, "x"]}},
            },
            "assets": [
                {"type": "icon", "uri": "embeded://assets/icon/images/main.png", "name": "main", "ext": "png"},
                {
                    "type": "emotion",
                    "uri": "embeded://assets/emotion/images/calm.webp",
                    "name": "calm",
                    "ext": "webp",
                },
                {
                    "type": "emotion",
                    "uri": "embeded://assets/emotion/images/alarmed.png",
                    "name": "alarmed",
                    "ext": "png",
                    "x_asset_unknown": "kept",
                },
                {
                    "type": "background",
                    "uri": "embeded://assets/background/images/main.png",
                    "name": "main",
                    "ext": "png",
                },
                {
                    "type": "x_ambience",
                    "uri": "embeded://assets/x_ambience/audio/surf.mp3",
                    "name": "surf",
                    "ext": "mp3",
                },
                {
                    "type": "user_icon",
                    "uri": "https://example.invalid/avatars/sailor.png",
                    "name": "sailor",
                    "ext": "png",
                },
            ],
            "character_book": {
                "name": "Skerry Point",
                "description": "Places and people around the lighthouse.",
                "scan_depth": 6,
                "token_budget": 900,
                "recursive_scanning": True,
                "x_book_unknown": 7,
                "extensions": {"x_book_ext": {"keep": "me"}},
                "entries": [
                    {
                        "keys": ["lamp room", "lens"],
                        "content": "@@depth 3\n@@role system\nThe lamp room holds a Fresnel lens older than the town.",
                        "extensions": {"x_entry_ext": 1},
                        "enabled": True,
                        "insertion_order": 100,
                        "case_sensitive": False,
                        "use_regex": False,
                        "constant": False,
                        "name": "Lamp room",
                        "priority": 10,
                        "id": 1,
                        "comment": "decorators: depth + role",
                        "selective": True,
                        "secondary_keys": ["night", "storm"],
                        "position": "after_char",
                        "x_entry_unknown": "kept",
                    },
                    {
                        "keys": ["/wreck(s|age)?/i"],
                        "content": "@@activate_only_after 2\n@@dont_activate_after 9\n@@@scan_depth 2\n"
                        "The *Albatross* wrecked here in 1911; its bell still rings at low tide.",
                        "extensions": {},
                        "enabled": True,
                        "insertion_order": 50,
                        "use_regex": True,
                        "constant": False,
                        "id": "wreck-1911",
                        "comment": "regex key, fallback decorator, string id",
                    },
                    {
                        "keys": [],
                        "content": "@@constant\nFog rolls in every evening at six.",
                        "extensions": {},
                        "enabled": False,
                        "insertion_order": 0,
                        "use_regex": False,
                        "constant": True,
                    },
                ],
            },
        },
    }


def deflate_sample() -> bytes:
    card = lighthouse_card()
    members = [
        ("card.json", pretty(card)),
        ("assets/icon/images/main.png", picture("PNG", (48, 64), (40, 70, 120), 1)),
        ("assets/emotion/images/calm.webp", picture("WEBP", (48, 64), (60, 110, 90), 2, quality=60)),
        ("assets/emotion/images/alarmed.png", picture("PNG", (48, 64), (150, 50, 40), 3)),
        ("assets/background/images/main.png", picture("PNG", (96, 54), (20, 30, 50), 4)),
        ("assets/x_ambience/audio/surf.mp3", fake_audio(5)),
        ("x_interop_sample.json", pretty({"app": "interop-tests", "layout": "spec", "version": 1})),
    ]
    return zip_bytes([(name, content, zipfile.ZIP_DEFLATED) for name, content in members])


def risu_card() -> dict[str, Any]:
    return {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {
            "name": "Juniper Vale",
            "description": "{{char}} runs a night market stall selling maps of places that do not exist yet.",
            "personality": "",
            "scenario": "",
            "first_mes": "\"Looking for somewhere? I sell the way there, not the place.\"",
            "mes_example": "",
            "creator_notes": "Risu-layout sample for interop's CHARX tests.",
            "system_prompt": "",
            "post_history_instructions": "",
            "alternate_greetings": [],
            "group_only_greetings": [],
            "tags": ["fantasy", "market"],
            "creator": "interop tests",
            "character_version": "",
            "nickname": "",
            "source": [],
            "creation_date": 1735689600,
            "modification_date": 1735689600,
            "extensions": {
                "risuai": {
                    "bias": [["map", 5]],
                    "viewScreen": "emotion",
                    "utilityBot": False,
                    "sdData": [["always", "solo, 1girl"]],
                    "additionalText": "",
                    "lowLevelAccess": False,
                    "defaultVariables": "coins=3",
                    "backgroundHTML": "<div class=\"stars\"></div>",
                },
                "depth_prompt": {"depth": 0, "prompt": ""},
            },
            "assets": [
                {"type": "icon", "uri": "embeded://assets/icon/image/main.png", "name": "main", "ext": "png"},
                {"type": "emotion", "uri": "embeded://assets/emotion/image/smile.png", "name": "smile", "ext": "png"},
                {
                    "type": "x-risu-asset",
                    "uri": "embeded://assets/other/image/stall_sign.png",
                    "name": "stall_sign",
                    "ext": "png",
                },
            ],
            "character_book": {
                "scan_depth": 7,
                "token_budget": 600,
                "recursive_scanning": False,
                "extensions": {"risu_fullWordMatching": False},
                "entries": [
                    {
                        "keys": ["map", "maps"],
                        "content": "@@depth 2\nJuniper's maps redraw themselves when nobody watches.",
                        "extensions": {"risu_case_sensitive": False},
                        "enabled": True,
                        "insertion_order": 100,
                        "constant": False,
                        "selective": False,
                        "name": "Maps",
                        "comment": "Maps",
                        "case_sensitive": False,
                        "use_regex": False,
                    }
                ],
            },
        },
    }


def risu_module() -> bytes:
    """``module.risum`` as Risu exports it with a character: the lorebook as raw internal entries."""
    module = {
        "name": "Juniper Vale Module",
        "description": "Module for Juniper Vale",
        "id": "5f0c2a8e-3b1d-4c55-9a1e-0d7f3e2b6a41",
        "trigger": [],
        "regex": [
            {"comment": "coins", "in": "\\{coins\\}", "out": "{{getvar::coins}}", "type": "editdisplay", "flag": "g"}
        ],
        "lorebook": [
            {
                "key": "map, maps",
                "secondkey": "",
                "insertorder": 100,
                "comment": "Maps",
                "content": "@@depth 2\nJuniper's maps redraw themselves when nobody watches.",
                "mode": "normal",
                "alwaysActive": False,
                "selective": False,
                "extentions": {"risu_case_sensitive": False},
                "useRegex": False,
                "bookVersion": 2,
            },
            {
                "key": "",
                "secondkey": "",
                "insertorder": 10,
                "comment": "Market rules",
                "content": "The night market closes at dawn; unsold maps burn.",
                "mode": "normal",
                "alwaysActive": True,
                "selective": False,
                "bookVersion": 2,
            },
        ],
    }
    return write_risum({"module": module, "type": "risuModule"})


def risu_members() -> list[tuple[str, bytes, int]]:
    stored, deflated = zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED
    return [
        ("card.json", pretty(risu_card()), stored),
        ("module.risum", risu_module(), stored),
        ("assets/icon/image/main.png", picture("PNG", (40, 40), (200, 160, 60), 7), stored),
        ("x_meta/main.json", b'{"type":"PNG"}', deflated),
        ("assets/emotion/image/smile.png", picture("PNG", (40, 40), (220, 120, 140), 8), stored),
        ("x_meta/smile.json", b'{"type":"PNG"}', deflated),
        ("assets/other/image/stall_sign.png", picture("PNG", (32, 16), (90, 60, 30), 9), stored),
        ("x_meta/stall_sign.json", b'{"type":"PNG"}', deflated),
    ]


def jpeg_prefixed_sample() -> bytes:
    jpeg = picture("JPEG", (64, 64), (200, 160, 60), 10, quality=70)
    return jpeg + zip_bytes(risu_members())


def main() -> None:
    samples = {
        "deflate_assets.charx": deflate_sample(),
        "risu_stored.charx": zip_bytes(risu_members()),
        "jpeg_prefixed.charx": jpeg_prefixed_sample(),
    }
    for name, data in samples.items():
        (HERE / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
