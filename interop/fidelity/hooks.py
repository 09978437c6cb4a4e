"""Platform knowledge the data cannot show: per-target hazards that raise a field's fate.

A round trip through our own reader and writer proves the data survives in the
file; it cannot show that the real application will mangle it (Agnai strips
regex characters from keys, ...). A platform declares such knowledge as
``Platform.hazards`` (canonical ``Lorebook`` -> ``Conflict`` records) in the
registry; ``findings`` turns every record into a ``Finding``. A finding can only
make a fate worse, never better.

Register extra checks with ``register_hook(platform, hook)``. The built-in hook
at the bottom of this module (Agnai's keys) stands in until its platform declares
``hazards``: a platform's ``hazards`` replaces the built-in hooks of this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

from ..document import Document
from ..formats.registry import get_platform
from ..mappings import FATES, Fate
from ..model.conflict import Conflict
from .paths import Path


@dataclass(frozen=True)
class Finding:
    path: Path
    fate: Fate
    detail: str


Hook = Callable[[Document, str, "Document | None"], Iterable[Finding]]
_HOOKS: dict[str, list[Hook]] = {}


def register_hook(platform: str, hook: Hook) -> Hook:
    _HOOKS.setdefault(platform, []).append(hook)
    return hook


def hooks_for(platform: str) -> list[Hook]:
    return list(_HOOKS.get(platform, ()))


def platform_service(platform: str, name: str) -> Callable[..., Any] | None:
    """A platform's named function from the registry, if that platform is installed and offers it."""
    try:
        return get_platform(platform).service(name)
    except KeyError:
        return None


def findings(source: Document, target_format: str, platform: str, output: Document | None) -> list[Finding]:
    hazards = _hazards_of(platform)
    found: list[Finding] = []
    for hook in hooks_for(platform):
        if hazards is None or not _builtin(hook):
            found.extend(hook(source, target_format, output))
    if hazards is not None and source.book is not None:
        found.extend(finding_of(conflict) for conflict in hazards(source.book))
    return found


def finding_of(conflict: Conflict) -> Finding:
    """A platform's ``Conflict`` record as a report finding (same path, fate and sentence)."""
    fate = cast(Fate, conflict.fate) if conflict.fate in FATES else "approximated"
    return Finding(tuple(conflict.path), fate, conflict.detail)


def _hazards_of(platform: str) -> Callable[[Any], Iterable[Conflict]] | None:
    try:
        return get_platform(platform).hazards
    except KeyError:
        return None


def _builtin(hook: Hook) -> bool:
    """A stand-in hook of this module (replaced by the platform's own ``hazards``)."""
    return getattr(hook, "__module__", None) == __name__


# --- built-in hooks ------------------------------------------------------------


def _agnai_keys(source: Document, target_format: str, output: Document | None) -> list[Finding]:
    """Keys Agnai would mangle (regex, stripped characters, wildcards, word boundaries).

    ``agnai_key_hazards(book)`` (interop.formats.agnai.memory) lists them per key as
    ``entries[i].keys[j]``; the report's field is the whole key list of entry i.
    """
    hazards_of = platform_service("agnai", "agnai_key_hazards")
    book = source.book
    if hazards_of is None or book is None:
        return []
    per_entry: dict[int, list[Any]] = {}
    for hazard in hazards_of(book):
        index = _entry_of(getattr(hazard, "path", ""))
        if index is not None:
            per_entry.setdefault(index, []).append(hazard)
    found = []
    for index, hazards in per_entry.items():
        fate: Fate = "lost" if any(getattr(h, "fate", "") == "lost" for h in hazards) else "approximated"
        reasons = [f"{h.key!r}: {h.reason}" for h in hazards]
        detail = "; ".join(reasons[:3]) + (f"; and {len(reasons) - 3} more" if len(reasons) > 3 else "")
        found.append(Finding(("entry", index, "keys"), fate, detail))
    return found


def _entry_of(path: str) -> int | None:
    """``entries[4].keys[0]`` -> 4."""
    if not path.startswith("entries["):
        return None
    number = path[len("entries[") : path.find("]")]
    return int(number) if number.isdigit() else None


register_hook("agnai", _agnai_keys)
