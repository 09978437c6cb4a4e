"""NovelAI: ``.lorebook`` (versions 1-6), lorebooks nested in ``.scenario`` and story exports, and
``naidata`` PNGs; identity round trips, the canonical mapping and the CLI."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from deepdiff import DeepDiff
from hypothesis import HealthCheck, given, settings
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from interop.api import detect, read, read_bytes, write
from interop.cli import cli
from interop.containers.png import text_chunks
from interop.errors import ConversionError, InteropError, InvalidCardError
from interop.formats.novelai.lorebook import KEY_SYNTAX, lorebook_from_novelai, novelai_from_lorebook, translated_keys
from interop.model import Lorebook, LorebookEntry
from tests.conftest import PROJECT_CORPUS, corpus_params, project_files, shared_files
from tests.strategies import json_value
from tests.strategies import lorebook as lorebook_strategy
from tests.validator import assert_identity

PROJECT = [p for p in project_files("novelai") if p.suffix != ".py"]
SHARED = shared_files("novelai")
JSON_FILES = [p for p in PROJECT + SHARED if p.suffix != ".png"]
EXPECTED_FORMAT = {
    ".lorebook": "novelai-lorebook",
    ".scenario": "novelai-scenario",
    ".story": "novelai-story",
    ".png": "novelai-png",
}


def parsed(data: bytes) -> Any:
    return json.loads(data)


def naidata(png: bytes) -> Any:
    [chunk] = [c for c in text_chunks(png) if c.keyword == "naidata"]
    return json.loads(base64.b64decode(chunk.text))


def png_with(texts: dict[str, str]) -> bytes:
    info = PngInfo()
    for key, value in texts.items():
        info.add_text(key, value)
    out = io.BytesIO()
    Image.new("RGB", (4, 4), (1, 2, 3)).save(out, format="PNG", pnginfo=info)
    return out.getvalue()


# --- identity over every file --------------------------------------------------------------------


@pytest.mark.parametrize("path", corpus_params(JSON_FILES, "NovelAI JSON"))
def test_json_containers_written_back_identical(path: Path) -> None:
    assert_identity(EXPECTED_FORMAT[path.suffix], path)


@pytest.mark.parametrize("path", corpus_params(JSON_FILES, "NovelAI JSON"))
def test_novelai_to_canonical_json_to_novelai(path: Path) -> None:
    """The canonical tree alone (through JSON, no Document metadata) is enough to rebuild the lorebook."""
    obj = parsed(path.read_bytes())
    lorebook = {".scenario": lambda o: o["lorebook"], ".story": lambda o: o["content"]["lorebook"]}.get(
        path.suffix, lambda o: o
    )(obj)
    canonical = json.loads(json.dumps(lorebook_from_novelai(lorebook).dump()))
    assert DeepDiff(lorebook, novelai_from_lorebook(Lorebook.model_validate(canonical))) == {}


@pytest.mark.parametrize("path", corpus_params([p for p in PROJECT if p.suffix == ".png"], "naidata PNG"))
def test_naidata_png_written_back_identical(path: Path) -> None:
    data = path.read_bytes()
    out = write(assert_identity("novelai-png", path), "novelai-png")
    assert [(c.keyword, c.text) for c in text_chunks(out)] == [(c.keyword, c.text) for c in text_chunks(data)]
    assert Image.open(io.BytesIO(out)).size == Image.open(io.BytesIO(data)).size


@pytest.mark.parametrize("path", corpus_params(PROJECT, "corpus/novelai"))
def test_canonical_golden(path: Path, snapshot: Any) -> None:
    doc = read(path)
    snapshot.assert_match(json.dumps(doc.lorebook.dump(), ensure_ascii=False, indent=2) + "\n", f"{path.name}.json")


# --- the mapping -------------------------------------------------------------------------------------


def test_every_entry_field_is_mapped() -> None:
    book = read(PROJECT_CORPUS / "novelai" / "veyra_v6.lorebook").lorebook
    veyra, council, setting, lamps, bell, salt = book.entries
    assert veyra.content.startswith("Veyra is a canal city") and veyra.name == "Veyra (city)"
    assert veyra.keys == ["Veyra", "/\\bcanal[- ]city\\b/i", "leviathan"]  # as written, mixed
    assert veyra.use_regex is None and veyra.ext("novelai")["key_syntax"] == KEY_SYNTAX
    assert "key_syntax" not in salt.ext("novelai")
    assert veyra.id == "9f1c0001-7d2e-4b3a-8c5d-6e7f8091a2b3"
    assert (veyra.priority, veyra.insertion_order) == (400, 400)
    assert setting.constant is True and veyra.constant is False  # forceActivation is constant
    assert bell.enabled is False
    native = lamps.ext("novelai")["entry"]
    assert native["keyRelative"] is True and native["nonStoryActivatable"] is True
    assert native["contextConfig"]["allowInsertionInside"] is True and "budgetPriority" not in native["contextConfig"]
    assert council.ext("novelai")["entry"]["loreBiasGroups"][0]["phrases"] == ["Tide Council", "low water"]
    assert salt.ext("novelai")["entry"]["hidden"] is True
    lorebook = book.ext("novelai")["lorebook"]
    assert lorebook["lorebookVersion"] == 6 and lorebook["settings"] == {"orderByKeyLocations": True}
    assert lorebook["categories"][0]["subcontextSettings"]["contextConfig"]["tokenBudget"] == 0.2


def test_priority_wins_over_insertion_order_on_write() -> None:
    book = read(PROJECT_CORPUS / "novelai" / "veyra_v6.lorebook").lorebook
    book.entries[0].priority = 999
    book.entries[1].priority = None  # explicit null stays a null budgetPriority
    out = novelai_from_lorebook(book)
    assert out["entries"][0]["contextConfig"]["budgetPriority"] == 999
    assert out["entries"][1]["contextConfig"]["budgetPriority"] is None


def test_entries_from_other_platforms_get_novelai_defaults_and_translated_keys() -> None:
    book = Lorebook.model_validate(
        {
            "name": "ST book",
            "recursive_scanning": True,
            "entries": [
                {
                    "keys": ["dragon", "/wyrm/i"],
                    "content": "Dragons.",
                    "constant": True,
                    "insertion_order": 50,
                    "comment": "Dragons",
                    "id": 3,
                },
                {"keys": ["foo.*bar"], "content": "Regex.", "use_regex": True, "priority": 7, "case_sensitive": True},
                {"keys": ["Mr. Smith", "smith"], "content": "Case.", "case_sensitive": True},
            ],
        }
    )
    out = novelai_from_lorebook(book)
    assert out["lorebookVersion"] == 5 and out["categories"] == [] and out["settings"] == {"orderByKeyLocations": False}
    first, second, third = out["entries"]
    assert first["forceActivation"] is True and first["displayName"] == "Dragons" and "id" not in first
    assert first["contextConfig"]["budgetPriority"] == 50 and first["searchRange"] == 1000
    assert first["nonStoryActivatable"] is True and first["keys"] == ["dragon", "/wyrm/i"]
    assert second["keys"] == ["/foo.*bar/"] and second["contextConfig"]["budgetPriority"] == 7
    assert third["keys"] == ["/\\bMr\\. Smith\\b/", "/\\bsmith\\b/"]
    assert translated_keys(LorebookEntry(keys=["a/b"], use_regex=True)) == ["/a\\/b/i"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lorebook_strategy)
def test_any_lorebook_becomes_a_valid_novelai_lorebook(raw: dict[str, Any]) -> None:
    book = Lorebook.model_validate(raw)
    out = json.loads(json.dumps(novelai_from_lorebook(book)))
    assert isinstance(out["lorebookVersion"], int) and len(out["entries"]) == len(book.entries)
    for entry, native in zip(book.entries, out["entries"], strict=True):
        assert isinstance(native["keys"], list) and all(isinstance(k, str) for k in native["keys"])
        if isinstance(entry.constant, bool):
            assert native["forceActivation"] is entry.constant
        elif not entry.has("constant"):
            assert native["forceActivation"] is False
        assert isinstance(native["contextConfig"], dict)
        if isinstance(entry.content, str):
            assert native["text"] == entry.content
    again = novelai_from_lorebook(lorebook_from_novelai(out))
    assert DeepDiff(out, again) == {}  # what we write is a fixed point


def test_sillytavern_importer_mistake_is_not_repeated() -> None:
    """SillyTavern's importer writes constant:false for forceActivation entries; we keep it true both ways."""
    native = {"lorebookVersion": 5, "entries": [{"text": "x", "keys": [], "forceActivation": True}]}
    book = lorebook_from_novelai(native)
    assert book.entries[0].constant is True
    assert novelai_from_lorebook(book) == native


def test_bad_lorebooks_raise_typed_errors() -> None:
    with pytest.raises(InvalidCardError) as err:
        read_bytes(b'{"lorebookVersion": 3, "entries": [1]}', filename="x.lorebook")
    assert err.value.location == "entries[0]"
    with pytest.raises(InvalidCardError) as err:
        read_bytes(b'{"scenarioVersion": 1, "lorebook": {"lorebookVersion": 3, "entries": {"a": 1}}}')
    assert err.value.location == "lorebook.entries"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_value, json_value)
def test_garbage_read_as_any_of_our_formats_raises_only_typed_errors(entries: Any, inner: Any) -> None:
    shapes = [
        entries,
        {"lorebookVersion": 1, "entries": entries, "categories": inner},
        {"lorebookVersion": 6, "entries": [entries, inner]},
        {"scenarioVersion": 1, "lorebook": {"lorebookVersion": 2, "entries": [inner]}, "title": entries},
        {"storyContainerVersion": 1, "metadata": entries, "content": {"lorebook": {"entries": [inner]}}},
        {"kind": "memory", "name": entries, "entries": [inner], "extensions": {"interop_agnai": entries}},
        {
            "kind": "character",
            "name": entries,
            "persona": inner,
            "characterBook": {"kind": "memory", "entries": [inner]},
        },
    ]
    formats = ("novelai-lorebook", "novelai-scenario", "novelai-story", "agnai-book", "agnai-character")
    for shape in shapes:
        data = json.dumps(shape).encode()
        for fmt in formats:
            try:
                doc = read_bytes(data, format=fmt)
            except InteropError:
                continue
            for target in (fmt, "novelai-lorebook", "agnai-book"):
                try:
                    write(doc, target)
                except InteropError:
                    pass


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6])
def test_every_known_version_reads_without_warning(version: int) -> None:
    raw = {"lorebookVersion": version, "entries": [{"text": "t", "keys": ["k"], "displayName": "d"}]}
    doc = read_bytes(json.dumps(raw).encode(), filename="v.lorebook")
    assert doc.format == "novelai-lorebook" and doc.warnings == []
    assert parsed(write(doc, "novelai-lorebook")) == raw


def test_unknown_version_warns_but_keeps_everything() -> None:
    doc = read_bytes(b'{"lorebookVersion": 9, "entries": [], "newThing": {"a": 1}}')
    assert any("lorebookVersion 9" in w for w in doc.warnings)
    assert parsed(write(doc, "novelai-lorebook")) == {"lorebookVersion": 9, "entries": [], "newThing": {"a": 1}}


# --- containers ---------------------------------------------------------------------------------------


def test_scenario_gives_its_title_and_extracts_to_a_lorebook(tmp_path: Path) -> None:
    source = PROJECT_CORPUS / "novelai" / "quiet_abbey.scenario"
    doc = read(source)
    assert doc.format == "novelai-scenario" and doc.lorebook.name == "The Quiet Abbey"
    lorebook = parsed(write(doc, "novelai-lorebook"))
    assert DeepDiff(parsed(source.read_bytes())["lorebook"], lorebook) == {}


def test_new_scenario_from_a_card() -> None:
    doc = read(PROJECT_CORPUS / "cards" / "ilse_v3.json")
    out = parsed(write(doc, "novelai-scenario"))
    data = doc.card.data
    assert out["title"] == data.name and out["prompt"] == data.first_mes
    assert out["context"][0]["text"].startswith(data.description)
    assert out["context"][0]["contextConfig"]["budgetPriority"] == 800
    assert read_bytes(json.dumps(out).encode()).format == "novelai-scenario"


def test_story_needs_a_story_to_write_back() -> None:
    story = read(PROJECT_CORPUS / "novelai" / "canals_of_veyra.story")
    assert story.lorebook.name == "Canals of Veyra" and len(story.lorebook.entries) == 2
    with pytest.raises(ConversionError):
        write(read(PROJECT_CORPUS / "novelai" / "veyra_v6.lorebook"), "novelai-story")


def test_naidata_png_reads_json_or_base64_and_leaves_card_pngs_to_png() -> None:
    book = {"lorebookVersion": 4, "entries": [{"text": "x", "keys": ["k"]}]}
    raw = png_with({"naidata": json.dumps(book)})
    doc = read_bytes(raw)
    assert doc.format == "novelai-png" and doc.lorebook.entries[0].keys == ["k"]
    assert doc.native["novelai-png"]["encoding"] == "json"
    out = write(doc, "novelai-png")
    [chunk] = [c for c in text_chunks(out) if c.keyword == "naidata"]
    assert json.loads(chunk.text) == book
    carded = png_with({"naidata": base64.b64encode(json.dumps(book).encode()).decode(), "chara": "e30="})
    assert detect(carded) == "png"
    scenario = {"scenarioVersion": 1, "title": "T", "lorebook": book}
    doc = read_bytes(png_with({"naidata": base64.b64encode(json.dumps(scenario).encode()).decode()}))
    assert doc.lorebook.name == "T"
    assert naidata(write(doc, "novelai-png")) == scenario


def test_card_png_to_novelai_png_drops_the_card_chunks() -> None:
    card_png = next(p for p in project_files("png") if p.suffix == ".png" and read(p).book is not None)
    doc = read(card_png)
    out = read_bytes(write(doc, "novelai-png"))
    assert out.format == "novelai-png" and len(out.lorebook.entries) == len(doc.book.entries)


def test_lorebook_to_naidata_png() -> None:
    doc = read(PROJECT_CORPUS / "novelai" / "veyra_v6.lorebook")
    png = write(doc, "novelai-png")
    assert DeepDiff(parsed((PROJECT_CORPUS / "novelai" / "veyra_v6.lorebook").read_bytes()), naidata(png)) == {}


# --- other platforms through NovelAI -------------------------------------------------------------------


def test_agnai_book_to_novelai_and_back_keeps_keys_and_numbers() -> None:
    doc = read(PROJECT_CORPUS / "agnai" / "book_editor.json")
    out = parsed(write(doc, "novelai-lorebook"))
    assert [e["keys"] for e in out["entries"]][:2] == [
        ["lantern inn", "tavern", "inn*"],
        ["Mrs. Quill", "harbourmaster", "ledger"],
    ]
    assert out["entries"][0]["contextConfig"]["budgetPriority"] == 80  # Agnai priority: budget order


# --- CLI --------------------------------------------------------------------------------------------------


def _scenario_with_categories(tmp_path: Path) -> Path:
    """The project's scenario holding the project's categorised book (veyra_v6), for runs without ../shared:
    quiet_abbey's own book has no categories, which the test below needs (issue 23 item 12)."""
    scenario = json.loads((PROJECT_CORPUS / "novelai" / "quiet_abbey.scenario").read_bytes())
    scenario["lorebook"] = json.loads((PROJECT_CORPUS / "novelai" / "veyra_v6.lorebook").read_bytes())
    path = tmp_path / "categorised.scenario"
    path.write_text(json.dumps(scenario, ensure_ascii=False), encoding="utf-8")
    return path


def test_cli_extracts_a_scenario_lorebook_and_inspects_it(tmp_path: Path) -> None:
    runner = CliRunner()
    shared = [p for p in SHARED if p.suffix == ".scenario"]
    source = shared[0] if shared else _scenario_with_categories(tmp_path)
    out = tmp_path / "book.lorebook"
    result = runner.invoke(cli, ["convert", str(source), "--to", "novelai-lorebook", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert DeepDiff(parsed(source.read_bytes())["lorebook"], parsed(out.read_bytes())) == {}
    result = runner.invoke(
        cli, ["inspect", "--json", str(source), str(PROJECT_CORPUS / "novelai" / "veyra_v6.lorebook")]
    )
    assert result.exit_code == 0, result.output
    scenario, veyra = json.loads(result.output)
    assert scenario["format"] == "novelai-scenario" and scenario["facts"]["categories"]
    assert veyra["facts"]["search_ranges"] == "500..2400 (3 distinct)"
    assert veyra["facts"]["categories"] == ["Places (1 entries, subcontext)", "People (2 entries)"]
    assert veyra["facts"]["regex_keys"] == 3 and veyra["facts"]["force_activation"] == 1
    result = runner.invoke(cli, ["convert", str(source), "--to", "agnai-book", "-o", str(tmp_path / "a.json")])
    assert result.exit_code == 0, result.output
    assert parsed((tmp_path / "a.json").read_bytes())["kind"] == "memory"
