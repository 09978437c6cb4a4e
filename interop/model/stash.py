"""One stash for every adapter: what a writer saves so that its reader gives the source back.

A target app that cannot hold a value, or that needs a field the source lacks,
gets a *stash* in a place it keeps verbatim (usually an ``extensions`` object).
Every stash says the same two things about the object it belongs to:

- ``keep``: ``{name: original value}``, put back on read (the target loses or changes it);
- ``absent``: ``[name, ...]``, fields the writer had to add, removed again on read.

Where a stash lives and how its keys are spelled belong to the platform and
never change (outputs stay byte-identical): ``extensions.interop`` (spec
versions, model/versions.py), ``extensions.interop_agnai`` (Agnai), Risu's
``interop_stash``, SillyTavern's ``verbatim``/``omit`` (= keep/absent).

API (small on purpose)::

    stash = Stash()                      # or Stash.from_json(obj) / Stash.from_json(obj, "verbatim", "omit")
    stash.keep["personality"] = value    # remember a value the target loses
    stash.absent.append("name")          # remember a field we filled in
    stash.to_json()                      # {"keep": ..., "absent": ...}, empty parts left out
    stash.restore(obj)                   # drop the absent fields, put the kept values back
    ext = stash.box(ext, "extensions")   # a dict to hold the stash; a missing/odd value is recorded
    box, before = open_container(obj, "extensions")   # a dict to hold the stash; what stood there
    take(obj, "interop_agnai")           # pop a dict stash ({} when there is none)
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..jsonvalue import ABSENT

__all__ = ["Stash", "open_container", "take"]


@dataclass
class Stash:
    """The keep/absent record of one object (a card, a book, an entry)."""

    keep: dict[str, Any] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.keep or self.absent)

    def box(self, value: Any, name: str) -> dict[str, Any]:
        """``value`` when it is a dict, else a new dict to hold the stash in place of field ``name``.

        A missing field (``ABSENT``) is recorded as absent, any other value is kept,
        so the reader can undo the replacement.
        """
        if isinstance(value, dict):
            return value
        if value is ABSENT:
            self.absent.append(name)
        else:
            self.keep[name] = value
        return {}

    def to_json(self, keep_key: str = "keep", absent_key: str = "absent") -> dict[str, Any]:
        """The on-disk record; empty parts are left out (``{}`` for an empty stash)."""
        out: dict[str, Any] = {}
        if self.keep:
            out[keep_key] = self.keep
        if self.absent:
            out[absent_key] = self.absent
        return out

    @classmethod
    def from_json(cls, obj: Any, keep_key: str = "keep", absent_key: str = "absent") -> Stash:
        """The record read back; anything malformed counts as empty (a damaged stash restores nothing)."""
        if not isinstance(obj, dict):
            return cls()
        keep = obj.get(keep_key)
        absent = obj.get(absent_key)
        return cls(
            keep=keep if isinstance(keep, dict) else {},
            absent=list(absent) if isinstance(absent, list) else [],
        )

    def restore(self, target: dict[str, Any], *, skip: Iterable[str] = ()) -> None:
        """Drop the absent fields of ``target``, then put the kept values back (deep copies).

        ``skip`` names fields the caller restores itself (e.g. ``extensions``, which
        still holds other data while the reader works).
        """
        skipped = set(skip)
        for name in self.absent:
            # a damaged record may name a list or an object: no field of a JSON object has such a name
            if isinstance(name, str) and name not in skipped:
                target.pop(name, None)
        for name, value in self.keep.items():
            if name not in skipped:
                target[name] = copy.deepcopy(value)


def open_container(holder: dict[str, Any], key: str) -> tuple[dict[str, Any], Any]:
    """``holder[key]`` as a dict to put a stash into, and what stood there before.

    The second value is ``ABSENT`` when the key was missing (the caller records it
    as absent), the old value when it was not a dict (the caller keeps it), or the
    dict itself when nothing had to change.
    """
    before = holder.get(key, ABSENT)
    if isinstance(before, dict):
        return before, before
    box: dict[str, Any] = {}
    holder[key] = box
    return box, before


def take(holder: Any, key: str) -> dict[str, Any]:
    """Pop ``holder[key]`` when it is a dict stash; ``{}`` (and ``holder`` untouched) otherwise."""
    if isinstance(holder, dict) and isinstance(holder.get(key), dict):
        stash: dict[str, Any] = holder.pop(key)
        return stash
    return {}
