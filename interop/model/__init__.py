"""The canonical model: Character Card V3 and Lorebook V3 as pydantic v2 models."""

from .base import CanonicalModel, Lenient, as_bool, as_number, as_str_list
from .card import V2_SPEC, V3_ONLY_FIELDS, V3_SPEC, Asset, Card, CardData
from .lorebook import LOREBOOK_SPECS, Lorebook, LorebookDocument, LorebookEntry

__all__ = [
    "LOREBOOK_SPECS",
    "V2_SPEC",
    "V3_ONLY_FIELDS",
    "V3_SPEC",
    "Asset",
    "CanonicalModel",
    "Card",
    "CardData",
    "Lenient",
    "Lorebook",
    "LorebookDocument",
    "LorebookEntry",
    "as_bool",
    "as_number",
    "as_str_list",
]
