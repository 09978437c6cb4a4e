"""The installed version, read from the package metadata (pyproject.toml is the one place it is written)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "interop-cards"
# Environments installed before the distribution was renamed still carry metadata under the old name.
_OLD_DISTRIBUTION = "interop"


def installed_version() -> str:
    for name in (DISTRIBUTION, _OLD_DISTRIBUTION):
        try:
            return version(name)
        except PackageNotFoundError:
            continue
    return "0+unknown"  # a bare source tree on PYTHONPATH, never installed


__version__ = installed_version()
