"""The field-by-field comparison agrees with DeepDiff, the reference for deep equality."""

from __future__ import annotations

import math
from typing import Any

from deepdiff import DeepDiff
from hypothesis import given, settings
from hypothesis import strategies as st

from interop.appmodel.paths import Path
from interop.fidelity.field_diff import all_changes, changed_fields, describe_change, strict_equal
from interop.fidelity.view import MISSING, CanonicalView, leaves

# Few keys and values so that two random trees overlap a lot.
# No two values that are == but of different types: inside lists DeepDiff compares with ==
# (1 vs 1.0 vs True), at the top level it does not; strict_equal is tested on its own below.
scalar = st.sampled_from([0, 2, True, None, "", "x", "y", [], {}])
tree = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
    ),
    max_leaves=10,
)
book = st.dictionaries(st.sampled_from(["name", "scan_depth", "extensions", "x_other"]), tree, max_size=4)
entry = st.dictionaries(st.sampled_from(["keys", "content", "extensions", "id"]), tree, max_size=4)


def _view(b: dict[str, Any], entries: list[dict[str, Any]]) -> CanonicalView:
    return CanonicalView(kind="lorebook", book=b, entries=entries)


def _deepdiff_affected(a: CanonicalView, b: CanonicalView) -> set[Path]:
    """Source fields DeepDiff says are different (a change at, above or inside the field)."""
    ta = {"book": a.book, "entries": a.entries}
    tb = {"book": b.book, "entries": b.entries}
    fields = leaves(a)
    changed = []
    for kind, report in DeepDiff(ta, tb, view="tree", threshold_to_diff_deeper=0).items():
        for level in report:
            path = tuple(level.path(output_format="list"))
            parent = path[:-1]
            field = ("entry", *parent[1:]) if parent[:1] == ("entries",) else parent
            if kind == "dictionary_item_added" and fields.get(field, None) == {}:
                continue  # an empty object field that came back with keys is still there (field_diff.py)
            changed.append(path)
    affected = set()
    for path in leaves(a):
        flat = ("book", *path[1:]) if path[0] == "book" else ("entries", path[1], *path[2:])
        if path == ("book", "entries"):
            flat = ("entries",)
        if any(c[: len(flat)] == flat or flat[: len(c)] == c for c in changed):
            affected.add(path)
    return affected


@settings(max_examples=100, deadline=None)
@given(book, st.lists(entry, max_size=3), book, st.lists(entry, max_size=3))
def test_changed_fields_match_deepdiff(b1: dict, e1: list, b2: dict, e2: list) -> None:
    a, b = _view(b1, e1), _view(b2, e2)
    assert set(changed_fields(a, b)) == _deepdiff_affected(a, b)


@settings(max_examples=50, deadline=None)
@given(book, st.lists(entry, max_size=3))
def test_a_view_has_no_changes_against_itself(b1: dict, e1: list) -> None:
    a = _view(b1, e1)
    assert changed_fields(a, _view(b1, e1)) == {}
    assert all_changes(a, a) == []


def test_strict_equal_tells_numbers_and_booleans_apart() -> None:
    assert strict_equal({"a": [1, "x"]}, {"a": [1, "x"]})
    assert not strict_equal(1, True)
    assert not strict_equal(1, 1.0)
    assert not strict_equal({"a": [1]}, {"a": [True]})
    assert not strict_equal({"a": 0}, {"a": False})
    assert strict_equal({"a": 1, "b": 2}, {"b": 2, "a": 1})  # key order is not data
    assert strict_equal(math.nan, math.nan)
    assert not strict_equal([], {})


def test_changed_fields_reports_missing_and_changed_values() -> None:
    a = _view({"name": "A", "extensions": {"x": {"y": 1}, "z": []}}, [{"keys": ["k"], "id": 1}])
    b = _view({"name": "A", "extensions": {"x": {"y": "1"}}}, [{"keys": ["k", "l"], "id": 1}])
    changed = changed_fields(a, b)
    assert changed[("book", "extensions", "x", "y")] == "1"
    assert changed[("book", "extensions", "z")] is MISSING
    assert changed[("entry", 0, "keys")] == ["k", "l"]
    assert ("book", "name") not in changed and ("entry", 0, "id") not in changed


def test_all_changes_lists_additions_too() -> None:
    a = _view({"name": "A"}, [{"keys": ["k"]}])
    b = _view({"name": "A", "description": "new"}, [{"keys": ["k"], "enabled": True}])
    kinds = {(c.path, c.kind) for c in all_changes(a, b)}
    assert kinds == {(("book", "description"), "added"), (("entry", 0, "enabled"), "added")}


def test_describe_change_uses_deepdiff_wording_for_containers() -> None:
    assert describe_change(["a", "b"], ["a"]) == 'Item [1] ("b") removed from iterable.'
    assert describe_change(1, True) == "1 -> true (int -> bool)"
    assert "changed from 1 to 2" in describe_change({"a": 1}, {"a": 2})


def test_an_empty_object_that_gains_keys_is_not_a_change() -> None:
    a = _view({"extensions": {}}, [{"extensions": {}}, {}])
    b = _view({"extensions": {"x": 1}}, [{"extensions": {"y": {}}}, {"keys": []}])
    assert changed_fields(a, b) == {}
    assert {c.kind for c in all_changes(a, b)} == {"added"}
    assert changed_fields(a, _view({"extensions": []}, [{"extensions": {}}, {}])) == {("book", "extensions"): []}
