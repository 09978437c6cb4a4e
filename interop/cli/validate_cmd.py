"""``interop validate``: is a file a well-formed card or lorebook?"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..terminal import printable
from ..validation import validate_document
from .common import read_inputs
from .exits import EXIT_CHECK_FAILED, EXIT_INPUT


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--strict", is_flag=True, help="Treat spec violations as errors (exit 1).")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON (one object per file).")
def command(paths: tuple[str, ...], strict: bool, as_json: bool) -> None:
    """Check cards and lorebooks against the spec.

    Permissive by default: only unreadable files fail. ``--strict`` also fails on
    missing required fields and off-type values, but never on extension keys,
    string entry ids or a spec_version other than 3.0 (all allowed by the spec).
    """
    unreadable: list[Path] = []
    invalid = 0
    files: list[dict[str, Any]] = []
    for path, doc in read_inputs(paths, on_error=lambda path, _exc: unreadable.append(path)):
        problems = validate_document(doc)
        errors = [p for p in problems if p.severity == "error"] if strict else []
        if errors:
            invalid += 1
        status = "invalid" if errors else "ok"
        shown = [
            {
                "severity": "error" if strict and p.severity == "error" else "warning",
                "path": p.path,
                "message": p.message,
            }
            for p in problems
        ]
        files.append({"path": str(path), "format": doc.format, "status": status, "problems": shown})
        if not as_json:
            click.echo(printable(f"{path}: {status} ({doc.format})"))
            for problem in shown:
                click.echo(printable(f"  {problem['severity']}: {problem['path']}: {problem['message']}"))
    if as_json:
        data = {"strict": strict, "files": files, "unreadable": [str(p) for p in unreadable]}
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    if unreadable:
        raise SystemExit(EXIT_INPUT)
    if invalid:
        raise SystemExit(EXIT_CHECK_FAILED)
