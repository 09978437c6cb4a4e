"""Agnai memory-book activation (``buildMemoryPrompt``; agnai-novelai.md §1.6, fields §1.2).

Agnai has no secondary keys, constants, probability or recursion: an enabled
entry fires when one of its keywords appears as a whole word in the last
``memory_depth`` prompt lines. Keywords lose ``\\ ^ $ + . ( ) | [ ] { } _``,
``*`` becomes "any word characters" and ``?`` one word character; matching is
case-insensitive with JavaScript's ASCII ``\\b``. Selection: priority
descending, then age (newest matching line first), stopping at the first entry
that would make the running total reach the budget; placement: weight
descending then age, reversed (highest weight lands last).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import regex

from ...activation.chat import Chat
from ...activation.profile import Profile, native_books
from ...activation.result import Activation, EntryInfo, LogRecord, Reason, Result
from ...activation.state import ChatState
from ...activation.tokenizers import Tokenizer
from ...errors import InvalidCardError
from ...model.keys import agnai_keyword
from .memory import memory_book_from_lorebook

_W = "[A-Za-z0-9_]"
_BOUNDARY = f"(?:(?<={_W})(?!{_W})|(?<!{_W})(?={_W}))"


@dataclass
class AgnaiSettings:
    """Preset values: ``memoryDepth`` (default 50) and ``memoryContextLimit`` (default 500)."""

    memory_depth: int = 50
    memory_budget: int = 500


@dataclass
class AgnaiPool:
    entries: list[dict[str, Any]]
    ids: list[str]
    patterns: list[list[tuple[str, regex.Pattern[str] | None]]]
    warnings: list[str] = field(default_factory=list)


def keyword_pattern(keyword: str) -> regex.Pattern[str] | None:
    """The whole-word, case-insensitive pattern of one keyword (None when nothing is left of it)."""
    core = agnai_keyword(keyword)
    if not core:
        return None
    parts = []
    for ch in core:
        if ch == "*":
            parts.append(f"{_W}*")
        elif ch == "?":
            parts.append(_W)
        else:
            parts.append(regex.escape(ch))
    return regex.compile(f"{_BOUNDARY}(?:{''.join(parts)}){_BOUNDARY}", regex.IGNORECASE)


class AgnaiProfile(Profile):
    name = "agnai"
    rank = 20

    def default_settings(self) -> AgnaiSettings:
        return AgnaiSettings()

    def prepare(self, books: Sequence[Any], settings: AgnaiSettings | None = None) -> AgnaiPool:
        entries: list[dict[str, Any]] = []
        ids: list[str] = []
        patterns: list[list[tuple[str, regex.Pattern[str] | None]]] = []
        for name, book in native_books(books, memory_book_from_lorebook):
            if not isinstance(book, dict) or not isinstance(book.get("entries"), list):
                raise InvalidCardError("an Agnai memory book needs an 'entries' list", file=name)
            if isinstance(book.get("name"), str) and book["name"] and name.startswith("book"):
                name = book["name"]
            for i, raw in enumerate(book["entries"]):
                if not isinstance(raw, dict):
                    continue
                entries.append(raw)
                ids.append(f"{name}#{i}")
                keywords = raw.get("keywords") if isinstance(raw.get("keywords"), list) else []
                patterns.append([(str(k), keyword_pattern(str(k))) for k in keywords])
        return AgnaiPool(entries, ids, patterns)

    def entries(self, prepared: AgnaiPool) -> list[EntryInfo]:
        return [
            EntryInfo(
                prepared.ids[i],
                _title(e, i),
                e.get("id"),
                tuple(str(k) for k in e.get("keywords") or ()),
                str(e.get("entry") or "").strip(),
            )
            for i, e in enumerate(prepared.entries)
        ]

    def evaluate(
        self,
        prepared: AgnaiPool,
        chat: Chat,
        settings: AgnaiSettings,
        state: ChatState,
        rng: random.Random,
        tokenizer: Tokenizer,
    ) -> Result:
        result = Result("agnai", budget=settings.memory_budget, steps=1, turn=len(chat.messages))
        depth = settings.memory_depth
        lines = [f"{m.name}: {m.text}" for m in reversed(chat.messages) if m.role != "system"]
        lines = lines[:depth] if depth > 0 else []
        records: dict[int, LogRecord] = {}
        matches = _matches(prepared, lines, chat, tokenizer, records)
        matches.sort(key=lambda m: (-_num(prepared.entries[m[0]].get("priority")), m[1]))
        kept, used = _fit_budget(matches, settings.memory_budget, records)
        kept.sort(key=lambda m: (-_num(prepared.entries[m[0]].get("weight")), m[1]))
        kept.reverse()
        result.activated = [_activation(prepared, i, tokens, text) for i, _age, tokens, text in kept]
        result.tokens_used = used
        result.log = [records[i] for i in range(len(prepared.entries))]
        return result


_Match = tuple[int, int, int, str]
"""(entry index, age of the matching message, tokens, text)."""


def _matches(
    prepared: AgnaiPool, lines: list[str], chat: Chat, tokenizer: Tokenizer, records: dict[int, LogRecord]
) -> list[_Match]:
    """The enabled entries a keyword of which is in the scanned lines; every entry's record goes in ``records``."""
    matches: list[_Match] = []
    for i, raw in enumerate(prepared.entries):
        entry_id, title = prepared.ids[i], _title(raw, i)
        if not raw.get("enabled"):  # `if (!entry.enabled) continue`: absent means off
            records[i] = LogRecord(entry_id, title, False, Reason.DISABLED, "", 1)
            continue
        found = _first_match(prepared.patterns[i], lines)
        if found is None:
            records[i] = LogRecord(entry_id, title, False, Reason.NO_MATCH, "", 1)
            continue
        text = chat.substitute(str(raw.get("entry") or "").replace("{{name}}", chat.character.name))
        records[i] = LogRecord(
            entry_id, title, True, Reason.KEY_MATCH, "keyword", 1, found[1], f"message {found[0]} (0 = newest)"
        )
        matches.append((i, found[0], tokenizer.count(text + "\n"), text))
    return matches


def _first_match(patterns: list[tuple[str, regex.Pattern[str] | None]], lines: list[str]) -> tuple[int, str] | None:
    """(age, keyword) of the newest line any keyword matches, the entry's keywords in order."""
    for age, line in enumerate(lines):
        for keyword, pattern in patterns:
            if pattern is not None and pattern.search(line):
                return age, keyword
    return None


def _fit_budget(matches: list[_Match], budget: int, records: dict[int, LogRecord]) -> tuple[list[_Match], int]:
    """The matches taken in order until one does not fit (Agnai stops there), and the tokens used;
    the records of the rest say why they were dropped."""
    used = 0
    kept: list[_Match] = []
    stopped_at: int | None = None
    for position, match in enumerate(matches):
        if used + match[2] >= budget:
            stopped_at = position
            break
        used += match[2]
        kept.append(match)
    if stopped_at is not None:
        for match in matches[stopped_at:]:
            record = records[match[0]]
            why = "does not fit" if match is matches[stopped_at] else "after the first entry that did not fit"
            records[match[0]] = LogRecord(
                record.entry_id,
                record.title,
                False,
                Reason.BUDGET,
                f"{why} ({used}/{budget} tokens)",
                1,
                record.key,
                record.where,
            )
    return kept, used


def _activation(prepared: AgnaiPool, i: int, tokens: int, text: str) -> Activation:
    raw = prepared.entries[i]
    return Activation(
        prepared.ids[i],
        _title(raw, i),
        text,
        "memory",
        _num(raw.get("weight")),
        None,
        None,
        None,
        tokens,
        raw.get("id"),
        tuple(str(k) for k in raw.get("keywords") or ()),
    )


def _title(raw: dict[str, Any], index: int) -> str:
    name = raw.get("name")
    return name if isinstance(name, str) and name else f"entry {index}"


def _num(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return value
