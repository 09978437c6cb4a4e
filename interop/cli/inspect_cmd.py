"""``interop inspect``: what a file is and what it holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..document import Document
from ..errors import InteropError
from ..formats.registry import get_format
from ..model.versions import as_displayed, spec_label
from . import EXIT_INPUT
from .common import read_inputs


def summarize(doc: Document, path: Path) -> dict[str, Any]:
    info: dict[str, Any] = {"file": str(path), "format": doc.format, "kind": doc.kind}
    if doc.card is not None:
        card, data = doc.card, as_displayed(doc.card).data
        info.update(
            spec=spec_label(card),
            spec_version=card.spec_version,
            name=data.name,
            creator=data.creator,
            assets=len(data.assets or []),
        )
    book = doc.book
    info["lorebook"] = book.name if book is not None else None
    info["entries"] = len(book.entries) if book is not None else 0
    if doc.assets:
        info["embedded_assets"] = len(doc.assets)
    container = doc.native.get("container")
    if container:
        info["container"] = container
    describe = get_format(doc.format).describe
    if describe is not None:
        facts = describe(doc)
        if facts:
            info["facts"] = facts
    info["warnings"] = list(doc.warnings)
    return info


def _print_human(info: dict[str, Any]) -> None:
    click.secho(info["file"], bold=True)
    for key, value in info.items():
        if key in ("file", "warnings", "container", "facts") or value is None:
            continue
        click.echo(f"  {key:<16} {value}")
    for key, value in (info.get("container") or {}).items():
        click.echo(f"  {key:<16} {_short(value)}")
    for key, value in (info.get("facts") or {}).items():
        click.echo(f"  {key:<16} {_short(value)}")
    for warning in info["warnings"]:
        click.secho(f"  warning: {warning}", fg="yellow")


def _short(value: Any) -> str:
    if isinstance(value, list | tuple):
        text = ", ".join(str(v) for v in value)
    elif isinstance(value, dict):
        text = ", ".join(f"{k}={v}" for k, v in value.items())
    else:
        text = str(value)
    return text if len(text) <= 160 else text[:157] + "..."


@click.command("inspect")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per file (a JSON list).")
@click.option("--format", "fmt", default=None, help="Skip detection and read as this format.")
def command(paths: tuple[str, ...], as_json: bool, fmt: str | None) -> None:
    """Show format, spec, name, creator, entry and asset counts, container parts and warnings."""
    results: list[dict[str, Any]] = []
    failed: list[Path] = []

    def unreadable(path: Path, exc: InteropError) -> None:
        failed.append(path)
        if as_json:
            results.append({"file": str(path), "error": exc.reason})

    for path, doc in read_inputs(paths, fmt=fmt, on_error=unreadable):
        info = summarize(doc, path)
        if as_json:
            results.append(info)
        else:
            _print_human(info)
    if as_json:
        click.echo(json.dumps(results, ensure_ascii=False, indent=2, default=str))
    if failed:
        raise SystemExit(EXIT_INPUT)
