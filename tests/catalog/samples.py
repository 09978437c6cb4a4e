"""Small synthetic cards and lorebooks for the catalog tests, written with our own writers."""

from __future__ import annotations

from pathlib import Path

from interop.api import write
from interop.document import Document
from interop.model import V3_SPEC, Card, CardData, Lorebook, LorebookEntry

WORDS = ("lute", "dragon", "castle", "river", "moon", "sword", "tavern", "forest", "storm", "oracle")


def make_book(name: str, n: int, seed: int = 0) -> Lorebook:
    entries = []
    for i in range(n):
        word = WORDS[(seed + i) % len(WORDS)]
        entries.append(
            LorebookEntry(
                keys=[word, f"{word}{seed}"],
                secondary_keys=[] if i % 2 else ["night"],
                content=f"{name}: the {word} number {i} (seed {seed}) matters here.",
                extensions={},
                enabled=True,
                insertion_order=i,
                use_regex=False,
                constant=i == 0,
                selective=i % 2 == 0,
                comment=f"{word} entry",
            )
        )
    return Lorebook(name=name, description=f"{name} lore", extensions={}, entries=entries)


def make_card(name: str, *, book_entries: int = 0, seed: int = 0, tags: tuple[str, ...] = ("fantasy",)) -> Card:
    data = CardData(
        name=name,
        description=f"{name} is character number {seed}.",
        personality="curious",
        scenario="A tavern at dusk.",
        first_mes=f"Hello, I am {name}.",
        mes_example="<START>\n{{user}}: hi\n{{char}}: hello",
        creator_notes="",
        system_prompt="",
        post_history_instructions="",
        alternate_greetings=[f"Hi from {name}"],
        group_only_greetings=[],
        tags=list(tags),
        creator="tester" if seed % 2 == 0 else "other",
        character_version="1.0",
        extensions={},
    )
    if book_entries:
        data.character_book = make_book(f"{name} lore", book_entries, seed)
    return Card(spec=V3_SPEC, spec_version="3.0", data=data)


def write_card(path: Path, card: Card, fmt: str = "ccv3", *, pretty: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(write(Document(format="ccv3", card=card), fmt, pretty=pretty))
    return path


def write_book(path: Path, book: Lorebook, fmt: str = "lorebook_v3") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(write(Document(format="lorebook_v3", lorebook=book), fmt))
    return path


def make_folder(folder: Path, n: int) -> list[Path]:
    """``n`` distinct files cycling through card and lorebook formats."""
    files = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            files.append(write_card(folder / f"c{i:04d}.json", make_card(f"Hero {i}", book_entries=3, seed=i)))
        elif kind == 1:
            files.append(write_card(folder / f"v2_{i:04d}.json", make_card(f"Rogue {i}", seed=i), "ccv2"))
        elif kind == 2:
            files.append(write_book(folder / f"b{i:04d}.json", make_book(f"World {i}", 4, i)))
        else:
            files.append(write_book(folder / f"cb{i:04d}.json", make_book(f"Realm {i}", 2, i), "character_book"))
    return files
