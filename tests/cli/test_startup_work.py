"""What a command's start-up leaves out (issue 19: start-up counts in files per CPU-second), and that leaving
it out changes nothing: deferred profiles are the profiles, the quick exit keeps codes and output."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from interop.platform.registry import Deferred, Platform

REPO = Path(__file__).resolve().parents[2]


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "interop", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=180,
    )


def test_a_deferred_profile_is_made_once_on_first_read() -> None:
    made: list[object] = []

    def make() -> object:
        made.append(object())
        return made[-1]

    platform = Platform(name="sample-deferred", title="Sample", profile=Deferred(make))  # type: ignore[arg-type]
    assert made == []
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(platform.profile)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1 and all(value is made[0] for value in seen)
    assert Platform(name="x", title="X").profile is None


def test_a_deferred_profile_may_be_built_from_another_deferred_profile() -> None:
    """The one lock is re-entrant: a builder that reads another platform's profile does not deadlock."""
    base = Platform(name="sample-base", title="Base", profile=Deferred(lambda: "base"))  # type: ignore[arg-type]
    derived = Platform(
        name="sample-derived",
        title="Derived",
        profile=Deferred(lambda: f"{base.profile}+derived"),  # type: ignore[arg-type]
    )
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(derived.profile), daemon=True)
    thread.start()
    thread.join(timeout=10)
    assert seen == ["base+derived"]


def test_registered_profiles_are_built_on_first_use() -> None:
    from interop.engine.platform_profiles import get_profile
    from interop.platform.registry import get_platform

    profile = get_platform("sillytavern").profile
    assert profile is not None and profile is get_platform("sillytavern").profile
    assert get_profile("sillytavern") is profile


def test_migrate_neither_runs_alembic_nor_imports_the_activation_engine(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "Ada", "description": "d"}}
    (tmp_path / "in" / "ada.json").write_text(json.dumps(card), encoding="utf-8")
    code = (
        "import json, sys\n"
        "sys.argv = ['interop', *sys.argv[1:]]\n"
        "import interop.cli as cli\n"
        "import atexit\n"
        "atexit.register(lambda: sys.stderr.write('\\n' + json.dumps(sorted(sys.modules)) + '\\n'))\n"
        "cli.main()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, "migrate", "in", "--to", "ccv3,lorebook_v3", "--out", "out", "--db", "c.db"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stderr.strip().splitlines()[-1]))  # written by the exit functions, which ran
    assert not {m for m in loaded if m.startswith(("alembic", "interop.engine", "interop.activation"))}
    # nor the ORM (catalog.tables serves the write path) nor the --broker machinery (issue 19: start-up)
    assert not {m for m in loaded if m.startswith(("sqlalchemy.orm", "interop.catalog.models"))}
    assert "interop.catalog.distributed" not in loaded
    assert "imported" in result.stdout and (tmp_path / "out" / "ccv3").is_dir()


def test_the_quick_exit_keeps_exit_codes_and_output(tmp_path: Path) -> None:
    ok = _run("--version", cwd=tmp_path)
    assert ok.returncode == 0 and ok.stdout.startswith("interop (")
    usage = _run("convert", "--no-such-option", cwd=tmp_path)
    assert usage.returncode == 2 and "No such option" in usage.stderr
    missing = _run("inspect", "nothing-here.json", cwd=tmp_path)
    assert missing.returncode == 3 and "nothing-here.json" in missing.stderr
    listing = _run("--help", cwd=tmp_path)
    assert listing.returncode == 0 and "migrate" in listing.stdout
    big = _run("schema", cwd=tmp_path)  # the whole JSON, flushed before the quick exit
    assert big.returncode == 0 and json.loads(big.stdout)
