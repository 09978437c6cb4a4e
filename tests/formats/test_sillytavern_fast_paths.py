"""The SillyTavern card-book fast paths give what the general paths give.

``st_readable_book``'s direct path (a book not read from a world file) against ``via_card_book``
(the whole ``sillytavern-card`` book); ``native_from_entry``'s per-namespace layouts against each
field's own writer; the memoized flat-key read against ``read_native_entry``. Books are drawn with
SillyTavern's flat keys, our namespace (nulls, records, card_fields) and Risu data, and the shared
corpus is run through as well.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interop import api
from interop.formats.sillytavern import normalize as norm
from interop.formats.sillytavern import readable
from interop.formats.sillytavern import write_entry as we
from interop.formats.sillytavern.fields import BY_FLAT
from interop.formats.sillytavern.read_entry import read_native_entry
from interop.jsonvalue import ABSENT
from interop.memo import document_scope
from interop.model import Lorebook, LorebookEntry
from tests.strategies import json_value, short

FLAT = sorted(BY_FLAT)
NS_KEYS = [
    "vectorized", "optional_logic", "insertion_position", "add_memo", "trigger_percent", "depth", "group_weight",
    "additional_matching_sources", "delay_until_recursion", "recursion_level", "inclusion_groups", "group_text",
    "case_sensitive", "character_filter", "has_extensions", "triggers", "display_index", "scan_depth", "role",
    "sticky", "card_fields", "verbatim", "omit", "unknown", "added_fields", "world_extensions", "uid_key",
]  # fmt: skip
native_ish = st.one_of(st.none(), st.booleans(), st.integers(-3, 200), st.sampled_from(["", "a,b", "x", "/k/i"]),
                       st.lists(st.sampled_from(["persona_description", "scenario", "a"]), max_size=2))
# well-formed records only (a malformed one is a separate matter for both paths)
namespace = st.dictionaries(st.sampled_from(NS_KEYS), st.one_of(native_ish, st.just({"role": 1})), max_size=8)
st_entry = st.fixed_dictionaries(
    {},
    optional={
        "keys": st.lists(st.sampled_from(["k", "/re/i", " ", "Key"]), max_size=3),
        "content": short,
        "enabled": st.one_of(st.booleans(), st.none()),
        "insertion_order": st.integers(0, 200),
        "case_sensitive": st.one_of(st.none(), st.booleans()),
        "use_regex": st.booleans(),
        "constant": st.one_of(st.booleans(), st.none()),
        "selective": st.one_of(st.booleans(), st.none()),
        "secondary_keys": st.one_of(st.none(), st.lists(short, max_size=2)),
        "position": st.sampled_from(["before_char", "after_char", "x"]),
        "comment": st.one_of(short, st.none()),
        "name": short,
        "id": st.one_of(st.integers(0, 5), short),
        "priority": st.integers(0, 10),
        "extensions": st.builds(
            lambda flat, ns, risu, other: {
                **flat, **({"sillytavern": {"entry": ns}} if ns is not None else {}), **risu, **other,
            },
            st.dictionaries(st.sampled_from(FLAT), native_ish, max_size=12),
            st.one_of(st.none(), namespace),
            st.sampled_from([{}, {"risuai": {"x": 1}}]),
            st.dictionaries(st.sampled_from(["x_tool", "depth_prompt"]), json_value, max_size=1),
        ),
    },
)
st_book = st.lists(st_entry, max_size=4).map(lambda entries: Lorebook.model_validate({"entries": entries}))
CORPUS = [p for p in sorted((Path(__file__).parents[2] / "corpus").rglob("*")) if p.is_file()]


def _state(book: Lorebook) -> Any:
    """Everything a later writer can see of a book's entries (set fields and types included)."""
    return [(sorted(e.model_fields_set), e.model_extra, repr(e.dump())) for e in book.entries], repr(book.dump())


def _same_readable(book: Lorebook) -> None:
    for from_card in (False, True):
        for flat_keys in (False, True):
            with document_scope():
                fast = readable.st_readable_book(book, from_card=from_card, flat_keys=flat_keys)
            with document_scope():
                general = readable.via_card_book(book, from_card=from_card, flat_keys=flat_keys)
            assert _state(fast[0]) == _state(general[0])
            assert repr(fast[1]) == repr(general[1])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st_book)
def test_direct_readable_book_is_the_card_book_one(book: Lorebook) -> None:
    _same_readable(book)
    # twice: the second time from the flat-key memos
    _same_readable(book)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.fixed_dictionaries({key: native_ish for key in FLAT}), st.one_of(st.none(), namespace), st.booleans())
def test_direct_readable_entry_with_every_flat_key_or_all_but_one(
    flat: dict[str, Any], ns: dict[str, Any] | None, use_regex: bool
) -> None:
    # an ST export's entries have every flat key (``_direct_flat`` then adds none): each key left out once
    for left_out in (None, *FLAT):
        extensions = {k: v for k, v in flat.items() if k != left_out}
        if ns is not None:
            extensions["sillytavern"] = {"entry": ns}
        entry = {"keys": ["k", "/re/i"], "content": "c", "use_regex": use_regex, "extensions": extensions}
        _same_readable(Lorebook.model_validate({"entries": [entry, copy.deepcopy(entry)]}))


def test_direct_readable_book_on_the_corpus() -> None:
    checked = 0
    for path in CORPUS:
        try:
            doc = api.read(path)
        except Exception:  # not every corpus file is a card or a book
            continue
        if doc.book is not None:
            _same_readable(doc.book)
            checked += 1
    assert checked > 10


def _by_writers(entry: LorebookEntry, template: bool, index: int, fill: we.Fill) -> dict[str, Any]:
    """The native entry field by field through each writer (``native_value``): the reference."""
    ns = entry.ext("sillytavern").get("entry")
    view = we._View(entry, ns if isinstance(ns, dict) else {}, template, index, fill,
                    entry.model_fields_set | set(entry.model_extra or {}))
    out: dict[str, Any] = {}
    for field in we.FIELDS:
        value = we.native_value(field, view)
        if value is not ABSENT:
            out[field.native] = copy.deepcopy(value)
    we._apply_records(out, view.ns, template)
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st_entry, st.integers(0, 3), st.booleans(), st.booleans())
def test_native_layouts_are_the_writers_values(raw: dict[str, Any], index: int, from_card: bool, plain: bool) -> None:
    entry = LorebookEntry.model_validate(raw)
    fill = we.Fill(from_card, plain)
    for template in (True, False):
        want = _by_writers(entry, template, index, fill)
        for _ in range(2):  # fresh layout, then the memoized one
            got = we.native_from_entry(entry, template, index, fill)
            assert list(got) == list(want) and repr(got) == repr(want)
    first, second = we.native_from_entry(entry, True, index, fill), we.native_from_entry(entry, True, index, fill)
    for name, value in first.items():  # no list or object is shared between two entries' natives
        assert not isinstance(value, list | dict) or value is not second[name]


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.sampled_from(FLAT), native_ish, min_size=1, max_size=12))
def test_memoized_flat_read_is_a_fresh_read(flat: dict[str, Any]) -> None:
    fresh = read_native_entry({BY_FLAT[k].native: copy.deepcopy(v) for k, v in flat.items()})[:2]
    for _ in range(2):
        got = norm.read_flat(copy.deepcopy(flat))  # a fresh read shares the input's values, as before
        assert json.dumps(got) == json.dumps(fresh) and repr(got) == repr(fresh)
        got[1]["mutated"] = True  # the caller owns what it gets: the memo is not changed
        for value in got[1].values():
            if isinstance(value, list):
                value.append("mutated")


def _model_state(model: Any) -> Any:
    return (
        type(model), repr(model.__dict__), model.__pydantic_extra__, model.__pydantic_fields_set__,
        model.__pydantic_private__, repr(model.dump()),
    )


update_keys = st.sampled_from([*LorebookEntry.model_fields, "x_extra", "zz"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st_entry, st.dictionaries(update_keys, json_value, max_size=4), st.dictionaries(short, json_value, max_size=2))
def test_model_copy_is_pydantics(raw: dict[str, Any], update: dict[str, Any], extra: dict[str, Any]) -> None:
    from interop.transforms.card_for_target import model_copy

    entry = LorebookEntry.model_validate({**extra, **raw})
    want, got = entry.model_copy(update=update), model_copy(entry, update)
    assert _model_state(got) == _model_state(want)
    assert got.__dict__ is not entry.__dict__ and got.__pydantic_fields_set__ is not entry.__pydantic_fields_set__
    assert got.__pydantic_extra__ is None or got.__pydantic_extra__ is not entry.__pydantic_extra__
    book = Lorebook.model_validate({"entries": [raw], **extra})
    new_entries = {"entries": [entry]}
    assert _model_state(model_copy(book, new_entries)) == _model_state(book.model_copy(update=new_entries))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st_book, st.dictionaries(short, json_value, max_size=2))
def test_json_view_of_drawn_books(book: Lorebook, extra: dict[str, Any]) -> None:
    """``dump_view`` (the card writers' dump) is ``dump``, for drawn books and their readable ones."""
    from interop.model.view import dump_view as json_view

    book = Lorebook.model_validate({**extra, **book.dump()})
    with document_scope():
        readable_book = readable.st_readable_book(book, from_card=True)[0]
    for model in (book, readable_book, *book.entries, *readable_book.entries):
        assert repr(json_view(model)) == repr(model.dump())


def test_model_copy_of_a_card_keeps_its_private_record() -> None:
    from interop.model import Card
    from interop.transforms.card_for_target import model_copy

    card = Card.model_validate({"spec": "chara_card_v3", "data": {"name": "a", "x_tool": 1}, "top": 2})
    card.filled = {"data.group_only_greetings"}
    update = {"data": model_copy(card.data, {"tags": [], "zz": 3})}
    want, got = card.model_copy(update=update), model_copy(card, update)
    assert _model_state(got) == _model_state(want) and got.filled == {"data.group_only_greetings"}
    assert _model_state(got.data) == _model_state(card.data.model_copy(update={"tags": [], "zz": 3}))
