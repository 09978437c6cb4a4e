"""``Limits.max_entries`` (issue 23, item 4): a 120 KB ``.byaf`` with 50,000 lore items (about 10 s of
conversion) is refused while reading with a typed error; the limit can be raised."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from interop.api import read_bytes
from interop.cli import EXIT_INPUT, cli
from interop.errors import LimitExceededError
from interop.limits import DEFAULT_LIMITS, Limits
from interop.model import Lorebook
from tests.zip_bytes import zip_of

ITEMS = 50_000


def many_lore_items(count: int = ITEMS) -> bytes:
    """A Backyard archive (layout of ahoylabs/byaf specs/v1, as the backyard reader's tests build it)
    whose character carries ``count`` lore items; deflated, ~2.4 bytes per item."""
    manifest = {"characters": ["characters/c/character.json"], "scenarios": ["scenarios/s.json"]}
    character = {"name": "N", "persona": "p", "loreItems": [{"key": f"k{i}", "value": "v"} for i in range(count)]}
    return zip_of(
        {
            "manifest.json": json.dumps(manifest).encode(),
            "characters/c/character.json": json.dumps(character).encode(),
            "scenarios/s.json": b'{"narrative": "x"}',
        }
    )


def world(count: int) -> bytes:
    return json.dumps({"entries": {str(i): {"uid": i, "key": ["a"], "content": "c"} for i in range(count)}}).encode()


def test_default_is_ten_thousand() -> None:
    assert DEFAULT_LIMITS.max_entries == 10_000


def test_a_small_byaf_with_fifty_thousand_items_is_refused_before_conversion() -> None:
    data = many_lore_items()
    assert len(data) < 200_000
    started = time.process_time()
    with pytest.raises(LimitExceededError, match="50000 lorebook entries, more than the limit of 10000") as caught:
        read_bytes(data, filename="many.byaf")
    assert caught.value.file == "many.byaf"
    assert caught.value.location is not None and "loreItems" in caught.value.location
    assert time.process_time() - started < 2.0  # reading and converting them all took ~10 s


def test_the_limit_can_be_raised() -> None:
    doc = read_bytes(many_lore_items(12), filename="few.byaf", limits=Limits(max_entries=12))
    assert doc.card is not None and doc.card.data.character_book is not None
    assert len(doc.card.data.character_book.entries) == 12


def test_every_reader_counts_through_the_canonical_book() -> None:
    # A SillyTavern world has no reader-level count: the canonical Lorebook is counted on construction.
    with pytest.raises(LimitExceededError, match="6 lorebook entries, more than the limit of 5") as caught:
        read_bytes(world(6), filename="w.json", limits=Limits(max_entries=5))
    assert caught.value.file == "w.json"
    doc = read_bytes(world(6), filename="w.json", limits=Limits(max_entries=6))
    assert doc.lorebook is not None and len(doc.lorebook.entries) == 6


def test_the_cli_says_it_in_one_line_and_can_raise_it(tmp_path: Path) -> None:
    path = tmp_path / "many.byaf"
    path.write_bytes(many_lore_items(12))
    runner = CliRunner()
    refused = runner.invoke(cli, ["--limit", "max_entries=11", "inspect", str(path)])
    assert refused.exit_code == EXIT_INPUT
    assert "12 lorebook entries, more than the limit of 11" in refused.output
    assert "Traceback" not in refused.output
    assert runner.invoke(cli, ["--limit", "max_entries=12", "inspect", str(path)]).exit_code == 0


def test_books_built_outside_a_read_are_not_counted() -> None:
    # A book read under a raised limit stays usable by conversions, which rebuild canonical models.
    book = Lorebook.model_validate({"entries": [{"keys": ["a"], "content": "c"}] * (DEFAULT_LIMITS.max_entries + 1)})
    assert len(book.entries) == DEFAULT_LIMITS.max_entries + 1
