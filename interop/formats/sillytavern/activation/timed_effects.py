"""Timed effects of one scan (sillytavern.md §7.10): sticky, cooldown and delay.

``load`` reads the chat's stored effects as ``checkWorldInfo`` starts (expiring what ended,
starting the protected cooldown a sticky expiry begins), ``is_active`` answers the checks,
inclusion groups and probability rolls, and ``save`` stores what the activated entries start.
"""

from __future__ import annotations

from typing import Any

from ....activation.state import ChatState
from .entries import STEntry, STPool, STSettings

KINDS = ("sticky", "cooldown")
"""The effects stored in the chat (``delay`` only compares the chat length)."""


class TimedEffects:
    def __init__(self, pool: STPool, settings: STSettings, state: ChatState, chat_length: int) -> None:
        self.pool = pool
        self.settings = settings
        self.state = state
        self.chat_length = chat_length
        self.buffers: dict[str, set[str]] = {"sticky": set(), "cooldown": set(), "delay": set()}
        self.sticky_indexes: list[int] = []
        """Pool indexes of the sticky entries: candidates of every pass without a key hit."""

    def effect(self, entry: STEntry, kind: str, protected: bool) -> dict[str, Any]:
        """``end = chat.length + Number(entry[type])``: "5" lasts 5 messages; a truthy non-number
        ("abc") gives NaN, which never ends (``chat.length >= NaN`` is false)."""
        amount = entry.sticky if kind == "sticky" else entry.cooldown
        return {"hash": entry.hash, "start": self.chat_length, "end": self.chat_length + amount, "protected": protected}

    def load(self) -> None:
        """``checkTimedEffects``: the effects active in this scan."""
        stored = any(self.state.timed.get(kind) for kind in KINDS)
        if stored and not self.settings.dry_run:
            by_hash = {e.hash: e for e in self.pool.entries}
            for kind in KINDS:
                self._load_kind(kind, by_hash)
        for i in self.pool.delayed:
            entry = self.pool.entries[i]
            if entry.delay is not None and self.chat_length < entry.delay:  # NaN never delays
                self.buffers["delay"].add(entry.hash)
        if self.buffers["sticky"]:
            self.sticky_indexes = [e.index for e in self.pool.entries if e.hash in self.buffers["sticky"]]

    def _load_kind(self, kind: str, by_hash: dict[str, STEntry]) -> None:
        store = self.state.timed.setdefault(kind, {})
        for key, value in list(store.items()):
            if not isinstance(value, dict):
                del store[key]
                continue
            entry = by_hash.get(str(value.get("hash")))
            start = value.get("start", 0)
            end = value.get("end", 0)
            if self.chat_length <= start and not value.get("protected"):
                del store[key]
                continue
            if entry is None:
                if self.chat_length >= end:
                    del store[key]
                continue
            amount = entry.sticky if kind == "sticky" else entry.cooldown
            if amount is None:  # `!entry[type]`: not configured for this effect (any more)
                del store[key]
                continue
            if self.chat_length >= end:
                del store[key]
                if kind == "sticky" and entry.cooldown is not None:
                    # Sticky expiry starts a protected cooldown at once.
                    self.state.timed.setdefault("cooldown", {})[entry.state_key] = self.effect(entry, "cooldown", True)
                    self.buffers["cooldown"].add(entry.hash)
                continue
            self.buffers[kind].add(entry.hash)

    def is_active(self, kind: str, entry: STEntry) -> bool:
        return entry.hash in self.buffers[kind]

    def save(self, activated: list[STEntry]) -> None:
        """``setTimedEffects``: the sticky and cooldown the activated entries start (not in a dry run)."""
        if self.settings.dry_run:
            return
        for entry in activated:
            for kind in KINDS:
                amount = entry.sticky if kind == "sticky" else entry.cooldown
                store = self.state.timed.setdefault(kind, {})
                if amount is not None and entry.state_key not in store:
                    store[entry.state_key] = self.effect(entry, kind, False)
