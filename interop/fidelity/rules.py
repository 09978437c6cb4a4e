"""What the mapping tables say a target does with a field (``targets`` section)."""

from __future__ import annotations

import functools
from typing import Any

from ..mappings import FATES, TargetRule, all_mappings, segments_match

FATE_ORDER = {fate: rank for rank, fate in enumerate(FATES)}  # FATES runs from best to worst


@functools.cache
def rules_for(target_format: str) -> tuple[TargetRule, ...]:
    """Every rule any table declares for ``target_format`` (tables may share a target)."""
    found: list[TargetRule] = []
    for mapping in all_mappings():
        found.extend(mapping.targets.get(target_format, ()))
    return tuple(found)


@functools.cache
def rule_book(target_format: str, same_platform: bool = False) -> RuleBook:
    """The shared ``RuleBook`` of a target (tables are loaded once, so its lookups can be kept).

    ``same_platform``: the source comes from the target's own platform, so the
    same application reads it before and after: a field the table calls
    ``approximated`` (the app treats it differently from the canonical meaning)
    behaves exactly as in the source, and is kept when it comes back.
    """
    return SamePlatformRuleBook(target_format) if same_platform else RuleBook(target_format)


class RuleBook:
    """Rule lookup for one target, cached per pattern-form path (a lorebook repeats them)."""

    def __init__(self, target_format: str) -> None:
        self.target = target_format
        self._rules = [(tuple(r.pattern.split(".")), r) for r in rules_for(target_format)]
        self._cache: dict[tuple[str, ...], TargetRule | None] = {}
        self.templates: dict[tuple[Any, ...], Any] = {}
        """The report's entry templates for this target (``report._entry_template``)."""

    @property
    def described(self) -> bool:
        return bool(self._rules)

    def rule(self, segments: tuple[str, ...]) -> TargetRule | None:
        if segments in self._cache:
            return self._cache[segments]
        candidates = [rule for pattern, rule in self._rules if segments_match(pattern, segments)]
        best = max(candidates, key=TargetRule.specificity) if candidates else None
        self._cache[segments] = best
        return best


class SamePlatformRuleBook(RuleBook):
    def rule(self, segments: tuple[str, ...]) -> TargetRule | None:
        found = super().rule(segments)
        if found is not None and found.fate == "approximated":
            return TargetRule(found.pattern, "kept")
        return found
