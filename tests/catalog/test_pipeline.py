"""Per-file work of a run: safe output writes, deterministic names, typed failures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from interop.catalog.pipeline import RunConfig, process_file, slug, write_output
from interop.errors import OutputError

from .samples import make_card, write_card


def test_write_output_never_overwrites_an_input(tmp_path: Path) -> None:
    source = tmp_path / "card.json"
    source.write_bytes(b"original")
    link = tmp_path / "link.json"
    os.link(source, link)
    for target in (source, link):
        with pytest.raises(OutputError, match="input"):
            write_output(target, b"new", inputs=(source,))
    assert source.read_bytes() == b"original"
    write_output(tmp_path / "sub" / "out.json", b"new", inputs=(source,))
    assert (tmp_path / "sub" / "out.json").read_bytes() == b"new"
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_names_are_deterministic_and_safe(tmp_path: Path) -> None:
    assert slug("Ilse / Varga: the *Captain*") == "Ilse_Varga_the_Captain"
    assert slug("  ") == "untitled" and slug("../..") == "untitled"
    assert slug("魔法少女 ✨") == "魔法少女"
    src = write_card(tmp_path / "in" / "a.json", make_card("Néo/Ark", book_entries=1))
    config = RunConfig(targets=("ccv3",), out_dir=tmp_path / "out", data_dir=tmp_path / "data")
    first = process_file(config, src)
    second = process_file(config, src)
    assert first.targets[0].output_path == second.targets[0].output_path
    out = Path(first.targets[0].output_path or "")
    assert out.parent == tmp_path / "out" / "ccv3"
    assert out.name.startswith("Néo_Ark-") and out.name.endswith(".json")


def test_unreadable_and_unknown_files_fail_with_a_reason(tmp_path: Path) -> None:
    config = RunConfig(targets=("ccv3",), out_dir=tmp_path / "out", data_dir=tmp_path / "data")
    missing = process_file(config, tmp_path / "nope.json")
    assert missing.status == "failed" and missing.error and missing.sha256 is None
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    outcome = process_file(config, empty)
    assert outcome.status == "failed" and outcome.error == "file is empty" and outcome.sha256
