"""The SillyTavern scan loop (sillytavern.md §7 steps 3-10) over a prepared pool.

Split from ``sillytavern`` for size: that module reads entries and builds the
key index, this one runs ``checkWorldInfo``: candidates per pass, ST's checks
in ST's order, inclusion groups, probability, budget, recursion, min-activation
widening, delayed recursion levels, timed effects and the request log.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from ....activation.chat import Chat, Message
from ....activation.jsregex import JSRegex
from ....activation.jssort import sort_descending_by
from ....activation.jsvalue import js_add, js_less_equal, js_less_than, js_number, js_round, js_trim
from ....activation.keyindex import plain_match
from ....activation.result import Activation, LogRecord, Reason, Result
from ....activation.state import ChatState
from ....activation.tokenizers import Tokenizer
from .assembly import Placed, assemble
from .entries import (
    AND_ALL,
    AND_ANY,
    DEFAULT_WEIGHT,
    INITIAL,
    LOGIC_NAMES,
    MAX_SCAN_DEPTH,
    MIN_ACTIVATIONS,
    NOT_ALL,
    NOT_ANY,
    POSITIONS,
    RECURSION,
    UNUSABLE,
    STEntry,
    STPool,
    STSettings,
    parse_regex_key,
    split_groups,
)

if TYPE_CHECKING:  # the profile runs this scan: it imports this module
    from .profile import SillyTavernProfile


def scanned_messages(chat: Chat) -> list[Message]:
    """The messages ST's ``Generate`` (public/script.js) hands to ``checkWorldInfo``: "regenerate"
    first deletes a last message that is not the user's; system messages are left out of
    ``coreChat``; "swipe" then pops the reply being swiped (``coreChat.pop()``)."""
    messages = list(chat.messages)
    if chat.generation_type == "regenerate" and messages and messages[-1].role != "user":
        messages.pop()
    visible = [m for m in messages if m.role != "system"]
    if chat.generation_type == "swipe" and visible:
        visible.pop()
    return visible


class _Hits:
    """Where each key id occurs in the scan segments."""

    __slots__ = ("first_message", "injects", "recursion", "sources")

    def __init__(self) -> None:
        self.first_message = MAX_SCAN_DEPTH + 1
        self.sources: set[str] = set()
        self.injects = False
        self.recursion = False


class _Groups:
    """The steps of ``filterByInclusionGroups`` over one pass's candidates (``new``, edited in place)."""

    def __init__(self, scan: STScan, new: list[STEntry], step: int) -> None:
        self.scan = scan
        self.new = new
        self.step = step

    def remove(self, entry: STEntry, why: str) -> None:
        """JS ``splice(indexOf(x), 1)``: an entry removed twice (two groups) takes the LAST
        element with it, as in ST."""
        if not self.new:
            return
        position = self.new.index(entry) if entry in self.new else -1
        victim = self.new.pop(position)
        detail = why if victim is entry else f"{why} (ST removal quirk)"
        self.scan._record(
            victim.index, LogRecord(victim.entry_id, victim.title, False, Reason.GROUP_LOST, detail, self.step)
        )

    def timed_effects(self, name: str, group: list[STEntry]) -> bool:
        """``filterGroupsByTimedEffects``: sticky members win; cooldown/delay members go. True if sticky."""
        scan = self.scan
        stickies = [e for e in group if scan.is_active("sticky", e)]
        for entry in group:
            if stickies and entry not in stickies:
                self.remove(entry, f"group {name!r}: a sticky member wins")
        for entry in group:
            if scan.is_active("cooldown", entry) or scan.is_active("delay", entry):
                self.remove(entry, f"group {name!r}: member on cooldown/delay")
        return bool(stickies)

    def scoring(self, name: str, group: list[STEntry], scan_state: int) -> None:
        """``filterGroupsByScoring``: scored members below the best score go."""
        default = self.scan.settings.use_group_scoring
        if not default and not any(e.use_group_scoring for e in group):
            return
        scores = [self.scan.score(e, scan_state) for e in group]
        best = max(scores)
        i = 0
        while i < len(group):
            scored = group[i].use_group_scoring
            if (scored if scored is not None else default) and scores[i] < best:
                self.remove(group[i], f"group {name!r}: score {scores[i]} < {best}")
                del group[i]
                del scores[i]
                continue
            i += 1

    def pick_winner(self, name: str, group: list[STEntry], activated: dict[str, STEntry]) -> None:
        """Already activated group, single member, ``groupOverride`` by order, else the weighted roll."""
        if any(e.group == name for e in activated.values()):
            for entry in group:
                self.remove(entry, f"group {name!r} already has an activated entry")
            return
        if len(group) <= 1:
            return
        prios = sort_descending_by([e for e in group if e.group_override], lambda e: e.order)  # sortFn
        if prios:
            for entry in group:
                if entry is not prios[0]:
                    self.remove(entry, f"group {name!r}: {prios[0].entry_id} has groupOverride and the highest order")
            return
        winner, note = self.roll(group)
        if winner is None:
            return
        for entry in group:
            if entry is not winner:
                self.remove(entry, f"group {name!r}: weighted roll won by {winner.entry_id}{note}")

    def roll(self, group: list[STEntry]) -> tuple[STEntry | None, str]:
        """The weighted roll with JavaScript arithmetic: ``acc + (groupWeight ?? 100)``, so a string
        weight concatenates ("30" then 100 gives "30100"), and ``roll <= running`` coerces it back."""
        weights = [e.group_weight if e.group_weight is not None else DEFAULT_WEIGHT for e in group]
        total: Any = 0
        for weight in weights:
            total = js_add(total, weight)
        note = ""
        if isinstance(total, str):
            note = f" (string groupWeight: ST concatenates the weights, total {total!r})"
        roll = self.scan.rng.random() * js_number(total)
        running: Any = 0
        for entry, weight in zip(group, weights, strict=True):
            running = js_add(running, weight)
            if js_less_equal(roll, running):
                return entry, note
        return None, note


class STScan:
    """One checkWorldInfo run over a prepared pool."""

    def __init__(
        self,
        profile: SillyTavernProfile,
        pool: STPool,
        chat: Chat,
        settings: STSettings,
        state: ChatState,
        rng: random.Random,
        tokenizer: Tokenizer,
    ) -> None:
        self.profile = profile
        self.pool = pool
        self.chat = chat
        self.settings = settings
        self.state = state
        self.rng = rng
        self.tokenizer = tokenizer
        visible = scanned_messages(chat)
        self.chat_length = len(visible)
        texts = [f"{m.name}: {m.text}" if settings.include_names else m.text for m in reversed(visible)]
        self.messages = [js_trim(t) for t in texts[:MAX_SCAN_DEPTH]]
        character = chat.character
        self.source_text = {
            "persona": chat.persona_description,
            "description": character.description,
            "personality": character.personality,
            "depth_prompt": character.depth_prompt,
            "scenario": character.scenario,
            "creator_notes": character.creator_notes,
        }
        self.injects = [t for t in settings.scan_injects if t]
        self.recursion: list[str] = []
        self.hits: dict[int, _Hits] = {}
        self.scanned_messages = 0
        self.skew = 0
        self.warnings: list[str] = list(pool.warnings)
        self.records: dict[int, LogRecord] = {}
        self.buffers: dict[str, set[str]] = {"sticky": set(), "cooldown": set(), "delay": set()}
        self.sticky_indexes: list[int] = []
        self.timed_out: set[str] = set()  # regex keys that hit the time limit in this run
        self.overflowed = False
        self.activated_keys: dict[str, STEntry] = {}
        self._scan_static()

    # ---- segments and key hits ------------------------------------------------------

    def _note(self, text: str) -> set[int]:
        return self.pool.index.scan(text) if len(self.pool.index) else set()

    def _hit(self, kid: int) -> _Hits:
        hit = self.hits.get(kid)
        if hit is None:
            hit = self.hits[kid] = _Hits()
        return hit

    def _scan_static(self) -> None:
        for name, text in self.source_text.items():
            if text:
                for kid in self._note(text):
                    self._hit(kid).sources.add(name)
        for text in self.injects:
            for kid in self._note(text):
                self._hit(kid).injects = True

    def _scan_messages(self, depth: int) -> None:
        depth = min(depth, len(self.messages))
        while self.scanned_messages < depth:
            i = self.scanned_messages
            for kid in self._note(self.messages[i]):
                hit = self._hit(kid)
                if hit.first_message > i:
                    hit.first_message = i
            self.scanned_messages += 1

    def _add_recursion(self, text: str) -> None:
        self.recursion.append(text)
        for kid in self._note(text):
            self._hit(kid).recursion = True

    def entry_window(self, entry: STEntry) -> int | None:
        """``WorldInfoBuffer.get`` with ``depth = entry.scanDepth ?? global``: None when ``depth <= 0``
        (nothing at all is scanned), else how many messages ``slice(0, depth)`` takes (at most 1000).
        A depth that is no whole number still scans: "1" takes one message, 0.5 or "abc" none, but
        the match sources, injected prompts and recursion text are appended all the same."""
        depth = entry.scan_depth
        if depth is None:
            depth = self.settings.depth + self.skew
        if depth <= 0:
            return None
        if depth > MAX_SCAN_DEPTH:
            return MAX_SCAN_DEPTH
        return int(depth) if depth == depth else 0

    def _where(self, entry: STEntry, kid: int, scan_state: int) -> str | None:
        """Where key ``kid`` is visible to ``entry`` (None = not visible)."""
        hit = self.hits.get(kid)
        if hit is None:
            return None
        window = self.entry_window(entry)
        if window is None:
            return None
        if hit.first_message < window:
            return f"message {hit.first_message} (0 = newest)"
        for source in entry.sources:
            if source in hit.sources:
                return source
        if hit.injects:
            return "injected prompt"
        if hit.recursion and scan_state != MIN_ACTIVATIONS:
            return "recursion"
        return None

    def text_for(self, entry: STEntry, scan_state: int) -> str:
        """``WorldInfoBuffer.get``: the exact scan text (used by the per-entry path and scoring)."""
        window = self.entry_window(entry)
        if window is None:
            return ""
        joiner = "\n\x01"
        text = "\x01" + joiner.join(self.messages[:window])
        for source in entry.sources:
            if self.source_text[source]:
                text += joiner + self.source_text[source]
        if self.injects:
            text += joiner + joiner.join(self.injects)
        if self.recursion and scan_state != MIN_ACTIVATIONS:
            text += joiner + joiner.join(self.recursion)
        return text

    def match_key(self, entry: STEntry, key: str, text: str) -> bool:
        """``matchKeys`` for one key on the exact text (the per-entry path)."""
        regex = parse_regex_key(self.pool, key)
        if regex == UNUSABLE:
            return False
        if isinstance(regex, JSRegex):
            if key in self.timed_out:
                return False
            try:
                return regex.test(text, self.settings.regex_timeout)
            except TimeoutError:
                # One timeout per key and run: later tests of the same key are skipped, so a book full
                # of catastrophic patterns costs at most one timeout per key.
                self.timed_out.add(key)
                self.warnings.append(f"regex key {key!r} of {entry.entry_id} timed out; counted as no match")
                return False
        cs = entry.case_sensitive if entry.case_sensitive is not None else self.settings.case_sensitive
        ww = entry.match_whole_words if entry.match_whole_words is not None else self.settings.match_whole_words
        return plain_match(text, key, cs, ww)

    def key_matches(
        self, entry: STEntry, keys: list[str], ids: list[int | None], scan_state: int, text_cache: list[str | None]
    ) -> list[tuple[str, str | None]]:
        """Per key (in order): (key, where) for matches; where None means no match."""
        out: list[tuple[str, str | None]] = []
        for key, kid in zip(keys, ids, strict=True):
            if kid is not None:
                out.append((key, self._where(entry, kid, scan_state)))
                continue
            substituted = self.chat.substitute(key)
            if not substituted:
                out.append((key, None))
                continue
            if text_cache[0] is None:
                text_cache[0] = self.text_for(entry, scan_state)
            # A key of " " trims to "" and matches every scan text, as in ST (matchKeys).
            hit = self.match_key(entry, js_trim(substituted), text_cache[0])
            out.append((key, "scan text" if hit else None))
        return out

    # ---- timed effects (sillytavern.md §7.10) ---------------------------------------

    def _effect(self, entry: STEntry, kind: str, protected: bool) -> dict[str, Any]:
        """``end = chat.length + Number(entry[type])``: "5" lasts 5 messages; a truthy non-number
        ("abc") gives NaN, which never ends (``chat.length >= NaN`` is false)."""
        amount = entry.sticky if kind == "sticky" else entry.cooldown
        return {"hash": entry.hash, "start": self.chat_length, "end": self.chat_length + amount, "protected": protected}

    def check_timed_effects(self) -> None:
        stored = any(self.state.timed.get(kind) for kind in ("sticky", "cooldown"))
        by_hash = {e.hash: e for e in self.pool.entries} if stored else {}
        if stored and not self.settings.dry_run:
            for kind in ("sticky", "cooldown"):
                store = self.state.timed.setdefault(kind, {})
                for key, value in list(store.items()):
                    if not isinstance(value, dict):
                        del store[key]
                        continue
                    entry = by_hash.get(str(value.get("hash")))
                    start = value.get("start", 0)
                    end = value.get("end", 0)
                    if self.chat_length <= start and not value.get("protected"):
                        del store[key]
                        continue
                    if entry is None:
                        if self.chat_length >= end:
                            del store[key]
                        continue
                    amount = entry.sticky if kind == "sticky" else entry.cooldown
                    if amount is None:  # `!entry[type]`: not configured for this effect (any more)
                        del store[key]
                        continue
                    if self.chat_length >= end:
                        del store[key]
                        if kind == "sticky" and entry.cooldown is not None:
                            # Sticky expiry starts a protected cooldown at once.
                            self.state.timed.setdefault("cooldown", {})[entry.state_key] = self._effect(
                                entry, "cooldown", True
                            )
                            self.buffers["cooldown"].add(entry.hash)
                        continue
                    self.buffers[kind].add(entry.hash)
        for i in self.pool.delayed:
            entry = self.pool.entries[i]
            if entry.delay is not None and self.chat_length < entry.delay:  # NaN never delays
                self.buffers["delay"].add(entry.hash)
        if self.buffers["sticky"]:
            self.sticky_indexes = [e.index for e in self.pool.entries if e.hash in self.buffers["sticky"]]

    def is_active(self, kind: str, entry: STEntry) -> bool:
        return entry.hash in self.buffers[kind]

    def set_timed_effects(self, activated: list[STEntry]) -> None:
        if self.settings.dry_run:
            return
        for entry in activated:
            for kind in ("sticky", "cooldown"):
                amount = entry.sticky if kind == "sticky" else entry.cooldown
                store = self.state.timed.setdefault(kind, {})
                if amount is not None and entry.state_key not in store:
                    store[entry.state_key] = self._effect(entry, kind, False)

    # ---- the candidate checks (sillytavern.md §7 step 5) ----------------------------

    def gate(self, entry: STEntry, scan_state: int, level: int) -> tuple[str, str]:
        """Checks before key matching: ("go"|"activate"|"skip", reason[:detail])."""
        if entry.disable:
            return "skip", Reason.DISABLED
        if entry.triggers and self.chat.generation_type not in entry.triggers:
            return "skip", f"{Reason.TRIGGER_TYPE}:{self.chat.generation_type} not in {entry.triggers}"
        filtered = self._character_filtered(entry)
        if filtered:
            return "skip", filtered
        sticky = self.is_active("sticky", entry)
        held = self._timing_rule(entry, scan_state, level, sticky)
        if held:
            return "skip", held
        if "@@activate" in entry.decorators:
            return "activate", Reason.DECORATOR_ACTIVATE
        if "@@dont_activate" in entry.decorators:
            return "skip", Reason.DECORATOR_DONT_ACTIVATE
        if entry.constant:
            return "activate", Reason.CONSTANT
        if sticky:
            return "activate", Reason.STICKY
        if not entry.keys:
            return "skip", Reason.NO_KEYS
        return "go", ""

    def _character_filtered(self, entry: STEntry) -> str | None:
        """The entry's character filter (names, then tags) leaves out the current character: why."""
        cf = entry.character_filter
        if not cf:
            return None
        exclude = bool(cf.get("isExclude"))
        names = cf.get("names") if isinstance(cf.get("names"), list) else []
        if names:
            current = self.chat.character.file or self.chat.character.name
            included = current in names
            if included if exclude else not included:
                return f"{Reason.CHARACTER_FILTER}:name {current!r}"
        tags = cf.get("tags") if isinstance(cf.get("tags"), list) else []
        if tags and self.chat.character.tags is not None:
            has = any(t in tags for t in self.chat.character.tags)
            if has if exclude else not has:
                return f"{Reason.CHARACTER_FILTER}:tags"
        return None

    def _timing_rule(self, entry: STEntry, scan_state: int, level: int, sticky: bool) -> str | None:
        """Timed effects and recursion rules that hold the entry back in this pass: why (a sticky
        entry passes all but ``delay``)."""
        if self.is_active("delay", entry):
            return f"{Reason.DELAY}:needs {entry.delay} messages, chat has {self.chat_length}"
        if self.is_active("cooldown", entry) and not sticky:
            return Reason.COOLDOWN
        if sticky:
            return None
        recursing = scan_state == RECURSION
        if not recursing and entry.delay_until_recursion:
            return f"{Reason.RECURSION_RULE}:delayUntilRecursion"
        if recursing and entry.delay_until_recursion and js_less_than(level, entry.delay_until_recursion):
            # `entry.delayUntilRecursion > currentLevel` with JavaScript's `>` ("1" > 1 is false, "9" > "10" true)
            return f"{Reason.RECURSION_RULE}:delayUntilRecursion level {entry.delay_until_recursion!r} > {level!r}"
        if recursing and self.settings.recursive and entry.exclude_recursion:
            return f"{Reason.RECURSION_RULE}:excludeRecursion"
        return None

    def check(self, entry: STEntry, scan_state: int, level: int, step: int) -> tuple[bool, LogRecord]:
        verdict, reason = self.gate(entry, scan_state, level)
        code, _, detail = reason.partition(":")
        if verdict == "skip":
            return False, LogRecord(entry.entry_id, entry.title, False, code, detail, step)
        if verdict == "activate":
            return True, LogRecord(entry.entry_id, entry.title, True, code, detail, step)
        cache: list[str | None] = [None]
        primary = self.key_matches(entry, entry.keys or [], entry.fast_primary, scan_state, cache)
        first = next(((k, w) for k, w in primary if w is not None), None)
        if first is None:
            return False, LogRecord(entry.entry_id, entry.title, False, Reason.NO_MATCH, "", step)
        key, where = first
        if not (entry.selective and entry.secondary):
            return True, LogRecord(entry.entry_id, entry.title, True, Reason.KEY_MATCH, "primary key", step, key, where)
        # `selectiveLogic ?? 0`, then compared with ===: a string such as "1" matches no logic.
        logic = AND_ANY if entry.logic_raw is None else entry.selective_logic
        secondary = self.key_matches(entry, entry.secondary, entry.fast_secondary, scan_state, cache)
        matched = [k for k, w in secondary if w is not None]
        missing = [k for k, w in secondary if w is None]
        name = LOGIC_NAMES.get(logic, f"selectiveLogic {entry.logic_raw!r} (no logic: ST compares with ===)")
        ok = (
            (logic == AND_ANY and bool(matched))
            or (logic == NOT_ALL and bool(missing))
            or (logic == NOT_ANY and not matched)
            or (logic == AND_ALL and not missing)
        )
        if ok:
            detail = f"primary key, secondary {name} (matched {matched}, missing {missing})"
            return True, LogRecord(entry.entry_id, entry.title, True, Reason.KEY_MATCH, detail, step, key, where)
        detail = f"{name} failed: matched {matched}, missing {missing}"
        return False, LogRecord(entry.entry_id, entry.title, False, Reason.SECONDARY_LOGIC, detail, step, key, where)

    def _record(self, index: int, record: LogRecord) -> None:
        """Set an entry's log record, keeping what earlier passes decided about it."""
        previous = self.records.get(index)
        if previous is not None and (previous.step, previous.reason) != (record.step, record.reason):
            record.earlier = (*previous.earlier, previous.summary())
        self.records[index] = record

    # ---- inclusion groups (sillytavern.md §7 step 6) ---------------------------------

    def score(self, entry: STEntry, scan_state: int) -> int:
        """``getScore``: raw keys (no macro substitution, no trim) matched on the entry's text.
        Secondary hits count only for a ``selectiveLogic`` that is exactly 0 (AND_ANY) or 3 (AND_ALL):
        the switch has no default, so a missing logic scores the primary keys alone."""
        if not entry.keys:
            return 0
        text = self.text_for(entry, scan_state)
        primary = sum(1 for k in entry.keys if self.match_key(entry, k, text))
        if not entry.secondary or entry.selective_logic not in (AND_ANY, AND_ALL):
            return primary
        secondary = sum(1 for k in entry.secondary if self.match_key(entry, k, text))
        if entry.selective_logic == AND_ANY or secondary == len(entry.secondary):
            return primary + secondary
        return primary

    def filter_groups(self, new: list[STEntry], activated: dict[str, STEntry], scan_state: int, step: int) -> None:
        """``filterByInclusionGroups``: timed effects, scoring, then one winner per group."""
        grouped: dict[str, list[STEntry]] = {}
        for entry in new:
            if entry.group:
                for name in split_groups(entry.group):
                    grouped.setdefault(name, []).append(entry)
        if not grouped:
            return
        groups = _Groups(self, new, step)
        has_sticky = {name: groups.timed_effects(name, group) for name, group in grouped.items()}
        for name, group in grouped.items():
            if not has_sticky[name]:
                groups.scoring(name, group, scan_state)
        for name, group in grouped.items():
            if not has_sticky[name]:
                groups.pick_winner(name, group, activated)

    # ---- the scan loop (sillytavern.md §7 steps 5-8) ---------------------------------

    def candidates(self, scan_state: int, done: set[int], failed: set[int]) -> list[int]:
        self._scan_messages(int(min(max(self.settings.depth + self.skew, self.pool.max_scan_depth), MAX_SCAN_DEPTH)))
        found: set[int] = set(self.pool.always)
        found.update(self.pool.slow)
        found.update(self.sticky_indexes)
        for kid in self.hits:
            for i in self.pool.primary_of.get(kid, ()):
                if i not in found and self._where(self.pool.entries[i], kid, scan_state) is not None:
                    found.add(i)
        return self.not_taken(sorted(i for i in found if i not in done and i not in failed))

    def not_taken(self, indexes: list[int]) -> list[int]:
        """ST skips an entry whose `${world}.${uid}` is already activated, whichever entry set it."""
        if not self.pool.shared_keys:
            return indexes
        return [i for i in indexes if self.pool.entries[i].state_key not in self.activated_keys]

    def run(self) -> Result:
        s = self.settings
        entries = self.pool.entries
        self.check_timed_effects()
        budget = js_round(s.budget * s.max_context / 100) or 1  # Math.round: 1024.5 is 1025
        budget = 1 if budget != budget else int(budget)  # NaN || 1
        if s.budget_cap > 0 and budget > s.budget_cap:
            budget = s.budget_cap
        levels = list(self.pool.levels)
        level = levels.pop(0) if levels else 0
        scan_state = INITIAL
        count = 0
        activated: dict[str, STEntry] = {}
        self.activated_keys = activated
        done: set[int] = set()
        failed: set[int] = set()
        all_text = ""
        all_tokens = 0
        while scan_state:
            if s.max_recursion_steps and s.max_recursion_steps <= count:
                break
            count += 1
            new: list[STEntry] = []
            for i in self.candidates(scan_state, done, failed):
                ok, record = self.check(entries[i], scan_state, level, count)
                self._record(i, record)
                if ok:
                    new.append(entries[i])
            new.sort(key=lambda e: (0 if self.is_active("sticky", e) else 1, e.index))
            self.filter_groups(new, activated, scan_state, count)
            contents = self._spend(new, budget, all_tokens, count, failed, activated, done)
            for_recursion = [e for e in new if e.index not in failed and not e.prevent_recursion]
            next_state = self._next_state(scan_state, bool(for_recursion), len(activated))
            if not next_state and levels:
                next_state = RECURSION
                level = levels.pop(0)
            scan_state = next_state
            if scan_state:
                # Entries cut by the budget still feed the buffer, with their unsubstituted content (as in ST).
                text = "\n".join(contents.get(e.index, e.content) for e in for_recursion)
                if text:
                    self._add_recursion(text)
                    all_tokens = self._tokens_before(text + "\n", all_text, all_tokens)
                    all_text = text + "\n" + all_text
        self.set_timed_effects(list(activated.values()))
        return self._result(activated, budget, count)

    def _skip(self, entry: STEntry, reason: str, detail: str, step: int) -> None:
        self._record(entry.index, LogRecord(entry.entry_id, entry.title, False, reason, detail, step))

    def _spend(
        self,
        new: list[STEntry],
        budget: int,
        base_tokens: int,
        step: int,
        failed: set[int],
        activated: dict[str, STEntry],
        done: set[int],
    ) -> dict[int, str]:
        """Probability rolls and the token budget for one pass (sillytavern.md §7 step 7).

        Returns the (macro-substituted) contents of the entries that got that far.
        """
        ignoring = sum(1 for e in new if e.ignore_budget)
        new_content = ""
        new_tokens = 0
        contents: dict[int, str] = {}
        for position, entry in enumerate(new):
            if entry.ignore_budget:
                ignoring -= 1
            if self.overflowed and not entry.ignore_budget:
                spent = f"budget of {budget} tokens already spent"
                self._skip(entry, Reason.BUDGET, spent, step)
                if ignoring > 0:
                    continue
                for rest in new[position + 1 :]:
                    if not rest.ignore_budget:
                        self._skip(rest, Reason.BUDGET, spent, step)
                break
            if not self._probability(entry):
                failed.add(entry.index)
                self._skip(entry, Reason.PROBABILITY, f"roll failed against {entry.probability}%", step)
                continue
            content = self.chat.substitute(entry.content)
            contents[entry.index] = content
            new_tokens = self._tokens_after_append(new_content, new_tokens, content + "\n")
            new_content += content + "\n"
            if not entry.ignore_budget and base_tokens + new_tokens >= budget:
                self.overflowed = True
                self._skip(entry, Reason.BUDGET, f"would reach the budget of {budget} tokens", step)
                continue
            self._activate(entry, activated, step)
            done.add(entry.index)
        return contents

    def _activate(self, entry: STEntry, activated: dict[str, STEntry], step: int) -> None:
        """``allActivatedEntries.set(`${world}.${uid}`, entry)``: entries sharing that key (e.g. all
        entries without a uid, "w.undefined") overwrite each other; the last one set survives."""
        previous = activated.get(entry.state_key)
        if previous is not None and previous is not entry:
            detail = (
                f"replaced by {entry.entry_id}: both are {entry.state_key!r} in ST's activation map "
                "(its content still counted toward the budget and recursion)"
            )
            self._skip(previous, Reason.DUPLICATE_KEY, detail, step)
        activated[entry.state_key] = entry

    def _next_state(self, scan_state: int, recursable: bool, active: int) -> int:
        """Recursion, then min-activation widening (sillytavern.md §7 step 8); 0 = stop."""
        s = self.settings
        next_state = 0
        if s.recursive and not self.overflowed and recursable:
            next_state = RECURSION
        if s.recursive and not self.overflowed and scan_state == MIN_ACTIVATIONS and self.recursion:
            next_state = RECURSION
        if not next_state and not self.overflowed and s.min_activations > 0 and active < s.min_activations:
            depth = s.depth + self.skew
            over = (s.min_activations_depth_max > 0 and depth > s.min_activations_depth_max) or depth > self.chat_length
            if not over:
                next_state = MIN_ACTIVATIONS
                self.skew += 1
        return next_state

    def _tokens_before(self, addition: str, text: str, tokens: int) -> int:
        """``count(addition + text)`` (``addition`` ends with a newline), reusing ``tokens`` = count(text)."""
        if not text or (getattr(self.tokenizer, "splits_after_newline", False) and not text[:1].isspace()):
            return self.tokenizer.count(addition) + tokens
        return self.tokenizer.count(addition + text)

    def _tokens_after_append(self, text: str, tokens: int, addition: str) -> int:
        """``count(text + addition)``, without recounting ``text`` when the tokenizer splits there anyway."""
        if not text or (
            getattr(self.tokenizer, "splits_after_newline", False)
            and text.endswith("\n")
            and addition[:1]
            and not addition[:1].isspace()
        ):
            return tokens + self.tokenizer.count(addition)
        return self.tokenizer.count(text + addition)

    def _probability(self, entry: STEntry) -> bool:
        if not entry.use_probability or entry.probability_exact_100:
            return True
        if self.is_active("sticky", entry):
            return True
        return self.rng.random() * 100 <= entry.probability  # NaN (missing, junk) never passes

    def _result(self, activated: dict[str, STEntry], budget: int, steps: int) -> Result:
        result = Result("sillytavern", budget=budget, steps=steps, turn=len(self.chat.messages))
        assembly = assemble(activated.values(), lambda e: self.chat.substitute(e.content))
        for index, why in assembly.unplaced.items():
            record = self.records.get(index)
            if record is not None:
                record.detail = (record.detail + "; " if record.detail else "") + f"{why}: nothing injected"
        used = 0
        for placed in assembly.placed:
            tokens = self.tokenizer.count(placed.content)
            used += tokens
            result.activated.append(self._activation(placed, tokens))
        result.tokens_used = used
        # The log lists entries in load order (book, then file order), not in scan order.
        log = list(self.pool.no_match)  # by load order; most entries simply did not match
        for entry in self.pool.unusual:
            log[entry.seq] = self._explain(entry)
        by_index = self.pool.entries
        for index, record in self.records.items():
            log[by_index[index].seq] = record
        for entry in self.pool.quirky:
            record = log[entry.seq]
            if record.fired:
                record.detail = (record.detail + "; " if record.detail else "") + entry.quirks
        result.log = log
        result.warnings = self.warnings
        return result

    @staticmethod
    def _activation(placed: Placed, tokens: int) -> Activation:
        entry = placed.entry
        position = entry.position
        assert position is not None
        return Activation(
            entry.entry_id,
            entry.title,
            placed.content,
            POSITIONS[position],
            entry.shown_order,
            placed.depth,
            placed.role,
            entry.outlet if position == 7 else None,
            tokens,
            entry.uid,
            tuple(entry.keys or ()),
        )

    def _explain(self, entry: STEntry) -> LogRecord:
        """Why an entry that never became a candidate did not fire."""
        if entry.plain_gate and not (self.buffers["cooldown"] and entry.hash in self.buffers["cooldown"]):
            return self.pool.no_match[entry.seq]
        verdict, reason = self.gate(entry, INITIAL, 0)
        code, _, detail = reason.partition(":")
        if verdict == "skip":
            return LogRecord(entry.entry_id, entry.title, False, code, detail, None)
        if verdict == "activate":
            return LogRecord(entry.entry_id, entry.title, False, Reason.NOT_REACHED, f"would fire ({code})", None)
        return LogRecord(entry.entry_id, entry.title, False, Reason.NO_MATCH, "", None)
