"""``interop convert``: one file to another format, with its fidelity report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..api import read
from ..chatbook import attach_bound_book
from ..conversion import convert_document, output_name, strict_reason
from ..fidelity.render import summary_lines
from ..io import read_limited, write_atomic
from ..terminal import printable
from .activate_cmd import read_chat
from .common import current_limits, format_choice
from .exits import EXIT_CHECK_FAILED


def load_chats(paths: tuple[str, ...]) -> list[Any]:
    """Chats for ``--behaviour``: chat files in any chat format (``-``: standard input), or every
    ``*.jsonl`` in a folder (sorted)."""
    files: list[str] = []
    for raw in paths:
        path = Path(raw)
        if raw != "-" and path.is_dir():
            files.extend(str(f) for f in sorted(path.glob("*.jsonl")))
        else:
            files.append(raw)
    return [read_chat(f) for f in files]


behaviour_option = click.option(
    "--behaviour",
    "chats",
    multiple=True,
    type=click.Path(exists=True, allow_dash=True),
    help="Chat file in any chat format (docs/chats.md), '-' for standard input, or a folder of *.jsonl chats "
    "(repeatable): also report entries that fire differently on the target.",
)
seed_option = click.option("--seed", default=0, show_default=True, help="Seed for probability rolls (--behaviour).")


def default_output(source: Path, target: str) -> Path:
    return Path.cwd() / output_name(source.name, target)


@click.command("convert")
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.option("--to", "target", required=True, type=format_choice(), help="Target format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Output file (default: ./<name>.<target><ext>).")
@click.option("--from", "source_format", default=None, help="Skip detection and read as this format.")
@click.option("--image", type=click.Path(exists=True, dir_okay=False), help="Picture for PNG output.")
@click.option("--compact", is_flag=True, help="Write JSON without indentation.")
@click.option(
    "--no-embed-picture",
    "no_embed_picture",
    is_flag=True,
    help="ccv3: leave the card picture and PNG asset images out (by default: data URLs in assets).",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False),
    help="Also write the fidelity report as JSON (docs/fidelity-report.schema.json).",
)
@click.option(
    "--strict", is_flag=True, help="Exit 1 when any field is approximated or lost (the output is still written)."
)
@click.option("--details", is_flag=True, help="List every field of the report, not groups.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the conversion line, not the fidelity table.")
@behaviour_option
@seed_option
def command(
    source: str,
    target: str,
    output: str | None,
    source_format: str | None,
    image: str | None,
    compact: bool,
    no_embed_picture: bool,
    report_path: str | None,
    strict: bool,
    details: bool,
    quiet: bool,
    chats: tuple[str, ...],
    seed: int,
) -> None:
    """Convert SOURCE to another format. The input file is never modified.

    Every conversion is checked: the output is read back and compared with the
    source, and each source field is reported as kept, translated, stashed,
    approximated or lost (docs/fidelity.md). With --behaviour, the source and the
    output are also run through the activation engine over the given chats and
    each entry that fires differently on the target is an approximated item.
    """
    doc = read(source, format=source_format, limits=current_limits())
    bound = attach_bound_book(doc, source, limits=current_limits())  # a chat's world bound by name
    if bound:
        click.echo(f"note: {printable(bound)}", err=True)
    image_bytes = read_limited(image, current_limits().max_file_bytes) if image else None
    conversion = convert_document(
        doc,
        target,
        image=image_bytes,
        pretty=not compact,
        chats=load_chats(chats) if chats else None,
        seed=seed,
        options={"embed_picture": False} if no_embed_picture else None,
    )
    data, report = conversion.data, conversion.report
    out = Path(output) if output else default_output(Path(source), target)
    inputs = [source] + ([image] if image else [])
    write_atomic(out, data, inputs=inputs)
    for warning in doc.warnings:
        click.secho(f"warning: {printable(warning)}", fg="yellow", err=True)
    click.echo(printable(f"{source} ({doc.format}) -> {out} ({target})"))
    if not quiet:
        for line in summary_lines(report, verbose=details):
            click.echo(printable(line))  # entry names and values are card text
    if report_path:
        text = json.dumps(report.to_json(), ensure_ascii=False, indent=2) + "\n"
        write_atomic(Path(report_path), text.encode("utf-8"), inputs=[*inputs, out])
    if strict and report.has_losses:
        click.secho(strict_reason(report), fg="red", err=True)
        raise SystemExit(EXIT_CHECK_FAILED)
