"""``interop diff``: two cards, lorebooks or chats of any formats compared through the canonical model."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from ..api import read
from ..document import Document
from ..fidelity.chats import chat_differences
from ..fidelity.entrydiff import diff_documents
from ..fidelity.render import diff_view
from .common import current_limits
from .exits import EXIT_CHECK_FAILED


@click.command("diff")
@click.argument("a", type=click.Path(exists=True, dir_okay=False))
@click.argument("b", type=click.Path(exists=True, dir_okay=False))
@click.option("--details", is_flag=True, help="List each entry's changes instead of grouping them by field.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON (what POST /diff answers).")
def command(a: str, b: str, details: bool, as_json: bool) -> None:
    """Compare A and B (any formats) field by field, entries matched by id, then keys and content.

    Prints a verdict line, then the differences grouped by field, each group naming the
    entries it affects (by comment or title, else keys); --details lists them entry by entry.
    Exit 0 when they hold the same data, 1 when they differ.
    """
    doc_a = read(a, limits=current_limits())
    doc_b = read(b, limits=current_limits())
    if "chat" in (doc_a.kind, doc_b.kind):
        _diff_chats(a, doc_a, b, doc_b, as_json)
        return
    result = diff_documents(doc_a, doc_b, Path(b).read_bytes())
    view = diff_view(result)
    if as_json:
        data = {
            "a": {"file": a, "format": doc_a.format},
            "b": {"file": b, "format": doc_b.format},
            **result.to_json(),
            "view": view.to_json(),
        }
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo(f"--- {a} ({doc_a.format})")
        click.echo(f"+++ {b} ({doc_b.format})")
        for line in view.lines(details=details, width=terminal_width()):
            click.echo(line)
    if not result.identical:
        raise SystemExit(EXIT_CHECK_FAILED)


def terminal_width() -> int:
    """Report lines wrap at the terminal's width (100 when the output is not a terminal)."""
    if not sys.stdout.isatty():
        return 100
    return max(60, min(shutil.get_terminal_size().columns, 160))


def _diff_chats(a: str, doc_a: Document, b: str, doc_b: Document, as_json: bool) -> None:
    """Two chats compared through the canonical chat (docs/chats.md); each app's own fields are not compared.

    The same verdict-first layout as cards and books; ``--json`` prints it as data."""
    data = chat_diff(a, doc_a, b, doc_b)
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo(f"--- {a} ({doc_a.format})")
        click.echo(f"+++ {b} ({doc_b.format})")
        click.echo(data["verdict"])
        for path in data["differences"]:
            click.echo(f"  {path}: differs")
    if not data["identical"]:
        raise SystemExit(EXIT_CHECK_FAILED)


def chat_diff(a: str, doc_a: Document, b: str, doc_b: Document) -> dict[str, Any]:
    """What ``interop diff`` says about two documents of which one at least is a chat, as data."""
    sides = {
        "a": {"file": a, "format": doc_a.format, "kind": doc_a.kind},
        "b": {"file": b, "format": doc_b.format, "kind": doc_b.kind},
    }
    if doc_a.chat is None or doc_b.chat is None:
        verdict = f"DIFFERENT: A is a {doc_a.kind}, B is a {doc_b.kind}"
        return {**sides, "verdict": verdict, "identical": False, "count": 1, "differences": []}
    paths = [p for p in chat_differences(doc_a.chat, doc_b.chat) if ".native." not in p]
    verdict = f"DIFFERENT: {len(paths)} difference(s)" if paths else "no differences: A and B hold the same chat"
    return {**sides, "verdict": verdict, "identical": not paths, "count": len(paths), "differences": paths}
