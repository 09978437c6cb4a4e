"""The report's output view straight from the parsed JSON (``view.view_of_json``, ``Compared.read``)
is what reading the output back gives (``view_of(read_bytes(...))``, ``Compared.of``), and the
report built on it is the same JSON, byte for byte."""

from __future__ import annotations

import json
import marshal
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interop.api import read_bytes, write
from interop.errors import InteropError
from interop.fidelity import output_pair
from interop.fidelity.output_pair import Compared
from interop.fidelity.report import fidelity_report, read_back
from interop.fidelity.view import CanonicalView, view_of, view_of_json
from interop.limits import Limits
from interop.memo import document_scope
from interop.platform.registry import Probe
from tests import strategies
from tests.conftest import project_files, shared_files

TARGETS = ("ccv3", "ccv2", "lorebook_v3", "character_book")
DATED = ("extensions", "creation_date", "modification_date", "name")


def _key(view: CanonicalView) -> bytes:
    """Strict equality: marshal tells key order, 1 / 1.0 / true and nesting apart."""
    fields = (view.kind, view.root, view.card, view.book, view.entries, view.has_book_key)
    return marshal.dumps((*fields, view.assets, view.members, view.image), 2)


def _general(data: bytes, target: str) -> CanonicalView | None:
    try:
        return view_of(read_bytes(data, format=target))
    except InteropError:
        return None


def _sources() -> list[Path]:
    files = shared_files("cards-json", "cards-png", "charx", "lorebook-v2", "risu", "st-worldinfo", "novelai")
    files += project_files("cards", "png", "charx", "risu", "agnai", "novelai", "backyard", "pygmalion")
    return files[::3] if len(files) > 150 else files  # a spread of every kind, in a few seconds


def _corpus_outputs() -> Iterator[tuple[Path, Any, str, bytes]]:
    """(source path, its document, target, output bytes) for every corpus file each target writes."""
    for path in _sources():
        try:
            doc = read_bytes(path.read_bytes(), filename=str(path))
        except InteropError:
            continue
        for target in TARGETS:
            try:
                yield path, doc, target, write(doc, target)
            except InteropError:
                continue


def test_corpus_outputs_view_as_read_back() -> None:
    fast = 0
    for path, _doc, target, data in _corpus_outputs():
        view = view_of_json(Probe(data).json, target)
        if view is not None:
            fast += 1
            general = _general(data, target)
            assert general is not None and _key(view) == _key(general), (path.name, target)
    assert fast > 20  # the fast path is the usual one (it can fail: every view above is checked)


def _shuffled(value: dict[str, Any], seed: int) -> dict[str, Any]:
    keys = list(value)
    random.Random(seed).shuffle(keys)
    return {k: value[k] for k in keys}


odd = st.sampled_from([None, 1, 1.5, True, "x", [], {}, [1, "a"], {"a": None}])
"""Off-type values: what a lenient field keeps and a nested model refuses."""


@st.composite
def _card_json(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    card = draw(strategies.card_v3)
    if draw(st.booleans()):
        card["spec"] = draw(st.sampled_from(["chara_card_v2", "chara_card_v3", "other", None, 3]))
    if draw(st.booleans()):
        _off_type(draw, card)
    if draw(st.booleans()):
        card = _reordered(draw, card)
    if draw(st.booleans()) and isinstance(card.get("data"), dict):  # a data-URL asset, maybe broken
        uri = draw(st.sampled_from(["data:image/png;base64,iVBORw0KGgo=", "data:image/png;base64,%%", "data:x"]))
        card["data"]["assets"] = [{"type": "icon", "uri": uri, "name": "main", "ext": "png"}]
    return card, draw(st.sampled_from(["ccv3", "ccv2"]))


def _off_type(draw: st.DrawFn, card: dict[str, Any]) -> None:
    """An off-type value somewhere in ``card``, nested models included."""
    data = card["data"]
    where = draw(st.sampled_from(["root", "data", "book", "entry", "asset", "data_itself", "entries"]))
    book = data.get("character_book")
    value = draw(odd)
    if where == "root":
        card["spec_version"] = value
    elif where == "data":
        data[draw(st.sampled_from(["name", "tags", "extensions", "character_book", "assets"]))] = value
    elif where == "data_itself":
        card["data"] = value
    elif where == "book" and isinstance(book, dict):
        book[draw(st.sampled_from(["name", "scan_depth", "entries"]))] = value
    elif where == "entry" and isinstance(book, dict) and book["entries"]:
        book["entries"][0][draw(st.sampled_from(["keys", "id", "enabled", "extensions"]))] = value
    elif where == "entries" and isinstance(book, dict):
        book["entries"].append(value)
    elif where == "asset" and data.get("assets"):
        data["assets"][0] = value if draw(st.booleans()) else {**data["assets"][0], "uri": value}


def _reordered(draw: st.DrawFn, card: dict[str, Any]) -> dict[str, Any]:
    """``card`` with the keys of one of its objects out of the model's order."""
    data = card["data"]
    seed = draw(st.integers(0, 1000))
    level = draw(st.sampled_from(["root", "data", "book", "entry"]))
    book = data.get("character_book") if isinstance(data, dict) else None
    if level == "root":
        card = _shuffled(card, seed)
    elif level == "data" and isinstance(data, dict):
        card["data"] = _shuffled(data, seed)
    elif level == "book" and isinstance(book, dict):
        data["character_book"] = _shuffled(book, seed)
    elif level == "entry" and isinstance(book, dict) and book.get("entries"):
        entries = book["entries"]
        if isinstance(entries, list) and isinstance(entries[0], dict):
            entries[0] = _shuffled(entries[0], seed)
    return card


@st.composite
def _book_json(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    book = draw(strategies.lorebook)
    if draw(st.booleans()):
        book[draw(st.sampled_from(["entries", "name", "extensions"]))] = draw(odd)
    if draw(st.booleans()):
        book = _shuffled(book, draw(st.integers(0, 1000)))
    if draw(st.booleans()):
        return book, "character_book"
    wrapper: dict[str, Any] = {"spec": draw(st.sampled_from(["lorebook_v3", "chara_book_v3"])), "data": book}
    if draw(st.booleans()):
        wrapper = {"data": book, "spec": wrapper["spec"], "x_extra": 1}
    return wrapper, "lorebook_v3"


@settings(max_examples=300, deadline=None)
@given(st.one_of(_card_json(), _book_json()))
def test_json_view_is_the_read_back_view_or_none(case: tuple[dict[str, Any], str]) -> None:
    value, target = case
    data = json.dumps(value, ensure_ascii=False).encode()
    view = view_of_json(Probe(data).json, target)
    if view is not None:
        general = _general(data, target)
        assert general is not None, "the fast path took JSON the reader refuses"
        assert _key(view) == _key(general)


def test_json_view_declines_what_the_reader_counts_or_cannot_take() -> None:
    book = {"entries": [{"keys": ["a"], "content": "x"}] * 3}
    assert view_of_json(book, "character_book") is not None
    assert view_of_json(book, "character_book", Limits(max_entries=2)) is None  # the reader raises
    assert view_of_json({"spec": "lorebook_v3", "data": {"entries": {}}}, "lorebook_v3") is None
    assert view_of_json({"entries": [], "name": "b"}, "character_book") is None  # dump writes name first
    stash = {"spec": "chara_card_v2", "data": {"name": "a", "extensions": {"interop": {}}}}
    assert view_of_json(stash, "ccv2") is None  # to_v3 restores a stash
    assert view_of_json({"spec": "chara_card_v2", "data": {"name": "a"}}, "ccv2") is not None
    assert view_of_json({"spec": "chara_card_v3", "data": {"name": "a"}}, "risu") is None  # not a JSON reader


def _reports(doc: Any, target: str, data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, bool]:
    """The report on ``data`` through ``Compared.read``, and with the output read back (``view_of_json``
    refusing everything), each in its own document scope; and whether the fast path was taken."""
    with document_scope():
        compared = Compared.read(doc, data, target, doc.source, lambda: read_back(data, target, doc.source))
        took = compared.output_json is not None
        fast = fidelity_report(doc, target, data).to_json_text()
    with monkeypatch.context() as patched, document_scope():
        patched.setattr(output_pair, "view_of_json", lambda *args: None)
        general = fidelity_report(doc, target, data).to_json_text()
    return fast, general, took


def test_reports_on_json_views_are_the_read_back_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_paths = 0
    for path, doc, target, data in _corpus_outputs():
        fast, general, took = _reports(doc, target, data, monkeypatch)
        assert fast == general, (path.name, target)
        fast_paths += took
    assert fast_paths > 20


def test_accessors_read_what_the_document_holds() -> None:
    """``output_card_fields`` / ``output_entry_extensions`` from the JSON and from the read-back document."""
    ext = {"interop": {"dates": {"text": {"creation_date": "x"}}}}
    card = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {
            "name": "a",
            "extensions": ext,
            "character_book": {
                "entries": [{"keys": ["k"], "extensions": {"risuai": {"decorators": {}}}}, {"keys": ["j"]}]
            },
            "creation_date": 5,
        },
    }
    book = {"spec": "lorebook_v3", "data": {"entries": [{"keys": ["k"], "extensions": None}]}}
    cases = [
        (card, "ccv3"),
        ({"spec": "chara_card_v3", "data": {"name": "a"}}, "ccv3"),
        ({"spec": "chara_card_v3"}, "ccv3"),
        (book, "lorebook_v3"),
        (book["data"], "character_book"),
        ({"spec": "lorebook_v3", "data": {}}, "lorebook_v3"),
    ]
    for value, target in cases:
        data = json.dumps(value).encode()
        source = read_bytes(data, format=target)
        fast = Compared.read(source, data, target, None, lambda: read_back(data, target))  # noqa: B023
        assert fast.output_json is not None, value
        general = Compared.of(source, read_back(data, target), target)
        assert fast.output_card_fields(DATED) == general.output_card_fields(DATED)
        assert fast.output_entry_extensions() == general.output_entry_extensions()
        assert fast.output_doc is not None and fast.output_json is not None  # read on demand
        assert fast.output_card_fields(DATED) == general.output_card_fields(DATED)  # now from the document
