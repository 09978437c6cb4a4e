"""Report path notation and its mapping-table pattern form."""

from __future__ import annotations

from interop.appmodel.paths import pattern_form, render
from interop.fidelity.view import CanonicalView, leaves
from interop.mappings import segments_match as matches


def test_render_entry_and_nested_keys() -> None:
    path = ("entry", 3, "extensions", "sillytavern", "entry", "depth")
    assert render(path) == "entry[3].extensions.sillytavern.entry.depth"
    assert pattern_form(path) == "entry.extensions.sillytavern.entry.depth"
    assert render(path, any_index=True) == "entry[*].extensions.sillytavern.entry.depth"


def test_render_quotes_keys_that_would_be_ambiguous() -> None:
    assert render(("card", "extensions", "tavern_kit/v3_test")) == "card.extensions.tavern_kit/v3_test"
    assert render(("card", "extensions", "a.b", "c")) == 'card.extensions["a.b"].c'
    assert render(("book", "")) == 'book[""]'
    assert render(("card", "assets", 0)) == "card.assets[0]"
    assert render(("asset", "embeded://assets/x.png")) == 'asset["embeded://assets/x.png"]'
    assert render(("image",)) == "image"


def test_wildcards_match_one_segment_or_the_rest() -> None:
    assert matches(("entry", "*"), ("entry", "keys"))
    assert not matches(("entry", "*"), ("entry", "extensions", "x"))
    assert matches(("entry", "extensions", "**"), ("entry", "extensions", "x", "y"))
    assert matches(("card", "**"), ("card",))
    assert not matches(("book", "name"), ("book", "name", "x"))


def test_leaves_walk_dicts_and_keep_lists_whole() -> None:
    view = CanonicalView(
        kind="card",
        root={"x": {"y": 1}},
        card={"name": "N", "tags": ["a"], "extensions": {}, "assets": [{"uri": "ccdefault:"}, {"uri": "u"}]},
        book={"name": "B"},
        entries=[{"keys": ["k"], "extensions": {"a": {"b": None}}}, {}],
    )
    assert leaves(view) == {
        ("root", "x", "y"): 1,
        ("card", "name"): "N",
        ("card", "tags"): ["a"],
        ("card", "extensions"): {},
        ("card", "assets", 0): {"uri": "ccdefault:"},
        ("card", "assets", 1): {"uri": "u"},
        ("book", "name"): "B",
        ("entry", 0, "keys"): ["k"],
        ("entry", 0, "extensions", "a", "b"): None,
        ("entry", 1): {},
    }


def test_an_empty_entry_list_and_a_null_book_are_fields() -> None:
    assert leaves(CanonicalView(kind="lorebook", book={}, entries=[])) == {("book",): {}, ("book", "entries"): []}
    view = CanonicalView(kind="card", card={"name": "N"}, has_book_key=True)
    assert leaves(view) == {("card", "name"): "N", ("card", "character_book"): None}
