"""Real-world lorebooks (read in place from ../shared/corpus): every profile runs, and the fast
SillyTavern scan agrees with the straightforward reference loop (sillytavern.md §7)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from interop.activation.state import ChatState
from interop.activation.tokenizers import ApproxTokenizer
from interop.engine import evaluate, get_profile, load_book, native_kind
from interop.engine.chat_input import Chat, Message
from interop.formats.sillytavern.activation import SillyTavernProfile, STSettings
from interop.formats.sillytavern.activation.scan import STScan
from tests.conftest import corpus_params, shared_files
from tests.engine.st_reference import ReferenceScan
from tests.validator import corpus_pairs

WORLDS = shared_files("st-worldinfo")
LOREBOOKS = shared_files("st-worldinfo", "risu", "lorebook-v2")


def chat_mentioning(keys: list[str]) -> Chat:
    """A chat that names every third key, so real books fire, recurse and hit budgets."""
    picked = [k for k in keys if isinstance(k, str)][::3]
    messages = [Message("Mira", "assistant", "Welcome, traveler.", True)]
    for i in range(0, len(picked), 4):
        role = "user" if (i // 4) % 2 == 0 else "assistant"
        messages.append(
            Message("Alex" if role == "user" else "Mira", role, "We talked about " + ", ".join(picked[i : i + 4]))
        )
    return Chat(tuple(messages), user="Alex")


@pytest.mark.parametrize("path", corpus_params(WORLDS, "SillyTavern world"))
@pytest.mark.parametrize(
    "settings", [STSettings(), STSettings.code_defaults(depth=6, max_context=2048)], ids=["shipped", "code-defaults"]
)
def test_fast_scan_matches_reference_loop(path: Path, settings: STSettings) -> None:
    world = json.loads(path.read_text(encoding="utf-8"))
    keys = [k for e in world["entries"].values() if isinstance(e, dict) for k in (e.get("key") or [])]
    chat = chat_mentioning(keys)
    profile = SillyTavernProfile()
    pool = profile.prepare([(path.stem, world)], settings)
    runs = []
    for scan in (STScan, ReferenceScan):
        result = scan(pool, chat, settings, ChatState(), random.Random(5), ApproxTokenizer()).run()
        runs.append(([a.entry_id for a in result.activated], sorted(r.entry_id for r in result.log if r.fired)))
    assert runs[0] == runs[1]
    assert len(result.log) == len(pool.entries)


def _profile_pairs(paths: list[Path]) -> list[tuple[Path, str]]:
    """Native books for their own platform, and anything readable for ccv3; conversions through
    other sessions' adapters are covered by their tests, not here."""
    pairs = []
    for path in paths:
        native = native_kind(json.loads(path.read_text(encoding="utf-8")))
        pairs += [(path, p) for p in ("sillytavern", "risu", "agnai", "ccv3") if p in (native, "ccv3")]
    return pairs


@pytest.mark.parametrize(("path", "platform"), corpus_pairs(_profile_pairs(LOREBOOKS), "lorebook"))
def test_every_profile_runs_on_real_books(path: Path, platform: str) -> None:
    book = load_book(path, platform)
    result = evaluate([book], Chat((Message("Alex", "user", "Tell me everything about this world."),)), platform)
    assert len(result.log) == len(get_profile(platform).entries(get_profile(platform).prepare([book])))
    assert all(r.reason for r in result.log)
    assert {a.entry_id for a in result.activated} <= {r.entry_id for r in result.log if r.fired}
