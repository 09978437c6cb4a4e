"""Lorebook activation simulator with per-platform semantics (docs/engine.md).

``evaluate(books, chat, platform)`` returns the entries injected for one prompt
and a request log saying why every entry fired or not; ``simulate`` runs every
turn of a chat with per-chat state; ``compare_behaviour`` checks that a migrated
lorebook fires the same entries on its target platform.
"""

from __future__ import annotations

from .chat import (
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
from .compare import BehaviourDifference, compare_behaviour
from .profiles import (
    PROFILES,
    AgnaiSettings,
    CCv3Settings,
    RisuSettings,
    STBook,
    STSettings,
    get_profile,
    platform_profile,
)
from .result import Activation, EntryInfo, LogRecord, Reason, Result
from .run import evaluate, simulate
from .sources import load_book, load_books, native_kind
from .state import ChatState
from .tokenizers import ApproxTokenizer, CharsTokenizer, EncodingTokenizer, Tokenizer, as_tokenizer

__all__ = [
    "PROFILES",
    "Activation",
    "AgnaiSettings",
    "ApproxTokenizer",
    "BehaviourDifference",
    "CCv3Settings",
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
    "RisuSettings",
    "STBook",
    "STSettings",
    "Tokenizer",
    "as_tokenizer",
    "chat_from_bytes",
    "chat_from_jsonl",
    "chat_from_log",
    "chat_from_records",
    "chat_from_transcript",
    "compare_behaviour",
    "evaluate",
    "get_profile",
    "load_book",
    "load_books",
    "load_chat",
    "native_kind",
    "platform_profile",
    "read_chat_bytes",
    "simulate",
]
