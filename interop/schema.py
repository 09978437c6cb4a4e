"""JSON Schema export of the canonical model.

Lenient fields are ``T | Any`` internally (to keep off-type values verbatim);
the exported schema shows the declared type ``T`` only, which is what a
producer of cards should follow.
"""

from __future__ import annotations

from typing import Any

from .model import Card, LorebookDocument


def _clean(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _clean(v) for k, v in node.items() if not (k == "default" and v is None)}
        if "anyOf" in out:
            options = [o for o in out["anyOf"] if o != {}]
            if len(options) == 1:
                merged = {k: v for k, v in out.items() if k != "anyOf"}
                merged.update(options[0])
                return merged
            out["anyOf"] = options
        return out
    if isinstance(node, list):
        return [_clean(v) for v in node]
    return node


def canonical_schema(model: str = "card") -> dict[str, Any]:
    cls = Card if model == "card" else LorebookDocument
    schema = _clean(cls.model_json_schema(mode="validation"))
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://interop.invalid/schema/{'chara_card_v3' if model == 'card' else 'lorebook_v3'}.json"
    return schema
