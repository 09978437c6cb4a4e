"""Card JSON and spec lorebook formats: detection and read -> write identity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from deepdiff import DeepDiff

import interop
from interop.errors import InteropError, InvalidCardError, UnknownFormatError
from tests.conftest import corpus_params, project_files, shared_files
from tests.st_exporter import strip_writer_additions
from tests.validator import assert_identity

JSON_FILES = [p for p in project_files("cards") if p.suffix == ".json"] + shared_files("cards-json", "lorebook-v2")


@pytest.mark.parametrize("path", corpus_params(JSON_FILES, "card/lorebook JSON"))
def test_read_write_identity(path: Path) -> None:
    assert_identity(interop.read(path).format, path)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ilse_v3.json", "ccv3"),
        ("ilse_v2_st_mirror.json", "ccv2"),
        ("old_tom_v1.json", "ccv1"),
        ("brasshaven.lorebook_v3.json", "lorebook_v3"),
        ("brasshaven.lorebook_v3l.json", "lorebook_v3"),
        ("brasshaven.character_book.json", "character_book"),
    ],
)
def test_detection_by_content(name: str, expected: str) -> None:
    data = (Path(__file__).parents[2] / "corpus" / "cards" / name).read_bytes()
    assert interop.detect(data) == expected
    assert interop.detect(data, filename="misleading.png") == expected


@pytest.mark.parametrize("spec", ["lorebook_v3", "lorebook_v3l", "chara_book_v2", "chara_book_v3"])
def test_lorebook_wrapper_spellings_are_read_and_written_back(spec: str) -> None:
    raw = {"spec": spec, "data": {"name": "b", "entries": [{"keys": ["k"], "content": "c"}]}}
    doc = interop.read_bytes(json.dumps(raw).encode())
    assert doc.format == "lorebook_v3"
    assert json.loads(interop.write(doc, "lorebook_v3")) == raw


def test_card_to_lorebook_and_back() -> None:
    """The book is copied whole; a cross-format write only adds SillyTavern's flat keys and the
    V3-required fields (``convertWorldInfoToCharacterBook`` in SillyTavern src/endpoints/characters.js)."""
    path = Path(__file__).parents[2] / "corpus" / "cards" / "ilse_v3.json"
    doc = interop.read(path)
    book = json.loads(interop.write(doc, "lorebook_v3"))
    assert book["spec"] == "lorebook_v3"
    source = json.loads(path.read_text())["data"]["character_book"]
    assert strip_writer_additions(source, book["data"]) == source
    assert book["data"]["entries"][0]["extensions"]["depth"] == 4  # the ST namespace's depth, as a flat key
    card = json.loads(interop.write(interop.read_bytes(json.dumps(book).encode()), "ccv3"))
    assert card["data"]["character_book"] == book["data"]
    assert card["data"]["name"] == "Brasshaven Almanac"


def test_card_without_book_to_lorebook_is_a_conversion_error() -> None:
    doc = interop.read(Path(__file__).parents[2] / "corpus" / "cards" / "old_tom_v1.json")
    with pytest.raises(interop.ConversionError):
        interop.write(doc, "lorebook_v3")


def test_newer_spec_version_warns_and_keeps_fields() -> None:
    doc = interop.read(Path(__file__).parents[2] / "corpus" / "cards" / "ilse_v3_1_newer.json")
    assert any("3.1" in w for w in doc.warnings)
    assert json.loads(interop.write(doc, "ccv3"))["data"]["x_future_field"] == {"v": 3.1}


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b'{"spec": "chara_card_v3", "data": "oops"}', InvalidCardError),
        (b'{"spec": "chara_card_v3", "data": {"character_book": {"entries": ["x"]}}}', InvalidCardError),
        (b'{"spec": "chara_card_v3", "data": {"name": "a"', interop.CorruptInputError),
        (b"\x00\x01garbage", UnknownFormatError),
        (b"", InteropError),
    ],
)
def test_bad_input_raises_typed_errors_with_file(data: bytes, error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        interop.read_bytes(data, filename="bad.json")
    assert "bad.json" in str(info.value)


def test_truncated_json_with_explicit_format_reports_position() -> None:
    with pytest.raises(interop.CorruptInputError, match="line 1"):
        interop.read_bytes(b'{"spec": "chara_card_v3", "data": {', format="ccv3", filename="t.json")


# --- issue 11 item 11: a V1 file must be one that we and SillyTavern recognise ---------


@pytest.mark.parametrize(
    "data",
    [
        {"description": "no name at all", "first_mes": "Hello."},
        {"name": None, "description": "a null name", "first_mes": "Hello."},
        {"name": 42, "personality": "a number for a name"},
        {"name": "Only a name"},
    ],
    ids=["absent", "null", "number", "name-only"],
)
def test_v1_output_is_recognised_and_restores_the_card(data: dict) -> None:
    """SillyTavern takes the V1 branch only when ``jsonData.name !== undefined`` and
    then calls ``sanitize(jsonData.name)``, which needs a string
    (src/endpoints/characters.js, ``importFromJson`` and ``importFromPng``); our
    detector also wants the other V1 fields. So a V1 output holds all six fields
    as strings, and the stash gives the original card back."""
    source = {"spec": "chara_card_v3", "spec_version": "3.0", "data": data}
    v1_bytes = interop.write(interop.read_bytes(json.dumps(source).encode(), format="ccv3"), "ccv1")
    v1 = json.loads(v1_bytes)
    for field in ("name", "description", "personality", "scenario", "first_mes", "mes_example"):
        assert isinstance(v1[field], str), field
    assert interop.detect(v1_bytes) == "ccv1"
    back = json.loads(interop.write(interop.read_bytes(v1_bytes), "ccv3"))
    assert DeepDiff(source, back) == {}


def test_v1_to_v3_to_v1_adds_no_field_the_v1_file_lacked() -> None:
    path = Path(__file__).parents[2] / "corpus" / "cards" / "old_tom_v1.json"
    v3 = interop.write(interop.read(path), "ccv3")
    v1 = json.loads(interop.write(interop.read_bytes(v3), "ccv1"))
    original = json.loads(path.read_text(encoding="utf-8"))
    assert set(v1) - set(original) <= {"extensions"}


def _views_against_dumps(model: object) -> None:
    """``dump_view`` and ``model_json`` are ``dump`` and ``dump_json(dump())``, for a model and each nested one."""
    from interop.formats.ccv3.card_json import model_json
    from interop.jsonio import dump_json
    from interop.model.view import dump_view

    assert repr(dump_view(model)) == repr(model.dump())  # type: ignore[attr-defined]
    for pretty in (True, False):
        assert model_json(model, pretty) == dump_json(model.dump(), pretty=pretty)  # type: ignore[attr-defined, arg-type]
    wrapped = model_json(model, True, {"spec": "x"})  # type: ignore[arg-type]
    assert wrapped == dump_json({"spec": "x", "data": model.dump()})  # type: ignore[attr-defined]


def test_json_view_is_the_dump() -> None:
    """Every corpus card and book, as read and as the card writers give them (ST-readable books added)."""
    from interop.memo import document_scope
    from interop.transforms.card_for_target import book_for, card_for

    checked = 0
    for path in [*project_files("cards", "png", "charx", "risu", "agnai", "novelai"), *shared_files(
        "cards-json", "cards-png", "charx", "lorebook-v2", "risu", "st-worldinfo", "novelai"
    )]:
        try:
            doc = interop.read(path)
        except InteropError:
            continue
        with document_scope():
            if doc.card is not None:
                _views_against_dumps(doc.card)
                _views_against_dumps(card_for(doc, "ccv3"))
                checked += 1
            if doc.book is not None:
                _views_against_dumps(doc.book)
                _views_against_dumps(book_for(doc, "lorebook_v3"))
                checked += 1
    assert checked > 40


def test_model_json_falls_back_to_dump() -> None:
    """A value ``dump`` converts (a model inside an ``extensions`` dict, built in code) is written as
    ``dump`` writes it."""
    from interop.formats.ccv3.card_json import model_json
    from interop.jsonio import dump_json
    from interop.model import Lorebook, LorebookEntry

    book = Lorebook.model_validate({"entries": [{"keys": ["a"]}]})
    book.entries[0].extensions = {"inner": LorebookEntry.model_validate({"content": "x"})}
    assert model_json(book, True) == dump_json(book.dump())
    assert b'"inner": {\n' in model_json(book, True)
