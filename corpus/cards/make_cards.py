"""Generate the card and lorebook JSON samples in this folder.

Written for interop's own tests; every character, entry and asset here is
invented. Run ``python corpus/cards/make_cards.py`` to regenerate.
The samples deliberately exercise awkward corners: unknown keys at root,
data, book and entry level, explicit nulls, string and numeric entry ids,
decorators with @@@ fallbacks, regex keys, CJK text and emoji.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

ENTRIES = [
    {
        "keys": ["Brasshaven", "the harbour city"],
        "content": "Brasshaven is a harbour city of copper roofs and steam cranes. Its guilds own the tides.",
        "extensions": {"sillytavern": {"entry": {"insertion_position": 0, "depth": 4}}},
        "enabled": True,
        "insertion_order": 100,
        "case_sensitive": False,
        "use_regex": False,
        "constant": False,
        "name": "Brasshaven",
        "priority": 10,
        "id": 1,
        "comment": "City overview",
        "selective": False,
        "secondary_keys": [],
        "position": "before_char",
    },
    {
        "keys": ["/tide[- ]?clock(s)?/i"],
        "content": "@@depth 2\n@@role system\n@@@instruct_depth 2\nThe tide-clocks ring twice before every flood.",
        "extensions": {"custom/tool": {"nested": [1, {"deep": None}], "flag": True}},
        "enabled": True,
        "insertion_order": 50,
        "case_sensitive": None,
        "use_regex": True,
        "constant": False,
        "name": "Tide clocks",
        "priority": 5,
        "id": "tide-clocks",
        "comment": "Regex key with decorators",
        "selective": True,
        "secondary_keys": ["flood", "bell"],
        "position": "after_char",
        "x_unknown_entry_key": {"kept": "verbatim"},
    },
    {
        "keys": [],
        "content": "@@risu_only_decorator 3\n@@@agnai_only 3\n@@@activate_only_after 3\n\n"
        "潮の時計が鳴ると、港は静まり返る。🌊",
        "extensions": {},
        "enabled": False,
        "insertion_order": 200,
        "use_regex": False,
        "constant": True,
        "id": 3,
        "comment": "Disabled constant with a fallback chain, CJK and emoji",
    },
]

BOOK = {
    "name": "Brasshaven Almanac",
    "description": "Lore of the harbour city, written for interop's tests.",
    "scan_depth": 6,
    "token_budget": 1024,
    "recursive_scanning": True,
    "extensions": {"custom/tool": {"version": 2}},
    "entries": ENTRIES,
    "x_unknown_book_key": [1, 2, 3],
}

DATA_V2 = {
    "name": "Captain Ilse Varga",
    "description": "{{char}} is the harbour-master of Brasshaven, stern but fair.",
    "personality": "dry humour, exacting, loyal to her crew",
    "scenario": "{{user}} arrives on a leaking skiff during a storm.",
    "first_mes": "*Ilse lowers her lantern.* \"Papers. Now.\"",
    "mes_example": "<START>\n{{user}}: Is the harbour open?\n{{char}}: For those who pay the tide-toll.",
    "creator_notes": "Works best with a lorebook-aware frontend.",
    "system_prompt": "{{original}}\nWrite {{char}}'s replies in third person.",
    "post_history_instructions": "Keep replies under 200 words.",
    "alternate_greetings": ["*The bell tolls.* \"You again.\"", "\"Storm's coming. Get inside.\""],
    "tags": ["fantasy", "steampunk", "original"],
    "creator": "interop test suite",
    "character_version": "1.2",
    "extensions": {
        "talkativeness": "0.5",
        "fav": False,
        "world": "Brasshaven Almanac",
        "depth_prompt": {"prompt": "Ilse never lies about the tides.", "depth": 4, "role": "system"},
        "x_vendor": {"setting": None},
    },
}

CARD_V3 = {
    "spec": "chara_card_v3",
    "spec_version": "3.0",
    "data": {
        **DATA_V2,
        "character_book": BOOK,
        "assets": [
            {"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"},
            {"type": "emotion", "uri": "https://example.invalid/ilse/happy.webp", "name": "happy", "ext": "webp"},
        ],
        "nickname": "Captain",
        "creator_notes_multilingual": {"en": "Works best with a lorebook.", "ja": "ロアブック推奨。"},
        "source": ["https://example.invalid/cards/ilse"],
        "group_only_greetings": ["*Ilse counts the newcomers.*"],
        "creation_date": 1700000000,
        "modification_date": 1731000000,
        "x_unknown_data_key": "kept",
    },
    "x_unknown_root_key": {"a": None},
}

CARD_V3_NEWER = {
    "spec": "chara_card_v3",
    "spec_version": "3.1",
    "data": {**CARD_V3["data"], "name": "Ilse (from a future spec)", "x_future_field": {"v": 3.1}},
}

# V2 as SillyTavern writes it: V1 mirror fields at the root next to spec/data.
CARD_V2 = {
    "name": DATA_V2["name"],
    "description": DATA_V2["description"],
    "personality": DATA_V2["personality"],
    "scenario": DATA_V2["scenario"],
    "first_mes": DATA_V2["first_mes"],
    "mes_example": DATA_V2["mes_example"],
    "creatorcomment": DATA_V2["creator_notes"],
    "avatar": "none",
    "chat": "Captain Ilse Varga - 2024-11-02@18h30m12s",
    "talkativeness": "0.5",
    "fav": False,
    "tags": DATA_V2["tags"],
    "create_date": "2024-11-02@18h30m12s",
    "spec": "chara_card_v2",
    "spec_version": "2.0",
    "data": {
        **DATA_V2,
        "character_book": {
            **{k: v for k, v in BOOK.items() if k != "entries"},
            "entries": [{k: v for k, v in e.items() if k != "use_regex"} for e in ENTRIES],
        },
    },
}

CARD_V1 = {
    "name": "Old Tom",
    "description": "A lighthouse keeper who has seen every storm since the city was founded.",
    "personality": "gruff, kind underneath",
    "scenario": "The lighthouse, midnight.",
    "first_mes": "Mind the stairs. Forty of 'em, and every one wet.",
    "mes_example": "<START>\n{{user}}: How old are you?\n{{char}}: Older than the lamp.",
    "avatar": "none",
    "chat": "Old Tom - 2023-3-1 @12h 0m 0s 0ms",
    "create_date": "2023-3-1 @12h 0m 0s 0ms",
}

LOREBOOK_V3 = {"spec": "lorebook_v3", "data": BOOK}
LOREBOOK_V3L = {"spec": "lorebook_v3l", "data": {**BOOK, "name": "Brasshaven (misspelled wrapper)"}}

FILES = {
    "ilse_v3.json": CARD_V3,
    "ilse_v3_1_newer.json": CARD_V3_NEWER,
    "ilse_v2_st_mirror.json": CARD_V2,
    "old_tom_v1.json": CARD_V1,
    "brasshaven.lorebook_v3.json": LOREBOOK_V3,
    "brasshaven.lorebook_v3l.json": LOREBOOK_V3L,
    "brasshaven.character_book.json": BOOK,
}


def main() -> None:
    for name, obj in FILES.items():
        (HERE / name).write_text(json.dumps(obj, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {name}")


if __name__ == "__main__":
    main()
