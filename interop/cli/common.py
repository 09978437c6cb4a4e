"""Helpers shared by the commands: walking inputs and reporting per-file errors."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from ..api import read
from ..document import Document
from ..errors import InteropError, LimitExceededError
from ..io import special_kind
from ..limits import DEFAULT_LIMITS, Limits
from ..platform.registry import writable_formats
from ..terminal import printable

# = interop.catalog.database.ENV_DB (tests/cli/test_startup.py); not imported from there so that a
# command without a catalog never loads SQLAlchemy and Alembic
ENV_DB = "INTEROP_DB"

SKIP_NAMES = {"MANIFEST.tsv", ".DS_Store"}
# Inside a folder walk, files with these suffixes are documentation or tooling,
# never cards; a file named explicitly on the command line is always tried.
# (.yaml/.yml are not here: text-generation-webui characters are YAML.)
NOT_CARD_SUFFIXES = {".md", ".py", ".tsv", ".txt", ".sh", ".toml", ".cfg", ".ini"}


STDIO = "-"
"""The file name that means standard input (for an input) or standard output (for ``-o``)."""


class AliasOption(click.Option):
    """An option that also accepts old spellings, parsed but left out of ``--help`` (``hidden_aliases``)."""

    def __init__(self, param_decls: Sequence[str], *, hidden_aliases: Sequence[str] = (), **attrs: Any) -> None:
        super().__init__([*param_decls, *hidden_aliases], **attrs)
        self.hidden_aliases = tuple(hidden_aliases)

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        shown, self.opts = self.opts, [o for o in self.opts if o not in self.hidden_aliases]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = shown


class InputUnreadable(click.ClickException):
    """A named input that does not exist or cannot be opened: the README's exit 3, not a usage error."""

    exit_code = 3  # = exits.EXIT_INPUT

    def show(self, file: Any = None) -> None:
        click.echo(f"interop: error: {printable(self.format_message())}", err=True)  # file names are any bytes


class InputPath(click.Path):
    """``click.Path`` for inputs: ``-`` is standard input, and a missing file exits 3 (one line), not 2."""

    def __init__(self, *, dir_okay: bool = True, allow_dash: bool = True) -> None:
        super().__init__(exists=True, dir_okay=dir_okay, readable=True, allow_dash=allow_dash)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value == STDIO and self.allow_dash:
            return value
        path = Path(os.fsdecode(value))
        if not path.exists():
            raise InputUnreadable(f"{path}: no such file or directory")
        if not os.access(path, os.R_OK):
            raise InputUnreadable(f"{path}: permission denied")
        return super().convert(value, param, ctx)


def read_stdin(limits: Limits | None = None) -> bytes:
    """All of standard input, refused past the input size limit (read no further than one byte over it)."""
    limit = (limits or current_limits()).max_file_bytes
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        raise LimitExceededError(f"more than {limit} bytes on standard input", file=STDIO)
    return data


def read_document(source: str | Path, *, fmt: str | None = None) -> Document:
    """One input file, or standard input for ``-``."""
    if str(source) == STDIO:
        return read(read_stdin(), filename=STDIO, format=fmt, limits=current_limits())
    return read(source, format=fmt, limits=current_limits())


def iter_inputs(paths: tuple[str, ...]) -> Iterator[Path]:
    """Files named, and regular files found (recursively, sorted) under folders named.

    A FIFO, a device or a link to one inside a folder is skipped with a line on
    stderr saying so (reading it would block or never end); one named on the
    command line is read and refused with an error (``interop.io.read_limited``).
    """
    for raw in paths:
        path = Path(raw)
        if raw == STDIO:
            yield path
        elif path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if (
                        not name.startswith(".")
                        and name not in SKIP_NAMES
                        and Path(name).suffix.lower() not in NOT_CARD_SUFFIXES
                    ):
                        found = Path(root) / name
                        kind = special_kind(found)
                        if kind is not None:
                            click.echo(
                                f"interop: skipped {printable(str(found))}: not a regular file ({kind})", err=True
                            )
                            continue
                        yield found
        else:
            yield path


F = TypeVar("F", bound=Callable[..., Any])


def read_inputs(
    paths: tuple[str, ...],
    *,
    fmt: str | None = None,
    on_error: Callable[[Path, InteropError], None] | None = None,
) -> Iterator[tuple[Path, Document]]:
    """Read every input file (folders walked); one that cannot be read is reported
    as one line on stderr, passed to ``on_error`` and skipped."""
    for path in iter_inputs(paths):
        try:
            doc = read_document(path, fmt=fmt)
        except InteropError as exc:
            report_error(exc, debug_enabled())
            if on_error is not None:
                on_error(path, exc)
            continue
        yield path, doc


def report_error(exc: InteropError, debug: bool) -> None:
    if debug:
        raise exc
    click.echo(f"interop: error: {printable(str(exc))}", err=True)


def parse_limits(items: tuple[str, ...]) -> Limits:
    """``NAME=VALUE`` pairs over the default limits (a usage error names the bad one)."""
    values: dict[str, int | float] = {}
    known = {f.name: f.type for f in dataclasses.fields(Limits)}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or name not in known:
            raise click.BadParameter(
                f"{item!r}: expected NAME=VALUE with NAME in {', '.join(known)}", param_hint="--input-limit"
            )
        try:
            number = float(raw)
        except ValueError:
            raise click.BadParameter(f"{item!r}: {raw!r} is not a number", param_hint="--input-limit") from None
        values[name] = number if name == "max_compression_ratio" else int(number)
    return dataclasses.replace(DEFAULT_LIMITS, **values) if values else DEFAULT_LIMITS


def current_limits() -> Limits:
    """The limits set with the global ``--limit`` option (defaults otherwise)."""
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.obj and "limits" in ctx.obj:
            return ctx.obj["limits"]
        ctx = ctx.parent
    return DEFAULT_LIMITS


def debug_enabled() -> bool:
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.obj and "debug" in ctx.obj:
            return bool(ctx.obj["debug"])
        ctx = ctx.parent
    return False


def db_option(func: F) -> F:
    return click.option(
        "--db",
        "db",
        envvar=ENV_DB,
        default=None,
        metavar="URL",
        help="Catalog database URL (default: SQLite in the user data dir).",
    )(func)


def format_choice() -> click.Choice:
    return click.Choice(sorted(f.name for f in writable_formats()), case_sensitive=False)


def chat_index_option(tail: str = "") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--chat-index N`` (``activate``, ``convert``): chat N of a file holding several."""
    return click.option(
        "--chat-index",
        type=click.IntRange(0),
        default=None,
        help="Which chat of a file holding several (RisuAI's 'Export all chats', a Risu character's chats), "
        f"0-based (default: the first){tail}.",
    )
