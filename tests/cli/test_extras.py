"""Optional extras: a command whose extra is missing exits 5 naming the pip command (issue 21, Package)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from interop.cli.exits import EXIT_MISSING_EXTRA
from interop.cli.extras import EXTRA_OF_MODULE

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))

# Runs the CLI with some modules made unimportable (None in sys.modules is how Python spells "not installed").
BLOCKED_RUN = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None
sys.argv = ["interop", *sys.argv[2:]]
from interop.cli import main
main()
"""


def run_without(modules: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(
        [sys.executable, "-c", BLOCKED_RUN, modules, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def _extra_names(extra: str) -> set[str]:
    names: set[str] = set()
    for spec in PYPROJECT["project"]["optional-dependencies"][extra]:
        req = Requirement(spec)
        names.add(req.name.lower().replace("-", "_"))
        if req.name == "interop-cards":
            for inner in req.extras:
                names |= _extra_names(inner)
    return names


@pytest.mark.parametrize(
    ("blocked", "args", "extra"),
    [
        ("fastapi", ("serve", "--port", "0"), "service"),
        ("celery", ("worker", "--broker", "redis://127.0.0.1:1/0", "--db", "c.sqlite"), "queue"),
        # a PostgreSQL URL makes SQLAlchemy import the driver deep inside the catalog
        ("psycopg", ("catalog", "stats", "--db", "postgresql://127.0.0.1:1/x"), "postgres"),
    ],
)
def test_missing_extra_exits_5_with_the_pip_line(
    tmp_path: Path, blocked: str, args: tuple[str, ...], extra: str
) -> None:
    result = run_without(blocked, *args, cwd=tmp_path)
    assert result.returncode == EXIT_MISSING_EXTRA, result.stderr
    # (catalog commands first name the database they open)
    lines = [line for line in result.stderr.strip().splitlines() if not line.startswith("interop: catalog ")]
    assert len(lines) == 1, result.stderr
    assert f"pip install 'interop-cards[{extra}]'" in lines[0]
    assert "Traceback" not in result.stderr


def test_core_commands_run_without_any_extra(tmp_path: Path) -> None:
    """What a user who only converts installs: no server, queue or PostgreSQL stack."""
    blocked = ",".join(sorted(EXTRA_OF_MODULE))
    card = REPO / "corpus" / "cards" / "ilse_v3.json"
    result = run_without(blocked, "convert", str(card), "--to", "ccv2", "-o", "out.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    result = run_without(
        blocked, "migrate", str(card), "--to", "ccv3", "--out", "out", "--db", "sqlite:///cat.sqlite", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr


def test_extra_map_matches_pyproject() -> None:
    """Every module the CLI attributes to an extra is installed by that extra, and no extra is in the core."""
    core = {Requirement(s).name.lower().replace("-", "_") for s in PYPROJECT["project"]["dependencies"]}
    # distributions whose import name differs, or which come in through another requirement's extra
    provided_by = {
        "starlette": "fastapi",
        "multipart": "python_multipart",
        "kombu": "celery",
        "redis": "celery",
        "amqp": "celery",
        "psycopg_binary": "psycopg",
    }
    for module, extra in EXTRA_OF_MODULE.items():
        dist = provided_by.get(module, module)
        assert dist in _extra_names(extra), f"{module}: not installed by [{extra}]"
        assert dist not in core, f"{module} is in the core dependencies"


def test_test_extra_pulls_everything() -> None:
    """`pip install '.[test]'` (the README's second command) must still install every extra."""
    assert _extra_names("all") <= _extra_names("test")
    for extra in ("service", "queue", "postgres"):
        assert _extra_names(extra) <= _extra_names("all")


def test_python_dash_m_interop_and_version(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "interop", "--version"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("interop (interop-cards) ")
    import interop

    assert result.stdout.split()[-1] == interop.__version__
