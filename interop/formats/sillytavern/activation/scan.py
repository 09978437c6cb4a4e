"""The SillyTavern scan loop (sillytavern.md §7 steps 3-10) over a prepared pool: ``checkWorldInfo``.

``STScan`` runs the passes (initial, recursion, min-activation widening, delayed recursion
levels) and hands each pass to its phases, one module each: ``scan_text`` (what each entry sees)
and ``matching`` (candidates and keys), ``checks`` (ST's checks in ST's order),
``timed_effects``, ``groups`` (inclusion groups), ``budget`` (probability and the token budget),
``request_log`` and ``scan_result``.
"""

from __future__ import annotations

import random

from ....activation.chat import Chat
from ....activation.result import LogRecord, Result
from ....activation.state import ChatState
from ....activation.tokenizers import Tokenizer
from .budget import Budget
from .checks import CandidateChecks
from .entries import INITIAL, MIN_ACTIVATIONS, RECURSION, STEntry, STPool, STSettings
from .groups import InclusionGroups
from .matching import KeyMatcher
from .request_log import RequestLog
from .scan_result import load_order_log, never_checked, scan_result
from .scan_text import ScanText
from .timed_effects import TimedEffects


class STScan:
    """One checkWorldInfo run over a prepared pool."""

    matcher_type: type[KeyMatcher] = KeyMatcher
    """How candidates and keys are matched (the test oracle matches every entry the slow way)."""

    def __init__(
        self,
        pool: STPool,
        chat: Chat,
        settings: STSettings,
        state: ChatState,
        rng: random.Random,
        tokenizer: Tokenizer,
    ) -> None:
        self.pool = pool
        self.chat = chat
        self.settings = settings
        self.tokenizer = tokenizer
        self.warnings: list[str] = list(pool.warnings)
        self.activated: dict[str, STEntry] = {}
        """``allActivatedEntries``: ``${world}.${uid}`` -> entry."""
        self.text = ScanText(pool, chat, settings)
        self.timed = TimedEffects(pool, settings, state, self.text.chat_length)
        self.log = RequestLog()
        self.matcher = self.matcher_type(pool, chat, settings, self.text, self.timed, self.activated, self.warnings)
        self.checks = CandidateChecks(chat, settings, self.timed, self.matcher)
        self.groups = InclusionGroups(settings, self.timed, self.matcher, self.log, rng)
        self.budget = Budget(settings, chat, self.timed, self.log, rng, tokenizer)

    def run(self) -> Result:
        s = self.settings
        entries = self.pool.entries
        self.timed.load()
        levels = list(self.pool.levels)
        level = levels.pop(0) if levels else 0
        scan_state = INITIAL
        count = 0
        activated = self.activated
        done: set[int] = set()
        failed: set[int] = set()
        all_text = ""
        all_tokens = 0
        while scan_state:
            if s.max_recursion_steps and s.max_recursion_steps <= count:
                break
            count += 1
            new: list[STEntry] = []
            for i in self.matcher.candidates(scan_state, done, failed):
                ok, record = self.checks.check(entries[i], scan_state, level, count)
                self.log.record(i, record)
                if ok:
                    new.append(entries[i])
            new.sort(key=lambda e: (0 if self.timed.is_active("sticky", e) else 1, e.index))
            self.groups.filter(new, activated, scan_state, count)
            contents = self.budget.spend(new, all_tokens, count, failed, activated, done)
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
                    self.text.add_recursion(text)
                    all_tokens = self.budget.tokens_before(text + "\n", all_text, all_tokens)
                    all_text = text + "\n" + all_text
        self.timed.save(list(activated.values()))
        result = scan_result(activated, self.budget.tokens, count, self.chat, self.log, self.tokenizer)
        result.log = load_order_log(self.pool, self.log, self._explain)
        result.warnings = self.warnings
        return result

    def _next_state(self, scan_state: int, recursable: bool, active: int) -> int:
        """Recursion, then min-activation widening (sillytavern.md §7 step 8); 0 = stop."""
        s = self.settings
        overflowed = self.budget.overflowed
        next_state = 0
        if s.recursive and not overflowed and recursable:
            next_state = RECURSION
        if s.recursive and not overflowed and scan_state == MIN_ACTIVATIONS and self.text.recursion:
            next_state = RECURSION
        if not next_state and not overflowed and s.min_activations > 0 and active < s.min_activations:
            depth = s.depth + self.text.skew
            too_deep = s.min_activations_depth_max > 0 and depth > s.min_activations_depth_max
            over = too_deep or depth > self.text.chat_length
            if not over:
                next_state = MIN_ACTIVATIONS
                self.text.skew += 1
        return next_state

    def _explain(self, entry: STEntry) -> LogRecord:
        return never_checked(entry, self.pool, self.timed, self.checks.gate)
