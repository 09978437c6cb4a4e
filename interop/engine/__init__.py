"""Lorebook activation simulator with per-platform semantics (docs/engine.md).

``evaluate(books, chat, platform)`` returns the entries injected for one prompt
and a request log saying why every entry fired or not; ``simulate`` runs every
turn of a chat with per-chat state; ``compare_behaviour`` checks that a migrated
lorebook fires the same entries on its target platform. Each platform's semantics live in
its package (``Platform.profile``), built on ``interop.activation``; the engine drives them.
"""

from __future__ import annotations

from ..activation.result import Activation, EntryInfo, LogRecord, Reason, Result
from ..activation.state import ChatState
from ..activation.tokenizers import ApproxTokenizer, CharsTokenizer, EncodingTokenizer, Tokenizer, as_tokenizer
from .chat_input import (
    Character,
    Chat,
    Message,
    chat_from_bytes,
    chat_from_jsonl,
    chat_from_log,
    chat_from_records,
    chat_from_transcript,
    load_chat,
    read_chat_bytes,
)
from .firing_diff import BehaviourDifference, compare_behaviour
from .platform_profiles import app_profile_names, find_profile, get_profile, profile_names
from .run import evaluate, simulate
from .sources import load_book, load_books, native_kind

__all__ = [
    "Activation",
    "ApproxTokenizer",
    "BehaviourDifference",
    "Character",
    "CharsTokenizer",
    "Chat",
    "ChatState",
    "EncodingTokenizer",
    "EntryInfo",
    "LogRecord",
    "Message",
    "Reason",
    "Result",
    "Tokenizer",
    "app_profile_names",
    "as_tokenizer",
    "chat_from_bytes",
    "chat_from_jsonl",
    "chat_from_log",
    "chat_from_records",
    "chat_from_transcript",
    "compare_behaviour",
    "evaluate",
    "find_profile",
    "get_profile",
    "load_book",
    "load_books",
    "load_chat",
    "native_kind",
    "profile_names",
    "read_chat_bytes",
    "simulate",
]
