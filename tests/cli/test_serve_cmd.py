"""``interop serve`` flags for the service settings reach ``ServiceConfig`` (no server is started: the
runner is replaced by one that records what it was given)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from interop.cli import EXIT_USAGE, cli
from interop.limits import DEFAULT_LIMITS, MiB
from interop.service import runner
from interop.service.config import ENV_CONFIG, ServiceConfig


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[ServiceConfig]:
    configs: list[ServiceConfig] = []

    def fake_serve(config: ServiceConfig, host: str, port: int, workers: int, options: dict[str, Any]) -> None:
        configs.append(config)

    monkeypatch.setattr(runner, "serve", fake_serve)
    monkeypatch.delenv("INTEROP_TOKEN", raising=False)
    return configs


def serve(tmp_path: Path, *args: str, before: tuple[str, ...] = ()) -> Result:
    db = f"sqlite:///{tmp_path / 'catalog.sqlite'}"
    return CliRunner().invoke(cli, [*before, "serve", "--port", "0", "--db", db, *args])


def test_every_service_setting_has_a_flag_that_reaches_the_config(
    tmp_path: Path, started: list[ServiceConfig], monkeypatch: pytest.MonkeyPatch
) -> None:
    flags = (
        *("--max-uploads-in-progress-mb", "32", "--max-entries", "500", "--idle-timeout", "2.5"),
        *("--regex-budget", "0.25", "--allow-host", "cards.lan", "--allow-host", "box.local", "--keep-uploads"),
    )
    result = serve(tmp_path, *flags)
    assert result.exit_code == 0, result.output
    (config,) = started
    assert config.max_upload_bytes_in_progress == 32 * MiB
    assert config.max_entries == 500 and config.limits.max_entries == 500
    assert config.idle_timeout == 2.5
    assert config.regex_budget == 0.25
    assert config.allowed_hosts == ("cards.lan", "box.local")
    assert config.keep_uploads is True
    monkeypatch.setenv(ENV_CONFIG, config.to_env())  # how the workers get it: the settings survive the trip
    assert ServiceConfig.from_env() == config


def test_without_the_flags_the_config_defaults_apply(tmp_path: Path, started: list[ServiceConfig]) -> None:
    assert serve(tmp_path).exit_code == 0
    (config,) = started
    assert config == ServiceConfig(db=config.db)


def test_the_help_states_the_config_defaults(tmp_path: Path) -> None:
    # the flags do not import ServiceConfig (FastAPI) to show its defaults, so the help repeats them
    text = " ".join(CliRunner().invoke(cli, ["serve", "--help"], terminal_width=400).output.split())
    defaults = ServiceConfig()
    for flag, value in (
        ("--max-uploads-in-progress-mb", defaults.max_upload_bytes_in_progress // MiB),
        ("--idle-timeout", defaults.idle_timeout),
        ("--regex-budget", defaults.regex_budget),
        ("--max-entries", DEFAULT_LIMITS.max_entries),
    ):
        shown = re.search(rf"{flag} [^\[]*\[default: [^\]]*?(\d+(?:\.\d+)?)\]", text)
        assert shown is not None, f"{flag}: no default in the help"
        assert float(shown.group(1)) == value, f"{flag}: help says {shown.group(1)}, ServiceConfig has {value}"


def test_the_global_input_limit_sets_max_entries_and_the_flag_wins(
    tmp_path: Path, started: list[ServiceConfig]
) -> None:
    assert serve(tmp_path, before=("--input-limit", "max_entries=20000")).exit_code == 0
    assert serve(tmp_path, "--max-entries", "7", before=("--input-limit", "max_entries=20000")).exit_code == 0
    assert [c.max_entries for c in started] == [20000, 7]


@pytest.mark.parametrize("flag", ["--idle-timeout", "--regex-budget", "--max-uploads-in-progress-mb", "--max-entries"])
def test_a_setting_of_zero_is_a_usage_error(tmp_path: Path, started: list[ServiceConfig], flag: str) -> None:
    result = serve(tmp_path, flag, "0")
    assert result.exit_code == EXIT_USAGE and flag in result.stderr
    assert started == []
