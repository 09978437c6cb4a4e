"""Lazy command loading (issue 21: `interop --help` under 0.3 s; the time itself is in benchmarks/cli_startup.py)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from interop.catalog.database import ENV_DB
from interop.cli import COMMANDS, cli
from interop.cli.common import ENV_DB as CLI_ENV_DB

REPO = Path(__file__).resolve().parents[2]

# What a command run leaves in sys.modules (printed as JSON on stderr's last line).
MODULES_AFTER = """
import json, sys
sys.argv = ["interop", *sys.argv[1:]]
from interop.cli import cli
try:
    cli.main(standalone_mode=True)
except SystemExit:
    pass
sys.stderr.write("\\n" + json.dumps(sorted({m.partition(".")[0] for m in sys.modules})) + "\\n")
"""

HEAVY = {"sqlalchemy", "alembic", "fastapi", "starlette", "uvicorn", "celery", "kombu", "psycopg"}


def top_modules_after(*args: str) -> set[str]:
    result = subprocess.run(
        [sys.executable, "-c", MODULES_AFTER, *args],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    return set(json.loads(result.stderr.strip().splitlines()[-1]))


def test_help_imports_no_library_stack() -> None:
    loaded = top_modules_after("--help")
    assert not loaded & (HEAVY | {"pydantic", "deepdiff", "PIL", "regex"}), loaded & HEAVY


@pytest.mark.parametrize("name", ["convert", "inspect", "validate", "activate", "diff"])
def test_commands_without_a_catalog_do_not_import_it(name: str) -> None:
    loaded = top_modules_after(name, "--help")
    assert not loaded & HEAVY, f"{name}: {sorted(loaded & HEAVY)}"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_table_names_the_module_that_defines_it(name: str) -> None:
    module = importlib.import_module(f"interop.cli.{COMMANDS[name][0]}")
    assert isinstance(module.command, click.Command)
    assert module.command.name == name
    assert cli.get_command(click.Context(cli), name) is module.command


def test_help_lists_every_command_with_its_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "interop", "--help"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())  # undo the wrapping
    for name, (_, line) in COMMANDS.items():
        assert f" {name} {line}" in text


def test_env_db_is_the_catalog_one() -> None:
    assert CLI_ENV_DB == ENV_DB


def test_migrate_queue_default_is_the_distributed_one() -> None:
    # migrate_cmd repeats the constant so that a run without --broker never imports catalog.distributed
    from interop.catalog.distributed import DEFAULT_QUEUE
    from interop.cli.migrate_cmd import DEFAULT_QUEUE as CLI_DEFAULT_QUEUE

    assert CLI_DEFAULT_QUEUE == DEFAULT_QUEUE
