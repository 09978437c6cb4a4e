"""``interop inspect``: what a file is and what it holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..document import Document
from ..errors import InteropError
from ..inspection import summarize as summarize_document
from ..jsonio import escape_lone_surrogates
from ..terminal import printable_tree
from .common import AliasOption, InputPath, read_inputs
from .exits import EXIT_INPUT


def summarize(doc: Document, path: Path) -> dict[str, Any]:
    return summarize_document(doc, str(path))


def _print_human(info: dict[str, Any]) -> None:
    click.secho(info["file"], bold=True)
    for key, value in info.items():
        if key in ("file", "warnings", "container", "facts") or value is None:
            continue
        click.echo(f"  {key:<16} {value}")
    for key, value in (info.get("container") or {}).items():
        click.echo(f"  {key:<16} {_short(value)}")
    for key, value in (info.get("facts") or {}).items():
        if key == "chats" and isinstance(value, list):
            click.echo(f"  {key:<16} {len(value)}")
            for index, chat in enumerate(value):
                click.echo(f"    {index:<3}{_chat_line(chat)}")
            continue
        click.echo(f"  {key:<16} {_short(value)}")
    for warning in info["warnings"]:
        click.secho(f"  warning: {warning}", fg="yellow")


def _chat_line(chat: Any) -> str:
    """``Harbour night (4 messages, 2 local lore entries)``: one chat of a file holding several."""
    if not isinstance(chat, dict):
        return _short(chat)
    counts = [f"{chat.get('messages', 0)} messages"]
    if chat.get("local_lore_entries"):
        counts.append(f"{chat['local_lore_entries']} local lore entries")
    return f"{chat.get('name') or '(unnamed)'} ({', '.join(counts)})"


def _short(value: Any) -> str:
    if isinstance(value, list | tuple):
        text = ", ".join(str(v) for v in value)
    elif isinstance(value, dict):
        text = ", ".join(f"{k}={v}" for k, v in value.items())
    else:
        text = str(value)
    return text if len(text) <= 160 else text[:157] + "..."


@click.command("inspect")
@click.argument("paths", nargs=-1, required=True, type=InputPath())
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per file (a JSON list).")
@click.option(
    "--from",
    "fmt",
    cls=AliasOption,
    hidden_aliases=["--format"],
    default=None,
    help="Skip detection and read as this format.",
)
def command(paths: tuple[str, ...], as_json: bool, fmt: str | None) -> None:
    """Show format, spec, name, creator, entry and asset counts, container parts and warnings.

    PATHS are files, folders (walked) or - for standard input.
    """
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
            _print_human(printable_tree(info))  # card text must not drive the terminal
    if as_json:
        click.echo(escape_lone_surrogates(json.dumps(results, ensure_ascii=False, indent=2, default=str)))
    if failed:
        raise SystemExit(EXIT_INPUT)
