"""Run JavaScript peer libraries from npm as external oracles.

Packages are installed at test time into a cache folder (never vendored):
``$INTEROP_NODE_CACHE`` or ``~/.cache/interop-tests/node``. One Node process
handles a whole batch over NDJSON, because Node start-up costs ~80 ms.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

CACHE = Path(os.environ.get("INTEROP_NODE_CACHE", Path.home() / ".cache" / "interop-tests" / "node"))


def require_node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the Node.js cross-check tier cannot run")
    return node


def ensure_package(spec: str) -> Path:
    """Install ``spec`` (e.g. ``@risuai/ccardlib@0.4.2``) once; return the prefix holding node_modules."""
    require_node()
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the Node.js cross-check tier cannot run")
    prefix = CACHE / spec.replace("/", "__").replace("@", "_")
    prefix.mkdir(parents=True, exist_ok=True)
    with (prefix / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (prefix / ".installed").exists():
            result = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(prefix), spec],
                capture_output=True,
                text=True,
                timeout=600,
            )
            if result.returncode != 0:
                raise RuntimeError(f"npm install {spec} failed: {result.stderr.strip()[-2000:]}")
            (prefix / ".installed").write_text(spec)
    return prefix


def run_batch(prefix: Path, script: str, items: list[Any]) -> list[Any]:
    """Run an ES-module ``script`` in ``prefix``: it reads NDJSON on stdin and prints one JSON line per item."""
    path = prefix / "oracle.mjs"
    path.write_text(script, encoding="utf-8")
    payload = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)
    result = subprocess.run(
        [require_node(), str(path)], input=payload, capture_output=True, text=True, cwd=prefix, timeout=600
    )
    if result.returncode != 0:
        raise RuntimeError(f"node oracle failed: {result.stderr.strip()[-2000:]}")
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == len(items), f"oracle answered {len(lines)} of {len(items)} items"
    return lines
