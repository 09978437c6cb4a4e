"""``interop activate`` (issue 8, item 5)."""

from __future__ import annotations

import json
import math

from click.testing import CliRunner

from interop.cli import cli
from tests.engine.scenario import CHATS


def invoke(*args: str):
    return CliRunner().invoke(cli, ["activate", *args], catch_exceptions=False)


def test_text_output_with_trace() -> None:
    result = invoke(
        str(CHATS / "st_budget.json"), "--chat", str(CHATS / "harbor.jsonl"), "--platform", "sillytavern", "--trace"
    )
    assert result.exit_code == 0, result.output
    assert "turn 4 (sillytavern): 5 entries injected" in result.output
    assert "[at_depth depth=2 role=assistant]" in result.output
    assert "[outlet outlet=harbor]" in result.output
    assert "request log:" in result.output and "key_match" in result.output


def test_json_output_and_turn_selection() -> None:
    result = invoke(
        str(CHATS / "st_timed.json"), "--chat", str(CHATS / "storm.jsonl"), "--json", "--trace", "--turn", "4"
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["turn"] == 4
    # earlier turns ran first, so the sticky storm entry is still active at turn 4
    reasons = {r["entry_id"]: r["reason"] for r in data["log"]}
    assert reasons["st_timed.0"] == "sticky" and reasons["st_timed.1"] == "cooldown"


def test_all_turns_and_other_platforms() -> None:
    result = invoke(
        str(CHATS / "risu_harbor.json"),
        "--chat",
        str(CHATS / "harbor.jsonl"),
        "--platform",
        "risu",
        "--json",
        "--all-turns",
        "--seed",
        "3",
    )
    assert result.exit_code == 0, result.output
    assert [r["turn"] for r in json.loads(result.output)] == [2, 4]
    agnai = invoke(str(CHATS / "agnai_harbor.json"), "--chat", str(CHATS / "harbor.jsonl"), "--platform", "agnai")
    assert agnai.exit_code == 0 and "memory" in agnai.output


def test_bad_turn_is_an_input_error() -> None:
    result = CliRunner().invoke(
        cli, ["activate", str(CHATS / "st_budget.json"), "--chat", str(CHATS / "harbor.jsonl"), "--turn", "99"]
    )
    assert result.exit_code == 3
    assert "--turn must be between 0 and 4" in result.output


def test_setting_overrides() -> None:
    result = invoke(
        str(CHATS / "st_budget.json"), "--chat", str(CHATS / "harbor.jsonl"), "--setting", "max_context=400", "--json"
    )
    assert json.loads(result.output)["budget"] == 100  # 25 % of 400
    bad = CliRunner().invoke(
        cli,
        ["activate", str(CHATS / "st_budget.json"), "--chat", str(CHATS / "harbor.jsonl"), "--setting", "nonsense=1"],
    )
    assert bad.exit_code == 2 and "expected NAME=VALUE" in bad.output


def test_last_runs_one_scan_and_times_it() -> None:
    """``--last`` scans the whole chat once, with no earlier turns (so no sticky state from them)."""
    args = (str(CHATS / "st_timed.json"), "--chat", str(CHATS / "storm.jsonl"))
    history = json.loads(invoke(*args, "--json", "--trace").output)
    single = invoke(*args, "--json", "--trace", "--last", "--time")
    assert single.exit_code == 0, single.output
    data = json.loads(single.output)
    assert data["result"]["turn"] == history["turn"]
    assert set(data["timing"]) == {"read_ms", "prepare_ms", "scan_ms"} and data["timing"]["scan_ms"] >= 0
    text = invoke(*args, "--last", "--time")
    assert "(1 scan(s) run)" in text.output


def test_last_and_turn_exclude_each_other() -> None:
    result = CliRunner().invoke(
        cli, ["activate", str(CHATS / "st_timed.json"), "--chat", str(CHATS / "storm.jsonl"), "--last", "--turn", "2"]
    )
    assert result.exit_code != 0 and "exclude each other" in result.output


def test_chars_tokenizer_option() -> None:
    """``--tokenizer chars``: SillyTavern's ceil(UTF-16 length / 3.35) for the budget."""
    args = (str(CHATS / "st_budget.json"), "--chat", str(CHATS / "harbor.jsonl"), "--json")
    approx = json.loads(invoke(*args).output)
    chars = json.loads(invoke(*args, "--tokenizer", "chars").output)
    assert [a["tokens"] for a in chars["activated"]] != [a["tokens"] for a in approx["activated"]]
    for act in chars["activated"]:
        assert act["tokens"] == math.ceil(len(act["content"].encode("utf-16-le")) // 2 / 3.35)


def test_risu_failure_is_reported(tmp_path) -> None:
    """A lorebook Risu throws on (``@@position`` without argument): an error line, nothing injected."""
    book = tmp_path / "risu.json"
    book.write_text(json.dumps({"type": "risu", "data": [{"key": "ferry", "content": "@@position\nX"}]}))
    result = invoke(str(book), "--chat", str(CHATS / "harbor.jsonl"), "--platform", "risu")
    assert result.exit_code == 0 and "error: RisuAI fails on" in result.output


def test_generation_option_swipes_the_last_reply(tmp_path) -> None:
    """``--generation swipe``: SillyTavern's ``Generate`` pops the reply being swiped before the scan."""
    chat = tmp_path / "chat.jsonl"
    lines = [
        {"name": "Mira", "role": "assistant", "text": "Welcome.", "greeting": True},
        {"name": "Alex", "role": "user", "text": "Hello."},
        {"name": "Mira", "role": "assistant", "text": "The dragon sleeps."},
    ]
    chat.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    world = tmp_path / "w.json"
    world.write_text(json.dumps({"entries": {"0": {"uid": 0, "key": ["sleeps"], "content": "A", "position": 0}}}))
    normal = json.loads(invoke(str(world), "--chat", str(chat), "--json").output)
    swiped = json.loads(invoke(str(world), "--chat", str(chat), "--json", "--generation", "swipe").output)
    assert [a["entry_id"] for a in normal["activated"]] == ["w.0"]
    assert swiped["activated"] == []
