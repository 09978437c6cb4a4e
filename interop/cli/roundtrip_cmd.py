"""``interop roundtrip``: source -> target -> source for each target, compared with the source."""

from __future__ import annotations

from pathlib import Path

import click

from ..document import Document
from ..errors import InteropError
from ..fidelity.chats import chat_round_trip
from ..fidelity.paths import render
from ..fidelity.render import app_lines
from ..fidelity.roundtrip import Leg, roundtrip
from ..formats.registry import writable_formats
from .common import format_choice, read_inputs
from .convert_cmd import behaviour_option, load_chats, seed_option
from .exits import EXIT_CHECK_FAILED, EXIT_INPUT


def _print_leg(leg: Leg, limit: int) -> None:
    if leg.skipped is not None:
        click.echo(f"  via {leg.target}: skipped ({leg.skipped})")
        return
    back = f" -> {leg.back_format}" if leg.back_format else f" (not back: {leg.no_way_back})"
    behaviour = [i for i in leg.forward.items if i.path.startswith("behaviour[")] if leg.forward else []
    for item in behaviour:
        click.echo(f"  via {leg.target}: {item.path}: {item.detail}")
    if leg.identical:
        click.echo(f"  via {leg.target}{back}: identical")
        return
    if leg.only_additions:
        click.echo(f"  via {leg.target}{back}: identical but for {len(leg.changes)} added field(s)")
        for change in leg.changes[:limit]:
            click.echo(f"      {render(change.path)}: {change.describe()}")
        if len(leg.changes) > limit:
            click.echo(f"    ... and {len(leg.changes) - limit} more (use --limit)")
        return
    counts = leg.forward.counts if leg.forward is not None else {"approximated": 0, "lost": 0}
    approx, lost = counts["approximated"], counts["lost"]
    if leg.ok:
        verdict = "differs, as reported"
    else:
        verdict = f"DIFFERS: {len(leg.unpredicted)} change(s) the report did not predict"
    at_app = f", {leg.app_losses} setting(s) loaded differently by the target app" if leg.app_losses else ""
    click.secho(
        f"  via {leg.target}{back}: {verdict} "
        f"({len(leg.changes)} difference(s); report: {approx} approximated, {lost} lost{at_app})",
        fg=None if leg.ok else "red",
    )
    if leg.forward is not None:
        for line in app_lines(leg.forward)[:limit]:
            click.echo("  " + line)
    predicted = leg.predicted_paths()
    unpredicted = {id(c) for c in leg.unpredicted}
    shown = sorted(leg.changes, key=lambda c: 0 if id(c) in unpredicted else 2 if c.kind == "added" else 1)
    for change in shown[:limit]:
        path = render(change.path)
        if path in predicted or change.kind == "added":
            click.echo(f"      {path}: {change.describe()}")
            continue
        why = leg.way_back(path)
        click.secho(f"    ! {path}: {change.describe()}" + (f" [way back {why}]" if why else ""), fg="red")
    if len(shown) > limit:
        click.echo(f"    ... and {len(shown) - limit} more (use --limit)")


@click.command("roundtrip")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--via",
    "targets",
    multiple=True,
    type=format_choice(),
    help="Target to go through (repeatable; default: every writable format).",
)
@click.option("--limit", default=20, show_default=True, help="Differences shown per target.")
@behaviour_option
@seed_option
def command(paths: tuple[str, ...], targets: tuple[str, ...], limit: int, chats: tuple[str, ...], seed: int) -> None:
    """Convert each file to each target and back, and compare the result with the input.

    With --behaviour, each target's fidelity report also lists the entries that
    fire differently there over the given chats (approximated; they never fail).

    Prints, per target, whether the round trip is identical (deep-equal through
    the canonical model) and each difference. Differences the fidelity report
    of the conversion predicted (approximated or lost) are expected; a field it
    called kept, translated or stashed must come back, else it is marked "!"
    (with what the way back did) and the command exits 1. Fields a target only
    adds (its defaults) are listed but do not fail. A card without a lorebook
    cannot go to a lorebook format: that target is skipped.
    """
    loaded = load_chats(chats) if chats else None
    failed = 0
    unreadable: list[Path] = []
    for path, doc in read_inputs(paths, on_error=lambda path, _exc: unreadable.append(path)):
        click.secho(f"{path} ({doc.format})", bold=True)
        # By default a chat goes to the chat formats, a card or lorebook to the others.
        chosen = list(targets) or [f.name for f in writable_formats() if (f.kind == "chat") == (doc.kind == "chat")]
        for target in chosen:
            if doc.kind == "chat":
                failed += _chat_leg(doc, target)
                continue
            try:
                leg = roundtrip(doc, target, chats=loaded, seed=seed)
            except InteropError as exc:
                failed += 1
                click.secho(f"  via {target}: error: {exc}", fg="red")
                continue
            _print_leg(leg, limit)
            failed += not leg.ok
    if unreadable:
        raise SystemExit(EXIT_INPUT)
    if failed:
        raise SystemExit(EXIT_CHECK_FAILED)


def _chat_leg(doc: Document, target: str) -> int:
    """One chat there and back (``fidelity.chats.chat_round_trip``): 1 when a difference was not predicted."""
    try:
        _report, differences, unexpected = chat_round_trip(doc, target)
    except InteropError as exc:
        click.secho(f"  via {target}: error: {exc}", fg="red")
        return 1
    if not differences:
        click.echo(f"  via {target} -> {doc.format}: identical")
        return 0
    for path in differences:
        mark = "!" if path in unexpected else " "
        click.echo(
            f"  via {target} -> {doc.format}: {mark} {path} differs" + (" (not predicted)" if mark == "!" else "")
        )
    return 1 if unexpected else 0
