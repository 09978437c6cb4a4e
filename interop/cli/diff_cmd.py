"""``interop diff``: two cards or lorebooks of any formats compared through the canonical model."""

from __future__ import annotations

from pathlib import Path

import click

from ..api import read
from ..fidelity.compare import Change
from ..fidelity.entrydiff import diff_documents, entry_label
from ..fidelity.paths import render
from ..fidelity.render import APP_FINDINGS_SHOWN
from .common import InputPath, current_limits
from .exits import EXIT_CHECK_FAILED


def _line(change: Change, indent: str) -> str:
    path = render(change.path) if change.path else "(entry)"
    return f"{indent}{path}: {change.describe()}"


@click.command("diff")
@click.argument("a", type=InputPath(dir_okay=False, allow_dash=False))
@click.argument("b", type=InputPath(dir_okay=False, allow_dash=False))
def command(a: str, b: str) -> None:
    """Compare A and B (any formats) field by field, entries matched by id, then keys and content.

    Exit 0 when they hold the same data, 1 when they differ.
    """
    doc_a = read(a, limits=current_limits())
    doc_b = read(b, limits=current_limits())
    result = diff_documents(doc_a, doc_b, Path(b).read_bytes())
    click.echo(f"--- {a} ({doc_a.format})")
    click.echo(f"+++ {b} ({doc_b.format})")
    for change in result.sections:
        click.echo(_line(change, ""))
    for pair in result.pairs:
        if not pair.changes:
            continue
        label = entry_label(pair.a, result.a_entries[pair.a])
        where = f" (B #{pair.b}, matched by {pair.how})"
        click.echo(f"{label}{where}:")
        for change in pair.changes:
            click.echo(_line(change, "  "))
    for i in result.only_a:
        click.echo(f"only in A: {entry_label(i, result.a_entries[i])}")
    for j in result.only_b:
        click.echo(f"only in B: {entry_label(j, result.b_entries[j])}")
    if result.reordered:
        order = [p.b for p in sorted(result.pairs, key=lambda p: p.a)]
        click.echo(f"entries reordered: A's entries appear in B at positions {order}")
    for change in result.containers:
        click.echo(_line(change, ""))
    for verdict in result.apps:
        click.echo(f"at {verdict.app} ({verdict.via}): {len(verdict.findings)} setting(s) load differently from A's")
        for finding in verdict.findings[:APP_FINDINGS_SHOWN]:
            click.echo(f"  {render(finding.path)}: {finding.detail}")
        if len(verdict.findings) > APP_FINDINGS_SHOWN:
            click.echo(f"  ... and {len(verdict.findings) - APP_FINDINGS_SHOWN} more")
    if result.identical:
        click.echo("no differences")
        return
    click.echo(f"{result.count} difference(s)")
    raise SystemExit(EXIT_CHECK_FAILED)
