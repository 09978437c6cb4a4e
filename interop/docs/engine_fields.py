"""The table of SillyTavern entry fields the engine reads with a shared coercion, in docs/engine.md.

Generated from the ``engine`` column of ``mappings/sillytavern.json`` and the coercion
functions themselves (their first docstring line says what ST does), so a setting added to
the table with an ``engine`` coercion shows up here. ``python -m interop.docs --write``
rewrites the block between the markers; ``--check`` fails when it is stale.
"""

from __future__ import annotations

from pathlib import Path

from ..engine.profiles.st_entries import COERCIONS
from ..mappings import load

ENGINE_DOC = Path("docs/engine.md")
START = "<!-- st-entry-coercions:start -->"
END = "<!-- st-entry-coercions:end -->"


def _summary(kind: str) -> str:
    doc = COERCIONS[kind].__doc__ or ""
    return " ".join(doc.strip().split("\n\n")[0].split()).replace("``", "`").replace("|", "\\|")


def render() -> str:
    rows = ["| read as | SillyTavern fields | what ST does with the raw value |", "|---|---|---|"]
    fields: dict[str, list[str]] = {}
    for row in load("sillytavern").with_column("entry", "engine"):
        fields.setdefault(row.engine, []).append(f"`{row.native}`")
    rows += [f"| `{kind}` | {', '.join(names)} | {_summary(kind)} |" for kind, names in fields.items()]
    return "\n".join(rows)


def rendered(current: str | None) -> str:
    """docs/engine.md with a fresh table (the page must exist: only the block is generated)."""
    if current is None:
        raise ValueError(f"{ENGINE_DOC} not found: run from the repository root or pass --root")
    head, sep, rest = current.partition(START)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"{ENGINE_DOC} has no {START} ... {END} block")
    return f"{head}{START}\n{render()}\n{END}{tail}"
