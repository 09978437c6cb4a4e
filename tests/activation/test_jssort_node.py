"""``jssort.v8_sort`` against Node's own ``Array.prototype.sort`` (V8), on comparators that are not consistent.

SillyTavern's ``sortFn`` is ``(a, b) => b.order - a.order``: an entry without a numeric ``order``
makes it NaN, which SortCompare turns into 0, so the order of a book depends on V8's TimSort
(issue 24 item 7). Every case here is sorted by both Node and ``v8_sort`` and must come out in
the same order: arrays of 0-3,000 elements with missing values, with pre-sorted stretches (so
that run detection, merging and galloping all run), and arbitrary comparators given as a
table of answers.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from typing import Any

import pytest

from interop.activation.jssort import sort_ascending_by, sort_descending_by, v8_sort

NODE = shutil.which("node")
pytestmark = [pytest.mark.node, pytest.mark.skipif(NODE is None, reason="node is not installed: no V8 to compare with")]

SCRIPT = """
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = cases.map((c) => {
  if (c.kind === 'table') {
    const arr = Array.from({ length: c.n }, (_, i) => i);
    arr.sort((a, b) => c.table[a * c.n + b]);
    return arr;
  }
  const arr = c.values.map((v, i) => ({ i, v: v === null ? undefined : v }));
  arr.sort(c.kind === 'desc' ? (a, b) => b.v - a.v : (a, b) => a.v - b.v);
  return arr.map((x) => x.i);
});
console.log(JSON.stringify(out));
"""


def values_case(rng: random.Random) -> list[float | None]:
    n = rng.choice([rng.randint(0, 12), rng.randint(0, 90), rng.randint(60, 600), rng.randint(1000, 3000)])
    missing = rng.choice([0.0, 0.05, 0.3, 0.7])
    high = rng.choice([3, 20, 1000])
    values: list[float | None] = []
    while len(values) < n:  # stretches already in order (runs), reversed stretches, random stretches
        chunk = [rng.randint(0, high) for _ in range(rng.randint(1, 80))]
        shape = rng.random()
        if shape < 0.3:
            chunk.sort()
        elif shape < 0.5:
            chunk.sort(reverse=True)
        values.extend(None if rng.random() < missing else v for v in chunk)
    return values[:n]


def cases(seed: int, count: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for _ in range(count):
        if rng.random() < 0.25:
            n = rng.randint(0, 70)
            p = rng.choice([0.05, 0.3, 0.5])
            table = [-1 if (r := rng.random()) < p else (1 if r < 2 * p else 0) for _ in range(n * n)]
            out.append({"kind": "table", "n": n, "table": table})
        else:
            out.append({"kind": rng.choice(["desc", "asc"]), "values": values_case(rng)})
    return out


def ours(case: dict[str, Any]) -> list[int]:
    if case["kind"] == "table":
        n, table = case["n"], case["table"]
        return v8_sort(list(range(n)), lambda a, b: table[a * n + b])
    values = [float("nan") if v is None else v for v in case["values"]]
    by = sort_descending_by if case["kind"] == "desc" else sort_ascending_by
    return by(list(range(len(values))), lambda i: values[i])


def test_v8_sort_agrees_with_node() -> None:
    batch = cases(24, 1500)
    assert NODE is not None
    run = subprocess.run(
        [NODE, "-e", SCRIPT], input=json.dumps(batch), capture_output=True, text=True, timeout=300, check=True
    )
    expected = json.loads(run.stdout)
    differences = [(i, case["kind"]) for i, (case, want) in enumerate(zip(batch, expected, strict=True))
                   if ours(case) != want]  # fmt: skip
    assert differences == []


BOOK_SCRIPT = """
const books = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const sortFn = (a, b) => b.order - a.order;  // world-info.js sortFn
console.log(JSON.stringify(books.map((b) => {
  const g = b.global.map((e) => ({ ...e })), c = b.character.map((e) => ({ ...e }));
  // getSortedEntries: evenly sorts global + character together, else each list and concatenates
  const pool = b.strategy === 0 ? [...g, ...c].sort(sortFn)
    : b.strategy === 2 ? [...g.sort(sortFn), ...c.sort(sortFn)] : [...c.sort(sortFn), ...g.sort(sortFn)];
  // the assembly: activated entries (here: all, in pool order) sorted again, each unshifted
  const before = [];
  [...pool].sort(sortFn).forEach((e) => before.unshift(e.id));
  return { pool: pool.map((e) => e.id), before };
})));
"""


def random_books(seed: int, count: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    books = []
    for _ in range(count):
        book: dict[str, Any] = {"strategy": rng.choice([0, 1, 2])}
        for kind in ("global", "character"):
            entries = []
            for uid in range(rng.randint(0, 40)):
                entry: dict[str, Any] = {"id": f"{kind[0]}.{uid}"}
                roll = rng.random()
                if roll < 0.6:
                    entry["order"] = rng.choice([rng.randint(0, 10), rng.randint(0, 1000)])
                elif roll < 0.7:
                    entry["order"] = rng.choice([str(rng.randint(0, 10)), None, "x"])
                entries.append(entry)  # else: no order (30 %)
            book[kind] = entries
        books.append(book)
    return books


def test_sillytavern_book_order_agrees_with_node() -> None:
    """The sillytavern profile's pool order (``getSortedEntries``) and its before-character prompt
    list (the assembly's ``sort(sortFn)`` then ``unshift``) equal what Node's V8 gives, on 300
    random books where 30 % of the entries have no order and some have "5", null or "x"."""
    from interop.engine import evaluate
    from interop.engine.chat_input import Chat, Message
    from interop.formats.sillytavern.activation import SillyTavernProfile, STBook, STSettings

    books = random_books(7, 300)
    assert NODE is not None
    run = subprocess.run(
        [NODE, "-e", BOOK_SCRIPT], input=json.dumps(books), capture_output=True, text=True, timeout=300, check=True
    )
    expected = json.loads(run.stdout)
    chat = Chat((Message("Alex", "user", "dragon"),), user="Alex")
    mismatches = []
    for number, (book, want) in enumerate(zip(books, expected, strict=True)):
        worlds = []
        for kind in ("global", "character"):
            entries = {}
            for uid, entry in enumerate(book[kind]):
                raw = {k: v for k, v in entry.items() if k != "id"}
                entries[str(uid)] = {"uid": uid, "key": ["dragon"], "content": entry["id"], "position": 0, **raw}
            worlds.append(STBook(kind[0], {"entries": entries}, kind))
        settings = STSettings(character_strategy=book["strategy"], max_context=10**6)
        pool = SillyTavernProfile().prepare(worlds, settings)
        before = [a.content for a in evaluate(worlds, chat, "sillytavern", settings=settings).activated]
        if [e.entry_id for e in pool.entries] != want["pool"] or before != want["before"]:
            mismatches.append(number)
    assert mismatches == []
