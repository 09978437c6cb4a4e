"""The CCv3 specification's own lorebook semantics (spec/character-card-v3.txt), as a neutral reference.

Where the spec leaves a choice to the application, this profile picks the
plainest reading and says so (docs/engine.md): keys are case-insensitive
substrings of each scanned message unless ``case_sensitive``; ``use_regex`` keys
are JavaScript patterns (``/p/flags`` or bare); secondary keys need one match;
``constant`` and ``secondary_keys`` are ignored with ``use_regex`` (spec); recursion
only when the book says ``recursive_scanning: true``; the budget drops the
lowest ``priority`` (or ``insertion_order``) first, ``@@ignore_on_max_context``
entries before all others; prompt order is ``insertion_order`` ascending.
Decorators: the spec's list, first occurrence wins (``additional_keys`` /
``exclude_keys`` repeat), unknown or invalid ones fall back to ``@@@`` lines.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...activation.chat import Chat
from ...activation.jsregex import DEFAULT_TIMEOUT, JSRegex, Untranslatable, compile_js, parse_literal
from ...activation.profile import Profile
from ...activation.result import Activation, EntryInfo, LogRecord, Reason, Result
from ...activation.state import ChatState
from ...activation.tokenizers import Tokenizer
from ...errors import InvalidCardError
from ...model import Lorebook, LorebookEntry, as_bool, as_number, as_str_list
from ...model.decorators import SPEC_DECORATORS, Decorator, parse_decorators

_POSITIONS = ("after_desc", "before_desc", "personality", "scenario")


@dataclass
class CCv3Settings:
    """Fallbacks for what a book leaves undefined."""

    scan_depth: int | None = None  # None: the whole chat
    token_budget: int | None = None  # None: no budget
    recursive: bool = False
    case_sensitive: bool = False
    regex_timeout: float = DEFAULT_TIMEOUT


@dataclass
class _Entry:
    entry_id: str
    book: int
    index: int
    raw: LorebookEntry
    title: str
    keys: list[str]
    secondary: list[str]
    body: str
    decorators: list[Decorator]


@dataclass
class CCv3Pool:
    books: list[Lorebook]
    entries: list[_Entry]
    warnings: list[str] = field(default_factory=list)


class CCv3Profile(Profile):
    name = "ccv3"
    rank = 30

    def default_settings(self) -> CCv3Settings:
        return CCv3Settings()

    def prepare(self, books: Sequence[Any], settings: CCv3Settings | None = None) -> CCv3Pool:
        loaded: list[Lorebook] = []
        for number, book in enumerate(books):
            if isinstance(book, tuple) and len(book) == 2:
                book = book[1]
            if isinstance(book, dict):
                data = book.get("data") if isinstance(book.get("data"), dict) and "spec" in book else book
                try:
                    book = Lorebook.model_validate(data)
                except ValueError as exc:
                    raise InvalidCardError(f"not a CCv3 lorebook: {exc}", location=f"book {number}") from None
            if not isinstance(book, Lorebook):
                raise InvalidCardError(f"not a CCv3 lorebook: {type(book).__name__}", location=f"book {number}")
            loaded.append(book)
        entries: list[_Entry] = []
        for b, book in enumerate(loaded):
            name = book.name if isinstance(book.name, str) and book.name else f"book{b}"
            for i, raw in enumerate(book.entries):
                parsed = parse_decorators(raw.content if isinstance(raw.content, str) else "")
                title = next((t for t in (raw.name, raw.comment) if isinstance(t, str) and t), f"entry {i}")
                entries.append(
                    _Entry(
                        f"{name}#{i}",
                        b,
                        i,
                        raw,
                        title,
                        as_str_list(raw.keys),
                        as_str_list(raw.secondary_keys),
                        parsed.prompt_text,
                        list(parsed.decorators),
                    )
                )
        return CCv3Pool(loaded, entries)

    def entries(self, prepared: CCv3Pool) -> list[EntryInfo]:
        return [EntryInfo(e.entry_id, e.title, e.raw.id, tuple(e.keys), e.body) for e in prepared.entries]

    def evaluate(
        self,
        prepared: CCv3Pool,
        chat: Chat,
        settings: CCv3Settings,
        state: ChatState,
        rng: random.Random,
        tokenizer: Tokenizer,
    ) -> Result:
        return _CCv3Run(prepared, chat, settings, state, tokenizer).run()


@dataclass
class _Decorated:
    """What the honoured decorators of one entry say."""

    activate: bool = False
    dont_activate: bool = False
    after: int | None = None
    every: int | None = None
    keep: bool = False
    drop_after_match: bool = False
    depth: int | None = None
    role: str | None = None
    scan_depth: int | None = None
    greeting: int | None = None
    position: str | None = None
    ignore_on_max: bool = False
    additional: list[list[str]] = field(default_factory=list)
    exclude: list[list[str]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def hook(self, deco: Decorator) -> bool:
        spec = SPEC_DECORATORS.get(deco.name)
        if spec is None or not self._honoured(deco, spec):
            return False  # not a spec decorator, or one the spec says to ignore here: try the fallback
        name, value = deco.name, deco.value
        self.seen.add(name)
        if name in _FLAGS:
            setattr(self, _FLAGS[name], True)
        elif name in _VALUES:
            setattr(self, _VALUES[name], value)
        elif name in _KEY_GROUPS:
            getattr(self, _KEY_GROUPS[name]).append(list(value or []))
        return True

    def _honoured(self, deco: Decorator, spec: Any) -> bool:
        name, value = deco.name, deco.value
        if name in self.seen and not spec.repeatable:
            return False
        if name in _IGNORED:
            return False  # token-based or unsupported in a chat: the spec says ignore
        if spec.arg.value in ("int", "role", "str") and value is None:
            return False
        if name == "position" and value not in _POSITIONS:
            return False
        return name != "disable_ui_prompt" or value in ("post_history_instructions", "system_prompt")


_IGNORED = ("instruct_depth", "reverse_instruct_depth", "instruct_scan_depth", "reverse_depth", "is_user_icon")
_FLAGS = {
    "activate": "activate",
    "dont_activate": "dont_activate",
    "keep_activate_after_match": "keep",
    "dont_activate_after_match": "drop_after_match",
    "ignore_on_max_context": "ignore_on_max",
}
"""Decorator -> the ``_Decorated`` flag it sets."""
_VALUES = {
    "activate_only_after": "after",
    "activate_only_every": "every",
    "depth": "depth",
    "role": "role",
    "scan_depth": "scan_depth",
    "is_greeting": "greeting",
    "position": "position",
}
"""Decorator -> the ``_Decorated`` field that takes its value."""
_KEY_GROUPS = {"additional_keys": "additional", "exclude_keys": "exclude"}
"""Decorator -> the ``_Decorated`` list its key group is appended to."""


_Outcome = tuple[bool, str, str, str | None, str | None]
"""(fired, reason, detail, key, where) of one entry's log record."""


def _yes(reason: str, detail: str = "", key: str | None = None, where: str | None = None) -> _Outcome:
    return True, reason, detail, key, where


def _no(reason: str, detail: str = "", key: str | None = None, where: str | None = None) -> _Outcome:
    return False, reason, detail, key, where


class _CCv3Run:
    def __init__(
        self, pool: CCv3Pool, chat: Chat, settings: CCv3Settings, state: ChatState, tokenizer: Tokenizer
    ) -> None:
        self.pool = pool
        self.chat = chat
        self.settings = settings
        self.state = state
        self.tokenizer = tokenizer
        self.messages = [m.text for m in reversed(chat.messages) if m.role != "system"]  # newest first
        self.assistant_count = sum(1 for m in chat.messages if m.role == "assistant")
        self.warnings = list(pool.warnings)
        self.recursion: list[tuple[str, str]] = []  # (source entry id, content)
        self.timed_out: set[str] = set()

    def _book_value(self, book: Lorebook, field_name: str, default: Any) -> Any:
        value = getattr(book, field_name)
        if field_name == "recursive_scanning":
            return as_bool(value, default) if value is not None else default
        number = as_number(value)
        return number if number is not None else default

    def _texts(self, entry: _Entry, deco: _Decorated, step: int) -> list[tuple[str, str]]:
        book = self.pool.books[entry.book]
        depth = deco.scan_depth if deco.scan_depth is not None else self._book_value(book, "scan_depth", None)
        if depth is None:
            depth = self.settings.scan_depth
        window = self.messages if depth is None else self.messages[: max(int(depth), 0)]
        texts = [(f"message {i} (0 = newest)", t) for i, t in enumerate(window)]
        if self._book_value(book, "recursive_scanning", self.settings.recursive):
            texts.extend((f"recursion ({source})", text) for source, text in self.recursion if source != entry.entry_id)
        return texts

    def _match(self, entry: _Entry, keys: list[str], texts: list[tuple[str, str]]) -> tuple[str, str] | None:
        regex_mode = as_bool(entry.raw.use_regex, False)
        case_sensitive = as_bool(entry.raw.case_sensitive, self.settings.case_sensitive)
        for key in keys:
            if regex_mode:
                compiled = self._regex(key)
                if compiled is None or key in self.timed_out:
                    continue
                for where, text in texts:
                    try:
                        if compiled.test(text, self.settings.regex_timeout):
                            return key, where
                    except TimeoutError:
                        self.timed_out.add(key)  # skipped for the rest of the run
                        self._warn(f"regex key {key!r} of {entry.entry_id} timed out; counted as no match")
                        break
                continue
            needle = key if case_sensitive else key.lower()
            if not needle:
                continue
            for where, text in texts:
                if needle in (text if case_sensitive else text.lower()):
                    return key, where
        return None

    def _regex(self, key: str) -> JSRegex | None:
        literal = parse_literal(key)
        pattern, flags = literal if literal else (key, "")
        try:
            return compile_js(pattern, flags)
        except Untranslatable as exc:
            self._warn(f"regex key {key!r} is invalid ({exc}); counted as no match")
            return None

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def _decide(self, entry: _Entry, deco: _Decorated, step: int) -> LogRecord:
        fired, reason, detail, key, where = (
            self._decorator_gate(entry, deco)
            or self._history_gate(entry, deco)
            or self._key_decision(entry, deco, step)
        )
        return LogRecord(entry.entry_id, entry.title, fired, reason, detail, step, key, where)

    def _decorator_gate(self, entry: _Entry, deco: _Decorated) -> _Outcome | None:
        """The entry's switch and its decorators' conditions, before any key is looked at."""
        if entry.raw.enabled is False:
            return _no(Reason.DISABLED)
        if deco.activate:
            return _yes(Reason.DECORATOR_ACTIVATE, "@@activate")
        if deco.dont_activate:
            return _no(Reason.DECORATOR_DONT_ACTIVATE, "@@dont_activate")
        greeting = self.chat.greeting_index
        if deco.greeting is not None and greeting is not None and deco.greeting != greeting:
            return _no(Reason.DECORATOR_CONDITION, f"@@is_greeting {deco.greeting}: greeting is {greeting}")
        replies = self.assistant_count
        if deco.after is not None and replies < deco.after:
            return _no(Reason.DECORATOR_CONDITION, f"@@activate_only_after {deco.after}: {replies} replies")
        if deco.every is not None and (deco.every == 0 or replies % deco.every):
            return _no(Reason.DECORATOR_CONDITION, f"@@activate_only_every {deco.every}: {replies} replies")
        return None

    def _history_gate(self, entry: _Entry, deco: _Decorated) -> _Outcome | None:
        """``@@keep_/dont_activate_after_match`` once the entry matched in an earlier turn."""
        if entry.entry_id not in self.state.matched:
            return None
        if deco.keep:
            return _yes(Reason.KEEP_AFTER_MATCH, "matched in an earlier turn")
        if deco.drop_after_match:
            return _no(Reason.DECORATOR_DONT_ACTIVATE, "@@dont_activate_after_match: matched in an earlier turn")
        return None

    def _key_decision(self, entry: _Entry, deco: _Decorated, step: int) -> _Outcome:
        raw = entry.raw
        regex_mode = as_bool(raw.use_regex, False)
        if as_bool(raw.constant, False) and not regex_mode:
            return _yes(Reason.CONSTANT)
        if not entry.keys:
            return _no(Reason.NO_KEYS)
        texts = self._texts(entry, deco, step)
        hit = self._match(entry, entry.keys, texts)
        if hit is None:
            return _no(Reason.NO_MATCH)
        selective = as_bool(raw.selective, False) and entry.secondary and not regex_mode
        if selective and self._match(entry, entry.secondary, texts) is None:
            return _no(Reason.SECONDARY_LOGIC, "no secondary key matched")
        for group in deco.additional:
            if self._match(entry, group, texts) is None:
                return _no(Reason.ADDITIONAL_KEYS, f"none of {group} matched")
        if not regex_mode:
            for group in deco.exclude:
                excluded = self._match(entry, group, texts)
                if excluded is not None:
                    return _no(Reason.EXCLUDE_KEYS, f"{excluded[0]!r} matched", excluded[0], excluded[1])
        return _yes(Reason.KEY_MATCH, "", hit[0], hit[1])

    def run(self) -> Result:
        decorated: dict[str, _Decorated] = {}
        for entry in self.pool.entries:
            deco = _Decorated()
            parse_decorators(entry.raw.content if isinstance(entry.raw.content, str) else "").resolve(deco.hook)
            decorated[entry.entry_id] = deco
        records: dict[str, LogRecord] = {}
        fired, step = self._scan(decorated, records)
        kept = self._budget(fired, decorated, records)
        for entry in fired:
            if records[entry.entry_id].fired:
                self.state.matched.add(entry.entry_id)
        result = Result("ccv3", steps=step, turn=len(self.chat.messages))
        kept.sort(key=lambda e: (as_number(e.raw.insertion_order, 0) or 0, self.pool.entries.index(e)))
        for entry in kept:
            if not entry.body:
                continue  # the spec: empty content adds nothing
            result.activated.append(self._activation(entry, decorated[entry.entry_id]))
        result.tokens_used = sum(a.tokens for a in result.activated)
        result.budget = self._budget_limit()
        result.log = [records[e.entry_id] for e in self.pool.entries]
        result.warnings = self.warnings
        return result

    def _scan(self, decorated: dict[str, _Decorated], records: dict[str, LogRecord]) -> tuple[list[_Entry], int]:
        """Passes over the pool until one fires nothing new (or recursion is off): the entries
        fired, in firing order, and the number of passes. Every entry's last decision is in ``records``."""
        fired: list[_Entry] = []
        step = 0
        changed = True
        while changed:
            changed = False
            step += 1
            for entry in self.pool.entries:
                if entry.entry_id in records and records[entry.entry_id].fired:
                    continue
                record = self._decide(entry, decorated[entry.entry_id], step)
                records[entry.entry_id] = record
                if record.fired:
                    fired.append(entry)
                    if entry.body:
                        self.recursion.append((entry.entry_id, entry.body))
                    changed = any(
                        self._book_value(b, "recursive_scanning", self.settings.recursive) for b in self.pool.books
                    )
        return fired, step

    def _activation(self, entry: _Entry, deco: _Decorated) -> Activation:
        content = self.chat.substitute(entry.body)
        if deco.position:
            position = deco.position
        elif deco.depth is not None:
            position = "depth"
        else:
            position = entry.raw.position if isinstance(entry.raw.position, str) else "lorebook"
        return Activation(
            entry.entry_id,
            entry.title,
            content,
            position,
            as_number(entry.raw.insertion_order),
            deco.depth if position == "depth" else None,
            deco.role,
            None,
            self.tokenizer.count(content),
            entry.raw.id,
            tuple(entry.keys),
        )

    def _budget_limit(self) -> int | None:
        limits = [self._book_value(b, "token_budget", None) for b in self.pool.books]
        defined = [int(v) for v in limits if v is not None]
        if defined:
            return min(defined)
        return self.settings.token_budget

    def _budget(
        self, fired: list[_Entry], decorated: dict[str, _Decorated], records: dict[str, LogRecord]
    ) -> list[_Entry]:
        kept = list(fired)
        limit = self._budget_limit()
        if limit is None:
            return kept
        tokens = {e.entry_id: self.tokenizer.count(self.chat.substitute(e.body)) for e in kept}
        total = sum(tokens.values())

        def rank(e: _Entry) -> tuple[int, float, int]:
            priority = as_number(e.raw.priority)
            if priority is None:
                priority = as_number(e.raw.insertion_order, 0) or 0
            return (0 if decorated[e.entry_id].ignore_on_max else 1, priority, -self.pool.entries.index(e))

        for entry in sorted(kept, key=rank):
            if total <= limit:
                break
            kept.remove(entry)
            total -= tokens[entry.entry_id]
            old = records[entry.entry_id]
            records[entry.entry_id] = LogRecord(
                old.entry_id,
                old.title,
                False,
                Reason.BUDGET,
                f"lowest priority dropped to fit {limit} tokens",
                old.step,
                old.key,
                old.where,
            )
        return kept
