"""What the mapping tables say a target does with a field (``targets`` section)."""

from __future__ import annotations

import dataclasses
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
def rule_book(target_format: str, same_platform: bool = False, card_source: bool = True) -> RuleBook:
    """The shared ``RuleBook`` of a target (tables are loaded once, so its lookups can be kept).

    ``same_platform``: the source comes from the target's own platform, so the
    same application reads it before and after: a field the table calls
    ``approximated`` (the app treats it differently from the canonical meaning)
    behaves exactly as in the source, and is kept when it comes back.
    ``card_source``: the source is a card. A rule saying a card field has no place in
    the target's kind (``not_applicable``) holds for a card only: the card fields of a
    lorebook-kind source (a NovelAI scenario's prompt and title) are its own text, lost.
    """
    book: RuleBook = SamePlatformRuleBook(target_format) if same_platform else RuleBook(target_format)
    book.card_source = card_source
    return book


class RuleBook:
    """Rule lookup for one target, cached per pattern-form path (a lorebook repeats them)."""

    def __init__(self, target_format: str) -> None:
        self.target = target_format
        self._rules = [(tuple(r.pattern.split(".")), r) for r in rules_for(target_format)]
        self._cache: dict[tuple[str, ...], TargetRule | None] = {}
        self.card_source = True
        self.templates: dict[tuple[Any, ...], Any] = {}
        """The report's entry templates for this target (``report._entry_template``)."""
        self.bases: dict[tuple[Any, ...], Any] = {}
        """The report's all-kept items per source layout for this target (``report._base_items``)."""
        self.base_items = 0
        """Items held in ``bases`` and their variants (all rule books together bounded by
        ``report._BASE_ITEMS_KEPT``)."""

    @property
    def described(self) -> bool:
        return bool(self._rules)

    def rule(self, segments: tuple[str, ...]) -> TargetRule | None:
        if segments in self._cache:
            return self._cache[segments]
        candidates = [rule for pattern, rule in self._rules if segments_match(pattern, segments)]
        best = max(candidates, key=TargetRule.specificity) if candidates else None
        if best is not None and best.fate == "not_applicable" and not self.card_source:
            best = dataclasses.replace(best, fate="lost")
        self._cache[segments] = best
        return best


class SamePlatformRuleBook(RuleBook):
    def rule(self, segments: tuple[str, ...]) -> TargetRule | None:
        found = super().rule(segments)  # cached by RuleBook; the rewrite below is cheap
        if found is not None and found.fate == "approximated":
            return TargetRule(found.pattern, "kept")
        return found
