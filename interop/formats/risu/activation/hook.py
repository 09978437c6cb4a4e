"""RisuAI's decorator switch (risu.md §3.5): the per-entry state ``loadLoreBookV3Prompt`` keeps.

``hook`` is passed to ``ParsedContent.resolve``: it returns True when Risu honours a
decorator and False when Risu's handler returns false (unknown names, bad values,
``instruct_*``, ``is_user_icon``, ``keep/dont_activate_after_match``), which is what
makes a following ``@@@`` fallback run.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ....activation.chat import Chat
from ....activation.jsvalue import UNDEFINED, js_number, js_parse_int
from ....activation.result import Reason
from ....activation.state import ChatState
from ....model.decorators import Decorator
from .settings import RisuSettings


class EntryRun(Protocol):
    """What an entry's decorators read of the run that parses them (``profile.RisuRun``)."""

    chat: Chat
    settings: RisuSettings
    state: ChatState
    rng: random.Random
    chat_length: int

    def var_key(self, raw: dict[str, Any], prefix: str) -> str: ...


def sort_number(value: Any) -> float:
    """``insertorder`` as Risu's sorts read it (``b.order - a.order``): "5" is 5, null 0, missing or
    "abc" NaN (V8's sort then decides, see ``jssort``)."""
    return math.nan if value is UNDEFINED else js_number(value)


class RisuThrows(Exception):
    """RisuAI's ``loadLoreBookV3Prompt`` throws on this entry, so no lorebook prompt is built."""


class RisuEntryContext:
    """The per-entry variables ``loadLoreBookV3Prompt`` sets while parsing decorators."""

    def __init__(self, run: EntryRun, raw: dict[str, Any], index: int) -> None:
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
        self.priority: float = sort_number(raw.get("insertorder", UNDEFINED))
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
        """Risu's decorator switch: True = honoured, False = ignored (the next @@@ fallback runs).

        Names without a handler (unknown ones, ``instruct_*``, ``is_user_icon``) are ignored.
        """
        handler = _HANDLERS.get(deco.name)
        if handler is None:
            return False
        args = list(deco.args)
        first = args[0] if args else None
        return handler(self, _Call(deco.name, args, first, js_parse_int(first) if first is not None else None))

    # --- one handler per decorator family (risu.md §3.5), in Risu's switch order ---

    def _end(self, call: _Call) -> bool:
        self.pos, self.depth = "depth", 0
        return True

    def _activate_only_after(self, call: _Call) -> bool:
        if call.number is None:
            return False
        if self.run.chat_length < call.number:
            self._off(f"@@activate_only_after {call.number}: chat length {self.run.chat_length}")
        return True

    def _activate_only_every(self, call: _Call) -> bool:
        if call.number is None:
            return False
        if call.number == 0 or self.run.chat_length % call.number != 0:
            self._off(f"@@activate_only_every {call.number}: chat length {self.run.chat_length}")
        return True

    def _after_match(self, call: _Call) -> bool:
        """``keep_/dont_activate_after_match``: Risu's handler returns false either way."""
        keep = call.name == "keep_activate_after_match"
        var = self.run.var_key(self.raw, "__internal_ka_" if keep else "__internal_da_")
        if self.run.state.variables.get(var) == "true":
            self.force = "activate" if keep else "deactivate"
            self.force_reason = Reason.KEEP_AFTER_MATCH if keep else Reason.DECORATOR_DONT_ACTIVATE
            self.force_detail = f"@@{call.name}: matched in an earlier turn"
        elif keep:
            self.keep_flag = True
        else:
            self.dont_flag = True
        return False

    def _depth(self, call: _Call) -> bool:
        if call.number is None:
            return False
        self.depth, self.pos = call.number, call.name
        return True

    def _role(self, call: _Call) -> bool:
        if call.first in ("user", "assistant", "system"):
            self.role = call.first
            return True
        return False

    def _scan_depth(self, call: _Call) -> bool:
        self.scan_depth = call.number  # no NaN check in Risu: NaN slices the whole chat
        return True

    def _is_greeting(self, call: _Call) -> bool:
        if call.number is None:
            return False
        chat = self.run.chat
        greeting = chat.greeting_index if chat.greeting_index is not None else 0
        if greeting != call.number:
            self._off(f"@@is_greeting {call.number}: greeting is {greeting}")
        return True

    def _position_of(self, call: _Call) -> bool:
        return self._position(call.first)

    def _inject_where(self, call: _Call) -> bool:
        """``inject_lore`` / ``inject_at``: where the entry's text is injected."""
        lore = call.name == "inject_lore"
        if self.inject is None:
            self.inject = {"operation": "append", "location": "", "param": "", "lore": lore}
        self.inject["location"] = " ".join(call.args)
        self.inject["lore"] = lore
        return True

    def _inject_how(self, call: _Call) -> bool:
        """``inject_replace`` / ``inject_prepend``: how the injected text meets the target."""
        operation = "replace" if call.name == "inject_replace" else "prepend"
        if self.inject is None:
            self.inject = {"operation": operation, "location": "", "param": "", "lore": False}
        self.inject["operation"] = operation
        self.inject["param"] = " ".join(call.args)
        return True

    def _ignore_on_max_context(self, call: _Call) -> bool:
        self.priority = -1000
        return True

    def _key_query(self, call: _Call) -> bool:
        """``additional_keys`` / ``exclude_keys`` / ``exclude_keys_all``."""
        name = call.name
        self.queries.append((f"@@{name}", call.args, name != "additional_keys", name == "exclude_keys_all"))
        return True

    def _word_match(self, call: _Call) -> bool:
        self.full_word = call.name == "match_full_word"
        return True

    def _force(self, call: _Call) -> bool:
        """``activate`` / ``dont_activate``."""
        activate = call.name == "activate"
        self.force = "activate" if activate else "deactivate"
        self.force_reason = Reason.DECORATOR_ACTIVATE if activate else Reason.DECORATOR_DONT_ACTIVATE
        self.force_detail = f"@@{call.name}"
        return True

    def _disable_ui_prompt(self, call: _Call) -> bool:
        return call.first in ("post_history_instructions", "system_prompt")

    def _probability(self, call: _Call) -> bool:
        roll = self.run.rng.random() * 100
        if call.number is not None and roll > call.number:
            self._off(f"@@probability {call.number}: rolled {roll:.1f}", Reason.PROBABILITY)
        return True

    def _priority(self, call: _Call) -> bool:
        self.priority = call.number if call.number is not None else float("nan")
        return True

    def _recursion(self, call: _Call) -> bool:
        """``recursive`` / ``unrecursive``: this entry's text is (not) scanned again."""
        self.item_recursive = call.name == "recursive"
        return True

    def _no_recursive_search(self, call: _Call) -> bool:
        self.no_recursive = True
        return True


@dataclass(frozen=True)
class _Call:
    """One decorator as the handlers read it: ``number`` is ``parseInt(args[0])`` (None for NaN)."""

    name: str
    args: list[str]
    first: str | None
    number: int | None


_Handler = Callable[[RisuEntryContext, _Call], bool]
_HANDLERS: dict[str, _Handler] = {
    "end": RisuEntryContext._end,
    "activate_only_after": RisuEntryContext._activate_only_after,
    "activate_only_every": RisuEntryContext._activate_only_every,
    "keep_activate_after_match": RisuEntryContext._after_match,
    "dont_activate_after_match": RisuEntryContext._after_match,
    "depth": RisuEntryContext._depth,
    "reverse_depth": RisuEntryContext._depth,
    "role": RisuEntryContext._role,
    "scan_depth": RisuEntryContext._scan_depth,
    "is_greeting": RisuEntryContext._is_greeting,
    "position": RisuEntryContext._position_of,
    "inject_lore": RisuEntryContext._inject_where,
    "inject_at": RisuEntryContext._inject_where,
    "inject_replace": RisuEntryContext._inject_how,
    "inject_prepend": RisuEntryContext._inject_how,
    "ignore_on_max_context": RisuEntryContext._ignore_on_max_context,
    "additional_keys": RisuEntryContext._key_query,
    "exclude_keys": RisuEntryContext._key_query,
    "exclude_keys_all": RisuEntryContext._key_query,
    "match_full_word": RisuEntryContext._word_match,
    "match_partial_word": RisuEntryContext._word_match,
    "activate": RisuEntryContext._force,
    "dont_activate": RisuEntryContext._force,
    "disable_ui_prompt": RisuEntryContext._disable_ui_prompt,
    "probability": RisuEntryContext._probability,
    "priority": RisuEntryContext._priority,
    "recursive": RisuEntryContext._recursion,
    "unrecursive": RisuEntryContext._recursion,
    "no_recursive_search": RisuEntryContext._no_recursive_search,
}
"""Decorator name -> handler. Names Risu's handler rejects (``instruct_depth``,
``reverse_instruct_depth``, ``instruct_scan_depth``, ``is_user_icon``, unknown) have none."""
