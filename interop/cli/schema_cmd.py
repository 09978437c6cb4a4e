"""``interop schema``: the JSON Schema of the canonical model."""

from __future__ import annotations

import json

import click

from ..schema import canonical_schema


@click.command("schema")
@click.option(
    "--model",
    type=click.Choice(["card", "lorebook"]),
    default="card",
    help="card: chara_card_v3; lorebook: the lorebook_v3 wrapper.",
)
def command(model: str) -> None:
    """Print the JSON Schema (draft 2020-12) of the canonical model."""
    click.echo(json.dumps(canonical_schema(model), indent=2))
