"""The checks a candidate goes through in one pass, in ST's order (sillytavern.md §7 step 5):
disabled, generation trigger, character filter, timed effects and recursion rules, decorators,
constant, sticky, then primary keys and the secondary-key logic."""

from __future__ import annotations

from ....activation.chat import Chat
from ....activation.jsvalue import js_less_than
from ....activation.result import LogRecord, Reason
from .entries import AND_ALL, AND_ANY, LOGIC_NAMES, NOT_ALL, NOT_ANY, RECURSION, STEntry, STSettings
from .matching import KeyMatcher
from .timed_effects import TimedEffects


class CandidateChecks:
    def __init__(self, chat: Chat, settings: STSettings, timed: TimedEffects, matcher: KeyMatcher) -> None:
        self.chat = chat
        self.settings = settings
        self.timed = timed
        self.matcher = matcher

    def gate(self, entry: STEntry, scan_state: int, level: int) -> tuple[str, str]:
        """Checks before key matching: ("go"|"activate"|"skip", reason[:detail])."""
        if entry.disable:
            return "skip", Reason.DISABLED
        if entry.triggers and self.chat.generation_type not in entry.triggers:
            return "skip", f"{Reason.TRIGGER_TYPE}:{self.chat.generation_type} not in {entry.triggers}"
        filtered = self._character_filtered(entry)
        if filtered:
            return "skip", filtered
        sticky = self.timed.is_active("sticky", entry)
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
        if self.timed.is_active("delay", entry):
            return f"{Reason.DELAY}:needs {entry.delay} messages, chat has {self.timed.chat_length}"
        if self.timed.is_active("cooldown", entry) and not sticky:
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
        """Whether the candidate fires in this pass (before groups, probability and budget), and why."""
        verdict, reason = self.gate(entry, scan_state, level)
        code, _, detail = reason.partition(":")
        if verdict == "skip":
            return False, LogRecord(entry.entry_id, entry.title, False, code, detail, step)
        if verdict == "activate":
            return True, LogRecord(entry.entry_id, entry.title, True, code, detail, step)
        cache: list[str | None] = [None]
        primary = self.matcher.key_matches(entry, entry.keys or [], entry.fast_primary, scan_state, cache)
        first = next(((k, w) for k, w in primary if w is not None), None)
        if first is None:
            return False, LogRecord(entry.entry_id, entry.title, False, Reason.NO_MATCH, "", step)
        key, where = first
        if not (entry.selective and entry.secondary):
            return True, LogRecord(entry.entry_id, entry.title, True, Reason.KEY_MATCH, "primary key", step, key, where)
        return self._secondary(entry, scan_state, step, cache, key, where)

    def _secondary(
        self, entry: STEntry, scan_state: int, step: int, cache: list[str | None], key: str, where: str | None
    ) -> tuple[bool, LogRecord]:
        """The secondary keys under the entry's ``selectiveLogic``, after a primary key matched."""
        # `selectiveLogic ?? 0`, then compared with ===: a string such as "1" matches no logic.
        logic = AND_ANY if entry.logic_raw is None else entry.selective_logic
        secondary = self.matcher.key_matches(entry, entry.secondary, entry.fast_secondary, scan_state, cache)
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
