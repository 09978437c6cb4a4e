"""Differential test: our decorator parser against RisuAI's, ``@risuai/ccardlib`` ``decorator.parse``.

Risu evaluates every lorebook entry through ccardlib's parser (risu.md 3.5), so
``interop.model.decorators`` must call the same hooks in the same order with the
same arguments, follow ``@@@`` fallbacks the same way and leave the same body.
Inputs: every entry content with ``@@`` in the shared and project corpora, plus
a deterministic generator of awkward cases (fallback chains, orphan ``@@@``
lines, empty names, commas and blanks in arguments, Unicode white space, CRLF).
Each case also names decorators the hook rejects (returns ``false``), which
drives the fallback logic. ccardlib comes from npm at test time (cached); the
test is skipped only when ``node`` is missing.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import interop
from interop.model.decorators import Decorator, parse_decorators
from tests.conftest import project_files, shared_files
from tests.node_peers import ensure_package, run_batch

pytestmark = pytest.mark.node

CCARDLIB = "@risuai/ccardlib@0.4.2"
ORACLE = r"""
import { CCardLib } from '@risuai/ccardlib';
import readline from 'node:readline';
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  const item = JSON.parse(line);
  const calls = [];
  const body = CCardLib.decorator.parse(item.content, (name, args) => {
    calls.push([name, args]);
    return item.reject.includes(name) ? false : undefined;
  });
  // Escape the characters Python's splitlines() would split on inside the JSON line.
  const out = JSON.stringify({ calls, body })
    .replace(/[\u2028\u2029\u0085]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  console.log(out);
}
"""

NAMES = ["depth", "role", "probability", "activate", "dont_activate", "scan_depth", "instruct_depth",
         "additional_keys", "exclude_keys", "end", "inject_lore", "position", "x_unknown", "ümlaut", ""]
SPACES = ["", " ", "  ", "\t", "\u3000", "\u00a0", "\ufeff", "\x85", "\x1c", "\u2028", "\r"]
ARGS = ["", "4", "1, 2", "a,,b", " spaced , out ", ",", "system", "pt_note", "a\tb", "x y", "@@inner"]


def _generated(count: int) -> list[str]:
    rng = random.Random(20261121)
    cases = []
    for _ in range(count):
        lines = []
        for _ in range(rng.randint(1, 6)):
            roll = rng.random()
            if roll < 0.08:
                lines.append(rng.choice(["", " ", "\t"]))  # a blank line ends the block
                continue
            if roll < 0.12:
                lines.append(rng.choice(["@@@end", "@@@", "@@", "@@@end x", "@@ depth 3"]))
                continue
            head = "@@@" if rng.random() < 0.35 else "@@"
            name = rng.choice(NAMES)
            args = rng.choice(ARGS)
            text = f"{head}{name} {args}" if args or rng.random() < 0.5 else f"{head}{name}"
            lines.append(rng.choice(SPACES) + text + rng.choice(SPACES))
        body = rng.choice(["", "Body text.", "  padded body  ", "line one\n@@not a decorator\nline three"])
        newline = "\r\n" if rng.random() < 0.2 else "\n"
        lead = rng.choice(["", "\n", "  \n\t", "\ufeff"])
        cases.append(lead + newline.join([*lines, body]))
    return cases


def _corpus_contents() -> list[str]:
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and "@@" in value:
            found.append(value)

    for path in [*shared_files("risu", "st-worldinfo", "cards-json", "lorebook-v2"), *project_files("risu")]:
        if path.suffix != ".json":
            continue
        try:
            walk(json.loads(Path(path).read_text(encoding="utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
    # What Risu will parse after our conversion: the decorator lines we generate from SillyTavern fields.
    for path in shared_files("st-worldinfo") + project_files("sillytavern"):
        if path.suffix == ".json":
            walk(json.loads(interop.write(interop.read(path), "risu-lorebook"))["data"])
    return found


def _ours(content: str, reject: list[str]) -> dict[str, Any]:
    calls: list[list[Any]] = []

    def accept(deco: Decorator) -> bool:
        calls.append([deco.name, list(deco.args)])
        return deco.name not in reject

    parsed = parse_decorators(content)
    parsed.resolve(accept)
    return {"calls": calls, "body": parsed.prompt_text}


def test_decorator_parser_matches_ccardlib() -> None:
    prefix = ensure_package(CCARDLIB)
    contents = _corpus_contents() + _generated(400)
    rng = random.Random(7)
    items = []
    for content in contents:
        # Risu's hook rejects unknown names; add random rejections to walk more fallback paths.
        reject = ["x_unknown", "ümlaut", "instruct_depth", *rng.sample(NAMES[:-1], 3)]
        items.append({"content": content, "reject": reject})
    expected = run_batch(prefix, ORACLE, items)
    diverging = []
    for item, want in zip(items, expected, strict=True):
        got = _ours(item["content"], item["reject"])
        if got != want:
            diverging.append((item["content"], want, got))
    assert len(items) > 400
    assert not diverging, f"{len(diverging)} of {len(items)} diverge; first: {diverging[0]!r}"
