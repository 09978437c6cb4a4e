"""The report's read-back reuses what our JSON writers wrote in the same ``document_scope``:

- ``jsonio.written_json``: output text orjson wrote is parsed by ``orjson.loads`` alone (``load_json``'s
  checks cannot fire on it);
- ``view._dumped``: a source card the ccv3 writer dumped is viewed from its ``json_view``, not dumped again.

Each is compared with the general path (nothing recorded: a fresh scope), strictly."""

from __future__ import annotations

import marshal
from typing import Any

import pytest
from hypothesis import given, settings

from interop import jsonio
from interop.api import read_bytes, write
from interop.errors import InteropError, LimitExceededError
from interop.fidelity.output_pair import Compared
from interop.fidelity.report import fidelity_report, read_back
from interop.fidelity.view import CanonicalView, _dumped
from interop.formats.ccv3.card_json import model_json
from interop.jsonio import NOT_WRITTEN, dump_json_orjson, load_json, written_json
from interop.limits import Limits
from interop.memo import document_scope
from interop.model import Asset, Card
from tests import strategies
from tests.fidelity.test_output_json_view import TARGETS, _corpus_outputs
from tests.test_jsonio import _any_json

pytest.importorskip("orjson")


def _key(view: CanonicalView | None) -> bytes:
    """Strict equality: marshal tells key order, 1 / 1.0 / true and nesting apart."""
    if view is None:
        return b""
    fields = (view.kind, view.root, view.card, view.book, view.entries, view.has_book_key)
    return marshal.dumps((*fields, view.assets, view.members, view.image), 2)


def _compared(doc: Any, target: str, data: bytes) -> Compared:
    return Compared.read(doc, data, target, doc.source, lambda: read_back(data, target, doc.source))


def _load_outcome(text: bytes, limits: Limits) -> tuple[str, str]:
    try:
        return "value", repr(load_json(text, limits=limits))
    except InteropError as exc:
        return type(exc).__name__, exc.reason


@settings(max_examples=300, deadline=None)
@given(_any_json)
def test_written_json_is_load_json_on_orjson_text(value: object) -> None:
    """``written_json`` on text ``dump_json_orjson`` wrote gives ``load_json``'s value (repr: ints, floats,
    key order told apart), or declines; text it did not write is declined."""
    for pretty in (True, False):
        with document_scope():
            out = dump_json_orjson(value, pretty=pretty)
            if out is None:  # orjson refuses it (an integer past 64 bits, a lone surrogate): json writes it
                continue
            assert out == jsonio.dump_json(value, pretty=pretty)
            fast = written_json(out)
            assert fast is not NOT_WRITTEN
            assert ("value", repr(fast)) == _load_outcome(out, Limits())
            assert written_json(bytes(bytearray(out))) is NOT_WRITTEN  # equal bytes, not the written object
        assert written_json(out) is NOT_WRITTEN  # the scope is closed


def test_written_json_declines_where_load_json_would_refuse() -> None:
    deep: Any = 1
    for _ in range(10):
        deep = [deep]
    with document_scope():
        out = dump_json_orjson(deep)
        assert out is not None
        assert written_json(out, Limits(max_json_depth=4)) is NOT_WRITTEN
        with pytest.raises(LimitExceededError):
            load_json(out, limits=Limits(max_json_depth=4))
        assert written_json(out, Limits(max_text_bytes=len(out) - 1)) is NOT_WRITTEN
        assert written_json(out) == deep
        assert dump_json_orjson({"n": 10**20}) is None  # orjson refuses it: json writes it, load_json reads it


def test_an_integer_past_64_bits_in_a_written_card_is_read_as_an_int() -> None:
    """json writes such a card (orjson refuses it): ``Compared.read`` parses it with ``load_json``."""
    data_json = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "a", "extensions": {"n": 10**20}}}
    doc = read_bytes(jsonio.dump_json(data_json), format="ccv3")
    with document_scope():
        out = write(doc, "ccv3")
        compared = _compared(doc, "ccv3", out)
    assert compared.output is not None and compared.output.card is not None
    assert type(compared.output.card["extensions"]["n"]) is int


def test_dumped_is_the_models_dump_strictly() -> None:
    """A card the ccv3 writer dumped through orjson is viewed from its ``json_view``: equal to ``dump``."""
    card = Card.model_validate(
        {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "a", "tags": ["x"], "extensions": {}}}
    )
    with document_scope():
        model_json(card, True)
        assert jsonio.written_value(card) is not None
        assert marshal.dumps(_dumped(card), 2) == marshal.dumps(card.dump(), 2)


def test_a_model_orjson_refuses_is_dumped() -> None:
    """A model inside a lenient field (only code builds one): orjson refuses it, json writes ``dump``'s
    form, and the view dumps the model as before (a dict, not the model)."""
    card = Card.model_validate({"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "a"}})
    card.data.extensions = {"x": Asset(type="icon", uri="ccdefault:", name="main", ext="png")}
    with document_scope():
        model_json(card, True)
        assert jsonio.written_value(card) is None
        dumped = _dumped(card)
    assert dumped == card.dump() and type(dumped["data"]["extensions"]["x"]) is dict


@settings(max_examples=100, deadline=None)
@given(strategies.card_v3)
def test_dumped_after_a_write_is_dump_for_any_card(value: dict[str, Any]) -> None:
    try:
        card = Card.model_validate(value)
    except ValueError:
        return
    with document_scope():
        model_json(card, True)
        assert marshal.dumps(_dumped(card), 2) == marshal.dumps(card.dump(), 2)


def test_corpus_read_backs_after_the_write_are_the_general_ones() -> None:
    """Per source, every target written and read back in one scope (the writers' records used), against
    the same read-backs in a fresh scope (nothing recorded): the same views and reports."""
    used = {"text": 0, "source": 0}
    by_source: dict[str, list[tuple[Any, str, bytes]]] = {}
    for path, doc, target, _data in _corpus_outputs():
        by_source.setdefault(str(path), []).append((doc, target, _data))
    for name, cases in by_source.items():
        doc = cases[0][0]
        with document_scope():
            written = []
            for _, target, _ in cases:
                data = write(doc, target)
                used["text"] += written_json(data) is not NOT_WRITTEN
                fast = _compared(doc, target, data)
                written.append((target, data, _key(fast.source), _key(fast.output), fidelity_report(doc, target, data)))
            card = doc.card
            used["source"] += card is not None and jsonio.written_value(card) is not None
        for target, data, source_key, output_key, report in written:
            with document_scope():
                general = _compared(doc, target, data)
                assert (source_key, output_key) == (_key(general.source), _key(general.output)), (name, target)
                assert report.to_json_text() == fidelity_report(doc, target, data).to_json_text(), (name, target)
    assert used["text"] > 20 and used["source"] > 5, used  # the records are used (and checked above)
    assert len(TARGETS) == 4
