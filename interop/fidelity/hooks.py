"""Platform knowledge the data cannot show: per-target hooks that raise a field's fate.

A round trip through our own reader and writer proves the data survives in the
file; it cannot show that the real application will mangle it (Agnai strips
regex characters from keys, ...). Adapters expose such knowledge as plain
functions; the hooks here call them when they exist (imported lazily, so a
missing adapter only means no extra findings) and turn their answers into
``Finding``s. A finding can only make a fate worse, never better.

Register more with ``register_hook(platform, hook)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

from ..document import Document
from ..formats.registry import get_platform
from ..mappings import Fate
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
    found: list[Finding] = []
    for hook in hooks_for(platform):
        found.extend(hook(source, target_format, output))
    return found


# --- built-in hooks ------------------------------------------------------------


def _agnai_keys(source: Document, target_format: str, output: Document | None) -> list[Finding]:
    """Keys Agnai would mangle (regex, stripped characters, wildcards, word boundaries): the agnai
    ``Platform.hazards`` (interop.transforms.agnai_keys.key_conflicts), one Conflict per entry."""
    try:
        hazards_of = get_platform("agnai").hazards
    except KeyError:
        return []
    book = source.book
    if hazards_of is None or book is None:
        return []
    return [Finding(c.path, c.fate, c.detail) for c in hazards_of(book)]  # type: ignore[arg-type]


register_hook("agnai", _agnai_keys)


def _sillytavern_conflicts(source: Document, target_format: str, output: Document | None) -> list[Finding]:
    """Entries whose SillyTavern flat ``extensions`` keys disagree with the namespace or the spec field.

    SillyTavern reads the flat keys, so the other value has no effect there; the platform's
    ``hazards`` lists them as ``Conflict`` records (path, detail, fate).
    """
    try:
        hazards = get_platform("sillytavern").hazards
    except KeyError:
        return []
    book = source.book
    if hazards is None or book is None:
        return []
    return [Finding(c.path, cast(Fate, c.fate), c.detail) for c in hazards(book)]


register_hook("sillytavern", _sillytavern_conflicts)
