"""Canonical lorebook: the CCv3 ``Lorebook`` object and its entries.

Platform-only knobs live in namespaced ``extensions`` (``extensions.sillytavern``,
``extensions.risuai``, ``extensions.agnai``, ``extensions.novelai``); the
adapters own those namespaces.
"""

from __future__ import annotations

from typing import Any

from pydantic import model_validator

from .base import CanonicalModel, Lenient
from .entry_limit import check_entries

Number = int | float


class LorebookEntry(CanonicalModel):
    """One CCv3 lorebook entry. Every field is optional so absent stays absent."""

    keys: Lenient[list[str]] = None
    content: Lenient[str] = None
    extensions: Lenient[dict[str, Any]] = None
    enabled: Lenient[bool] = None
    insertion_order: Lenient[Number] = None
    case_sensitive: Lenient[bool] = None
    use_regex: Lenient[bool] = None
    constant: Lenient[bool] = None
    name: Lenient[str] = None
    priority: Lenient[Number] = None
    id: Lenient[int | str] = None
    comment: Lenient[str] = None
    selective: Lenient[bool] = None
    secondary_keys: Lenient[list[str]] = None
    position: Lenient[str] = None

    def ext(self, namespace: str) -> dict[str, Any]:
        """The ``extensions[namespace]`` dict, or an empty dict (never creates it)."""
        if isinstance(self.extensions, dict):
            value = self.extensions.get(namespace)
            if isinstance(value, dict):
                return value
        return {}


class Lorebook(CanonicalModel):
    """CCv3 ``Lorebook``: a card's ``character_book`` or a standalone book."""

    name: Lenient[str] = None
    description: Lenient[str] = None
    scan_depth: Lenient[Number] = None
    token_budget: Lenient[Number] = None
    recursive_scanning: Lenient[bool] = None
    extensions: Lenient[dict[str, Any]] = None
    entries: list[LorebookEntry] = []

    @model_validator(mode="before")
    @classmethod
    def _bounded(cls, data: Any) -> Any:
        """Count the entries before validating them (``Limits.max_entries``, during reads only)."""
        if isinstance(data, dict) and isinstance(data.get("entries"), list | dict):
            check_entries(len(data["entries"]))
        return data

    def ext(self, namespace: str) -> dict[str, Any]:
        if isinstance(self.extensions, dict):
            value = self.extensions.get(namespace)
            if isinstance(value, dict):
                return value
        return {}


LOREBOOK_SPECS = ("lorebook_v3", "lorebook_v3l", "chara_book_v3", "chara_book_v2")
"""Standalone wrapper ``spec`` values accepted on read: the spec's ``lorebook_v3``,
the misspelling ``lorebook_v3l`` found in the spec text, and ccardlib's names."""


class LorebookDocument(CanonicalModel):
    """The standalone ``{"spec": "lorebook_v3", "data": Lorebook}`` wrapper."""

    spec: Lenient[str] = None
    data: Lorebook
