"""SillyTavern's exporter facts, written down by hand for tests (not derived from interop's code).

``convertWorldInfoToCharacterBook`` (SillyTavern ``src/endpoints/characters.js``) writes each
world entry's settings as FLAT keys of the card entry's ``extensions``; ``convertCharacterBook``
(``public/scripts/world-info.js``) reads them back with ``??`` fallbacks. Table: world field,
flat key, the importer's fallback when the key is absent or null
(../shared/reference/sillytavern.md sections 2.2 and 3.2; late-2025 key set).
"""

from __future__ import annotations

import copy
from typing import Any

POSITION_FALLBACK = object()
"""``position`` falls back to the top-level spec ``position``: 0 for 'before_char', else 1."""
INDEX_FALLBACK = object()
"""``display_index`` falls back to the entry's index in the book."""

ST_FLAT_KEYS: tuple[tuple[str, str, Any], ...] = (
    ("position", "position", POSITION_FALLBACK),
    ("excludeRecursion", "exclude_recursion", False),
    ("displayIndex", "display_index", INDEX_FALLBACK),
    ("probability", "probability", 100),
    ("useProbability", "useProbability", True),
    ("depth", "depth", 4),
    ("selectiveLogic", "selectiveLogic", 0),
    ("outletName", "outlet_name", ""),
    ("group", "group", ""),
    ("groupOverride", "group_override", False),
    ("groupWeight", "group_weight", 100),
    ("preventRecursion", "prevent_recursion", False),
    ("delayUntilRecursion", "delay_until_recursion", False),
    ("scanDepth", "scan_depth", None),
    ("matchWholeWords", "match_whole_words", None),
    ("useGroupScoring", "use_group_scoring", None),
    ("caseSensitive", "case_sensitive", None),
    ("automationId", "automation_id", ""),
    ("role", "role", 0),
    ("vectorized", "vectorized", False),
    ("sticky", "sticky", None),
    ("cooldown", "cooldown", None),
    ("delay", "delay", None),
    ("matchPersonaDescription", "match_persona_description", False),
    ("matchCharacterDescription", "match_character_description", False),
    ("matchCharacterPersonality", "match_character_personality", False),
    ("matchCharacterDepthPrompt", "match_character_depth_prompt", False),
    ("matchScenario", "match_scenario", False),
    ("matchCreatorNotes", "match_creator_notes", False),
    ("triggers", "triggers", []),
    ("ignoreBudget", "ignore_budget", False),
)
FLAT = {flat for _, flat, _ in ST_FLAT_KEYS}

# CCv3 (character-card-v3.txt): fields every card and every lorebook entry must have.
CARD_REQUIRED = {
    "name", "description", "tags", "creator", "character_version", "mes_example", "extensions", "system_prompt",
    "post_history_instructions", "first_mes", "alternate_greetings", "personality", "scenario", "creator_notes",
    "group_only_greetings",
}
ENTRY_REQUIRED = {"keys", "content", "extensions", "enabled", "insertion_order", "use_regex"}
# Our bookkeeping inside extensions.sillytavern.entry for the way back (docs/platforms/sillytavern.md).
NAMESPACE_BOOKKEEPING = {"added_fields", "card_fields", "world_extensions"}


def strip_writer_additions(source: dict[str, Any], output: dict[str, Any]) -> dict[str, Any]:
    """``output`` (card data or a book) minus what a cross-format card write adds on purpose and the
    source lacked: CCv3-required fields, ST's flat keys, namespace bookkeeping. Anything else the
    output changed or added is left in, so comparing with ``source`` shows it."""
    out = copy.deepcopy(output)
    if "entries" not in source and "entries" not in out:  # card data
        for name in CARD_REQUIRED - set(source):
            out.pop(name, None)
        if isinstance(source.get("character_book"), dict) and isinstance(out.get("character_book"), dict):
            out["character_book"] = strip_writer_additions(source["character_book"], out["character_book"])
        return out
    for mine, theirs in zip(source.get("entries") or [], out.get("entries") or [], strict=False):
        _strip_entry(mine, theirs)
    return out


def _strip_entry(mine: dict[str, Any], theirs: dict[str, Any]) -> None:
    for name in ENTRY_REQUIRED - set(mine):
        if name != "extensions":
            theirs.pop(name, None)
    ext = theirs.get("extensions")
    if not isinstance(ext, dict):
        return
    own = mine.get("extensions") if isinstance(mine.get("extensions"), dict) else {}
    for key in FLAT - set(own):
        ext.pop(key, None)
    ours = ext.get("sillytavern", {}).get("entry") if isinstance(ext.get("sillytavern"), dict) else None
    source_ns = own.get("sillytavern", {}).get("entry", {}) if isinstance(own.get("sillytavern"), dict) else {}
    if isinstance(ours, dict):
        for key in NAMESPACE_BOOKKEEPING - set(source_ns):
            ours.pop(key, None)
        if not ours and "sillytavern" not in own:
            ext.pop("sillytavern")
    if not ext and "extensions" not in mine:
        theirs.pop("extensions")
