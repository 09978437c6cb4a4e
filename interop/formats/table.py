"""The format support table in README.md, generated from the registry.

``python -m interop.formats.table --write`` rewrites the block between the
``<!-- formats:start -->`` and ``<!-- formats:end -->`` markers; ``--check``
fails when it is stale (a test runs it in CI).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .registry import all_formats

START = "<!-- formats:start -->"
END = "<!-- formats:end -->"


def render() -> str:
    rows = ["| name (`--to`) | kind | platform | read | write | what |", "|---|---|---|---|---|---|"]
    for fmt in sorted(all_formats(), key=lambda f: (f.platform, f.name)):
        rows.append(
            f"| `{fmt.name}` | {fmt.kind} | {fmt.platform} | {'yes' if fmt.read else 'no'} "
            f"| {'yes' if fmt.write else 'no'} | {fmt.title} |"
        )
    return "\n".join(rows)


def updated(readme: str) -> str:
    head, sep, rest = readme.partition(START)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"README has no {START} ... {END} block")
    return f"{head}{START}\n{render()}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--readme", type=Path, default=Path("README.md"))
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true")
    group.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    current = args.readme.read_text(encoding="utf-8")
    fresh = updated(current)
    if fresh == current:
        return 0
    if args.write:
        args.readme.write_text(fresh, encoding="utf-8")
        print(f"updated {args.readme}")
        return 0
    print(f"{args.readme}: format table is stale (run python -m interop.formats.table --write)", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
