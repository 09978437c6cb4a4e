"""``interop convert``: one file to another format."""

from __future__ import annotations

from pathlib import Path

import click

from ..api import read, write
from ..formats.registry import get_format
from ..io import write_atomic
from .common import format_choice


def default_output(source: Path, target: str) -> Path:
    suffix = get_format(target).suffix
    return Path.cwd() / f"{source.stem}.{target}{suffix}"


@click.command("convert")
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.option("--to", "target", required=True, type=format_choice(), help="Target format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Output file (default: ./<name>.<target><ext>).")
@click.option("--from", "source_format", default=None, help="Skip detection and read as this format.")
@click.option("--image", type=click.Path(exists=True, dir_okay=False), help="Picture for PNG output.")
@click.option("--compact", is_flag=True, help="Write JSON without indentation.")
def command(
    source: str, target: str, output: str | None, source_format: str | None, image: str | None, compact: bool
) -> None:
    """Convert SOURCE to another format. The input file is never modified."""
    doc = read(source, format=source_format)
    image_bytes = Path(image).read_bytes() if image else None
    data = write(doc, target, image=image_bytes, pretty=not compact)
    out = Path(output) if output else default_output(Path(source), target)
    write_atomic(out, data, inputs=[source] + ([image] if image else []))
    for warning in doc.warnings:
        click.secho(f"warning: {warning}", fg="yellow", err=True)
    click.echo(f"{source} ({doc.format}) -> {out} ({target})")
