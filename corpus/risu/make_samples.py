"""Write the project's own RisuAI sample files (authored for interop; no third-party content).

    python corpus/risu/make_samples.py

Outputs, next to this script:

* ``lantern_harbor_lorebook.json``: a ``{"type":"risu","ver":1}`` export using
  every entry mode (normal, constant, multiple, child, folder), nested folders,
  decorator-prefixed content (with ``@@@`` fallbacks), ``secondkey`` with
  ``selective: false``, irregular comma spacing in keys, regex keys,
  ``extentions``, ``activationPercent``, ``loreCache``, ``id``, an unknown field
  and an entry without ``bookVersion``.
* ``lantern_harbor_module.risum``: a module with that lorebook's core, regex
  scripts, triggers, ``cjs`` and three asset records.
* ``lantern_harbor_card.charx``: a CHARX the way Risu writes it (stored zip,
  ``module.risum``, ``assets/<type>/image/``, ``x_meta/``), with Risu's quirks:
  ``creation_date`` in milliseconds, ``character_version: "undefined"``, WebP
  bytes under a ``.png`` name, ``mode``/``folder`` on card entries.
* ``lantern_harbor_character.json``: Risu's internal camelCase character object.

The output is deterministic (fixed ids, fixed zip timestamps).
"""

from __future__ import annotations

import io
import json
import struct
import sys
import zipfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from interop.containers.risum import write_risum  # noqa: E402

F = "\uf000folder:"
PLACES = F + "7d1c6a52-0b6e-4c61-9a53-2f1f0c3e9a10"
DOCKS = F + "0f4e2b8d-5c1a-4e77-8d2b-9b7f4e1a6c33"
PEOPLE = F + "c2a9e0f1-3b4d-4f5a-8e6c-1d2b3a4c5e6f"


def entry(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "key": "",
        "comment": "",
        "content": "",
        "mode": "normal",
        "insertorder": 100,
        "alwaysActive": False,
        "secondkey": "",
        "selective": False,
    }
    base.update(fields)
    return base


def lorebook() -> list[dict[str, object]]:
    return [
        entry(key=PLACES, comment="Places", mode="folder", bookVersion=2),
        entry(
            key="Lantern Harbor, harbor,the bay",
            comment="Lantern Harbor",
            content="Lantern Harbor is a fog-bound port where every pier keeps a lit lantern; "
            "a dark lantern means a ship is overdue.",
            insertorder=200,
            folder=PLACES,
            bookVersion=2,
            useRegex=False,
        ),
        entry(key=DOCKS, comment="Docks", mode="folder", folder=PLACES, bookVersion=2),
        entry(
            key="dry dock, shipwright",
            comment="Dry Dock",
            content="@@depth 2\n@@role system\nThe dry dock is run by the Shipwrights' Guild; "
            "{{user}} needs a guild token to enter.",
            folder=DOCKS,
            bookVersion=2,
            extentions={"risu_case_sensitive": False, "editor_color": "#3a6ea5"},
        ),
        entry(
            key="tide bell",
            secondkey="storm, squall",
            selective=False,
            comment="Tide Bell (secondkey kept, selective off)",
            content="The tide bell rings twice before a storm and once for a birth.",
            folder=DOCKS,
            bookVersion=2,
        ),
        entry(
            key="/smuggl(er|ing)s?/i, /contraband/gi",
            comment="Smugglers (regex keys)",
            content="@@probability 40\n@@exclude_keys customs officer\nSmugglers move lamp oil through the "
            "sea caves at low tide.",
            useRegex=True,
            insertorder=150,
            bookVersion=2,
        ),
        entry(key=PEOPLE, comment="People", mode="folder", bookVersion=2, insertorder=90),
        entry(
            key="Mira, harbormaster",
            secondkey="ledger,debt",
            selective=True,
            comment="Mira",
            content="@@instruct_depth 3\n@@@depth 3\n@@role assistant\nMira the harbormaster remembers "
            "every unpaid mooring fee.",
            folder=PEOPLE,
            id="3f0c9a8e-6b1d-4e2a-9c7f-5d4e3b2a1c0f",
            bookVersion=2,
        ),
        entry(
            key="Old Tobin",
            comment="Old Tobin",
            content="@@activate_only_after 4\n@@match_full_word\n\nOld Tobin sells charts that are "
            "right about half the time.",
            folder=PEOPLE,
            bookVersion=2,
            activationPercent=75,
        ),
        entry(
            key="lantern oath",
            comment="Lantern Oath",
            content="@@inject_lore Lantern Harbor\n@@inject_prepend \nNo keeper may let a lantern die on "
            "a night when ships are out.",
            mode="constant",
            bookVersion=2,
        ),
        entry(
            key="fog",
            comment="Fog (legacy multiple mode)",
            content="@@@end\nThe fog rolls in every evening at the sixth bell.",
            mode="multiple",
            loreCache={"key": "The fog rolls in every evening at the sixth bell.", "data": ["AACAPwAAAEA="]},
        ),
        entry(
            key="",
            comment="Mira",
            content="",
            mode="child",
            alwaysActive=True,
            id="3f0c9a8e-6b1d-4e2a-9c7f-5d4e3b2a1c0f",
            bookVersion=2,
        ),
        entry(
            key="festival",
            comment="Festival of Wicks",
            content="@@dont_activate\nOnce a year the whole harbor goes dark for one minute.",
            alwaysActive=True,
            bookVersion=2,
            colorTag="amber",
        ),
    ]


def tiny_png(rgb: tuple[int, int, int]) -> bytes:
    """A 2x2 PNG written by hand (no image library needed)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    raw = b"".join(b"\x00" + bytes(rgb) * 2 for _ in range(2))
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def tiny_webp() -> bytes:
    """A 2x2 WebP (what Risu stores when image compression is on)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (2, 2), (200, 160, 40)).save(out, format="WEBP", lossless=True)
    return out.getvalue()


def module_object(name: str, lore: list[dict[str, object]], assets: list[list[str]]) -> dict[str, object]:
    return {
        "name": name,
        "description": "Lore, tide regex and lantern triggers for Lantern Harbor.",
        "id": "5b8e2f4a-1c3d-4e5f-8a9b-0c1d2e3f4a5b",
        "lorebook": lore,
        "regex": [
            {"comment": "Bell sound", "in": "\\*ding\\*", "out": "🔔", "type": "editdisplay", "ableFlag": False},
            {"comment": "Tide times", "in": "tide:(\\d+)", "out": "high tide at $1", "type": "editoutput",
             "flag": "g", "ableFlag": True},
        ],
        "trigger": [
            {
                "comment": "Count lanterns",
                "type": "output",
                "conditions": [{"type": "var", "var": "lanterns", "value": "0", "operator": ">"}],
                "effect": [{"type": "setvar", "operator": "-=", "var": "lanterns", "value": "1"}],
                "lowLevelAccess": False,
            }
        ],
        "cjs": "// lantern counter\nexport function onOutput(text) { return text; }\n",
        "lowLevelAccess": False,
        "hideIcon": False,
        "assets": assets,
        "namespace": "lantern-harbor",
    }


def stored_zip(members: list[tuple[str, bytes, int]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data, method in members:
            info = zipfile.ZipInfo(name, date_time=(2024, 5, 1, 12, 0, 0))
            info.compress_type = method
            zf.writestr(info, data)
    return buffer.getvalue()


def card_entry(raw: dict[str, object]) -> dict[str, object]:
    """Risu's CCv3 export of one internal entry (risu.md 3.2)."""
    out: dict[str, object] = {
        "keys": [k.strip() for k in str(raw["key"]).split(",")],
        "content": raw["content"],
        "extensions": {
            **(raw.get("extentions") or {}),  # type: ignore[dict-item]
            "risu_activationPercent": raw.get("activationPercent"),
            "risu_loreCache": raw.get("loreCache"),
        },
        "enabled": True,
        "insertion_order": raw["insertorder"],
        "constant": raw["alwaysActive"],
        "selective": raw["selective"],
        "name": raw["comment"],
        "comment": raw["comment"],
        "case_sensitive": False,
        "use_regex": raw.get("useRegex", False),
        "mode": raw["mode"],
    }
    if raw["selective"]:
        out["secondary_keys"] = [k.strip() for k in str(raw["secondkey"]).split(",")]
    if "folder" in raw:
        out["folder"] = raw["folder"]
    return out


def main() -> None:
    lore = lorebook()
    export = {"type": "risu", "ver": 1, "data": lore}
    (HERE / "lantern_harbor_lorebook.json").write_text(
        json.dumps(export, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )

    assets = [tiny_png((30, 60, 120)), tiny_png((240, 200, 80)), b"ID3\x03\x00\x00\x00\x00\x00\x00bell"]
    module = module_object("Lantern Harbor", lore[:6], [["night_sky", "", "png"], ["lantern", "", "png"],
                                                         ["bell", "", "mp3"]])
    (HERE / "lantern_harbor_module.risum").write_bytes(
        write_risum({"module": module, "type": "risuModule"}, assets)
    )

    card_lore = lore[:5]
    icon = tiny_webp()
    emotion = tiny_png((90, 140, 90))
    card = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {
            "name": "Mira",
            "description": "{{char}} is the harbormaster of Lantern Harbor.",
            "personality": "dry, exact, secretly kind",
            "scenario": "{{user}} arrives at night with an unregistered boat.",
            "first_mes": "*Mira lifts her lantern.* Name, boat, and why you came in after the bell.",
            "mes_example": "<START>\n{{user}}: Is the harbor open?\n{{char}}: The harbor is always open. "
            "The ledger is not.",
            "creator_notes": "Sample card written for interop's test corpus.",
            "system_prompt": "",
            "post_history_instructions": "",
            "alternate_greetings": ["*The fog is thick tonight.* You're late, and the bell is early."],
            "tags": ["harbor", "fantasy"],
            "creator": "interop",
            "character_version": "undefined",
            "extensions": {
                "risuai": {
                    "bias": [["lantern", 5]],
                    "viewScreen": "emotion",
                    "utilityBot": False,
                    "sdData": [],
                    "additionalText": "",
                    "largePortrait": True,
                    "lorePlus": False,
                    "inlayViewScreen": False,
                    "newGenData": {"prompt": "", "negative": "", "instructions": "", "emotionInstructions": ""},
                    "vits": {},
                    "virtualscript": "",
                },
                "depth_prompt": {"depth": 0, "prompt": ""},
            },
            "character_book": {
                "scan_depth": 6,
                "token_budget": 900,
                "recursive_scanning": True,
                "extensions": {"risu_fullWordMatching": False},
                "entries": [card_entry(e) for e in card_lore],
            },
            "assets": [
                {"type": "icon", "uri": "embeded://assets/icon/image/main.png", "name": "main", "ext": "png"},
                {"type": "emotion", "uri": "embeded://assets/emotion/image/calm.png", "name": "calm", "ext": "png"},
            ],
            "nickname": "",
            "source": [],
            "group_only_greetings": [],
            "creation_date": 1714564800000,
            "modification_date": 1714565000,
        },
    }
    charx_module = module_object("Mira Module", card_lore, [])
    del charx_module["namespace"]
    members = [
        ("card.json", json.dumps(card, ensure_ascii=False, indent=2).encode("utf-8"), zipfile.ZIP_STORED),
        ("module.risum", write_risum({"module": charx_module, "type": "risuModule"}), zipfile.ZIP_STORED),
        ("assets/icon/image/main.png", icon, zipfile.ZIP_STORED),
        ("x_meta/main.json", b'{"type":"WEBP"}', zipfile.ZIP_DEFLATED),
        ("assets/emotion/image/calm.png", emotion, zipfile.ZIP_STORED),
        ("x_meta/calm.json", b"{}", zipfile.ZIP_DEFLATED),  # a PNG: its tEXt chunks (none)
    ]
    (HERE / "lantern_harbor_card.charx").write_bytes(stored_zip(members))

    character = {
        "type": "character",
        "name": "Mira",
        "chaId": "b7e1c2d3-4f5a-4b6c-8d9e-0f1a2b3c4d5e",
        "desc": "{{char}} is the harbormaster of Lantern Harbor.",
        "personality": "dry, exact, secretly kind",
        "scenario": "{{user}} arrives at night with an unregistered boat.",
        "firstMessage": "*Mira lifts her lantern.* Name, boat, and why you came in after the bell.",
        "exampleMessage": "<START>\n{{user}}: Is the harbor open?\n{{char}}: The ledger is not.",
        "systemPrompt": "Write Mira's replies in short, clipped sentences.",
        "replaceGlobalNote": "Keep track of unpaid mooring fees.",
        "postHistoryInstructions": "",
        "creatorNotes": "Sample Risu character written for interop's test corpus.",
        "alternateGreetings": ["*The fog is thick tonight.* You're late."],
        "tags": ["harbor", "fantasy"],
        "creator": "",
        "characterVersion": "1.2",
        "additionalData": {"tag": ["harbor", "fantasy"], "creator": "interop", "character_version": "1.2"},
        "globalLore": lore[:5],
        "loreSettings": {"tokenBudget": 900, "scanDepth": 6, "recursiveScanning": False, "fullWordMatching": False},
        "loreExt": {"risu_fullWordMatching": False},
        "customscript": [{"comment": "Bell sound", "in": "\\*ding\\*", "out": "🔔", "type": "editdisplay"}],
        "triggerscript": [],
        "bias": [["lantern", 5]],
        "viewScreen": "none",
        "emotionImages": [["calm", "a3f9c1e2d4b5a6978812"]],
        "utilityBot": False,
        "sdData": [],
        "chats": [{"message": [], "note": "", "name": "Chat 1", "localLore": []}],
        "chatPage": 0,
        "image": "c0ffee00c0ffee00c0ffee00c0ffee00",
        "creation_date": 1714564800000,
        "modification_date": 1714565000,
        "nickname": "Harbormaster",
        "source": [],
        "group_only_greetings": [],
    }
    (HERE / "lantern_harbor_character.json").write_text(
        json.dumps(character, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main()
