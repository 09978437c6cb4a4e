"""RisuAI's decorator switch (risu.md §3.5): the per-entry state ``loadLoreBookV3Prompt`` keeps.

``hook`` is passed to ``ParsedContent.resolve``: it returns True when Risu honours a
decorator and False when Risu's handler returns false (unknown names, bad values,
``instruct_*``, ``is_user_icon``, ``keep/dont_activate_after_match``), which is what
makes a following ``@@@`` fallback run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...model.decorators import Decorator
from ..result import Reason
from .base import js_parse_int

if TYPE_CHECKING:
    from .risu import _RisuRun


def number_or_zero(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return value


class RisuThrows(Exception):
    """RisuAI's ``loadLoreBookV3Prompt`` throws on this entry, so no lorebook prompt is built."""


class RisuEntryContext:
    """The per-entry variables ``loadLoreBookV3Prompt`` sets while parsing decorators."""

    def __init__(self, run: _RisuRun, raw: dict[str, Any], index: int) -> None:
        self.run = run
        self.raw = raw
        self.index = index
        self.activated = True
        self.off_reason = Reason.DECORATOR_CONDITION
        self.off_detail = ""
        self.pos = ""
        self.inject: dict[str, Any] | None = None
        self.depth = 0
        self.scan_depth: int | None = run.settings.scan_depth
        self.priority: float = number_or_zero(raw.get("insertorder"))
        self.force = "none"
        self.force_reason = ""
        self.force_detail = ""
        self.role = "system"
        self.queries: list[tuple[str, list[str], bool, bool]] = []
        self.full_word = run.settings.full_word
        self.no_recursive = False
        self.item_recursive: bool | None = None
        self.keep_flag = False
        self.dont_flag = False
        self.child_of: str | None = None

    def _off(self, detail: str, reason: str = Reason.DECORATOR_CONDITION) -> None:
        if self.activated:
            self.off_reason, self.off_detail = reason, detail
        self.activated = False

    def _position(self, first: str | None) -> bool:
        if first is None:
            # arg[0].startsWith(...) on an empty argument list: a TypeError escapes the decorator
            # callback and loadLoreBookV3Prompt throws (RisuAI bug).
            raise RisuThrows("@@position without an argument: 'arg[0].startsWith' throws a TypeError")
        if first.startswith("pt_") or first in ("after_desc", "before_desc", "personality", "scenario"):
            self.pos = first
            return True
        return False

    def hook(self, deco: Decorator) -> bool:
        """Risu's decorator switch: True = honoured, False = ignored (the next @@@ fallback runs)."""
        name, args = deco.name, list(deco.args)
        first = args[0] if args else None
        number = js_parse_int(first) if first is not None else None
        run = self.run
        if name == "end":
            self.pos, self.depth = "depth", 0
            return True
        if name == "activate_only_after":
            if number is None:
                return False
            if run.chat_length < number:
                self._off(f"@@activate_only_after {number}: chat length {run.chat_length}")
            return True
        if name == "activate_only_every":
            if number is None:
                return False
            if number == 0 or run.chat_length % number != 0:
                self._off(f"@@activate_only_every {number}: chat length {run.chat_length}")
            return True
        if name in ("keep_activate_after_match", "dont_activate_after_match"):
            keep = name == "keep_activate_after_match"
            var = run._var_key(self.raw, "__internal_ka_" if keep else "__internal_da_")
            if run.state.variables.get(var) == "true":
                self.force = "activate" if keep else "deactivate"
                self.force_reason = Reason.KEEP_AFTER_MATCH if keep else Reason.DECORATOR_DONT_ACTIVATE
                self.force_detail = f"@@{name}: matched in an earlier turn"
            elif keep:
                self.keep_flag = True
            else:
                self.dont_flag = True
            return False
        if name in ("depth", "reverse_depth"):
            if number is None:
                return False
            self.depth, self.pos = number, name
            return True
        if name in ("instruct_depth", "reverse_instruct_depth", "instruct_scan_depth"):
            return False
        if name == "role":
            if first in ("user", "assistant", "system"):
                self.role = first
                return True
            return False
        if name == "scan_depth":
            self.scan_depth = number  # no NaN check in Risu: NaN slices the whole chat
            return True
        if name == "is_greeting":
            if number is None:
                return False
            greeting = run.chat.greeting_index if run.chat.greeting_index is not None else 0
            if greeting != number:
                self._off(f"@@is_greeting {number}: greeting is {greeting}")
            return True
        if name == "position":
            return self._position(first)
        if name in ("inject_lore", "inject_at"):
            lore = name == "inject_lore"
            if self.inject is None:
                self.inject = {"operation": "append", "location": "", "param": "", "lore": lore}
            self.inject["location"] = " ".join(args)
            self.inject["lore"] = lore
            return True
        if name in ("inject_replace", "inject_prepend"):
            operation = "replace" if name == "inject_replace" else "prepend"
            if self.inject is None:
                self.inject = {"operation": operation, "location": "", "param": "", "lore": False}
            self.inject["operation"] = operation
            self.inject["param"] = " ".join(args)
            return True
        if name == "ignore_on_max_context":
            self.priority = -1000
            return True
        if name in ("additional_keys", "exclude_keys", "exclude_keys_all"):
            self.queries.append((f"@@{name}", args, name != "additional_keys", name == "exclude_keys_all"))
            return True
        if name == "match_full_word":
            self.full_word = True
            return True
        if name == "match_partial_word":
            self.full_word = False
            return True
        if name == "is_user_icon":
            return False
        if name in ("activate", "dont_activate"):
            self.force = "activate" if name == "activate" else "deactivate"
            self.force_reason = Reason.DECORATOR_ACTIVATE if name == "activate" else Reason.DECORATOR_DONT_ACTIVATE
            self.force_detail = f"@@{name}"
            return True
        if name == "disable_ui_prompt":
            return first in ("post_history_instructions", "system_prompt")
        if name == "probability":
            roll = run.rng.random() * 100
            if number is not None and roll > number:
                self._off(f"@@probability {number}: rolled {roll:.1f}", Reason.PROBABILITY)
            return True
        if name == "priority":
            self.priority = number if number is not None else float("nan")
            return True
        if name == "unrecursive":
            self.item_recursive = False
            return True
        if name == "recursive":
            self.item_recursive = True
            return True
        if name == "no_recursive_search":
            self.no_recursive = True
            return True
        return False
