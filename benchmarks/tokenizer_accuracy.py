"""Accuracy of the offline token estimate against the real cl100k_base BPE.

tiktoken installs from PyPI but downloads its BPE file at run time, which is
not possible offline. The npm package ``gpt-tokenizer`` ships cl100k_base
inside the package, so the reference counts come from Node:

    mkdir -p /tmp/gptok && (cd /tmp/gptok && npm install gpt-tokenizer@2)
    python benchmarks/tokenizer_accuracy.py --node-modules /tmp/gptok/node_modules

Texts: entry contents and card text fields of ``../shared/corpus`` (read in
place, never copied). Prints, per estimator, the error of the summed count and
the median / 90th percentile of the per-text relative error (texts of >= 20 tokens).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from interop.activation.tokenizers import ApproxTokenizer, CharsTokenizer, Tokenizer

REPO = Path(__file__).resolve().parents[1]
FIELDS = {"content", "description", "first_mes", "personality", "scenario", "mes_example", "text", "entry"}
COUNTER = """
const fs = require('node:fs');
const { encode } = require(process.argv[2] + '/gpt-tokenizer/cjs/encoding/cl100k_base');
const texts = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
fs.writeFileSync(process.argv[4], JSON.stringify(texts.map(t => encode(t).length)));
"""


def collect(root: Path) -> list[str]:
    texts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in FIELDS and isinstance(item, str) and len(item) >= 80:
                    texts.append(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted(root.rglob("*.json")):
        try:
            walk(json.loads(path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
    return texts


def reference_counts(texts: list[str], node_modules: Path) -> list[int]:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        script, source, target = Path(tmp, "count.cjs"), Path(tmp, "in.json"), Path(tmp, "out.json")
        script.write_text(COUNTER, encoding="utf-8")
        source.write_text(json.dumps(texts), encoding="utf-8")
        subprocess.run([node, str(script), str(node_modules.resolve()), str(source), str(target)], check=True)
        return json.loads(target.read_text(encoding="utf-8"))


def report(name: str, counter: Tokenizer, texts: list[str], truth: list[int]) -> None:
    estimates = [counter.count(t) for t in texts]
    errors = sorted(abs(e - t) / t for e, t in zip(estimates, truth, strict=True) if t >= 20)
    total = (sum(estimates) - sum(truth)) / sum(truth)
    print(
        f"{name:<18} total {total:+6.1%}   median |error| {statistics.median(errors):5.1%}   "
        f"p90 |error| {errors[int(0.9 * len(errors))]:5.1%}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--node-modules", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    args = parser.parse_args(argv)
    texts = collect(args.corpus)
    if not texts:
        print(f"no texts under {args.corpus}")
        return 1
    truth = reference_counts(texts, args.node_modules)
    print(f"{len(texts)} texts, {sum(len(t) for t in texts)} characters, {sum(truth)} cl100k tokens")
    report("approx-cl100k", ApproxTokenizer(), texts, truth)
    report("chars/3.35", CharsTokenizer(3.35), texts, truth)
    report("chars/4", CharsTokenizer(4), texts, truth)
    return 0


if __name__ == "__main__":
    sys.exit(main())
