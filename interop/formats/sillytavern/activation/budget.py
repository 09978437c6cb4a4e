"""Probability rolls and the token budget of one scan (sillytavern.md §7 step 7)."""

from __future__ import annotations

import random

from ....activation.chat import Chat
from ....activation.jsvalue import js_round
from ....activation.result import Reason
from ....activation.tokenizers import Tokenizer
from .entries import STEntry, STSettings
from .request_log import RequestLog
from .timed_effects import TimedEffects


def budget_tokens(settings: STSettings) -> int:
    """The lore budget: ``budget`` percent of ``max_context``, capped by ``budget_cap``."""
    budget = js_round(settings.budget * settings.max_context / 100) or 1  # Math.round: 1024.5 is 1025
    budget = 1 if budget != budget else int(budget)  # NaN || 1
    if settings.budget_cap > 0 and budget > settings.budget_cap:
        budget = settings.budget_cap
    return budget


class Budget:
    def __init__(
        self,
        settings: STSettings,
        chat: Chat,
        timed: TimedEffects,
        log: RequestLog,
        rng: random.Random,
        tokenizer: Tokenizer,
    ) -> None:
        self.tokens = budget_tokens(settings)
        self.chat = chat
        self.timed = timed
        self.log = log
        self.rng = rng
        self.tokenizer = tokenizer
        self.overflowed = False
        """The budget is spent: later entries that count toward it are skipped, and recursion stops."""

    def spend(
        self,
        new: list[STEntry],
        base_tokens: int,
        step: int,
        failed: set[int],
        activated: dict[str, STEntry],
        done: set[int],
    ) -> dict[int, str]:
        """Probability rolls and the token budget for one pass.

        Returns the (macro-substituted) contents of the entries that got that far.
        """
        budget = self.tokens
        ignoring = sum(1 for e in new if e.ignore_budget)
        new_content = ""
        new_tokens = 0
        contents: dict[int, str] = {}
        for position, entry in enumerate(new):
            if entry.ignore_budget:
                ignoring -= 1
            if self.overflowed and not entry.ignore_budget:
                spent = f"budget of {budget} tokens already spent"
                self.log.skip(entry, Reason.BUDGET, spent, step)
                if ignoring > 0:
                    continue
                for rest in new[position + 1 :]:
                    if not rest.ignore_budget:
                        self.log.skip(rest, Reason.BUDGET, spent, step)
                break
            if not self._probability(entry):
                failed.add(entry.index)
                self.log.skip(entry, Reason.PROBABILITY, f"roll failed against {entry.probability}%", step)
                continue
            content = self.chat.substitute(entry.content)
            contents[entry.index] = content
            new_tokens = self._tokens_after_append(new_content, new_tokens, content + "\n")
            new_content += content + "\n"
            if not entry.ignore_budget and base_tokens + new_tokens >= budget:
                self.overflowed = True
                self.log.skip(entry, Reason.BUDGET, f"would reach the budget of {budget} tokens", step)
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
            self.log.skip(previous, Reason.DUPLICATE_KEY, detail, step)
        activated[entry.state_key] = entry

    def _probability(self, entry: STEntry) -> bool:
        if not entry.use_probability or entry.probability_exact_100:
            return True
        if self.timed.is_active("sticky", entry):
            return True
        return self.rng.random() * 100 <= entry.probability  # NaN (missing, junk) never passes

    def tokens_before(self, addition: str, text: str, tokens: int) -> int:
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
