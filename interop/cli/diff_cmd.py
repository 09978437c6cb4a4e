"""``interop diff``: two cards or lorebooks of any formats compared through the canonical model."""

from __future__ import annotations

from pathlib import Path

import click

from ..api import read
from ..document import Document
from ..fidelity.chats import chat_differences
from ..fidelity.compare import Change
from ..fidelity.entrydiff import diff_documents, entry_label
from ..fidelity.paths import render
from ..fidelity.render import APP_FINDINGS_SHOWN
from .common import current_limits
from .exits import EXIT_CHECK_FAILED


def _line(change: Change, indent: str) -> str:
    path = render(change.path) if change.path else "(entry)"
    return f"{indent}{path}: {change.describe()}"


@click.command("diff")
@click.argument("a", type=click.Path(exists=True, dir_okay=False))
@click.argument("b", type=click.Path(exists=True, dir_okay=False))
def command(a: str, b: str) -> None:
    """Compare A and B (any formats) field by field, entries matched by id, then keys and content.

    Exit 0 when they hold the same data, 1 when they differ.
    """
    doc_a = read(a, limits=current_limits())
    doc_b = read(b, limits=current_limits())
    if "chat" in (doc_a.kind, doc_b.kind):
        _diff_chats(a, doc_a, b, doc_b)
        return
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


def _diff_chats(a: str, doc_a: Document, b: str, doc_b: Document) -> None:
    """Two chats compared through the canonical chat (docs/chats.md); each app's own fields are not compared."""
    click.echo(f"--- {a} ({doc_a.format})")
    click.echo(f"+++ {b} ({doc_b.format})")
    if doc_a.chat is None or doc_b.chat is None:
        click.echo(f"A is a {doc_a.kind}, B is a {doc_b.kind}")
        raise SystemExit(EXIT_CHECK_FAILED)
    paths = [p for p in chat_differences(doc_a.chat, doc_b.chat) if ".native." not in p]
    for path in paths:
        click.echo(f"{path}: differs")
    if not paths:
        click.echo("no differences")
        return
    click.echo(f"{len(paths)} difference(s)")
    raise SystemExit(EXIT_CHECK_FAILED)
