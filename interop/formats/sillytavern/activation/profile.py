"""SillyTavern World Info activation (sillytavern.md §7, §1.2-1.4), over native world dicts.

Entries are read as ST's runtime sees a world file: absent fields behave as
JavaScript ``undefined`` (no template fill) and other types go through the
JavaScript operators ST applies to them; a missing or non-numeric ``order`` is
sorted as V8 sorts it (``jssort``).

Speed: plain keys of every entry go into one ``KeyIndex`` (Aho-Corasick per
case class). Each scan segment (a message, a match* source, a recursion
chunk) is scanned once; an entry is a candidate in a pass only if one of its
keys occurs in a segment inside its window, or it can fire without keys
(constant, sticky, ``@@activate``), or it needs the exact per-entry path
(regex keys, macro keys). Candidates then go through ST's checks in ST's
order; everything else is explained lazily in the log.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ....activation.chat import Chat
from ....activation.jsregex import JSRegex
from ....activation.jssort import sort_descending_by
from ....activation.jsvalue import js_trim
from ....activation.keyindex import KeyIndex
from ....activation.profile import Profile, native_books
from ....activation.result import EntryInfo, LogRecord, Reason, Result
from ....activation.state import ChatState
from ....activation.tokenizers import Tokenizer
from ....errors import InvalidCardError
from ..world import world_from_lorebook
from .entries import (
    BOOK_KINDS,
    MAX_SCAN_DEPTH,
    STBook,
    STEntry,
    STPool,
    STSettings,
    js_object_values_order,
    order_quirk,
    parse_regex_key,
    parse_st_decorators,
    recursion_levels,
    split_groups,
)
from .scan import STScan

__all__ = [
    "STBook",
    "STEntry",
    "STPool",
    "STSettings",
    "SillyTavernProfile",
    "js_object_values_order",
    "parse_regex_key",
    "parse_st_decorators",
    "split_groups",
]


class SillyTavernProfile(Profile):
    name = "sillytavern"
    rank = 0  # the reference app lists first

    def default_settings(self) -> STSettings:
        return STSettings()

    # ---- preparation ---------------------------------------------------------------

    def to_books(self, books: Sequence[Any]) -> list[STBook]:
        out: list[STBook] = []
        for number, (name, book) in enumerate(native_books(books, world_from_lorebook)):
            if isinstance(book, STBook):
                out.append(book)
            elif isinstance(book, dict):
                out.append(STBook(name, book))
            else:
                raise InvalidCardError(f"not a SillyTavern world: {type(book).__name__}", location=f"book {number}")
        for book in out:
            if not isinstance(book.world.get("entries"), dict):
                raise InvalidCardError(
                    "a SillyTavern world needs an 'entries' object keyed by uid", file=book.name, location="entries"
                )
            if book.kind not in BOOK_KINDS:
                raise InvalidCardError(f"book kind must be one of {', '.join(BOOK_KINDS)}", file=book.name)
        return out

    def prepare(self, books: Sequence[Any], settings: STSettings | None = None) -> STPool:
        settings = settings or STSettings()
        groups: dict[str, list[STEntry]] = {kind: [] for kind in BOOK_KINDS}
        seen: set[str] = set()
        loaded = 0
        for book in self.to_books(books):
            if book.name in seen:
                continue  # a book already active at a higher level is skipped
            seen.add(book.name)
            for uid, raw in js_object_values_order(book.world["entries"]):
                if isinstance(raw, dict):
                    entry = STEntry(book.name, uid, raw)
                    entry.seq = loaded
                    loaded += 1
                    groups[book.kind].append(entry)

        def by_order(items: list[STEntry]) -> list[STEntry]:
            # sortFn `(a, b) => b.order - a.order` in V8 (a non-numeric order makes it NaN: see jssort)
            return sort_descending_by(items, lambda e: e.order)

        if settings.character_strategy == 1:
            rest = by_order(groups["character"]) + by_order(groups["global"])
        elif settings.character_strategy == 2:
            rest = by_order(groups["global"]) + by_order(groups["character"])
        else:  # evenly (0), and ST's fallback for an unknown strategy
            rest = by_order(groups["global"] + groups["character"])
        ordered = by_order(groups["chat"]) + by_order(groups["persona"]) + rest
        return self._index(ordered, settings)

    def _index(self, ordered: list[STEntry], settings: STSettings) -> STPool:
        index = KeyIndex()
        primary_of: dict[int, list[int]] = {}
        always: list[int] = []
        slow: list[int] = []
        pool = STPool(ordered, index, primary_of, always, slow)
        for i, entry in enumerate(ordered):
            entry.index = i
            cs = entry.case_sensitive if entry.case_sensitive is not None else settings.case_sensitive
            ww = entry.match_whole_words if entry.match_whole_words is not None else settings.match_whole_words
            entry.fast_primary = [self._key_id(pool, k, cs, ww) for k in entry.keys or []]
            entry.fast_secondary = [self._key_id(pool, k, cs, ww) for k in entry.secondary]
            entry.slow = any(k is None for k in entry.fast_primary)
            for kid in {k for k in entry.fast_primary if k is not None}:
                primary_of.setdefault(kid, []).append(i)
            if entry.constant or "@@activate" in entry.decorators:
                always.append(i)
            if entry.slow:
                slow.append(i)
            entry.plain_gate = bool(
                entry.keys
                and not (entry.disable or entry.triggers or entry.character_filter or entry.delay is not None)
                and not (entry.delay_until_recursion or entry.decorators or entry.constant)
            )
            if entry.delay is not None:
                pool.delayed.append(i)
            if not entry.plain_gate or entry.sticky is not None or entry.cooldown is not None:
                pool.unusual.append(entry)
            if entry.scan_depth is not None and entry.scan_depth > pool.max_scan_depth:
                pool.max_scan_depth = int(min(entry.scan_depth, MAX_SCAN_DEPTH))
        pool.levels = recursion_levels(ordered)
        pool.shared_keys = len({e.state_key for e in ordered}) < len(ordered)
        numeric = [e.order == e.order for e in ordered]
        if any(numeric) and not all(numeric):  # V8's sort decides where the others go
            for entry, has_number in zip(ordered, numeric, strict=True):
                if not has_number:
                    entry.quirks = "; ".join(q for q in (entry.quirks, order_quirk(entry)) if q)
        pool.quirky = [e for e in ordered if e.quirks]
        index.build()
        pool.by_seq = sorted(ordered, key=lambda e: e.seq)
        pool.no_match = [LogRecord(e.entry_id, e.title, False, Reason.NO_MATCH) for e in pool.by_seq]
        return pool

    def _key_id(self, pool: STPool, key: str, cs: bool, ww: bool) -> int | None:
        """A KeyIndex id, or None when the key needs the exact path (regex, macro, empty, odd)."""
        needle = js_trim(key)
        if (
            not needle
            or "{{" in key
            or "\x01" in needle
            or "\n" in needle
            or self.parse_regex_key(pool, needle) is not None
        ):
            return None
        return pool.index.add(needle, cs, ww)

    def parse_regex_key(self, pool: STPool, key: str) -> JSRegex | str | None:
        """ST's parseRegexFromString on a trimmed key (``st_entries.parse_regex_key``)."""
        return parse_regex_key(pool, key)

    def entries(self, prepared: STPool) -> list[EntryInfo]:
        return [EntryInfo(e.entry_id, e.title, e.uid, tuple(e.keys or ()), e.content.strip()) for e in prepared.entries]

    # ---- evaluation ----------------------------------------------------------------

    def evaluate(
        self,
        prepared: STPool,
        chat: Chat,
        settings: STSettings,
        state: ChatState,
        rng: random.Random,
        tokenizer: Tokenizer,
    ) -> Result:
        return STScan(prepared, chat, settings, state, rng, tokenizer).run()
