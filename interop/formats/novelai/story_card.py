"""A NovelAI scenario or story export as a card: where its text goes when the target is a card.

Mapping (documented in mappings/novelai.json, the inverse of ``new_scenario``):

| scenario | story export | card |
|---|---|---|
| ``title`` | ``metadata.title`` | ``name`` |
| ``author`` | | ``creator`` |
| ``description`` | ``metadata.description`` | ``creator_notes`` |
| ``prompt`` | | ``first_mes`` |
| ``tags`` | ``metadata.tags`` | ``tags`` |
| ``context[0].text`` (Memory) | ``content.context[0].text`` | ``description`` |
| everything else but the lorebook | everything else but the lorebook | ``extensions.novelai.scenario`` / ``.story`` |

The stash (placeholders, Author's Note, settings, the story document, ...) is what no card app
reads; a conversion back to ``novelai-scenario``/``novelai-story`` rebuilds the file from it,
with the card's mapped fields winning. The fidelity report views such a document as this card,
so its text is a field like any other: kept in a card, lost in a lorebook target.
"""

from __future__ import annotations

import copy
from typing import Any

from ...document import Document
from ...model import V3_SPEC, Card

SCENARIO_FIELDS = (("title", "name"), ("author", "creator"), ("description", "creator_notes"),
                   ("prompt", "first_mes"), ("tags", "tags"))
STORY_FIELDS = (("title", "name"), ("description", "creator_notes"), ("tags", "tags"))
KINDS = {"novelai-scenario": "scenario", "novelai-story": "story"}


def _wrapper(doc: Document) -> dict[str, Any] | None:
    saved = doc.native.get(doc.format) if doc.format in KINDS else None
    wrapper = saved.get("wrapper") if isinstance(saved, dict) else None
    return wrapper if isinstance(wrapper, dict) else None


def card_of(doc: Document) -> Card | None:
    """The card a scenario/story document stands for (None for any other document)."""
    wrapper = _wrapper(doc)
    if wrapper is None or doc.card is not None:
        return None
    stash = copy.deepcopy(wrapper)
    if doc.format == "novelai-scenario":
        data = _take(stash, SCENARIO_FIELDS)
        stash.pop("lorebook", None)
        context = stash.get("context")
    else:
        metadata = stash.get("metadata") if isinstance(stash.get("metadata"), dict) else {}
        data = _take(metadata, STORY_FIELDS)
        content = stash.get("content") if isinstance(stash.get("content"), dict) else {}
        content.pop("lorebook", None)
        context = content.get("context")
    memory = context[0].get("text") if isinstance(context, list) and context and isinstance(context[0], dict) else None
    if isinstance(memory, str):
        data["description"] = memory
    data["extensions"] = {"novelai": {KINDS[doc.format]: stash}}
    if doc.lorebook is not None:
        data["character_book"] = doc.lorebook
    return Card.model_validate({"spec": V3_SPEC, "spec_version": "3.0", "data": data})


def _take(source: dict[str, Any], fields: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    return {card: source.pop(native) for native, card in fields if native in source}


def stashed_wrapper(card: Card, kind: str) -> dict[str, Any] | None:
    """The scenario/story wrapper a card carries from ``card_of``, with the card's fields put back."""
    extensions = card.data.extensions if isinstance(card.data.extensions, dict) else {}
    ours = extensions.get("novelai")
    stash = ours.get(kind) if isinstance(ours, dict) else None
    if not isinstance(stash, dict):
        return None
    wrapper = copy.deepcopy(stash)
    data = card.data.dump()
    if kind == "scenario":
        target, fields, context = wrapper, SCENARIO_FIELDS, wrapper.get("context")
    else:
        target = wrapper.setdefault("metadata", {})
        content = wrapper.get("content") if isinstance(wrapper.get("content"), dict) else {}
        fields, context = STORY_FIELDS, content.get("context")
    for native, name in fields:
        if name in data:
            target[native] = data[name]
    if isinstance(data.get("description"), str) and isinstance(context, list) and context and isinstance(
        context[0], dict
    ):
        context[0]["text"] = data["description"]
    return wrapper
