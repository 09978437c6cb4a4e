"""Agnai's verdict on a card written from an Agnai source: what its card import loads.

Facts (agnaistic/agnai ``common/memory.ts``, ``characterBookToNative`` / ``memoryEntryToNative``,
called by ``port.ts#jsonToCharacter``; ../shared/reference/agnai-novelai.md section 1.4):
``keywords = keys``, ``entry = content``, ``name = name`` (default "Unnamed"),
``priority = priority`` (default 100), ``weight = insertion_order`` (default 100),
``enabled = enabled`` (no default: a missing value fails ``validBook``).

Compared per entry with the source's Agnai settings (the memory book the source stands for,
``memory_book_from_lorebook``).
"""

from __future__ import annotations

from typing import Any

from ...appmodel.card_book import open_verdict
from ...appmodel.verdict import AppModel, AppVerdict, Finding
from ...document import Document
from ...mappings import load as load_mapping
from .memory import memory_book_from_lorebook

APP = "agnai"
_TABLE = load_mapping(APP)
IMPORT: dict[str, tuple[str, Any]] = {
    native: (str(row.canonical), default)
    for native, default in _TABLE.import_defaults("entry").items()
    if (row := _TABLE.by_native("entry", native)) is not None
}
"""Agnai field -> (card entry field, import default when absent): mappings/agnai.json's ``import_default``."""
CANONICAL = {native: field for native, (field, _) in IMPORT.items()}


def loaded(entry: dict[str, Any]) -> dict[str, Any]:
    """One card entry as ``memoryEntryToNative`` holds it (the compared fields)."""
    out = {}
    for native, (field, default) in IMPORT.items():
        value = entry.get(field)
        out[native] = default if value is None else value
    return out


def findings(source: Document, output: bytes, target_format: str) -> AppVerdict:
    verdict, entries = open_verdict(APP, "Agnai", "characterBookToNative", source, output, target_format)
    if entries is None or source.book is None:
        return verdict
    mine = memory_book_from_lorebook(source.book).get("entries", [])
    for index, (want, out) in enumerate(zip(mine, entries, strict=False)):
        got = loaded(out)
        for name in IMPORT:
            verdict.compared += 1
            if want.get(name) != got[name]:
                verdict.differing += 1
                detail = f"Agnai loads {name} = {got[name]!r} from this output; the source's is {want.get(name)!r}"
                verdict.findings.append(Finding(("entry", index, CANONICAL[name]), "approximated", detail))
    return verdict


MODEL = AppModel(findings, docs=(__doc__,))
