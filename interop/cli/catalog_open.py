"""Opening the catalog from a command, and saying which one (issue 21: every catalog command names it).

The default database is a file in the user data directory, easy to lose track of:
each command that opens a catalog prints one line on standard error naming it
(password hidden), so its standard output stays the command's answer.
"""

from __future__ import annotations

import re

import click

from ..catalog.database import Catalog, default_url, normalize_url, open_catalog, sqlite_file

_AS_RENDERED = re.compile(r"[A-Za-z0-9_.~/ +-]*")
"""Characters SQLAlchemy's ``render_as_string`` writes as they are in a SQLite database path (it
percent-escapes the others: ``#`` as ``%23``, ``é`` as ``%C3%A9``)."""


def display_url(url: str) -> str:
    """``url`` as shown to the user: normalised, the password masked."""
    normal = normalize_url(url)
    database = sqlite_file(normal)
    if database is not None and _AS_RENDERED.fullmatch(database):
        return normal  # no password to mask, no character SQLAlchemy would escape (and no import of it)
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(normalize_url(url)).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def announce(url: str) -> None:
    click.echo(f"interop: catalog {display_url(url)}", err=True)


def open_named(db: str | None, *, create: bool = True) -> Catalog:
    """``open_catalog`` and the line naming the database it opened."""
    announce(db or default_url())
    return open_catalog(db, create=create)
