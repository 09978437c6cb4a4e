"""Generate the project's own PNG/APNG card samples in this folder.

Run: ``python corpus/png/make_samples.py`` (needs Pillow). The cards are
written here by hand; images are drawn with Pillow; text chunks are built
with a few lines of struct/zlib below, deliberately independent of
``interop.containers.png`` so the samples test our reader rather than mirror
it. Output is deterministic for a given Pillow version.
"""

from __future__ import annotations

import base64
import copy
import io
import json
import math
import struct
import wave
import zlib
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
NOTICE = (
    "This character card is Character Card V3, but it is loaded as a Character Card V2. "
    "Please use a Character Card V3 compatible application to use this character card properly."
)

V3_CARD: dict[str, Any] = {
    "spec": "chara_card_v3",
    "spec_version": "3.0",
    "data": {
        "name": "Mirei Hoshino 星野美玲",
        "description": "{{char}} is a night-shift astronomer at the Starfall Observatory. 🌌\n"
        "She speaks softly, mixes Japanese into her sentences (「ほら、見て！」) and keeps a star log.",
        "tags": ["fantasy", "astronomy", "魔法", "🌙"],
        "creator": "interop samples",
        "character_version": "1.2.0",
        "mes_example": "<START>\n{{user}}: What are you looking at?\n{{char}}: The Perseids — 流れ星 ✨. Want a look?",
        "extensions": {
            "talkativeness": "0.5",
            "fav": False,
            "world": "Starfall Archive",
            "depth_prompt": {"prompt": "{{char}} always mentions the sky.", "depth": 4, "role": "system"},
            "risuai": {"utilityBot": False, "sourceMap": {}},
            "x_sample_tool": {"nested": [1, {"deep": None}, ["a", "ü"]], "flag": None},
        },
        "system_prompt": "{{original}}\nStay in character as {{char}}.",
        "post_history_instructions": "Keep replies under 200 words. 日本語 is fine.",
        "first_mes": "*{{char}} adjusts the telescope.* Oh! You're just in time — the meteor shower starts soon. 🌠",
        "alternate_greetings": [
            "*She waves from the dome.* 「こんばんは！」",
            "You found my secret rooftop. Sit, the sky is clear tonight.",
        ],
        "personality": "gentle, curious, stubborn about star names",
        "scenario": "A clear night at a mountain observatory.",
        "creator_notes": "Made for the interop test corpus. Lorebook uses decorators.",
        "character_book": {
            "name": "Starfall Archive",
            "description": "Places and lore around the observatory.",
            "scan_depth": 4,
            "token_budget": 512,
            "recursive_scanning": True,
            "extensions": {"x_book_meta": {"revision": 3, "editors": ["mirei", None]}},
            "x_book_unknown": "kept at book level",
            "entries": [
                {
                    "keys": ["observatory", "天文台"],
                    "content": "@@depth 4\n@@@instruct_depth 2\n@@role system\n"
                    "The Starfall Observatory sits above the clouds; its dome is painted with constellations.",
                    "extensions": {"x_entry_meta": {"color": "#334488"}},
                    "enabled": True,
                    "insertion_order": 100,
                    "case_sensitive": False,
                    "use_regex": False,
                    "constant": False,
                    "name": "Observatory",
                    "priority": 10,
                    "id": 1,
                    "comment": "main location",
                    "selective": True,
                    "secondary_keys": ["night", "夜"],
                    "position": "before_char",
                    "x_entry_unknown": {"list": [None, 1.5]},
                },
                {
                    "keys": ["/star(fall|light)s?/i"],
                    "content": "@@activate_only_after 3\n@@additional_keys comet, meteor\n"
                    "Starfall nights happen twice a year; wishes made then are said to come true. 🌟",
                    "extensions": {},
                    "enabled": True,
                    "insertion_order": 50,
                    "case_sensitive": True,
                    "use_regex": True,
                    "constant": False,
                    "name": "Starfall",
                    "priority": 5,
                    "id": "starfall-entry",
                    "comment": None,
                    "position": "after_char",
                },
                {
                    "keys": [],
                    "content": "@@dont_activate\n@@@is_greeting 1\nHidden note: Mirei's telescope is named Kuro.",
                    "extensions": {"sillytavern": {"entry": {"probability": 80, "useProbability": True}}},
                    "enabled": False,
                    "insertion_order": 10,
                    "use_regex": False,
                    "constant": True,
                    "id": 3,
                },
            ],
        },
        "assets": [
            {"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"},
            {"type": "emotion", "uri": "__asset:0", "name": "smile", "ext": "png"},
            {"type": "other", "uri": "__asset:1", "name": "chime", "ext": "wav", "x_asset_unknown": True},
        ],
        "nickname": "Mimi",
        "creator_notes_multilingual": {"en": "Sample card.", "ja": "サンプルカードです。"},
        "source": ["https://example.invalid/cards/mirei"],
        "group_only_greetings": ["*Mirei counts the group.* Everyone here? Good — lights off!"],
        "creation_date": 1732000000,
        "modification_date": 1732186400,
        "x_data_unknown": {"kept": True},
    },
    "x_root_unknown": "root-level unknown key",
}

# A SillyTavern-style V2 card: V1 mirror fields at the root, ST's own root keys, a V2 book.
V2_CARD: dict[str, Any] = {
    "name": "Captain Rook",
    "description": "{{char}} runs a river barge between two rival cities. Gruff, fair, owes everyone money.",
    "personality": "gruff, honest, superstitious",
    "scenario": "Dawn on the river docks.",
    "first_mes": "*Rook spits into the water.* You paying for passage or just staring?",
    "mes_example": "<START>\n{{user}}: Is the barge safe?\n{{char}}: Safer than the bridge. Mostly.",
    "creatorcomment": "V2 sample written like SillyTavern does",
    "avatar": "none",
    "chat": "Captain Rook - 2024-11-20@10h00m00s",
    "talkativeness": "0.5",
    "fav": False,
    "tags": ["adventure", "river"],
    "spec": "chara_card_v2",
    "spec_version": "2.0",
    "data": {
        "name": "Captain Rook",
        "description": "{{char}} runs a river barge between two rival cities. Gruff, fair, owes everyone money.",
        "personality": "gruff, honest, superstitious",
        "scenario": "Dawn on the river docks.",
        "first_mes": "*Rook spits into the water.* You paying for passage or just staring?",
        "mes_example": "<START>\n{{user}}: Is the barge safe?\n{{char}}: Safer than the bridge. Mostly.",
        "creator_notes": "V2 sample written like SillyTavern does",
        "system_prompt": "",
        "post_history_instructions": "",
        "tags": ["adventure", "river"],
        "creator": "interop samples",
        "character_version": "",
        "alternate_greetings": ["*The barge horn sounds twice.* Last call! 🚢"],
        "extensions": {
            "talkativeness": "0.5",
            "fav": False,
            "world": "",
            "depth_prompt": {"prompt": "", "depth": 4, "role": "system"},
        },
        "character_book": {
            "name": "River Cities",
            "extensions": {},
            "entries": [
                {
                    "id": 0,
                    "keys": ["Vell", "north city"],
                    "secondary_keys": [],
                    "comment": "Vell",
                    "content": "Vell is the northern city, ruled by the Salt Guild.",
                    "constant": False,
                    "selective": True,
                    "insertion_order": 100,
                    "enabled": True,
                    "position": "before_char",
                    "extensions": {
                        "position": 0,
                        "exclude_recursion": False,
                        "display_index": 0,
                        "probability": 100,
                        "useProbability": True,
                        "depth": 4,
                        "selectiveLogic": 0,
                        "group": "",
                    },
                },
                {
                    "id": 1,
                    "keys": ["Ost"],
                    "secondary_keys": ["bridge"],
                    "comment": "Ost",
                    "content": "Ost is the southern city; its bridge collapsed last spring.",
                    "constant": False,
                    "selective": True,
                    "insertion_order": 90,
                    "enabled": True,
                    "position": "after_char",
                    "extensions": {"position": 1, "selectiveLogic": 3, "x_st_unknown": None},
                },
            ],
        },
        "x_v2_data_unknown": [1, "two"],
    },
    "create_date": "2024-11-20 @10h 00m 00s 000ms",
}


def v2_backfill(card: dict[str, Any]) -> dict[str, Any]:
    """What a careful V3 app writes into ``chara``: V3-only fields dropped, decorators stripped, notice added."""
    out = copy.deepcopy(card)
    out["spec"] = "chara_card_v2"
    out["spec_version"] = "2.0"
    data = out["data"]
    for name in (
        "assets",
        "nickname",
        "creator_notes_multilingual",
        "source",
        "group_only_greetings",
        "creation_date",
        "modification_date",
    ):
        data.pop(name, None)
    for entry in data["character_book"]["entries"]:
        lines = entry["content"].split("\n")
        while lines and lines[0].startswith("@@"):
            lines.pop(0)
        entry["content"] = "\n".join(lines)
        entry.pop("use_regex", None)
    data["creator_notes"] = f"{NOTICE}\n\n{data['creator_notes']}"
    return out


# --- minimal chunk writer -----------------------------------------------------------


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def b64(obj: dict[str, Any]) -> bytes:
    return base64.b64encode(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def text(keyword: str, value: bytes) -> bytes:
    return chunk(b"tEXt", keyword.encode("latin-1") + b"\0" + value)


def ztxt(keyword: str, value: bytes) -> bytes:
    return chunk(b"zTXt", keyword.encode("latin-1") + b"\0\0" + zlib.compress(value, 9))


def itxt(keyword: str, value: bytes, *, compressed: bool, lang: str = "", translated: str = "") -> bytes:
    body = zlib.compress(value, 9) if compressed else value
    header = keyword.encode("latin-1") + b"\0" + bytes([int(compressed), 0])
    return chunk(b"iTXt", header + lang.encode("ascii") + b"\0" + translated.encode("utf-8") + b"\0" + body)


def split_chunks(png: bytes) -> list[bytes]:
    out, pos = [], 8
    while pos < len(png):
        (length,) = struct.unpack_from(">I", png, pos)
        out.append(png[pos : pos + 12 + length])
        pos += 12 + length
    return out


def insert_before_iend(png: bytes, extra: list[bytes], *, before_idat: list[bytes] = ()) -> bytes:
    """Add chunks before IEND (and optionally right after IHDR)."""
    chunks = split_chunks(png)
    assert chunks[-1][4:8] == b"IEND"
    return png[:8] + chunks[0] + b"".join(before_idat) + b"".join(chunks[1:-1]) + b"".join(extra) + chunks[-1]


# --- images -----------------------------------------------------------------------------


def portrait(seed: int, size: tuple[int, int] = (120, 180)) -> Image.Image:
    width, height = size
    img = Image.new("RGB", size, (20 + seed * 30 % 80, 24, 60 + seed * 17 % 120))
    draw = ImageDraw.Draw(img)
    for i in range(6):
        x = (seed * 37 + i * 53) % width
        y = (seed * 11 + i * 29) % height
        r = 6 + (i * 7 + seed) % 18
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(240, 220 - i * 20, 120 + i * 20))
    draw.rectangle((10, height - 40, width - 10, height - 12), outline=(255, 255, 255), width=2)
    return img


def png_bytes(img: Image.Image, **params: Any) -> bytes:
    out = io.BytesIO()
    img.save(out, format="PNG", **params)
    return out.getvalue()


def apng_bytes() -> bytes:
    frames = [portrait(3, (64, 64)), portrait(4, (64, 64))]
    out = io.BytesIO()
    frames[0].save(out, format="PNG", save_all=True, append_images=frames[1:], duration=[400, 600], loop=0)
    return out.getvalue()


def small_icon() -> bytes:
    img = Image.new("RGBA", (16, 16), (0, 0, 0, 0))
    ImageDraw.Draw(img).ellipse((1, 1, 14, 14), fill=(255, 200, 40, 255))
    return png_bytes(img)


def chime_wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(1)
        wav.setframerate(8000)
        wav.writeframes(bytes(128 + int(60 * math.sin(i * 0.3)) for i in range(800)))
    return out.getvalue()


def risu_mangled(chunk_bytes: bytes, key: str) -> bytes:
    """What RisuAI's stream writer copies of a foreign tEXt chunk: it skips as many bytes as the key is long."""
    return chunk_bytes[min(len(key), 7) :]


def main() -> None:
    v3 = V3_CARD
    v2 = V2_CARD
    backfill = v2_backfill(v3)
    samples: dict[str, bytes] = {}

    base = png_bytes(portrait(1))
    samples["v2_chara_only.png"] = insert_before_iend(base, [text("chara", b64(v2))])
    samples["v3_ccv3_only.png"] = insert_before_iend(png_bytes(portrait(2)), [text("ccv3", b64(v3))])
    samples["v3_both_st_order.png"] = insert_before_iend(
        png_bytes(portrait(5)), [text("chara", b64(backfill)), text("ccv3", b64(v3))]
    )
    samples["v3_ztxt.png"] = insert_before_iend(
        png_bytes(portrait(6)),
        [ztxt("chara", b64(backfill)), ztxt("ccv3", b64(v3))],
    )
    samples["v3_itxt.png"] = insert_before_iend(
        png_bytes(portrait(7)),
        [
            itxt("chara", b64(backfill), compressed=False, lang="en", translated="chara"),
            itxt("ccv3", b64(v3), compressed=True),
        ],
    )
    samples["v2_uppercase_chara.png"] = insert_before_iend(png_bytes(portrait(8)), [text("Chara", b64(v2))])
    samples["v3_apng.png"] = insert_before_iend(apng_bytes(), [text("chara", b64(backfill)), text("ccv3", b64(v3))])
    samples["v3_assets.png"] = insert_before_iend(
        png_bytes(portrait(9)),
        [
            text("ccv3", b64(v3)),
            text("chara-ext-asset_:0", base64.b64encode(small_icon())),
            text("chara-ext-asset_1", base64.b64encode(chime_wav())),
        ],
    )
    sd_params = (
        b"masterpiece, 1girl, telescope, night sky\nNegative prompt: blurry\nSteps: 20, Sampler: Euler a, Seed: 42"
    )
    samples["v2_foreign_text_gama.png"] = insert_before_iend(
        png_bytes(portrait(10)),
        [text("parameters", sd_params), text("chara", b64(v2)), text("Software", b"interop make_samples.py")],
        before_idat=[chunk(b"gAMA", struct.pack(">I", 45455)), text("Title", b"Captain Rook")],
    )
    title = text("Title", b"Mirei")
    samples["v3_risu_malformed_stream.png"] = insert_before_iend(
        png_bytes(portrait(11)), [risu_mangled(title, "Title"), text("ccv3", b64(v3))]
    )
    samples["v3_broken_ccv3_fallback.png"] = insert_before_iend(
        png_bytes(portrait(12)), [text("chara", b64(backfill)), text("ccv3", b"bm90IGpzb24=!!not base64 json")]
    )
    for name, data in samples.items():
        (HERE / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
