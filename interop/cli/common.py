"""Helpers shared by the commands: walking inputs and reporting per-file errors."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click

from ..api import read
from ..catalog.database import ENV_DB
from ..document import Document
from ..errors import InteropError
from ..formats.registry import writable_formats
from ..io import special_kind
from ..limits import DEFAULT_LIMITS, Limits
from ..terminal import printable

SKIP_NAMES = {"MANIFEST.tsv", ".DS_Store"}
# Inside a folder walk, files with these suffixes are documentation or tooling,
# never cards; a file named explicitly on the command line is always tried.
# (.yaml/.yml are not here: text-generation-webui characters are YAML.)
NOT_CARD_SUFFIXES = {".md", ".py", ".tsv", ".txt", ".sh", ".toml", ".cfg", ".ini"}


def iter_inputs(paths: tuple[str, ...]) -> Iterator[Path]:
    """Files named, and regular files found (recursively, sorted) under folders named.

    A FIFO, a device or a link to one inside a folder is skipped with a line on
    stderr saying so (reading it would block or never end); one named on the
    command line is read and refused with an error (``interop.io.read_limited``).
    """
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
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
            doc = read(path, format=fmt, limits=current_limits())
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
                f"{item!r}: expected NAME=VALUE with NAME in {', '.join(known)}", param_hint="--limit"
            )
        try:
            number = float(raw)
        except ValueError:
            raise click.BadParameter(f"{item!r}: {raw!r} is not a number", param_hint="--limit") from None
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
