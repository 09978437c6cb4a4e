"""Platform knowledge the data cannot show: per-target hazards that raise a field's fate.

A round trip through our own reader and writer proves the data survives in the
file; it cannot show that the real application will mangle it (Agnai strips
regex characters from keys, ...). A platform declares such knowledge as
``Platform.hazards`` (canonical ``Lorebook`` -> ``Conflict`` records) in the
registry; ``findings`` turns every record into a ``Finding``. A finding can only
make a fate worse, never better.

Register extra checks with ``register_hook(platform, hook)`` (e.g. for a platform
installed without ``hazards``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from ..appmodel.verdict import Finding
from ..document import Document
from ..mappings import FATES, Fate
from ..model.conflict import Conflict
from ..platform.registry import get_platform

Hook = Callable[[Document, str, "Document | None"], Iterable[Finding]]
_HOOKS: dict[str, list[Hook]] = {}


def register_hook(platform: str, hook: Hook) -> Hook:
    _HOOKS.setdefault(platform, []).append(hook)
    return hook


def hooks_for(platform: str) -> list[Hook]:
    return list(_HOOKS.get(platform, ()))


def findings(
    source: Document, target_format: str, platform: str, output: Document | None, *, hazards: bool = True
) -> list[Finding]:
    """What the target platform reads differently: its registered hooks, then its ``hazards``
    (``hazards=False``: the writer recorded them while writing, see ``interop.findings``)."""
    found: list[Finding] = []
    for hook in hooks_for(platform):
        found.extend(hook(source, target_format, output))
    platform_hazards = _hazards_of(platform) if hazards else None
    if platform_hazards is not None and source.book is not None:
        found.extend(finding_of(conflict) for conflict in platform_hazards(source.book))
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
