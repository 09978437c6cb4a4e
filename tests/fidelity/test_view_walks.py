"""``view.leaves`` and ``view._without_card_lines`` take shortcuts (a leaf stored without a call, a book
without ``risuai`` extensions copied at once): each is compared with the plain walk it replaces."""

from __future__ import annotations

import marshal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from interop.fidelity.view import CanonicalView, _without_card_line, _without_card_lines, leaves, view_of
from interop.transforms.risu_card_line import CARD_TEXT
from tests.fidelity.test_output_json_view import _corpus_outputs


def _plain_leaves(view: CanonicalView) -> dict[Any, Any]:
    """``leaves`` as one call per value (the walk before the shortcut)."""
    out: dict[Any, Any] = {}

    def walk(value: Any, prefix: tuple[Any, ...]) -> None:
        if isinstance(value, dict) and value:
            for key, item in value.items():
                walk(item, (*prefix, key))
        else:
            out[prefix] = value

    for prefix, subtree in view.sections():
        if prefix == ("card",):
            for key, value in subtree.items():
                if key == "assets" and isinstance(value, list) and value:
                    for i, asset in enumerate(value):
                        out[("card", "assets", i)] = asset
                else:
                    walk(value, ("card", key))
        elif not subtree:
            out[prefix] = subtree
        else:
            for key, item in subtree.items():
                walk(item, (*prefix, key))
    if view.card is not None and view.has_book_key and view.book is None:
        out[("card", "character_book")] = None
    if view.book is not None and view.entries == []:
        out[("book", "entries")] = []
    return out


def _same(a: Any, b: Any) -> bool:
    return marshal.dumps(list(a.items()), 2) == marshal.dumps(list(b.items()), 2)


def test_leaves_is_the_plain_walk_on_the_corpus() -> None:
    seen = set()
    for _path, doc, _target, _data in _corpus_outputs():
        if id(doc) in seen:
            continue
        seen.add(id(doc))
        view = view_of(doc)
        assert _same(leaves(view), _plain_leaves(view))
    assert len(seen) > 20


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=3)),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.text(max_size=3), json_values, max_size=4),
    st.one_of(st.none(), st.dictionaries(st.text(max_size=3), json_values, max_size=3)),
    st.lists(st.dictionaries(st.text(max_size=3), json_values, max_size=3), max_size=3),
    st.booleans(),
)
def test_leaves_is_the_plain_walk(card: dict[str, Any], book: Any, entries: list[Any], has_book_key: bool) -> None:
    view = CanonicalView(kind="card", root={"x": {"y": {}}}, card=card, book=book, entries=entries)
    view.has_book_key = has_book_key
    assert _same(leaves(view), _plain_leaves(view))


def _risu(text: Any) -> dict[str, Any]:
    return {"keys": ["a"], "content": "@@dont_activate\nx", "extensions": {"risuai": {"decorators": {CARD_TEXT: text}}}}


entry = st.one_of(
    st.sampled_from([None, 1, "x", [], {}]),
    st.fixed_dictionaries({"keys": st.just(["k"]), "extensions": st.sampled_from([None, {}, {"other": 1}, [], "x"])}),
    st.builds(_risu, st.sampled_from(["x", None, 1])),
    st.just({"keys": ["k"], "extensions": {"risuai": {"decorators": {}}}}),
    st.just({"keys": ["k"], "extensions": {"risuai": None}}),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(entry, max_size=5))
def test_without_card_lines_is_each_entry_without_its_line(entries: list[Any]) -> None:
    got = _without_card_lines(entries)
    assert got is not entries
    assert marshal.dumps(got, 2) == marshal.dumps([_without_card_line(e) for e in entries], 2)
