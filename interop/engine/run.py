"""Running a profile: one turn (``evaluate``) or every turn of a chat (``simulate``)."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from ..activation.chat import Chat
from ..activation.jsregex import regex_budget
from ..activation.result import Result
from ..activation.state import ChatState
from ..activation.tokenizers import as_tokenizer
from .platform_profiles import get_profile


def evaluate(
    books: Sequence[Any],
    chat: Chat,
    platform: str = "sillytavern",
    *,
    settings: Any = None,
    seed: int = 0,
    state: ChatState | None = None,
    tokenizer: Any = None,
) -> Result:
    """Which entries of the pooled ``books`` fire for the prompt built on ``chat``.

    ``books`` are native lorebooks of ``platform`` (or canonical ``Lorebook`` objects,
    converted by the platform adapter). ``state`` carries timed effects and chat
    variables between turns; it is updated in place. Randomness comes from ``seed`` only.
    """
    profile = get_profile(platform)
    settings = settings if settings is not None else profile.default_settings()
    prepared = profile.prepare(books, settings)
    with regex_budget():  # one regex time budget for the whole scan (or the caller's, if it set one)
        return profile.evaluate(
            prepared,
            chat,
            settings,
            state if state is not None else ChatState(),
            random.Random(seed),
            as_tokenizer(tokenizer),
        )


def simulate(
    books: Sequence[Any],
    chat: Chat,
    platform: str = "sillytavern",
    *,
    settings: Any = None,
    seed: int = 0,
    tokenizer: Any = None,
    turns: Sequence[int] | None = None,
    timings: dict[str, Any] | None = None,
    prepared: Any = None,
) -> list[Result]:
    """Evaluate every turn of ``chat`` in order (``Chat.turns()``), carrying per-chat state.

    Each turn sees ``chat.turn(count)``: swiped replies removed, "swipe" on swipe turns.

    One seeded generator serves the whole chat, so a run is reproducible. When ``timings`` is
    a dict it receives ``prepare_ms`` (reading the books into the profile's index) and
    ``scan_ms`` (wall milliseconds of each turn's scan, request log included).

    ``prepared`` is the pool ``profile.prepare(books, settings)`` already gave the caller
    (pools are read-only during a scan, so one serves every chat); ``books`` are not read again.
    """
    profile = get_profile(platform)
    settings = settings if settings is not None else profile.default_settings()
    started = time.perf_counter()
    if prepared is None:
        prepared = profile.prepare(books, settings)
    scan_ms: list[float] = []
    if timings is not None:
        timings["prepare_ms"] = (time.perf_counter() - started) * 1000
        timings["scan_ms"] = scan_ms
    state = ChatState()
    rng = random.Random(seed)
    counter = as_tokenizer(tokenizer)
    results = []
    with regex_budget():  # one regex time budget for every turn (or the caller's, if it set one)
        for count in turns if turns is not None else chat.turns():
            started = time.perf_counter()
            result = profile.evaluate(prepared, chat.turn(count), settings, state, rng, counter)
            scan_ms.append((time.perf_counter() - started) * 1000)
            result.turn = count
            results.append(result)
    return results
