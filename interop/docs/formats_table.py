"""The format support table in README.md, generated from the registry.

``python -m interop.docs --write`` rewrites the block between the
``<!-- formats:start -->`` and ``<!-- formats:end -->`` markers; ``--check``
fails when it is stale (a test runs it in CI).
"""

from __future__ import annotations

from pathlib import Path

from ..platform.registry import all_formats

README = Path("README.md")
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


def rendered(current: str | None) -> str:
    """README.md with a fresh table (the README must exist: only its table is generated)."""
    if current is None:
        raise ValueError(f"{README} not found: run from the repository root or pass --root")
    return updated(current)
