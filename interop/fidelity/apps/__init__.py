"""Target-application models: what each app loads from a file, compared with the source's settings.

Our reader agreeing with our writer proves the data is in the file; these models say what
the application does with the file on import (facts from its import code, cited per module).
``app_verdicts`` compares, entry by entry, the source's settings in the app's own terms with
what the app loads from the output, and names every difference as a report finding.

Which app judges a conversion (``apps_for``): the target's platform when it is an app;
for a generic card/lorebook target (ccv3 family), the source's app, or SillyTavern for a
generic source. A conversion into the source's own format is the same bytes for the app:
nothing to compare.
"""

from __future__ import annotations

import json

from ...document import Document
from ...platform.registry import get_platform
from . import agnai_check, novelai_check, risu_check, sillytavern_check
from . import sillytavern as st
from .verdict import AppVerdict

CHECKS = {
    "sillytavern": sillytavern_check.findings,
    "risu": risu_check.findings,
    "agnai": agnai_check.findings,
    "novelai": novelai_check.findings,
}
"""Platform name -> its app model ``findings(source_doc, output_bytes, target_format) -> AppVerdict``.

The target-app models live here, keyed by the registry's platform name, not on the
``Platform`` object: they judge a conversion (the fidelity layer, above the platform
packages), and a platform package may not import fidelity. A new platform with an app
model adds its ``<platform>_check.py`` module here; titles come from the registry."""

GENERIC_PLATFORMS = ("ccv3",)
NO_BOOK_TARGETS = ("ccv1",)
"""A V1 card has no lorebook: its mapping table says where the book goes (a stash)."""


TARGET_CHECKED = ("sillytavern",)
"""Apps whose own formats are judged by their model when they are the target (the others'
writers produce their native format, which their app loads as written)."""


def apps_for(source_platform: str, target_platform: str) -> list[str]:
    if target_platform in TARGET_CHECKED:
        return [target_platform]
    if target_platform not in GENERIC_PLATFORMS:
        return []  # e.g. risu-lorebook, agnai-book: the mapping tables and the platform's hazards describe them
    if source_platform in CHECKS:
        return [source_platform]
    return ["sillytavern"] if source_platform in GENERIC_PLATFORMS else []


def app_verdicts(
    source: Document, source_platform: str, target_format: str, target_platform: str, output: bytes
) -> list[AppVerdict]:
    if source.format == target_format or source.book is None or target_format in NO_BOOK_TARGETS:
        return []
    verdicts = []
    for app in apps_for(source_platform, target_platform):
        verdict = CHECKS[app](source, output, target_format)
        if verdict is not None:
            verdicts.append(verdict)
    return verdicts


def docs_section() -> list[str]:
    """Markdown for docs/fidelity.md: what each app's import does, from the models' own facts."""
    lines = ["## What each app loads", "", *_doc_paragraphs(__doc__), ""]
    modules = {"sillytavern": (st, sillytavern_check), "risu": (risu_check,), "agnai": (agnai_check,),
               "novelai": (novelai_check,)}
    for app, parts in modules.items():
        lines += [f"### {get_platform(app).title} (`{app}`)", ""]
        for module in parts:
            lines += [*_doc_paragraphs(module.__doc__), ""]
        if app == "sillytavern":
            lines += _st_table()
    return lines


def _doc_paragraphs(text: str | None) -> list[str]:
    return [line[4:] if line.startswith("    ") else line for line in (text or "").strip().splitlines()]


def _st_table() -> list[str]:
    lines = [
        "What `convertCharacterBook` reads from each card entry (every card-book writer writes these flat "
        "`extensions` keys, as SillyTavern's exporter `convertWorldInfoToCharacterBook` does):",
        "",
        "| ST field | card entry | fallback when absent or null |",
        "|---|---|---|",
        "| `uid` | `id` | a free number |",
        "| `key` / `keysecondary` | `keys` / `secondary_keys` | none / `[]` |",
        "| `comment` / `content` | `comment` / `content` | `''` / none |",
        "| `constant` / `selective` | `constant` / `selective` | `false` / `false` |",
        "| `order` | `insertion_order` | none (undefined) |",
        "| `disable` | `!enabled` | a missing `enabled` disables the entry |",
        "| `position` | `extensions.position` | `position === 'before_char'` ? 0 : 1 |",
        "| `displayIndex` | `extensions.display_index` | the entry's index |",
        "| `triggers` | `extensions.triggers` | `[]` |",
    ]
    for name, (flat, fallback) in st.FLAT_READS.items():
        lines.append(f"| `{name}` | `extensions.{flat}` | `{json.dumps(fallback)}` |")
    return [*lines, ""]
