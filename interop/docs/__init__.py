"""Every generated document, rendered by one command: ``python -m interop.docs --write|--check``.

* ``docs/platforms/<platform>.md``: one per mapping table (``interop.docs.platforms``);
* ``docs/fidelity.md``: the fidelity matrix and where stashes go (``interop.fidelity.matrix``);
* ``README.md``: the format table between its markers (``interop.docs.formats_table``).

``--write`` rewrites what is stale; ``--check`` exits 1 naming every stale file (CI and
tests/test_repo_hygiene.py run it). Paths are relative to ``--root`` (default: the current folder).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..fidelity import matrix
from . import formats_table, platforms

COMMAND = "python -m interop.docs --write"
"""What a stale document tells the reader to run (also named in each generated file's header)."""


@dataclass(frozen=True)
class GeneratedDoc:
    path: Path
    """Relative to the repository root."""
    render: Callable[[str | None], str]
    """The current text (None when the file is missing) -> the text it should have."""


def generated_docs() -> list[GeneratedDoc]:
    docs = [GeneratedDoc(path, lambda _current, text=text: text) for path, text in platforms.rendered().items()]
    docs.append(GeneratedDoc(matrix.DEFAULT_OUTPUT, lambda _current: matrix.render()))
    docs.append(GeneratedDoc(formats_table.README, formats_table.rendered))
    return docs


def stale_docs(root: Path) -> dict[Path, str]:
    """Absolute path -> fresh text, for every generated document that differs from its file."""
    stale: dict[Path, str] = {}
    for doc in generated_docs():
        path = root / doc.path
        current = path.read_text(encoding="utf-8") if path.exists() else None
        fresh = doc.render(current)
        if fresh != current:
            stale[path] = fresh
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m interop.docs", description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help="rewrite every stale document")
    group.add_argument("--check", action="store_true", help="exit 1 if any document is out of date")
    parser.add_argument("--root", type=Path, default=Path("."), help="repository root (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        stale = stale_docs(args.root)
    except ValueError as exc:  # e.g. no README.md under --root
        print(f"python -m interop.docs: {exc}", file=sys.stderr)
        return 2
    for path, text in stale.items():
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
        else:
            print(f"out of date: {path} (run {COMMAND})", file=sys.stderr)
    return 1 if stale and args.check else 0
