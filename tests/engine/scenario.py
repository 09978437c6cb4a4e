"""Helpers for the engine tests: the project's scenario corpus (corpus/chats/)."""

from __future__ import annotations

from typing import Any

from interop.engine import Result, load_book, load_chat
from interop.engine.chat_input import Chat
from tests.conftest import PROJECT_CORPUS

CHATS = PROJECT_CORPUS / "chats"


def words(text: str) -> int:
    """A word-count tokenizer: makes budget arithmetic checkable by hand."""
    return len(text.split())


def book(name: str, platform: str) -> Any:
    return load_book(CHATS / name, platform)


def chat(name: str) -> Chat:
    return load_chat(CHATS / name)


def outcome(result: Result) -> dict[str, tuple[bool, str]]:
    """entry id -> (fired, reason)."""
    return {r.entry_id: (r.fired, r.reason) for r in result.log}


def fired(result: Result) -> list[str]:
    return [r.entry_id for r in result.log if r.fired]
