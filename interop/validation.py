"""Spec checks for ``interop validate``.

Permissive by design: extension keys are arbitrary, entry ids may be strings
and ``spec_version`` may differ from "3.0" (the spec allows all three), so none
of those is ever reported. What is reported: missing required fields, values
of the wrong type, and asset-list rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .document import Document
from .model import V2_SPEC, V3_SPEC, Card, Lorebook

CARD_REQUIRED = (
    "name",
    "description",
    "tags",
    "creator",
    "character_version",
    "mes_example",
    "extensions",
    "system_prompt",
    "post_history_instructions",
    "first_mes",
    "alternate_greetings",
    "personality",
    "scenario",
    "creator_notes",
)
ENTRY_REQUIRED = ("keys", "content", "extensions", "enabled", "insertion_order")


@dataclass(frozen=True)
class Problem:
    path: str
    message: str
    severity: Literal["error", "warning"] = "error"


def validate_card(card: Card) -> list[Problem]:
    problems: list[Problem] = []
    if card.spec not in (V3_SPEC, V2_SPEC):
        problems.append(Problem("spec", "V1 card (no spec field): upgrade it with 'convert --to ccv3'", "warning"))
        return problems
    data = card.data
    required = CARD_REQUIRED + (("group_only_greetings",) if card.spec == V3_SPEC else ())
    for name in required:
        if not data.has(name):
            problems.append(Problem(f"data.{name}", "required field is missing"))
    for path, message in card.type_issues():
        problems.append(Problem(path, message))
    if data.character_book is not None:
        problems.extend(validate_lorebook(data.character_book, "data.character_book", v3=card.spec == V3_SPEC))
    if data.assets:
        icons = [a for a in data.assets if a.type == "icon"]
        mains = [a for a in icons if a.name == "main"]
        if len(icons) > 1 and len(mains) != 1:
            problems.append(Problem("data.assets", "several icon assets need exactly one named 'main'"))
    return problems


def validate_lorebook(book: Lorebook, path: str = "data", *, v3: bool = True) -> list[Problem]:
    problems: list[Problem] = []
    if path == "data":
        for sub, message in book.type_issues(path):
            problems.append(Problem(sub, message))
    for i, entry in enumerate(book.entries):
        for name in ENTRY_REQUIRED + (("use_regex",) if v3 else ()):
            if not entry.has(name):
                problems.append(Problem(f"{path}.entries[{i}].{name}", "required field is missing"))
    return problems


def validate_document(doc: Document) -> list[Problem]:
    problems = [Problem("file", w, "warning") for w in doc.warnings]
    if doc.card is not None:
        problems.extend(validate_card(doc.card))
    elif doc.lorebook is not None and doc.format in ("lorebook_v3", "character_book"):
        problems.extend(validate_lorebook(doc.lorebook))
    return problems
