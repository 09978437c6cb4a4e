"""The ``interop`` command line.

Exit codes: 0 success; 1 a check failed (validation errors, a round trip that
is not identical, ``--strict`` fidelity); 2 usage error; 3 an input could not
be read (bad, truncated, oversized, unsafe); 4 internal error (a bug: rerun
with ``--debug`` for the traceback).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from ..errors import InteropError
from ..terminal import printable
from . import (
    activate_cmd,
    catalog_cmd,
    convert_cmd,
    diff_cmd,
    inspect_cmd,
    migrate_cmd,
    roundtrip_cmd,
    schema_cmd,
    serve_cmd,
    validate_cmd,
    worker_cmd,
)
from .common import parse_limits
from .exits import EXIT_CHECK_FAILED, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE

__all__ = ["EXIT_CHECK_FAILED", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE", "cli", "main"]


class InteropGroup(click.Group):
    """Turns library errors into one line on stderr and a documented exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except InteropError as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            click.echo(f"interop: error: {printable(str(exc))}", err=True)
            ctx.exit(EXIT_INPUT)
        except BrokenPipeError:
            # The reader went away (``interop diff ... | head``): stop quietly, as Unix tools do.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(141)
        except KeyboardInterrupt:
            click.echo("interop: interrupted", err=True)
            ctx.exit(130)
        except Exception as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            click.echo(
                f"interop: internal error: {type(exc).__name__}: {printable(str(exc))} (rerun with --debug)", err=True
            )
            ctx.exit(EXIT_INTERNAL)


@click.group(cls=InteropGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
@click.option(
    "--limit",
    "limits",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override an input size limit, e.g. --limit max_file_bytes=1e9 --limit max_json_depth=512 "
    "(names: see interop.limits.Limits).",
)
@click.version_option(package_name="interop")
@click.pass_context
def cli(ctx: click.Context, debug: bool, limits: tuple[str, ...]) -> None:
    """Move character cards and lorebooks between SillyTavern, RisuAI, Agnai and NovelAI without losing data."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    ctx.obj["limits"] = parse_limits(limits)


COMMANDS = (
    inspect_cmd,
    convert_cmd,
    validate_cmd,
    schema_cmd,
    migrate_cmd,
    worker_cmd,
    catalog_cmd,
    roundtrip_cmd,
    diff_cmd,
    activate_cmd,
    serve_cmd,
)
"""One module per command, each with its click ``command``."""


def _register() -> None:
    for module in COMMANDS:
        cli.add_command(module.command)


_register()


def main() -> None:
    sys.exit(cli.main(standalone_mode=True) or 0)
