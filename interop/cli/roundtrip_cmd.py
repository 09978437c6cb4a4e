"""``interop roundtrip``: source -> target -> source for each target, compared with the source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..document import Document
from ..errors import InteropError
from ..fidelity.chats import back_format, chat_round_trip
from ..fidelity.render import leg_view
from ..fidelity.roundtrip import roundtrip
from ..platform.registry import writable_formats
from .common import InputPath, format_choice, read_inputs
from .convert_cmd import behaviour_option, load_chats, seed_option
from .diff_cmd import terminal_width
from .exits import EXIT_CHECK_FAILED, EXIT_INPUT


@click.command("roundtrip")
@click.argument("paths", nargs=-1, required=True, type=InputPath(allow_dash=False))
@click.option(
    "--via",
    "targets",
    multiple=True,
    type=format_choice(),
    help="Target to go through (repeatable; default: every writable format).",
)
@click.option("--details", is_flag=True, help="List every field and entry of each group, and each value.")
@click.option("--json", "as_json", is_flag=True, help="Print the legs as JSON (what POST /roundtrip answers).")
@behaviour_option
@seed_option
def command(
    paths: tuple[str, ...], targets: tuple[str, ...], details: bool, as_json: bool, chats: tuple[str, ...], seed: int
) -> None:
    """Convert each file to each target and back, and compare the result with the input.

    With --behaviour, each target's fidelity report also lists the entries that
    fire differently there over the given chats (approximated; they never fail).

    Prints, per target, a verdict line (identical, or differs as the report
    predicted, or not), then the differences grouped by field, each group naming
    the entries it affects; then what the target app loads differently, the
    fields the target added, and warnings. Differences the fidelity report of
    the conversion predicted (approximated, lost, not applicable, kept (default))
    are expected; a field it called kept, translated or stashed must come back,
    else its group is marked "!" (with what the way back did) and the command
    exits 1. Fields a target only adds (its defaults) do not fail. A card without
    a lorebook cannot go to a lorebook format: that target is skipped.
    """
    loaded = load_chats(chats) if chats else None
    failed = 0
    unreadable: list[Path] = []
    files: list[dict[str, Any]] = []
    width = terminal_width()
    for path, doc in read_inputs(paths, on_error=lambda path, _exc: unreadable.append(path)):
        legs: list[dict[str, Any]] = []
        files.append({"path": str(path), "format": doc.format, "legs": legs})
        if not as_json:
            click.secho(f"{path} ({doc.format})", bold=True)
        # By default a chat goes to the chat formats, a card or lorebook to the others.
        chosen = list(targets) or [f.name for f in writable_formats() if (f.kind == "chat") == (doc.kind == "chat")]
        for target in chosen:
            if doc.kind == "chat":
                chat_leg = _chat_leg(doc, target)
                failed += not chat_leg["ok"]
                legs.append(chat_leg)
                if not as_json:
                    _print_chat_leg(doc, chat_leg)
                continue
            try:
                leg = roundtrip(doc, target, chats=loaded, seed=seed)
            except InteropError as exc:
                failed += 1
                legs.append({"target": target, "error": str(exc)})
                if not as_json:
                    click.secho(f"  via {target}: error: {exc}", fg="red")
                continue
            view = leg_view(leg)
            failed += not leg.ok
            if as_json:
                legs.append({**leg.to_json(), "view": view.to_json()})
                continue
            for line in view.lines(details=details, width=width):
                click.secho(line, fg="red" if line.lstrip().startswith("! ") or "DIFFERS" in line else None)
    if as_json:
        click.echo(
            json.dumps({"files": files, "unreadable": [str(p) for p in unreadable]}, ensure_ascii=False, indent=2)
        )
    if unreadable:
        raise SystemExit(EXIT_INPUT)
    if failed:
        raise SystemExit(EXIT_CHECK_FAILED)


def _chat_leg(doc: Document, target: str) -> dict[str, Any]:
    """One chat there and back (``fidelity.chats.chat_round_trip``) as data; not ``ok`` when a
    difference was not predicted (the chat report's own items stand in for a card leg's view)."""
    try:
        report, differences, unexpected = chat_round_trip(doc, target)
    except InteropError as exc:
        return {"target": target, "ok": False, "error": str(exc)}
    return {
        "target": target,
        "back_format": back_format(doc),
        "identical": not differences,
        "ok": not unexpected,
        "forward": report.to_json(),
        "changes": [{"path": p, "predicted": p not in unexpected, "unpredicted": p in unexpected} for p in differences],
    }


def _print_chat_leg(doc: Document, leg: dict[str, Any]) -> None:
    target = leg["target"]
    if "error" in leg:
        click.secho(f"  via {target}: error: {leg['error']}", fg="red")
    elif leg["identical"]:
        click.echo(f"  via {target} -> {leg['back_format']}: identical")
    for change in leg.get("changes", []):
        mark = "!" if change["unpredicted"] else " "
        tail = " (not predicted)" if change["unpredicted"] else ""
        click.echo(f"  via {target} -> {leg['back_format']}: {mark} {change['path']} differs{tail}")
