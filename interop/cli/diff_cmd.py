"""``interop diff``: two cards or lorebooks of any formats compared through the canonical model."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import click

from ..api import read
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
