"""What one evaluation returns: the injected entries in prompt order and the request log."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


class Reason:
    """Reason codes of the request log. Fired: the first group; not fired: the rest."""

    # fired
    KEY_MATCH = "key_match"
    CONSTANT = "constant"
    STICKY = "sticky"
    DECORATOR_ACTIVATE = "decorator_activate"
    KEEP_AFTER_MATCH = "keep_activate_after_match"
    CHILD = "child_entry"
    # not fired
    DISABLED = "disabled"
    NO_KEYS = "no_keys"
    NO_MATCH = "no_match"
    SECONDARY_LOGIC = "secondary_logic"
    ADDITIONAL_KEYS = "additional_keys"
    EXCLUDE_KEYS = "exclude_keys"
    PROBABILITY = "probability"
    GROUP_LOST = "group_lost"
    COOLDOWN = "cooldown"
    DELAY = "delay"
    BUDGET = "budget"
    RECURSION_RULE = "recursion_rule"
    TRIGGER_TYPE = "trigger_type"
    CHARACTER_FILTER = "character_filter"
    DECORATOR_DONT_ACTIVATE = "decorator_dont_activate"
    DECORATOR_CONDITION = "decorator_condition"
    INJECTED = "injected_into_other"
    INJECT_TARGET_MISSING = "inject_target_missing"
    DUPLICATE_KEY = "duplicate_key"  # SillyTavern: another entry with the same world.uid replaced it
    PLATFORM_ERROR = "platform_error"  # the platform throws on this entry (e.g. Risu's @@position)
    NOT_REACHED = "not_reached"  # the scan stopped (overflow, max steps) before this entry could fire
    NO_COUNTERPART = "no_counterpart"  # compare_behaviour: the other side has no such entry


@dataclass
class Activation:
    """One entry injected into the prompt."""

    entry_id: str  # unique within the run, e.g. "Eldoria.3" (SillyTavern world.uid) or "book0#2"
    title: str
    content: str  # the text inserted (decorators stripped, macros expanded where the platform does)
    position: str  # platform position name: before_char, after_char, at_depth, outlet, lorebook, memory...
    order: float | int | None = None
    depth: int | None = None
    role: str | None = None
    outlet: str | None = None
    tokens: int = 0
    uid: Any = None  # the native id/uid, for matching entries across platforms
    keys: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["keys"] = list(self.keys)
        return out


@dataclass(slots=True)
class LogRecord:
    """Why one entry fired or not. One record per entry of the pooled books."""

    entry_id: str
    title: str
    fired: bool
    reason: str
    detail: str = ""
    step: int | None = None  # scan pass (1 = initial scan; higher = recursion / widened depth)
    key: str | None = None  # the key that matched (fired by key) or decided (secondary/exclude)
    where: str | None = None  # where the key matched: "message 0 (newest)", "recursion", "persona"...
    earlier: tuple[str, ...] = ()  # outcomes of earlier scan passes, oldest first ("step 1: group_lost: ...")

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["earlier"] = list(self.earlier)
        return out

    def summary(self) -> str:
        return f"step {self.step}: {self.reason}" + (f": {self.detail}" if self.detail else "")


@dataclass
class Result:
    platform: str
    activated: list[Activation] = field(default_factory=list)
    log: list[LogRecord] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    budget: int | None = None
    tokens_used: int = 0
    steps: int = 0
    turn: int | None = None  # number of chat messages the prompt was built on
    error: str | None = None  # the platform itself fails on this input (e.g. Risu throws): nothing is injected

    @property
    def fired_ids(self) -> set[str]:
        return {r.entry_id for r in self.log if r.fired}

    def record(self, entry_id: str) -> LogRecord | None:
        return next((r for r in self.log if r.entry_id == entry_id), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "turn": self.turn,
            "budget": self.budget,
            "tokens_used": self.tokens_used,
            "steps": self.steps,
            "activated": [a.to_dict() for a in self.activated],
            "log": [r.to_dict() for r in self.log],
            "warnings": list(self.warnings),
            "error": self.error,
        }


@dataclass(frozen=True)
class EntryInfo:
    """Identity of an entry, used to pair entries across platforms."""

    entry_id: str
    title: str
    uid: Any
    keys: tuple[str, ...]
    content: str
