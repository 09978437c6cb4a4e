"""RisuAI activation (``loadLoreBookV3Prompt``; risu.md §6, decorators §3.5, regex keys §0.13).

Works on Risu's internal ``loreBook`` objects (``key``/``secondkey`` comma
strings, ``insertorder``, ``alwaysActive``, ``selective``, ``useRegex``, ``mode``,
``content`` with ``@@`` decorators). Faithful quirks kept on purpose:

* plain keys: lower-cased, ``{{// ...}}`` / ``{{comment: ...}}`` removed, then every
  space removed from text and key before a substring test ("New York" matches "newyork");
* full-word mode splits each message on single spaces and compares whole tokens;
* regex keys must start with ``/`` and carry flags; the leading ``/`` stays in the
  pattern (``/abc/i`` looks for ``/abc``); a key not starting with ``/`` ends the
  search as "no match"; invalid patterns too;
* a scan depth above the message count slices from a negative index (fewer messages);
* ``@@probability`` rolls each time the entry is parsed (every pass until it fires);
* ``@@keep_activate_after_match`` / ``@@dont_activate_after_match`` set a run-wide flag,
  so every entry activated after one of them is remembered in the chat variables;
* the budget walk keeps going after a misfit; the output is ascending ``insertorder``;
* ``searchMatch`` rewrites ``arg.keys[0]`` inside its loop, so regex keys only work on the
  oldest scanned text (``/gim/s`` decays into an empty regex that matches anything);
* ``@@position`` without an argument throws: the whole lorebook prompt fails (``Result.error``);
* decorator numbers are ``parseInt`` (``@@depth 0x4`` is 4).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ....activation.chat import Chat
from ....activation.jsregex import JSSyntaxError, Untranslatable, compile_js
from ....activation.jssort import sort_descending_by
from ....activation.jsvalue import UNDEFINED, js_number, js_slice, js_string, js_trim, js_truthy
from ....activation.profile import Profile, native_books
from ....activation.result import Activation, EntryInfo, LogRecord, Reason, Result
from ....activation.state import ChatState
from ....activation.tokenizers import Tokenizer
from ....errors import InvalidCardError
from ....model.decorators import parse_decorators
from ..entries import risu_entries_from_lorebook
from .hook import RisuEntryContext, RisuThrows, sort_number
from .settings import RisuSettings

_CBS_COMMENTS = re.compile(r"\{\{//(.+?)\}\}|\{\{comment:(.+?)\}\}")
_LEGACY_END = re.compile(r"@@@?end")


@dataclass
class RisuPool:
    entries: list[dict[str, Any]]
    ids: list[str]
    books: list[str]
    warnings: list[str] = field(default_factory=list)


def migrate_entry(raw: dict[str, Any]) -> dict[str, Any]:
    """``updateLorebooks`` (src/ts/characters.ts; risu.md §0.3): what Risu turns a pre-v2 entry into when
    the character opens. ``bookVersion ??= 1`` then ``>= 2`` (so "2" counts); ``if (activationPercent)``
    is a truth test (0 adds nothing and the entry fires; "50" is truthy) and the value goes into a
    template (``@@probability 50``)."""
    version = raw.get("bookVersion")
    if js_number(1 if version is None else version) >= 2:
        return raw
    entry = dict(raw)
    content = entry.get("content") if isinstance(entry.get("content"), str) else ""
    percent = entry.get("activationPercent")
    if js_truthy(percent):
        entry["activationPercent"] = None
        content = f"@@probability {js_string(percent)}\n{content}"
    content = _LEGACY_END.sub("@@depth 0", content)
    content = content.replace("<char>", "{{char}}").replace("<bot>", "{{char}}").replace("<user>", "{{user}}")
    entry["content"] = content
    entry["bookVersion"] = 2
    return entry


class RisuProfile(Profile):
    name = "risu"
    rank = 10

    def default_settings(self) -> RisuSettings:
        return RisuSettings()

    def to_lists(self, books: Sequence[Any]) -> list[tuple[str, list[dict[str, Any]]]]:
        out: list[tuple[str, list[dict[str, Any]]]] = []
        for name, book in native_books(books, risu_entries_from_lorebook):
            if isinstance(book, dict) and book.get("type") == "risu" and isinstance(book.get("data"), list):
                book = book["data"]
            if not isinstance(book, list) or not all(isinstance(e, dict) for e in book):
                raise InvalidCardError("a Risu lorebook is a list of loreBook objects", file=name)
            out.append((name, book))
        return out

    def prepare(self, books: Sequence[Any], settings: RisuSettings | None = None) -> RisuPool:
        settings = settings or RisuSettings()
        entries: list[dict[str, Any]] = []
        ids: list[str] = []
        names: list[str] = []
        for name, items in self.to_lists(books):
            for i, raw in enumerate(items):
                entries.append(migrate_entry(raw) if settings.migrate_legacy else raw)
                ids.append(f"{name}#{i}")
                names.append(name)
        return RisuPool(entries, ids, names)

    def entries(self, prepared: RisuPool) -> list[EntryInfo]:
        out = []
        for i, raw in enumerate(prepared.entries):
            keys = tuple(k.strip() for k in _str(raw.get("key")).split(",") if k.strip())
            body = parse_decorators(_str(raw.get("content"))).prompt_text
            out.append(EntryInfo(prepared.ids[i], _title(raw, i), raw.get("id"), keys, body))
        return out

    def evaluate(
        self,
        prepared: RisuPool,
        chat: Chat,
        settings: RisuSettings,
        state: ChatState,
        rng: random.Random,
        tokenizer: Tokenizer,
    ) -> Result:
        return RisuRun(prepared, chat, settings, state, rng, tokenizer).run()


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _title(raw: dict[str, Any], index: int) -> str:
    return _str(raw.get("comment")) or f"lorebook {index}"


@dataclass
class _Item:
    source: str  # where: "message 0 (0 = newest)" or "lorebook <comment>"
    data: str


@dataclass
class _Active:
    index: int
    depth: int
    pos: str
    prompt: str
    role: str
    order: float
    tokens: int
    priority: float
    source: str
    inject: dict[str, Any] | None


class RisuRun:
    """One evaluation of a prepared pool (the decorator handlers in ``hook`` read and set its state)."""

    def __init__(
        self,
        pool: RisuPool,
        chat: Chat,
        settings: RisuSettings,
        state: ChatState,
        rng: random.Random,
        tokenizer: Tokenizer,
    ) -> None:
        self.pool = pool
        self.chat = chat
        self.settings = settings
        self.state = state
        self.rng = rng
        self.tokenizer = tokenizer
        self.messages = [m for m in chat.messages if m.role != "system" and not m.greeting]
        self.chat_length = len(self.messages) + 1  # the greeting counts
        self.recursive_prompts: list[_Item] = []
        self.records: dict[int, LogRecord] = {}
        self.warnings = list(pool.warnings)
        self.match_note: tuple[str, str] | None = None
        self.timed_out: set[str] = set()

    # ---- searchMatch ----------------------------------------------------------------

    def _items(self, depth: int | None, no_recursive: bool) -> list[_Item]:
        n = len(self.messages)
        sliced = self.messages[:] if depth is None else js_slice(self.messages, n - depth, n)
        items = [_Item(f"message {len(sliced) - 1 - i} (0 = newest)", m.text) for i, m in enumerate(sliced)]
        if not no_recursive:
            items.extend(self.recursive_prompts)
        return items

    def search(
        self,
        keys: list[str],
        depth: int | None,
        regex: bool,
        full_word: bool,
        no_recursive: bool,
        all_mode: bool = False,
    ) -> bool:
        keys = [js_trim(k) for k in keys if js_trim(k)]  # `key.trim()`: JavaScript's white space
        items = self._items(depth, no_recursive)
        if regex:
            return self._search_regex(keys, items)
        all_matched = True
        for item in items:
            text = _CBS_COMMENTS.sub("", item.data.lower())
            if full_word:
                tokens = text.split(" ")
                for key in keys:
                    if key.lower() in tokens:
                        self.match_note = (key, item.source)
                        if not all_mode:
                            return True
                    elif all_mode:
                        all_matched = False
            else:
                text = text.replace(" ", "")
                for key in keys:
                    if key.lower().replace(" ", "") in text:
                        self.match_note = (key, item.source)
                        if not all_mode:
                            return True
                    elif all_mode:
                        all_matched = False
        return all_mode and all_matched

    def _search_regex(self, keys: list[str], items: list[_Item]) -> bool:
        """Risu's regex branch of ``searchMatch``, bug included: inside the loop it assigns the
        stripped pattern to ``arg.keys[0]``, so from the second scanned text on, the first key is
        e.g. ``/dragon``, whose "flags" ``dragon`` make ``new RegExp`` throw and the search return
        false. In effect only the oldest message of the window is tested (recursion text too is
        lost), and a key like ``/gim/s`` decays into an empty regex that matches anything."""
        original, keys = keys[:1], list(keys)
        for number, item in enumerate(items):
            for j in range(len(keys)):
                key = keys[j]
                if not key.startswith("/"):
                    return False
                flags = key.split("/")[-1]
                if not flags:
                    continue
                keys[0] = key.replace("/" + flags, "", 1)  # the leading "/" stays (risu.md §0.13)
                rewritten = number > 0 and j == 0
                outcome = self._regex_test(keys[0], flags, original[0] if rewritten else key, item, rewritten)
                if outcome is not None:
                    return outcome
        return False

    def _regex_test(self, pattern: str, flags: str, key: str, item: _Item, rewritten: bool) -> bool | None:
        """One ``new RegExp(pattern, flags).test(text)``: True on a match, False when it throws
        (the whole search fails), None to go on."""
        try:
            compiled = compile_js(pattern, flags)
        except Untranslatable as exc:
            if rewritten and isinstance(exc, JSSyntaxError):
                self._warn(
                    f"regex key {key!r}: RisuAI bug, searchMatch rewrote keys[0] while scanning, so "
                    f"'new RegExp({pattern!r}, {flags!r})' throws at {item.source} and the search fails"
                )
            else:
                self._warn(f"regex key {key!r} cannot be used ({exc}); the search fails")
            return False
        if key in self.timed_out:
            return None
        try:
            if compiled.test(item.data, self.settings.regex_timeout):
                self.match_note = (key, item.source)
                if rewritten:
                    self._warn(
                        f"regex key {key!r}: RisuAI bug, searchMatch rewrote keys[0], so {item.source} "
                        f"was tested with /{pattern}/{flags}"
                    )
                return True
        except TimeoutError:
            self.timed_out.add(key)  # skipped for the rest of the run
            self._warn(f"regex key {key!r} timed out; counted as no match")
        return None

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    # ---- the pass loop --------------------------------------------------------------

    def var_key(self, raw: dict[str, Any], prefix: str) -> str:
        """The chat variable holding an entry's after-match flag (``prefix`` + the entry's id)."""
        ident = raw.get("id")
        if ident is None:
            # Risu hashes the content (pickHashRand); any stable content hash serves the same purpose here.
            ident = hashlib.sha1(_str(raw.get("content")).encode("utf-8", "surrogatepass")).hexdigest()[:12]
        return f"{prefix}{ident}"

    def run(self) -> Result:
        entries = [dict(e) for e in self.pool.entries]  # child entries copy fields into themselves
        actives: list[_Active] = []
        activated: list[int] = []
        keep_flag = False
        dont_flag = False
        matching = True
        step = 0
        while matching:
            matching = False
            step += 1
            for i, raw in enumerate(entries):
                if i in activated:
                    continue
                title = _title(raw, i)
                entry_id = self.pool.ids[i]
                if not raw.get("alwaysActive") and not raw.get("key"):
                    self.records[i] = LogRecord(entry_id, title, False, Reason.NO_KEYS, "", step)
                    continue
                ctx = RisuEntryContext(self, raw, i)
                if raw.get("mode") == "child":
                    self._adopt_parent(entries, i, ctx, activated)
                parsed = parse_decorators(_str(raw.get("content")))
                try:
                    parsed.resolve(ctx.hook)
                except RisuThrows as exc:
                    return self._failed(i, str(exc), step)
                content = parsed.prompt_text
                keep_flag = keep_flag or ctx.keep_flag
                dont_flag = dont_flag or ctx.dont_flag
                reason, detail, key, where = self._decide(ctx, raw)
                if ctx.force == "activate":
                    ctx.activated = True
                    reason, detail = ctx.force_reason, ctx.force_detail
                elif ctx.force == "deactivate":
                    ctx.activated = False
                    reason, detail = ctx.force_reason, ctx.force_detail
                if not ctx.activated:
                    self.records[i] = LogRecord(entry_id, title, False, reason, detail, step, key, where)
                    continue
                self.records[i] = LogRecord(entry_id, title, True, reason, detail, step, key, where)
                actives.append(
                    _Active(
                        i,
                        ctx.depth,
                        ctx.pos,
                        content,
                        ctx.role,
                        sort_number(raw.get("insertorder", UNDEFINED)),
                        self.tokenizer.count(content),
                        ctx.priority,
                        _title(raw, i),
                        ctx.inject,
                    )
                )
                activated.append(i)
                if keep_flag:
                    self.state.variables[self.var_key(raw, "__internal_ka_")] = "true"
                if dont_flag:
                    self.state.variables[self.var_key(raw, "__internal_da_")] = "true"
                recursive = self.settings.recursive if ctx.item_recursive is None else ctx.item_recursive
                if recursive:
                    matching = True
                    self.recursive_prompts.append(_Item(f"lorebook {_title(raw, i)}", content))
        return self._result(actives, step)

    def _adopt_parent(
        self, entries: list[dict[str, Any]], index: int, ctx: RisuEntryContext, activated: list[int]
    ) -> None:
        """``mode: child``: copy the first earlier entry with the same id, unless it is already active."""
        raw = entries[index]
        ctx.activated = False
        for j in range(index):
            if entries[j].get("id") == raw.get("id"):
                if j not in activated:
                    raw["comment"] = entries[j].get("comment")
                    raw["content"] = entries[j].get("content")
                    raw["alwaysActive"] = True
                    ctx.activated = True
                    ctx.child_of = self.pool.ids[j]
                break

    def _failed(self, index: int, error: str, step: int) -> Result:
        """RisuAI throws while building the lorebook prompt: the generation fails, nothing is injected."""
        culprit = self.pool.ids[index]
        message = f"RisuAI fails on {culprit}: {error}; the whole lorebook prompt (and the request) fails"
        result = Result("risu", budget=self.settings.token_budget, steps=step, turn=len(self.chat.messages))
        result.error = message
        result.warnings = [*self.warnings, message]
        result.log = [
            LogRecord(self.pool.ids[i], _title(e, i), False, Reason.PLATFORM_ERROR, error, step)
            if i == index
            else LogRecord(self.pool.ids[i], _title(e, i), False, Reason.NOT_REACHED, f"RisuAI threw on {culprit}")
            for i, e in enumerate(self.pool.entries)
        ]
        return result

    def _decide(self, ctx: RisuEntryContext, raw: dict[str, Any]) -> tuple[str, str, str | None, str | None]:
        """The key search (risu.md §6 step 4); returns the log reason for the outcome."""
        if ctx.child_of:
            return Reason.CHILD, f"child of {ctx.child_of}", None, None
        if not ctx.activated:
            return ctx.off_reason, ctx.off_detail, None, None
        if ctx.force != "none":
            return Reason.DECORATOR_ACTIVATE, "", None, None
        if raw.get("alwaysActive"):
            return Reason.CONSTANT, "alwaysActive", None, None
        queries = list(ctx.queries)
        queries.append(("primary", _str(raw.get("key")).split(","), False, False))
        if raw.get("secondkey") and raw.get("selective"):
            queries.append(("secondary", _str(raw.get("secondkey")).split(","), False, False))
        primary_note: tuple[str, str] | None = None
        for label, keys, negative, all_mode in queries:
            self.match_note = None
            found = self.search(
                keys, ctx.scan_depth, bool(raw.get("useRegex")), ctx.full_word, ctx.no_recursive, all_mode
            )
            note = self.match_note
            if label == "primary" and found:
                primary_note = note
            if negative and found:
                ctx.activated = False
                key, where = note if note else (None, None)
                return Reason.EXCLUDE_KEYS, f"{label} matched", key, where
            if not negative and not found:
                ctx.activated = False
                code = {"primary": Reason.NO_MATCH, "secondary": Reason.SECONDARY_LOGIC}.get(
                    label, Reason.ADDITIONAL_KEYS
                )
                return code, f"no {label} key matched" if label != "primary" else "", None, None
        key, where = primary_note if primary_note else (None, None)
        return Reason.KEY_MATCH, "all key groups matched", key, where

    def _result(self, actives: list[_Active], steps: int) -> Result:
        budget = self.settings.token_budget
        result = Result("risu", budget=budget, steps=steps, turn=len(self.chat.messages))
        kept, used = self._fit_budget(actives, budget)
        kept = sort_descending_by(kept, lambda a: a.order)  # b.order - a.order, in V8
        injections = [a for a in kept if a.inject and a.inject.get("lore")]
        kept = [a for a in kept if not (a.inject and a.inject.get("lore"))]
        for lore in injections:
            self._inject(lore, kept)
        kept.reverse()
        result.activated = [self._activation(act) for act in kept]
        result.tokens_used = used
        result.log = [
            self.records.get(i) or LogRecord(self.pool.ids[i], _title(e, i), False, Reason.NO_MATCH, "", None)
            for i, e in enumerate(self.pool.entries)
        ]
        result.warnings = self.warnings
        return result

    def _fit_budget(self, actives: list[_Active], budget: int) -> tuple[list[_Active], int]:
        """Highest priority first, every entry that still fits (Risu skips, it does not stop); the
        tokens used. A skipped entry's record says so."""
        used = 0
        kept: list[_Active] = []
        for act in sort_descending_by(actives, lambda a: a.priority):  # b.priority - a.priority, in V8
            if used + act.tokens <= budget:
                used += act.tokens
                kept.append(act)
                continue
            record = self.records[act.index]
            self.records[act.index] = LogRecord(
                record.entry_id,
                record.title,
                False,
                Reason.BUDGET,
                f"{act.tokens} tokens do not fit ({used}/{budget} used)",
                record.step,
                record.key,
                record.where,
            )
        return kept, used

    def _inject(self, lore: _Active, kept: list[_Active]) -> None:
        """``@@inject_lore``: ``lore``'s prompt goes into the kept entry it names, or its record says
        the target is missing."""
        target = next((a for a in kept if a.source == lore.inject["location"]), None) if lore.inject else None
        record = self.records[lore.index]
        if target is None:
            self.records[lore.index] = LogRecord(
                record.entry_id,
                record.title,
                False,
                Reason.INJECT_TARGET_MISSING,
                f"no active entry titled {lore.inject['location']!r}",
                record.step,
                record.key,
                record.where,
            )
            return
        operation = lore.inject["operation"]
        if operation == "append":
            target.prompt += " " + lore.prompt
        elif operation == "prepend":
            target.prompt = lore.prompt + " " + target.prompt
        else:
            target.prompt = target.prompt.replace(lore.inject["param"], lore.prompt, 1)
        record.detail = (record.detail + "; " if record.detail else "") + (
            f"injected ({operation}) into {self.pool.ids[target.index]}"
        )

    def _activation(self, act: _Active) -> Activation:
        raw = self.pool.entries[act.index]
        position = act.pos or "lorebook"
        outlet = None
        if act.inject and not act.inject.get("lore"):
            position, outlet = "inject_at", act.inject["location"]
        keys = tuple(k.strip() for k in _str(raw.get("key")).split(",") if k.strip())
        return Activation(
            self.pool.ids[act.index],
            act.source,
            act.prompt,
            position,
            None if act.order != act.order else act.order,
            act.depth if act.pos in ("depth", "reverse_depth") else None,
            act.role,
            outlet,
            act.tokens,
            raw.get("id"),
            keys,
        )
