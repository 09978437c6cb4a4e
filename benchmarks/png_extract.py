"""PNG card extraction speed: our reader vs Pillow vs a minimal stdlib chunk walker.

Run: ``python benchmarks/png_extract.py [--typical 1000] [--large 100] [--repeats 7]``

Generates the corpora of ``../shared/reference/peers.md`` section 5 in a
temporary directory (deterministic noise images so IDAT does not compress
away; both ``chara`` and ``ccv3`` chunks, ``chara`` first as SillyTavern
writes them), loads every file into memory, then times each reader over all
files in one process and reports per-card times from the median of several
passes (see ``time_readers``).

Targets (peers.md section 9): <= 40 us per typical card, <= 4 ms per large
card, >= 30x faster than Pillow, within 1.5x of the minimal walker. Each is
printed as PASS/FAIL; the exit status is 1 when any fails. Results and the
machine they were measured on: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import base64
import gc
import io
import json
import os
import platform
import random
import statistics
import struct
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from interop.api import read_bytes
from interop.formats.ccv3.png_card import extract_card

# --- corpus generation ----------------------------------------------------------------------


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _noise_png(rng: random.Random, size: tuple[int, int], levels: int) -> bytes:
    """An RGB noise picture, each sample one of ``levels`` values: incompressible enough
    to keep the file at the survey's size, with every pixel for Pillow to decode."""
    table = bytes((b % levels) * (255 // (levels - 1)) for b in range(256))
    raw = rng.randbytes(size[0] * size[1] * 3).translate(table)
    out = io.BytesIO()
    Image.frombytes("RGB", size, raw).save(out, format="PNG")  # Pillow's default compression, as apps write
    return out.getvalue()


def _entry(i: int, rng: random.Random, words: int) -> dict[str, Any]:
    body = " ".join(rng.choice(WORDS) for _ in range(words))
    return {
        "keys": [f"key{i}", rng.choice(WORDS)],
        "content": f"@@depth {i % 5}\n{body}" if i % 3 == 0 else body,
        "extensions": {"sillytavern": {"entry": {"probability": 100, "group": ""}}},
        "enabled": True,
        "insertion_order": 100 - i,
        "case_sensitive": False,
        "use_regex": False,
        "constant": i % 7 == 0,
        "name": f"Entry {i}",
        "priority": i,
        "id": i,
        "comment": f"entry {i} 星",
        "selective": True,
        "secondary_keys": [],
        "position": "before_char",
    }


WORDS = [
    "star",
    "river",
    "lantern",
    "天文台",
    "moon",
    "harbor",
    "🌙",
    "forest",
    "iron",
    "salt",
    "bridge",
    "guild",
    "tower",
    "ember",
    "frost",
]


def _card(n: int, rng: random.Random, entries: int, words: int) -> dict[str, Any]:
    text = " ".join(rng.choice(WORDS) for _ in range(100))
    return {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {
            "name": f"Bench Character {n}",
            "description": text,
            "personality": text[:200],
            "scenario": text[:300],
            "first_mes": text[:400],
            "mes_example": "<START>\n{{user}}: hi\n{{char}}: " + text[:200],
            "creator_notes": "benchmark card",
            "system_prompt": "",
            "post_history_instructions": "",
            "alternate_greetings": [text[:150], text[150:300]],
            "tags": ["bench", "星"],
            "creator": "interop",
            "character_version": "1.0",
            "extensions": {"talkativeness": "0.5", "fav": False, "world": ""},
            "group_only_greetings": [],
            "nickname": f"B{n}",
            "character_book": {"name": "Bench Book", "entries": [_entry(i, rng, words) for i in range(entries)]},
        },
    }


def _card_png(image: bytes, card: dict[str, Any]) -> bytes:
    v2 = json.loads(json.dumps(card))
    v2["spec"], v2["spec_version"] = "chara_card_v2", "2.0"
    for key in ("group_only_greetings", "nickname"):
        v2["data"].pop(key)
    chara = base64.b64encode(json.dumps(v2, ensure_ascii=False).encode())
    ccv3 = base64.b64encode(json.dumps(card, ensure_ascii=False).encode())
    iend = image.rindex(b"IEND") - 4
    return image[:iend] + _chunk(b"tEXt", b"chara\0" + chara) + _chunk(b"tEXt", b"ccv3\0" + ccv3) + image[iend:]


def generate(folder: Path, count: int, large: bool, seed: int) -> list[Path]:
    rng = random.Random(seed)
    if large:
        size, levels, entries, words, distinct = (832, 1216), 96, 300, 80, 4
    else:
        size, levels, entries, words, distinct = (256, 384), 3, 5, 35, 16
    images = [_noise_png(rng, size, levels) for _ in range(min(distinct, count))]
    paths = []
    for n in range(count):
        path = folder / f"{'big' if large else 'card'}_{n:04d}.png"
        path.write_bytes(_card_png(images[n % len(images)], _card(n, rng, entries, words)))
        paths.append(path)
    return paths


# --- readers --------------------------------------------------------------------------------


def ours_json(data: bytes) -> dict[str, Any]:
    return extract_card(data).card_json


def ours_model(data: bytes) -> Any:
    return read_bytes(data, format="png").card


def ours_detect_model(data: bytes) -> Any:
    return read_bytes(data).card


def pillow(data: bytes) -> dict[str, Any]:
    with Image.open(io.BytesIO(data)) as img:
        img.load()  # text chunks after IDAT are only seen once the image is decoded
        text = img.text  # type: ignore[attr-defined]
    payload = text.get("ccv3") or text["chara"]
    return json.loads(base64.b64decode(payload))


def walker(data: bytes) -> dict[str, Any]:
    """The minimal stdlib walker of the peer survey: tEXt only, ccv3 preferred."""
    pos, found = 8, {}
    unpack = struct.unpack_from
    while pos < len(data):
        length, kind = unpack(">I4s", data, pos)
        if kind == b"tEXt":
            body = data[pos + 8 : pos + 8 + length]
            key, _, value = body.partition(b"\0")
            if key in (b"ccv3", b"chara"):
                found[key] = value
        elif kind == b"IEND":
            break
        pos += 12 + length
    return json.loads(base64.b64decode(found.get(b"ccv3") or found[b"chara"]))


# --- timing ---------------------------------------------------------------------------------


def time_readers(
    readers: list[tuple[str, Callable[[bytes], Any], int]], corpus: list[bytes], repeats: int, block: int = 10
) -> dict[str, float]:
    """Seconds per card for each reader: the sum over blocks of files of the median block time.

    The corpus is cut into blocks of ``block`` files; every pass times each
    reader on each block in turn (rotating the order), and each block's time
    is the median over the passes. A block takes about a millisecond, so
    when another process on a shared machine preempts a reader, that hits a
    few blocks of one pass and the median discards it. The garbage collector
    is paused while a block is timed, as ``timeit`` does.
    """
    for _, reader, _ in readers:  # warm-up: imports, format registry, caches
        reader(corpus[0])
    blocks = [corpus[i : i + block] for i in range(0, len(corpus), block)]
    times: dict[str, list[list[float]]] = {label: [[] for _ in blocks] for label, _, _ in readers}
    for rep in range(repeats):
        active = [(label, reader) for label, reader, reps in readers if rep < reps]
        for number, files in enumerate(blocks):
            shift = number % len(active)
            for label, reader in active[shift:] + active[:shift]:
                gc.disable()
                try:
                    began = time.perf_counter()
                    for data in files:
                        reader(data)
                    times[label][number].append(time.perf_counter() - began)
                finally:
                    gc.enable()
        gc.collect()
    return {label: sum(map(statistics.median, per_block)) / len(corpus) for label, per_block in times.items()}


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def run(typical_n: int, large_n: int, repeats: int, pillow_repeats: int) -> bool:
    with tempfile.TemporaryDirectory(prefix="interop-bench-") as tmp:
        folder = Path(tmp)
        print(f"generating {typical_n} typical and {large_n} large PNG cards in {folder} ...", flush=True)
        typical = [p.read_bytes() for p in generate(folder, typical_n, large=False, seed=1)]
        large = [p.read_bytes() for p in generate(folder, large_n, large=True, seed=2)]
    sets = {"typical": typical, "large": large}
    size = {name: sum(map(len, corpus)) / len(corpus) / 1024 for name, corpus in sets.items()}
    for name, corpus in sets.items():
        avg = size[name] * 1024
        sample = extract_card(corpus[0])
        ccv3 = sample.used.chunk.length
        print(f"{name}: {len(corpus)} files, {avg / 1024:.0f} KB average, ccv3 chunk {ccv3 / 1024:.0f} KB")
        assert ours_json(corpus[0]) == walker(corpus[0]) == pillow(corpus[0])

    readers: list[tuple[str, Callable[[bytes], Any], int]] = [
        ("interop: bytes -> card JSON (extract_card)", ours_json, repeats),
        ("interop: bytes -> Card model (read_bytes, format='png')", ours_model, repeats),
        ("interop: bytes -> Card model (read_bytes, detect)", ours_detect_model, repeats),
        ("minimal stdlib walker -> card JSON", walker, repeats),
        ("Pillow Image.open + load().text -> card JSON", pillow, pillow_repeats),
    ]
    results: dict[str, dict[str, float]] = {label: {} for label, _, _ in readers}
    for name, corpus in sets.items():
        block = 10 if name == "typical" else 1  # about a millisecond of work per block
        for label, seconds in time_readers(readers, corpus, repeats, block).items():
            results[label][name] = seconds
        print(f"  timed {name}", flush=True)

    walker_t = results["minimal stdlib walker -> card JSON"]
    pillow_t = results["Pillow Image.open + load().text -> card JSON"]
    print()
    print(
        f"| reader | typical ({typical_n} x {size['typical']:.0f} KB) "
        f"| large ({large_n} x {size['large'] / 1024:.1f} MB) | vs Pillow (typ / large) "
        "| vs walker (typ / large) |"
    )
    print("|---|---|---|---|---|")
    for label, times in results.items():
        vs_pillow = f"{pillow_t['typical'] / times['typical']:.0f}x / {pillow_t['large'] / times['large']:.1f}x faster"
        vs_walker = f"{times['typical'] / walker_t['typical']:.2f}x / {times['large'] / walker_t['large']:.2f}x"
        print(f"| {label} | {fmt(times['typical'])} | {fmt(times['large'])} | {vs_pillow} | {vs_walker} |")

    ours = results["interop: bytes -> card JSON (extract_card)"]
    checks = [
        ("typical card <= 40 µs", ours["typical"] <= 40e-6, fmt(ours["typical"])),
        ("large card <= 4 ms", ours["large"] <= 4e-3, fmt(ours["large"])),
        (
            "typical >= 30x faster than Pillow",
            pillow_t["typical"] / ours["typical"] >= 30,
            f"{pillow_t['typical'] / ours['typical']:.0f}x",
        ),
        (
            "typical within 1.5x of the minimal walker",
            ours["typical"] <= 1.5 * walker_t["typical"],
            f"{ours['typical'] / walker_t['typical']:.2f}x",
        ),
        (
            "large within 1.5x of the minimal walker",
            ours["large"] <= 1.5 * walker_t["large"],
            f"{ours['large'] / walker_t['large']:.2f}x",
        ),
    ]
    print()
    for name, ok, value in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {value}")
    print()
    print(
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Pillow {Image.__version__}, per-block median of {repeats} passes ({pillow_repeats} for Pillow), "
        f"load average {os.getloadavg()[0]:.1f} (absolute times scale with it; the ratios much less)"
    )
    return all(ok for _, ok, _ in checks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--typical", type=int, default=1000, help="number of ~90 KB cards")
    parser.add_argument("--large", type=int, default=100, help="number of ~3.4 MB cards")
    parser.add_argument("--repeats", type=int, default=7, help="passes per reader (median reported)")
    parser.add_argument("--pillow-repeats", type=int, default=3, help="passes for the slow Pillow reader")
    args = parser.parse_args()
    ok = run(args.typical, args.large, args.repeats, args.pillow_repeats)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
