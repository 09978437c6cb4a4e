"""Inclusion groups of one pass (``filterByInclusionGroups``, sillytavern.md §7 step 6): timed
effects, scoring, then one winner per group."""

from __future__ import annotations

import random
from typing import Any

from ....activation.jssort import sort_descending_by
from ....activation.jsvalue import js_add, js_less_equal, js_number
from ....activation.result import LogRecord, Reason
from .entries import DEFAULT_WEIGHT, STEntry, STSettings, split_groups
from .matching import KeyMatcher
from .request_log import RequestLog
from .timed_effects import TimedEffects


class InclusionGroups:
    def __init__(
        self,
        settings: STSettings,
        timed: TimedEffects,
        matcher: KeyMatcher,
        log: RequestLog,
        rng: random.Random,
    ) -> None:
        self.settings = settings
        self.timed = timed
        self.matcher = matcher
        self.log = log
        self.rng = rng

    def filter(self, new: list[STEntry], activated: dict[str, STEntry], scan_state: int, step: int) -> None:
        """Drop the group losers from this pass's ``new`` entries (edited in place)."""
        grouped: dict[str, list[STEntry]] = {}
        for entry in new:
            if entry.group:
                for name in split_groups(entry.group):
                    grouped.setdefault(name, []).append(entry)
        if not grouped:
            return
        groups = _Pass(self, new, step)
        has_sticky = {name: groups.timed_effects(name, group) for name, group in grouped.items()}
        for name, group in grouped.items():
            if not has_sticky[name]:
                groups.scoring(name, group, scan_state)
        for name, group in grouped.items():
            if not has_sticky[name]:
                groups.pick_winner(name, group, activated)


class _Pass:
    """The steps of ``filterByInclusionGroups`` over one pass's candidates (``new``, edited in place)."""

    def __init__(self, groups: InclusionGroups, new: list[STEntry], step: int) -> None:
        self.groups = groups
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
        self.groups.log.record(
            victim.index, LogRecord(victim.entry_id, victim.title, False, Reason.GROUP_LOST, detail, self.step)
        )

    def timed_effects(self, name: str, group: list[STEntry]) -> bool:
        """``filterGroupsByTimedEffects``: sticky members win; cooldown/delay members go. True if sticky."""
        timed = self.groups.timed
        stickies = [e for e in group if timed.is_active("sticky", e)]
        for entry in group:
            if stickies and entry not in stickies:
                self.remove(entry, f"group {name!r}: a sticky member wins")
        for entry in group:
            if timed.is_active("cooldown", entry) or timed.is_active("delay", entry):
                self.remove(entry, f"group {name!r}: member on cooldown/delay")
        return bool(stickies)

    def scoring(self, name: str, group: list[STEntry], scan_state: int) -> None:
        """``filterGroupsByScoring``: scored members below the best score go."""
        default = self.groups.settings.use_group_scoring
        if not default and not any(e.use_group_scoring for e in group):
            return
        scores = [self.groups.matcher.score(e, scan_state) for e in group]
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
        roll = self.groups.rng.random() * js_number(total)
        running: Any = 0
        for entry, weight in zip(group, weights, strict=True):
            running = js_add(running, weight)
            if js_less_equal(roll, running):
                return entry, note
        return None, note
