"""Conversion with fidelity reports: the corpora through every target, and the cost of one report.

1. Converts every card and lorebook of the shared corpus (``../shared/corpus``)
   and the project corpus (``corpus/``) to every writable format, each with its
   fidelity report, and prints per-file and total times (and how many
   conversions were refused with ConversionError, e.g. a card without a
   lorebook to a lorebook format).
2. Generates a 300-entry lorebook (SillyTavern knobs in ``extensions``, an
   unknown key per entry) and times one fidelity report per target given the
   written output: the full report (the target's reader + comparison) and the
   comparison alone (output already read), and DeepDiff's share of it (DeepDiff
   only describes fields that did not come back; a type-strict check per
   section and per entry does the rest).

Target (PASS/FAIL): the comparison of a 300-entry lorebook report under 20 ms
for every target, and the full report for ``lorebook_v3`` under 20 ms. Times
are CPU times of this process (the machine is shared), best of ``--repeat``.

Run: ``python benchmarks/convert.py [--repeat N] [--entries N] [--no-corpus]``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from interop.api import read, write
from interop.document import Document
from interop.errors import ConversionError, InteropError
from interop.fidelity import compare, fidelity_report
from interop.fidelity.report import read_back
from interop.model import Lorebook
from interop.platform.registry import writable_formats

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("INTEROP_SHARED_CORPUS", REPO.parent / "shared" / "corpus"))
NOT_SAMPLES = {".py", ".md", ".txt", ".jsonl", ".tsv"}
TARGET_MS = 20.0


def samples(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and p.suffix.lower() not in NOT_SAMPLES and not p.name.startswith(".") and "chats" not in p.parts
    )


def convert_corpus(files: list[Path], targets: list[str], root: Path) -> tuple[float, int, int, int]:
    total = 0.0
    done = refused = failed = 0
    for path in files:
        start = time.perf_counter()
        try:
            doc = read(path)
        except InteropError as exc:
            print(f"  {'unreadable':>9} {path.relative_to(root)}: {exc.reason}")
            failed += 1
            continue
        for target in targets:
            try:
                data = write(doc, target)
                fidelity_report(doc, target, data)
                done += 1
            except ConversionError:
                refused += 1
            except InteropError as exc:
                failed += 1
                print(f"  error {path.relative_to(root)} -> {target}: {exc}")
            except Exception as exc:  # a bug in a writer or reader: count it, keep measuring the rest
                failed += 1
                print(f"  BUG {path.relative_to(root)} -> {target}: {type(exc).__name__}: {exc}")
        elapsed = time.perf_counter() - start
        total += elapsed
        print(f"  {elapsed * 1000:7.1f} ms  {path.relative_to(root)} ({doc.format})")
    return total, done, refused, failed


def big_lorebook(count: int, seed: int = 7) -> Document:
    rng = random.Random(seed)
    words = ["harbour", "lantern", "guild", "tide", "ember", "spire", "market", "ferry", "archive", "vault"]
    entries = []
    for i in range(count):
        keys = [f"{rng.choice(words)}{i}", rng.choice(words)]
        entries.append(
            {
                "keys": keys,
                "secondary_keys": [rng.choice(words)] if i % 3 == 0 else [],
                "content": " ".join(rng.choice(words) for _ in range(rng.randint(40, 120))),
                "extensions": {
                    "sillytavern": {
                        "entry": {
                            "insertion_position": i % 5,
                            "depth": 4,
                            "trigger_percent": 100 if i % 7 else 50,
                            "use_probability": True,
                            "group": f"group{i % 5}" if i % 4 == 0 else "",
                            "sticky": 0,
                            "cooldown": 0,
                            "delay": 0,
                            "role": 0,
                        }
                    },
                    "x_tool": {"n": i},
                },
                "enabled": i % 11 != 0,
                "insertion_order": i,
                "case_sensitive": i % 9 == 0,
                "use_regex": False,
                "constant": i % 10 == 0,
                "name": f"Entry {i}",
                "priority": 10,
                "id": i,
                "comment": f"entry {i}",
                "selective": i % 3 == 0,
                "position": "before_char" if i % 2 else "after_char",
            }
        )
    book = Lorebook.model_validate(
        {
            "name": "Benchmark book",
            "description": "generated",
            "scan_depth": 4,
            "token_budget": 2048,
            "recursive_scanning": True,
            "extensions": {},
            "entries": entries,
        }
    )
    return Document(format="lorebook_v3", lorebook=book, source="benchmark.lorebook_v3.json")


def best_cpu(func: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        func()
        best = min(best, time.process_time() - start)
    return best


class DeepDiffClock:
    """Wraps the DeepDiff the report uses to add up the time spent inside it."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self._real = compare.DeepDiff

    def __enter__(self) -> DeepDiffClock:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return self._real(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - start
                self.calls += 1

        compare.DeepDiff = timed  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        compare.DeepDiff = self._real  # type: ignore[assignment]


def report_cost(count: int, targets: list[str], repeat: int) -> bool:
    doc = big_lorebook(count)
    print(f"\n{count}-entry lorebook: one fidelity report per target (CPU ms, best of {repeat})")
    print(f"  {'target':<20} {'report':>8} {'compare':>8} {'deepdiff':>9} {'share':>6} {'items':>6}  fates")
    ok = True
    for target in targets:
        try:
            data = write(doc, target)
        except ConversionError:
            continue
        output = read_back(data, target, doc.source)
        full = best_cpu(lambda t=target, d=data: fidelity_report(doc, t, d), repeat)
        only = best_cpu(lambda t=target, d=data, o=output: fidelity_report(doc, t, d, output_doc=o), repeat)
        with DeepDiffClock() as clock:
            start = time.process_time()
            report = fidelity_report(doc, target, data, output_doc=output)
            once = time.process_time() - start
        share = clock.seconds / once if once else 0.0
        counts = report.counts
        fates = " ".join(f"{k[:5]}={v}" for k, v in counts.items() if v)
        print(
            f"  {target:<20} {full * 1000:8.1f} {only * 1000:8.1f} {clock.seconds * 1000:8.1f}  {share:6.1%}"
            f" {len(report.items):6d}  {fates}"
        )
        if only * 1000 > TARGET_MS or (target == "lorebook_v3" and full * 1000 > TARGET_MS):
            ok = False
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--entries", type=int, default=300)
    parser.add_argument("--no-corpus", action="store_true", help="skip the corpus conversion (part 1)")
    args = parser.parse_args(argv)
    targets = sorted(f.name for f in writable_formats())
    if not args.no_corpus:
        grand = 0.0
        for root in (SHARED, REPO / "corpus"):
            files = samples(root)
            if not files:
                print(f"{root}: not found, skipped")
                continue
            print(f"{root}: {len(files)} files x {len(targets)} targets, each with a fidelity report")
            total, done, refused, failed = convert_corpus(files, targets, root)
            grand += total
            print(
                f"  total {total:.2f} s: {done} conversions with reports, {refused} refused (ConversionError),"
                f" {failed} failed; {total / max(done, 1) * 1000:.1f} ms per conversion"
            )
        print(f"both corpora: {grand:.2f} s")
    ok = report_cost(args.entries, targets, args.repeat)
    print(
        f"\n{'PASS' if ok else 'FAIL'}: comparison under {TARGET_MS:.0f} ms for every target"
        f" and full lorebook_v3 report under {TARGET_MS:.0f} ms ({args.entries} entries)"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
