"""Generated hostile inputs, each with the typed error the library must raise.

Issue 23 (red-team run): every case here is either refused with the named
``interop.errors`` type or read and written without any other exception.
The bytes are built here with the standard library (zlib, zipfile, json),
never with the readers under test. The service suite
(``tests/hostile/test_service.py``) reuses ``CASES`` and ``special_files``.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import stat
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from interop.errors import (
    CorruptInputError,
    InteropError,
    LimitExceededError,
    UnknownFormatError,
    UnsafeInputError,
)
from interop.limits import DEFAULT_LIMITS
from tests.png_bytes import chunk, solid_png, with_chunks
from tests.zip_bytes import zip_of

# Python refuses int <-> str conversions past 4,300 digits (CVE-2020-10735 guard):
# any integer longer than that must come back as a typed limit error, not ValueError.
HUGE_DIGITS = "9" * 5000
HUGE_HEX = "0x" + "f" * 5000

# Terminal control sequences an attacker can hide in card text (ECMA-48 CSI, xterm OSC).
CSI_CLEAR = "\x1b[2J\x1b[H"
OSC52_CLIPBOARD = "\x1b]52;c;ZWNobyBwd25lZA==\x07"
OSC8_LINK = "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"
BARE_CR = "safe text\rFAKE"
TERMINAL_ESCAPES = CSI_CLEAR + OSC52_CLIPBOARD + OSC8_LINK + BARE_CR
CONTROL_BYTES = (b"\x1b", b"\x07", b"\x9b", b"\r", b"\x08")
"""Bytes that must never reach a terminal from human (non-JSON) output."""


@dataclass(frozen=True)
class Case:
    name: str
    filename: str
    data: bytes
    error: type[InteropError] | None
    """The type ``interop.read`` must raise; None when the file must read (and write) cleanly."""
    kind: str = "card"
    """``card`` or ``lorebook``: which targets a successful read is written to."""
    text: tuple[str, ...] = field(default=())
    """Strings the card carries (e.g. escapes) that the human output must neutralise."""


def card_json(**data: object) -> dict[str, object]:
    base: dict[str, object] = {"name": "Hostile", "description": "d", "first_mes": "hi"}
    base.update(data)
    return {"spec": "chara_card_v3", "spec_version": "3.0", "data": base}


def world_json(**entry: object) -> dict[str, object]:
    base: dict[str, object] = {
        "uid": 0,
        "key": ["gate"],
        "content": "The gate is shut.",
        "comment": "gate",
        "order": 100,
    }
    base.update(entry)
    return {"entries": {"0": base}}


def _dumps(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=True).encode("ascii")


def with_raw(value: object, marker: str, raw: str) -> bytes:
    """JSON of ``value`` with the string ``"marker"`` replaced by a raw JSON token (huge ints, NaN)."""
    return _dumps(value).replace(json.dumps(marker).encode(), raw.encode())


def png_card(payload: bytes, keyword: bytes = b"chara") -> bytes:
    return with_chunks(solid_png((2, 2), (1, 2, 3)), chunk(b"tEXt", keyword + b"\0" + base64.b64encode(payload)))


@functools.cache
def ztxt_bomb(count: int = 30) -> bytes:
    """``count`` zTXt ``chara`` chunks, each inflating to just under ``max_text_bytes`` (not base64 JSON)."""
    size = DEFAULT_LIMITS.max_text_bytes - 16
    deflated = zlib.compress(b"A" * size, 9)
    body = b"chara\0\0" + deflated
    return with_chunks(solid_png((2, 2), (1, 2, 3)), *[chunk(b"zTXt", body) for _ in range(count)])


def charx(card: bytes) -> bytes:
    return zip_of({"card.json": card})


def _cases() -> list[Case]:
    huge_card = with_raw(card_json(extensions={"big": "@N"}), "@N", HUGE_DIGITS)
    escapes = card_json(name="Esc" + TERMINAL_ESCAPES, description=TERMINAL_ESCAPES, creator_notes=TERMINAL_ESCAPES)
    return [
        # item 1: integers past Python's 4,300-digit conversion limit
        Case("json_huge_int", "huge.json", huge_card, LimitExceededError),
        Case(
            "json_huge_negative_int",
            "huge_neg.json",
            huge_card.replace(HUGE_DIGITS.encode(), b"-" + HUGE_DIGITS.encode()),
            LimitExceededError,
        ),
        Case("png_huge_int", "huge.png", png_card(huge_card), LimitExceededError),
        Case("charx_huge_int", "huge.charx", charx(huge_card), LimitExceededError),
        Case(
            "lorebook_huge_order",
            "huge_world.json",
            with_raw(world_json(order="@N"), "@N", HUGE_DIGITS),
            LimitExceededError,
            "lorebook",
        ),
        Case(
            "yaml_huge_hex_int",
            "huge_hex.yaml",
            f"name: Hex\ncontext: c\ngreeting: g\nextra: {HUGE_HEX}\n".encode(),
            LimitExceededError,
        ),
        Case(
            "yaml_huge_decimal_int",
            "huge_dec.yaml",
            f"name: Dec\ncontext: c\ngreeting: g\nextra: {HUGE_DIGITS}\n".encode(),
            LimitExceededError,
        ),
        # item 2: a lone surrogate reads; writing must escape it (or refuse, typed)
        Case(
            "json_lone_surrogate",
            "surrogate.json",
            _dumps(card_json(name="half \ud800 emoji", description="\udfff")),
            None,
        ),
        Case(
            "world_lone_surrogate",
            "surrogate_world.json",
            _dumps(world_json(content="half \ud83d", comment="c\ud800")),
            None,
            "lorebook",
        ),
        Case("png_lone_surrogate", "surrogate.png", png_card(_dumps(card_json(name="p\ud800"))), None),
        # item 5: many near-limit compressed card chunks: one inflate budget per file
        Case("png_ztxt_bomb", "ztxt_bomb.png", ztxt_bomb(), LimitExceededError),
        # item 7: terminal escapes in card text
        Case("json_terminal_escapes", "escapes.json", _dumps(escapes), None, text=(TERMINAL_ESCAPES,)),
        Case(
            "world_terminal_escapes",
            "escapes_world.json",
            _dumps(world_json(comment=TERMINAL_ESCAPES, content=TERMINAL_ESCAPES)),
            None,
            "lorebook",
            text=(TERMINAL_ESCAPES,),
        ),
        # NaN / Infinity: JSON.parse refuses the bare tokens; an overflowing number reads as Infinity
        Case("json_bare_nan", "nan.json", with_raw(card_json(extensions={"x": "@N"}), "@N", "NaN"), CorruptInputError),
        Case(
            "json_bare_infinity",
            "inf.json",
            with_raw(card_json(extensions={"x": "@N"}), "@N", "-Infinity"),
            CorruptInputError,
        ),
        Case("json_overflow_float", "overflow.json", with_raw(card_json(extensions={"x": "@N"}), "@N", "1e400"), None),
        Case(
            "world_overflow_order",
            "overflow_world.json",
            with_raw(world_json(order="@N", depth="@D"), "@N", "1e999").replace(b'"@D"', b"-1e999"),
            None,
            "lorebook",
        ),
        Case("yaml_nan", "nan.yaml", b"name: Nan\ncontext: c\ngreeting: g\nextra: .nan\nother: -.inf\n", None),
        # held in the red-team run; kept here so they stay held
        Case("json_deep_nesting", "deep.json", b'{"data":' + b"[" * 5000 + b"]" * 5000 + b"}", LimitExceededError),
        # an alias to a list is refused while parsing, so detection finds no format
        Case("yaml_alias_bomb", "bomb.yaml", b"name: n\ncontext: &a [x, x]\nb: [*a, *a]\n", UnknownFormatError),
        Case(
            "charx_zip_slip",
            "slip.charx",
            zip_of({"card.json": _dumps(card_json()), "../../evil.txt": b"x"}),
            UnsafeInputError,
        ),
        Case("truncated_png", "truncated.png", png_card(_dumps(card_json()))[:-30], CorruptInputError),
    ]


CASES: list[Case] = _cases()
CASE_IDS = [c.name for c in CASES]


@dataclass(frozen=True)
class SpecialFile:
    name: str
    path: Path
    kind: str
    """What a folder walk must say it skipped (``character device``, ``FIFO``)."""


def special_files(folder: Path) -> list[SpecialFile]:
    """A FIFO and a symlink to /dev/zero inside ``folder`` (plus /dev/zero itself): never regular files."""
    folder.mkdir(parents=True, exist_ok=True)
    fifo = folder / "pipe.json"
    os.mkfifo(fifo)
    link = folder / "zero.json"
    link.symlink_to("/dev/zero")
    return [
        SpecialFile("dev_zero", Path("/dev/zero"), "character device"),
        SpecialFile("fifo", fifo, "FIFO"),
        SpecialFile("symlink_to_device", link, "character device"),
    ]


def is_special(path: Path) -> bool:
    return not stat.S_ISREG(os.stat(path).st_mode)
