"""A catastrophic regex key cannot hang a run (issue 8, item 4): each profile times it out and warns."""

from __future__ import annotations

from interop.activation.result import Reason
from interop.engine import evaluate
from interop.engine.chat_input import Chat, Message
from interop.formats.ccv3.activation import CCv3Settings
from interop.formats.risu.activation import RisuSettings
from interop.formats.sillytavern.activation import STSettings
from interop.model import Lorebook, LorebookEntry

EVIL = "(x+x+)+y"
TEXT = "x" * 4000
TALK = Chat((Message("Alex", "user", TEXT),))


def test_sillytavern_times_out_once_per_key() -> None:
    world = {"entries": {str(i): {"uid": i, "key": [f"/{EVIL}/"], "content": "c"} for i in range(5)}}
    result = evaluate([("w", world)], TALK, "sillytavern", settings=STSettings(regex_timeout=0.05))
    assert all((r.fired, r.reason) == (False, Reason.NO_MATCH) for r in result.log)
    assert len([w for w in result.warnings if "timed out" in w]) == 1  # the other four entries skip the key


def test_risu_times_out() -> None:
    # Risu keeps the leading "/" in the pattern (risu.md §0.13), so the text starts with one
    entries = [{"key": f"/{EVIL}/g", "content": "c", "insertorder": 1, "useRegex": True}]
    talk = Chat((Message("Alex", "user", "/" + TEXT),))
    result = evaluate([entries], talk, "risu", settings=RisuSettings(regex_timeout=0.05))
    assert [(r.fired, r.reason) for r in result.log] == [(False, Reason.NO_MATCH)]
    assert any("timed out" in w for w in result.warnings)


def test_ccv3_times_out() -> None:
    book = Lorebook(entries=[LorebookEntry(keys=[EVIL], content="c", use_regex=True, enabled=True, insertion_order=0)])
    result = evaluate([book], TALK, "ccv3", settings=CCv3Settings(regex_timeout=0.05))
    assert [(r.fired, r.reason) for r in result.log] == [(False, Reason.NO_MATCH)]
    assert any("timed out" in w for w in result.warnings)
