"""Locate the data folders shipped with the package (mappings/, alembic/).

In a wheel they live in ``interop/_data/<name>`` (copied by setup.py); in an
editable checkout they are the top-level folders of the repository.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"interop data folder {name!r} not found (broken install?)")
