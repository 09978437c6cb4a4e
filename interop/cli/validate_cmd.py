"""``interop validate``: is a file a well-formed card or lorebook?"""

from __future__ import annotations

from pathlib import Path

import click

from ..terminal import printable
from ..validation import validate_document
from .common import read_inputs
from .exits import EXIT_CHECK_FAILED, EXIT_INPUT


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--strict", is_flag=True, help="Treat spec violations as errors (exit 1).")
def command(paths: tuple[str, ...], strict: bool) -> None:
    """Check cards and lorebooks against the spec.

    Permissive by default: only unreadable files fail. ``--strict`` also fails on
    missing required fields and off-type values, but never on extension keys,
    string entry ids or a spec_version other than 3.0 (all allowed by the spec).
    """
    unreadable: list[Path] = []
    invalid = 0
    for path, doc in read_inputs(paths, on_error=lambda path, _exc: unreadable.append(path)):
        problems = validate_document(doc)
        errors = [p for p in problems if p.severity == "error"] if strict else []
        if errors:
            invalid += 1
        status = "invalid" if errors else "ok"
        click.echo(printable(f"{path}: {status} ({doc.format})"))
        for problem in problems:
            label = "error" if strict and problem.severity == "error" else "warning"
            click.echo(printable(f"  {label}: {problem.path}: {problem.message}"))
    if unreadable:
        raise SystemExit(EXIT_INPUT)
    if invalid:
        raise SystemExit(EXIT_CHECK_FAILED)
