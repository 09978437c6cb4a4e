"""Lorebook activation speed: the sillytavern profile on 10,000 entries and a 100-message chat.

Generates a synthetic SillyTavern world (10,000 entries: 1-3 keys each from a
30,000-word vocabulary, a share of multi-word, case-sensitive, substring,
regex and secondary-key entries, constants, inclusion groups, probabilities)
and a 100-message chat, then times one turn with

* the engine (Aho-Corasick key index, candidates only), and
* a straightforward loop over every entry and every key on each pass, with a
  regex per whole-word key, as SillyTavern itself does,

checks both give identical activations and request-log outcomes, and prints
the median times, the speed-up and PASS/FAIL against the targets
(< 50 ms per turn, >= 20x the loop).

The per-turn target is checked on CPU time (``time.process_time``): on this shared
2-CPU machine other sessions' load inflates wall time; both are printed.

Run from the repository root (the reference loop is a test module, ``tests/engine/st_reference.py``):
``PYTHONPATH=. python benchmarks/activate.py [--entries N] [--messages N] [--repeat N] [--write-data DIR]``.
``--write-data DIR`` also saves the world and the chat (``DIR/bench.json``, ``DIR/bench.jsonl``) so one
scan can be run and timed from the command line:
``interop activate DIR/bench.json --chat DIR/bench.jsonl --last --time --setting max_context=32768``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from interop.activation.tokenizers import ApproxTokenizer
from interop.engine import Chat, ChatState, Message
from interop.formats.sillytavern.activation import SillyTavernProfile, STPool, STSettings
from interop.formats.sillytavern.activation.scan import STScan
from tests.engine.st_reference import ReferenceScan

TARGET_MS = 50.0
TARGET_SPEEDUP = 20.0
SYLLABLES = ["ka", "lo", "mi", "ra", "ven", "dor", "thal", "is", "ur", "en", "sa", "mor", "el", "gri", "an", "ost"]


def vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def make_world(rng: random.Random, words: list[str], count: int) -> dict[str, Any]:
    entries: dict[str, Any] = {}
    for uid in range(count):
        keys = [rng.choice(words) for _ in range(rng.randint(1, 3))]
        roll = rng.random()
        if roll < 0.05:
            keys.append(f"{rng.choice(words)} {rng.choice(words)}")  # multi-word: substring match
        elif roll < 0.07:
            keys.append(keys[0].capitalize())
        entry: dict[str, Any] = {
            "uid": uid,
            "key": keys,
            "keysecondary": [],
            "comment": f"entry {uid}",
            "content": " ".join(rng.choice(words) for _ in range(rng.randint(8, 30))) + ".",
            "constant": uid % 2000 == 0,
            "selective": True,
            "selectiveLogic": 0,
            "order": rng.randint(1, 1000),
            "position": rng.choice([0, 1, 4]),
            "disable": uid % 97 == 0,
            "probability": 100,
            "useProbability": True,
            "depth": 4,
            "group": "",
            "groupOverride": False,
            "groupWeight": 100,
            "scanDepth": None,
            "caseSensitive": None,
            "matchWholeWords": None,
            "useGroupScoring": None,
            "role": 0,
            "sticky": 0,
            "cooldown": 0,
            "delay": 0,
        }
        if uid % 10 == 1:
            entry["keysecondary"] = [rng.choice(words), rng.choice(words)]
            entry["selectiveLogic"] = rng.choice([0, 1, 2, 3])
        if uid % 25 == 2:
            entry["caseSensitive"] = True
        if uid % 25 == 3:
            entry["matchWholeWords"] = False
        if uid % 40 == 4:
            entry["scanDepth"] = rng.choice([1, 4, 10])
        if uid % 50 == 5:
            entry["group"] = f"group{uid % 7}"
            entry["groupWeight"] = rng.randint(10, 100)
        if uid % 60 == 6:
            entry["probability"] = 50
        if uid % 500 == 7:
            entry["key"] = [f"/{rng.choice(words)}(?:s|es)?/i"]
        if uid % 300 == 8:
            entry["excludeRecursion"] = True
        if uid % 300 == 9:
            entry["preventRecursion"] = True
        entries[str(uid)] = entry
    return {"entries": entries}


def make_chat(rng: random.Random, words: list[str], count: int) -> Chat:
    messages = []
    for i in range(count):
        role = "user" if i % 2 else "assistant"
        name = "Alex" if role == "user" else "Mira"
        text = " ".join(rng.choice(words) if rng.random() < 0.08 else rng.choice(FILLER) for _ in range(40))
        messages.append(Message(name, role, text.capitalize() + ".", greeting=i == 0))
    return Chat(tuple(messages), user="Alex")


FILLER = ("the", "a", "of", "and", "to", "in", "she", "he", "was", "said", "with", "on", "for", "as", "at", "road")


def write_data(directory: Path, world: dict[str, Any], chat: Chat) -> None:
    """The benchmark's world (SillyTavern JSON) and chat (JSON Lines, docs/engine.md) as files."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bench.json").write_text(json.dumps(world), encoding="utf-8")
    lines = [json.dumps({"user": chat.user, "character": {"name": "Mira"}})]
    for m in chat.messages:
        record: dict[str, Any] = {"name": m.name, "role": m.role, "text": m.text}
        if m.greeting:
            record["greeting"] = True
        lines.append(json.dumps(record))
    (directory / "bench.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {directory / 'bench.json'} and {directory / 'bench.jsonl'}")


def outcome(result: Any) -> tuple[Any, ...]:
    """What must agree: the injected entries in order and, for every fired entry, why it fired.

    (For entries that never fired the two algorithms may name different checks: the loop
    reports the last pass it looked at, the engine the first decisive one.)
    """
    return (
        [(a.entry_id, a.position, a.tokens) for a in result.activated],
        sorted((r.entry_id, r.reason, r.key) for r in result.log if r.fired),
        sorted(r.entry_id for r in result.log if not r.fired),
    )


def run_once(
    scan_class: type[STScan], pool: STPool, chat: Chat, settings: STSettings, seed: int
) -> tuple[float, float, Any]:
    """(wall ms, CPU ms, result) of one turn, request log included."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = scan_class(pool, chat, settings, ChatState(), random.Random(seed), ApproxTokenizer()).run()
    _ = result.log  # the request log is part of the work
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--loop-repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--write-data", metavar="DIR", help="also write the world and chat files there")
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    words = vocabulary(rng, 30_000)
    world = make_world(rng, words, args.entries)
    chat = make_chat(rng, words, args.messages)
    if args.write_data:
        write_data(Path(args.write_data), world, chat)
    # Shipped defaults (recursion and whole words on), a 32k context: 25 % = 8192 tokens of lore.
    settings = STSettings(max_context=32768)
    profile = SillyTavernProfile()
    start = time.perf_counter()
    pool = profile.prepare([("bench", world)], settings)
    prepare_ms = (time.perf_counter() - start) * 1000
    engine_wall, engine_cpu, engine_result = [], [], None
    for _i in range(args.repeat):
        wall, cpu, engine_result = run_once(STScan, pool, chat, settings, args.seed)
        engine_wall.append(wall)
        engine_cpu.append(cpu)
    loop_wall, loop_cpu, loop_result = [], [], None
    for _i in range(args.loop_repeat):
        wall, cpu, loop_result = run_once(ReferenceScan, pool, chat, settings, args.seed)
        loop_wall.append(wall)
        loop_cpu.append(cpu)

    identical = outcome(engine_result) == outcome(loop_result)
    engine_ms = statistics.median(engine_wall)
    loop_ms = statistics.median(loop_wall)
    speedup = loop_ms / engine_ms if engine_ms else float("inf")
    cpu_speedup = statistics.median(loop_cpu) / statistics.median(engine_cpu)
    fired = sum(1 for r in engine_result.log if r.fired)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"lorebook: {args.entries} entries, {len(pool.index)} distinct plain keys; chat: {args.messages} messages")
    print(f"one-time preparation (parse + key index): {prepare_ms:.1f} ms")
    print(
        f"turn result: {fired} entries fired, {len(engine_result.activated)} injected, "
        f"{engine_result.tokens_used}/{engine_result.budget} tokens, {engine_result.steps} scan passes"
    )
    print(f"machine: {os.cpu_count()} CPUs, load average {load:.2f} at the start of the timing")
    print(
        f"engine (Aho-Corasick, candidates only): median {engine_ms:.1f} ms wall, "
        f"{statistics.median(engine_cpu):.1f} ms CPU over {args.repeat} runs (min wall {min(engine_wall):.1f} ms)"
    )
    print(
        f"per-entry per-key loop:                 median {loop_ms:.1f} ms wall, "
        f"{statistics.median(loop_cpu):.1f} ms CPU over {args.loop_repeat} runs"
    )
    print(f"speed-up: {speedup:.1f}x wall, {cpu_speedup:.1f}x CPU; identical results: {identical}")
    # The machine is shared (load average above the CPU count is common), so the per-turn target is
    # checked on CPU time, which is what a turn costs; wall time is printed for reference.
    engine_cpu_ms = statistics.median(engine_cpu)
    ok_time = engine_cpu_ms < TARGET_MS
    ok_speed = min(speedup, cpu_speedup) >= TARGET_SPEEDUP
    print(f"target < {TARGET_MS:.0f} ms/turn (CPU median {engine_cpu_ms:.1f} ms): {'PASS' if ok_time else 'FAIL'}")
    print(f"target >= {TARGET_SPEEDUP:.0f}x the loop: {'PASS' if ok_speed else 'FAIL'}")
    print(f"identical results: {'PASS' if identical else 'FAIL'}")
    return 0 if ok_time and ok_speed and identical else 1


if __name__ == "__main__":
    sys.exit(main())
