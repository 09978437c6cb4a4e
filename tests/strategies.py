"""Hypothesis strategies for random canonical cards and lorebooks.

Values cover what real files contain: every CCv3 field, unknown keys at every
level, explicit nulls, string and numeric ids, decorators, CJK and emoji.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
short = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), text)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(short, inner, max_size=3)),
    max_leaves=8,
)
# Unknown keys must not collide with declared fields.
unknown_key = st.from_regex(r"x_[a-z]{1,8}", fullmatch=True)
unknown_keys = st.dictionaries(unknown_key, json_value, max_size=2)
decorated = st.builds(
    lambda decos, body: "".join(f"{d}\n" for d in decos) + body,
    st.lists(st.sampled_from(["@@depth 4", "@@role user", "@@@instruct_depth 4", "@@activate", "@@x_custom a,b"]),
             max_size=3),
    text,
)


def _optional(fields: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=fields)


entry = st.builds(
    lambda base, extra: {**base, **extra},
    _optional(
        {
            "keys": st.lists(short, max_size=3),
            "content": st.one_of(text, decorated),
            "extensions": st.dictionaries(short, json_value, max_size=2),
            "enabled": st.booleans(),
            "insertion_order": st.one_of(st.integers(-1000, 1000), st.floats(-1e3, 1e3, allow_nan=False)),
            "case_sensitive": st.one_of(st.none(), st.booleans()),
            "use_regex": st.booleans(),
            "constant": st.booleans(),
            "name": text,
            "priority": st.integers(0, 100),
            "id": st.one_of(st.integers(0, 10**6), short),
            "comment": text,
            "selective": st.booleans(),
            "secondary_keys": st.lists(short, max_size=3),
            "position": st.sampled_from(["before_char", "after_char"]),
        }
    ),
    unknown_keys,
)

lorebook = st.builds(
    lambda base, entries, extra: {**base, "entries": entries, **extra},
    _optional(
        {
            "name": text,
            "description": text,
            "scan_depth": st.integers(0, 100),
            "token_budget": st.integers(0, 10_000),
            "recursive_scanning": st.booleans(),
            "extensions": st.dictionaries(short, json_value, max_size=2),
        }
    ),
    st.lists(entry, max_size=4),
    unknown_keys,
)

asset = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["icon", "emotion", "background", "x_custom"]),
        "uri": st.sampled_from(["ccdefault:", "https://example.invalid/a.png", "embeded://assets/other/x.bin"]),
        "name": short,
        "ext": st.sampled_from(["png", "webp", "unknown"]),
    }
)

card_data = st.builds(
    lambda base, extra: {**base, **extra},
    st.fixed_dictionaries(
        {"name": text, "first_mes": text},
        optional={
            "description": text,
            "personality": text,
            "scenario": text,
            "mes_example": text,
            "creator_notes": text,
            "system_prompt": text,
            "post_history_instructions": text,
            "alternate_greetings": st.lists(text, max_size=3),
            "tags": st.lists(short, max_size=4),
            "creator": text,
            "character_version": short,
            "extensions": st.dictionaries(short, json_value, max_size=3),
            "character_book": lorebook,
            "assets": st.lists(asset, max_size=3),
            "nickname": st.one_of(st.none(), text),
            "creator_notes_multilingual": st.dictionaries(st.sampled_from(["en", "ja", "ko", "de"]), text, max_size=2),
            "source": st.lists(short, max_size=2),
            "group_only_greetings": st.lists(text, max_size=2),
            "creation_date": st.integers(0, 2**31),
            "modification_date": st.integers(0, 2**31),
        },
    ),
    unknown_keys,
)

card_v3 = st.builds(
    lambda data, extra: {"spec": "chara_card_v3", "spec_version": "3.0", "data": data, **extra},
    card_data,
    unknown_keys,
)


@st.composite
def mutated_bytes(draw: st.DrawFn, seed: bytes, keep_prefix: int = 0, max_ops: int = 6) -> bytes:
    """``seed`` with a few random flips, truncations, insertions and deletions.

    ``keep_prefix`` protects a leading signature so mutations reach the parser's
    deeper layers instead of failing detection at byte 0.
    """
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, max_ops))):
        op = draw(st.sampled_from(["flip", "truncate", "insert", "delete"]))
        low = keep_prefix if len(data) > keep_prefix else 0
        pos = draw(st.integers(low, max(len(data) - 1, low)))
        if op == "flip" and pos < len(data):
            data[pos] ^= draw(st.integers(1, 255))
        elif op == "truncate":
            del data[pos:]
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        elif data:
            del data[pos : pos + draw(st.integers(1, 16))]
    return bytes(data)
