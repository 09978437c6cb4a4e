"""Per-chat state carried from one turn to the next.

* ``timed``: SillyTavern's ``chat_metadata.timedWorldInfo`` (sticky and cooldown
  effects, keyed ``"<world>.<uid>"``, each ``{hash, start, end, protected}``).
* ``variables``: RisuAI chat variables (``__internal_ka_*`` / ``__internal_da_*``
  written by ``@@keep_activate_after_match`` / ``@@dont_activate_after_match``).
* ``matched``: entries the ccv3 profile has seen match before (for the same two decorators).

Plain JSON-ready data, so a caller can save it between runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ChatState:
    timed: dict[str, dict[str, dict[str, Any]]] = field(default_factory=lambda: {"sticky": {}, "cooldown": {}})
    variables: dict[str, str] = field(default_factory=dict)
    matched: set[str] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        return {"timed": self.timed, "variables": self.variables, "matched": sorted(self.matched)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChatState:
        timed = data.get("timed") or {}
        return cls(
            timed={"sticky": dict(timed.get("sticky") or {}), "cooldown": dict(timed.get("cooldown") or {})},
            variables=dict(data.get("variables") or {}),
            matched=set(data.get("matched") or ()),
        )
