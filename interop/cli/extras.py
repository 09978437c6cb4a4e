"""Optional extras: which command needs which ``pip install 'interop-cards[EXTRA]'``.

The core install runs ``inspect``, ``convert`` and ``migrate`` into SQLite; the web
server, the Celery queue and PostgreSQL are extras (pyproject.toml). A command that
reaches a missing one stops with exit 5 and one line naming the install command,
instead of a ``ModuleNotFoundError`` traceback.
"""

from __future__ import annotations

from .exits import EXIT_MISSING_EXTRA

DISTRIBUTION = "interop-cards"

# Top-level module -> the extra that installs it (tests/cli/test_extras.py checks this
# against pyproject.toml, so the two cannot drift apart).
EXTRA_OF_MODULE: dict[str, str] = {
    "fastapi": "service",
    "starlette": "service",
    "uvicorn": "service",
    "jinja2": "service",
    "multipart": "service",
    "python_multipart": "service",
    "celery": "queue",
    "kombu": "queue",
    "redis": "queue",
    "amqp": "queue",
    "psycopg": "postgres",
    "psycopg_binary": "postgres",
}


class MissingExtraError(Exception):
    """An optional dependency is not installed; ``str()`` is the one line the user sees."""

    exit_code = EXIT_MISSING_EXTRA

    def __init__(self, extra: str, module: str, what: str | None = None) -> None:
        self.extra = extra
        self.module = module
        needs = f"{what} needs" if what else "this needs"
        super().__init__(
            f"{needs} the optional '{extra}' packages ({module} is not installed): "
            f"pip install '{DISTRIBUTION}[{extra}]'"
        )


def extra_for(exc: ModuleNotFoundError) -> str | None:
    """The extra that would have installed the module ``exc`` is about (None: not an extra's)."""
    top = (exc.name or "").partition(".")[0]
    return EXTRA_OF_MODULE.get(top)


def install_line(extra: str) -> str:
    return f"pip install '{DISTRIBUTION}[{extra}]'"
