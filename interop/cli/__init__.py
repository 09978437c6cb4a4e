"""The ``interop`` command line.

Exit codes: 0 success; 1 a check failed (validation errors, a round trip that
is not identical, ``--strict`` fidelity); 2 usage error; 3 an input could not
be read (bad, truncated, oversized, unsafe); 4 internal error (a bug: rerun
with ``--debug`` for the traceback); 5 an optional extra is not installed.

Commands are loaded lazily: ``interop --help`` imports click and this module
only, and ``interop convert`` never imports the catalog, Alembic or FastAPI
(benchmarks/cli_startup.py measures it).
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
import threading
from typing import Any, NoReturn

import click

from ..terminal import printable
from . import stdout
from .exits import EXIT_CHECK_FAILED, EXIT_INPUT, EXIT_INTERNAL, EXIT_MISSING_EXTRA, EXIT_OK, EXIT_USAGE
from .extras import MissingExtraError, extra_for

__all__ = [
    "COMMANDS",
    "EXIT_CHECK_FAILED",
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_MISSING_EXTRA",
    "EXIT_OK",
    "EXIT_USAGE",
    "cli",
    "main",
    "startup_done",
]

COMMANDS: dict[str, tuple[str, str]] = {
    "activate": ("activate_cmd", "Simulate lorebook activation: which entries fire on a platform, and why."),
    "catalog": ("catalog_cmd", "Query the catalog of imported cards and lorebooks, export and upgrade it."),
    "convert": ("convert_cmd", "Convert files to another format."),
    "diff": ("diff_cmd", "Compare two files (any formats) field by field, entries matched."),
    "inspect": ("inspect_cmd", "Show format, spec, name, counts, container parts and warnings."),
    "migrate": ("migrate_cmd", "Import every card and lorebook under SOURCES into the catalog, converted."),
    "roundtrip": ("roundtrip_cmd", "Convert each file to each target and back, and compare."),
    "schema": ("schema_cmd", "Print the JSON Schema of the canonical model."),
    "serve": ("serve_cmd", "Serve the HTTP API and the web page."),
    "validate": ("validate_cmd", "Check cards and lorebooks against the spec."),
    "worker": ("worker_cmd", "Run a Celery worker for `interop migrate --broker` runs."),
}
"""Command name -> (module in this package holding its click ``command``, the line ``--help`` lists).

The line is kept here so ``interop --help`` need not import every command
(tests/cli/test_startup.py checks each command's module exists and names that command)."""


SETS_UP_ITSELF = frozenset({"migrate"})
"""Commands that call ``startup_done`` themselves, once their own set-up (the platform packages,
the catalog) is done; every other command's start-up ends when its module is loaded."""

STARTUP_GC_THRESHOLD = 0
"""0: no automatic collection at all during start-up."""
_gc_threshold: tuple[int, int, int] | None = None


def _start_up() -> None:
    """Start-up allocates a few hundred thousand objects (classes, functions, modules) that all live to the
    end: a collection every 700 of them was 5 % of the CPU of a one-file ``interop migrate``, and even one
    every 100,000 still 1.3 % (29 M instructions of callgrind), for next to no garbage (a few cycles the
    imports leave). So none runs until ``startup_done``, which freezes what start-up made (no later
    collection walks it) and restores the usual thresholds."""
    global _gc_threshold
    _gc_threshold = gc.get_threshold()
    gc.set_threshold(STARTUP_GC_THRESHOLD, *_gc_threshold[1:])


def startup_done() -> None:
    """The end of start-up (see ``_start_up``): the usual collections from here on. Idempotent; a no-op
    when the command line was not started by ``main`` (tests, ``CliRunner``)."""
    global _gc_threshold
    if _gc_threshold is not None:
        gc.freeze()
        gc.set_threshold(*_gc_threshold)
        _gc_threshold = None


class InteropGroup(click.Group):
    """Loads commands on first use; turns library errors into one line on stderr and a documented exit code."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module = importlib.import_module(f".{COMMANDS[cmd_name][0]}", __name__)
            self.add_command(module.command, cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        found = super().resolve_command(ctx, args)
        if found[0] not in SETS_UP_ITSELF:
            startup_done()
        return found

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # the listing from the table, without importing (and so timing) every command module
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx) if name in COMMANDS]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            try:
                return super().invoke(ctx)
            finally:
                stdout.flush()  # a standard output that cannot take it fails here, not at interpreter exit
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except MissingExtraError as exc:
            click.echo(f"interop: error: {exc}", err=True)
            ctx.exit(EXIT_MISSING_EXTRA)
        except ModuleNotFoundError as exc:
            # an optional extra's module, reached by whatever import path (a PostgreSQL URL makes
            # SQLAlchemy import psycopg): name the pip command rather than print a traceback
            extra = extra_for(exc)
            if extra is None or _debug(ctx):
                return self._internal(ctx, exc)
            what = f"`interop {ctx.invoked_subcommand}`" if ctx.invoked_subcommand else None
            click.echo(f"interop: error: {MissingExtraError(extra, exc.name or extra, what)}", err=True)
            ctx.exit(EXIT_MISSING_EXTRA)
        except BrokenPipeError:
            # The reader went away (``interop diff ... | head``): stop quietly, as Unix tools do.
            stdout.silence()
            ctx.exit(141)
        except OSError as exc:
            if not stdout.is_output_fault(exc) or _debug(ctx):
                return self._internal(ctx, exc)
            # standard output past `ulimit -f`, on a full disk or /dev/full: the output's fault, exit 3
            stdout.silence()
            reason = exc.strerror or "write failed"
            click.echo(f"interop: error: standard output: output could not be written safely: {reason}", err=True)
            ctx.exit(EXIT_INPUT)
        except KeyboardInterrupt:
            click.echo("interop: interrupted", err=True)
            ctx.exit(130)
        except Exception as exc:
            from ..errors import InteropError  # only on the error path: keeps `--help` light

            if isinstance(exc, InteropError) and not _debug(ctx):
                click.echo(f"interop: error: {printable(str(exc))}", err=True)
                ctx.exit(EXIT_INPUT)
            return self._internal(ctx, exc)

    @staticmethod
    def _internal(ctx: click.Context, exc: BaseException) -> None:
        if _debug(ctx):
            raise exc
        click.echo(
            f"interop: internal error: {type(exc).__name__}: {printable(str(exc))} (rerun with --debug)", err=True
        )
        ctx.exit(EXIT_INTERNAL)


def _debug(ctx: click.Context) -> bool:
    return bool(ctx.obj and ctx.obj.get("debug"))


def _print_version(ctx: click.Context) -> None:
    from .._version import DISTRIBUTION, __version__  # metadata lookup only when asked

    click.echo(f"interop ({DISTRIBUTION}) {__version__}")
    ctx.exit(EXIT_OK)


@click.group(cls=InteropGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
@click.option(
    "--input-limit",
    "input_limits",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override an input size limit, e.g. --input-limit max_file_bytes=1e9 --input-limit max_json_depth=512 "
    "(names: see interop.limits.Limits).",
)
# the old spelling: `--limit` is a count of items shown in the commands that list things
@click.option("--limit", "old_limits", multiple=True, metavar="NAME=VALUE", hidden=True)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: _print_version(ctx) if value else None,
    help="Show the version and exit.",
)
@click.pass_context
def cli(ctx: click.Context, debug: bool, input_limits: tuple[str, ...], old_limits: tuple[str, ...]) -> None:
    """Move character cards and lorebooks between SillyTavern, RisuAI, Agnai and NovelAI without losing data."""
    from .common import parse_limits

    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    ctx.obj["limits"] = parse_limits((*old_limits, *input_limits))


def main() -> None:
    _start_up()
    try:
        # one program name however started (`interop`, `python -m interop`): the usage lines and the
        # shell-completion variable (_INTEROP_COMPLETE) follow it
        code: object = cli.main(prog_name="interop", standalone_mode=True) or 0
    except SystemExit as exc:
        code = exc.code
    _exit(code)


def _exit(code: object) -> NoReturn:
    """``sys.exit(code)``, without the interpreter's teardown when nothing is left to do: freeing every
    module and object one by one was 6 % of the CPU of a one-file ``interop migrate``. The exit
    functions still run (logging, executors, temporary files) and the standard streams are flushed;
    another thread still running, a code that is not a number, or a stream that cannot be flushed
    take the usual way out (which waits for the thread, prints the message, reports the stream)."""
    if (code is None or isinstance(code, int)) and threading.active_count() == 1:
        atexit._run_exitfuncs()
        try:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None and not stream.closed:
                    stream.flush()
        except (OSError, ValueError):
            pass
        else:
            os._exit(code or 0)
    sys.exit(code)
