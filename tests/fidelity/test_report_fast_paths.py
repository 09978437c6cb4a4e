"""The report's fast paths give what the plain computation gives: orjson equality before the field walk,
layouts keyed by entry skeletons, added lines kept per counted rows, a base shared by equal items."""

from __future__ import annotations

import json
import marshal
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interop.fidelity import added as added_module
from interop.fidelity import field_diff
from interop.fidelity import report as report_module
from interop.fidelity.added import added_fields
from interop.fidelity.field_diff import changed_fields
from interop.fidelity.report import FidelityItem, FidelityReport, _layout_of, _shape
from interop.fidelity.view import CanonicalView
from interop.findings import Finding
from tests.png_bytes import solid_png

# values that are == but not strictly equal (1, 1.0, True; 0.0, -0.0), NaN, and what orjson cannot write
scalar = st.sampled_from([0, 1, 1.0, True, False, 0.0, -0.0, math.nan, None, "", "x", 2**70, [], {}])
tree = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
    ),
    max_leaves=8,
)
section = st.dictionaries(st.sampled_from(["name", "tags", "extensions", "x", "assets"]), tree, max_size=4)
entry = st.dictionaries(st.sampled_from(["keys", "content", "extensions", "id"]), tree, max_size=4)


def _reordered(value: Any) -> Any:
    """``value`` with every dict's keys in reverse order (equal, other typed bytes)."""
    if isinstance(value, dict):
        return {k: _reordered(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(v) for v in value]
    return value


def _slow_changed(source: CanonicalView, output: CanonicalView, monkeypatch: pytest.MonkeyPatch) -> dict[Any, Any]:
    """``changed_fields`` with no orjson bytes: every section and field compared by ``strict_equal``."""
    with monkeypatch.context() as patched:
        patched.setattr(field_diff, "_strict_bytes", lambda value: None)
        return changed_fields(CanonicalView(**_fields(source)), CanonicalView(**_fields(output)))


def _fields(view: CanonicalView) -> dict[str, Any]:
    return {k: getattr(view, k) for k in ("kind", "root", "card", "book", "entries", "has_book_key")}


def _same(a: dict[Any, Any], b: dict[Any, Any]) -> bool:
    """Equal changed-field maps (NaN compared as NaN)."""
    return a.keys() == b.keys() and all(
        x is y or marshal.dumps(x, 2) == marshal.dumps(y, 2) if not isinstance(x, float) else repr(x) == repr(y)
        for x, y in ((a[k], b[k]) for k in a)
    )


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(st.none(), section),
    st.one_of(st.none(), section),
    st.lists(entry, max_size=3),
    st.lists(entry, max_size=3),
    st.booleans(),
)
def test_changed_fields_fast_paths_match_the_walk(
    card: dict[str, Any] | None,
    their_card: dict[str, Any] | None,
    entries: list[dict[str, Any]],
    theirs: list[dict[str, Any]],
    reorder: bool,
) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        pairs = ((their_card, theirs), (card, entries), (_reordered(card), _reordered(entries)))
        for other_card, other_entries in pairs:
            source = CanonicalView(kind="card", card=card, book={"name": "B"}, entries=entries)
            output = CanonicalView(
                kind="card",
                card=_reordered(other_card) if reorder else other_card,
                book={"name": "B"},
                entries=other_entries,
            )
            fast = changed_fields(source, output)
            assert _same(fast, _slow_changed(source, output, monkeypatch))
            assert _same(changed_fields(source, output), fast)  # again, from the bytes each view kept


def _grown_entry(value: Any, extra: dict[str, Any]) -> Any:
    """``value`` with ``extra``'s keys added to it and to each object inside it (what a writer fills)."""
    if not isinstance(value, dict):
        return value
    return {
        **{k: _grown_entry(v, extra) for k, v in value.items()},
        **{k: v for k, v in extra.items() if k not in value},
    }


@settings(max_examples=300, deadline=None)
@given(
    st.lists(entry, min_size=1, max_size=3),
    st.dictionaries(st.sampled_from(["depth", "vectorized", "a"]), scalar, max_size=2),
    st.one_of(st.none(), st.tuples(st.integers(0, 2), scalar)),
    st.booleans(),
)
def test_entries_projected_at_once_match_the_walk(
    entries: list[dict[str, Any]], extra: dict[str, Any], swap: tuple[int, Any] | None, fewer: bool
) -> None:
    """Output entries that are the source's with fields added (one value maybe swapped for an equal or
    other one, one entry maybe gone) give the walk's answer when the entries are projected at once."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        theirs = [_grown_entry(e, extra) for e in entries]
        if swap is not None and swap[0] < len(theirs) and theirs[swap[0]]:
            first = next(iter(theirs[swap[0]]))
            theirs[swap[0]] = {**theirs[swap[0]], first: swap[1]}
        if fewer:
            theirs = theirs[:-1]
        source = CanonicalView(kind="lorebook", book={"name": "B"}, entries=entries)
        output = CanonicalView(kind="lorebook", book={"name": "B"}, entries=theirs)
        fast = changed_fields(source, output)
        assert _same(fast, _slow_changed(source, output, monkeypatch))
        assert _same(changed_fields(source, output), fast)


@pytest.mark.parametrize(
    ("mine", "theirs", "changed"),
    [
        (1, True, True),
        (0, False, False),
        (1, 1.0, 1.0),
        (0.0, -0.0, None),  # strictly equal (DeepDiff's view): the walk finds nothing either
        ("x", "x", None),
    ],
)
def test_entries_projected_at_once_tell_equal_values_of_other_types_apart(mine: Any, theirs: Any, changed: Any) -> None:
    """Entries that came back with fields added and one value ``==`` but of another type: named as changed."""
    source = CanonicalView(
        kind="lorebook", book={}, entries=[{"id": mine, "extensions": {"d": mine}}, {"id": 2, "extensions": {}}]
    )
    grown = [
        {"id": theirs, "extensions": {"d": mine, "x": 1}, "new": 1},
        {"id": 2, "extensions": {"y": 1}, "new": 1},
    ]
    nested = [{"id": mine, "extensions": {"d": theirs, "x": 1}, "new": 1}, grown[1]]
    for entries, path in ((grown, ("entry", 0, "id")), (nested, ("entry", 0, "extensions", "d"))):
        found = changed_fields(source, CanonicalView(kind="lorebook", book={}, entries=entries))
        assert found == ({} if changed is None else {path: changed})


def test_entries_equal_but_not_strictly_are_walked() -> None:
    """1 and True are ==: the entries compared at once still name the field that changed type."""
    source = CanonicalView(kind="lorebook", book={"name": "B"}, entries=[{"id": 1}, {"id": 2}])
    output = CanonicalView(kind="lorebook", book={"name": "B"}, entries=[{"id": True}, {"id": 2}])
    assert changed_fields(source, output) == {("entry", 0, "id"): True}
    grown = CanonicalView(kind="lorebook", book={}, entries=[{"k": [1], "extensions": {}}, {"extensions": {"x": 1}}])
    filled = [{"k": [1], "extensions": {"d": 4}}, {"extensions": {"x": True, "y": 2}}]
    assert changed_fields(grown, CanonicalView(kind="lorebook", book={}, entries=filled)) == {
        ("entry", 1, "extensions", "x"): True
    }
    card = CanonicalView(kind="card", card={"a": 1, "b": [0]})
    assert changed_fields(card, CanonicalView(kind="card", card={"a": 1, "b": [False], "assets": []})) == {
        ("card", "b"): [False]
    }


entry_shape = st.dictionaries(
    st.sampled_from(["keys", "content", "extensions", "x"]),
    st.one_of(scalar, st.dictionaries(st.sampled_from(["a", "b"]), st.one_of(scalar, st.just({"c": 1})), max_size=2)),
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(entry_shape, max_size=3), st.lists(entry_shape, max_size=3), st.one_of(st.none(), section))
def test_layout_keys_name_one_layout(mine: list[dict[str, Any]], theirs: list[dict[str, Any]], card: Any) -> None:
    """Two sources share a layout key exactly when their field paths and entry shapes are the same
    (typed: ``1`` and ``True`` keys apart), and the kept shapes are the entries' own."""
    a = CanonicalView(kind="card", card=card, book={"name": "B"}, entries=mine)
    b = CanonicalView(kind="card", card=card, book={"name": "B"}, entries=theirs)
    la, lb = _layout_of(a), _layout_of(b)
    assert la.shapes == tuple(_shape(e) for e in mine)
    assert lb.shapes == tuple(_shape(e) for e in theirs)
    same = marshal.dumps((la.paths, la.shapes), 2) == marshal.dumps((lb.paths, lb.shapes), 2)
    assert (la.key == lb.key) == same


card_fields = st.dictionaries(
    st.sampled_from(["name", "assets", "extensions", "tags"]),
    st.one_of(
        scalar,
        st.lists(st.just({"uri": "ccdefault:"}), max_size=3),
        st.dictionaries(st.sampled_from(["a", "b"]), st.one_of(scalar, st.just({"c": 1})), max_size=2),
    ),
    max_size=4,
)
sources = st.builds(
    CanonicalView,
    kind=st.just("card"),
    root=st.dictionaries(st.sampled_from(["spec", "x"]), st.one_of(scalar, st.just({"y": 1})), max_size=2),
    card=st.one_of(st.none(), card_fields),
    book=st.one_of(st.none(), st.dictionaries(st.sampled_from(["name", "extensions"]), tree, max_size=2)),
    entries=st.one_of(st.none(), st.lists(entry_shape, max_size=2)),
    has_book_key=st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(sources, min_size=2, max_size=4))
def test_kept_layouts_are_the_ones_made(views: list[CanonicalView]) -> None:
    """A layout kept under its skeleton (``_LAYOUTS``) has the paths and shapes ``_layout_made`` gives
    each source that meets it again, whatever its values (a card's asset count, empty or absent sections)."""
    for view in views + views:
        known = [report_module._known_shape(entry) for entry in view.entries or ()]
        made = report_module._layout_made(view, known, tuple(number for number, _ in known))
        kept = _layout_of(view)
        assert marshal.dumps((kept.paths, kept.shapes), 2) == marshal.dumps((made.paths, made.shapes), 2)
        assert kept.key == made.key


def test_kept_layouts_walk_objects_as_leaves_does() -> None:
    """An object of a dict subclass is walked by ``leaves``: its layout is not one of a plain value's."""
    from collections import OrderedDict

    for card in ({"name": "A", "extensions": OrderedDict(a=1)}, {"name": "A", "extensions": "x"}):
        view = CanonicalView(kind="card", card=card, book=None, entries=None)
        made = report_module._layout_made(view, [], ())
        assert _layout_of(view).paths == made.paths


def test_layout_keys_tell_equal_keys_of_other_types_apart() -> None:
    """``{1: ..}`` and ``{True: ..}`` are equal dicts' keys: not one layout (and never kept as skeletons)."""
    one = CanonicalView(kind="lorebook", book={"name": "B"}, entries=[{1: "x"}])  # type: ignore[dict-item]
    true = CanonicalView(kind="lorebook", book={"name": "B"}, entries=[{True: "x"}])  # type: ignore[dict-item]
    assert _layout_of(one).key != _layout_of(true).key
    assert _layout_of(true).shapes == (((True,),),) and type(_layout_of(true).shapes[0][0][0]) is bool
    nested = CanonicalView(kind="lorebook", book={"name": "B"}, entries=[{"a": {"b": 1}}])
    flat = CanonicalView(kind="lorebook", book={"name": "B"}, entries=[{"a": 1, "b": 1}])
    assert _layout_of(nested).key != _layout_of(flat).key


def test_added_lines_kept_equal_fresh_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lines kept per counted rows, and the rows kept per filled object, are what a cold cache gives."""
    source = CanonicalView(kind="lorebook", book={}, entries=[{"extensions": {}} for _ in range(5)])
    outputs = [
        CanonicalView(
            kind="lorebook",
            book={"name": "B"},
            entries=[{"extensions": {"depth": 4, "display_index": i % n, "t": []}} for i in range(5)],
        )
        for n in (1, 2, 4, 5, 2, 1)
    ]
    warm = [added_fields(source, output) for output in outputs]
    cold = []
    for output in outputs:
        monkeypatch.setattr(added_module, "_LINES", {})
        monkeypatch.setattr(added_module, "_ALL_NEW", {})
        cold.append(added_fields(source, output))
    assert warm == cold
    assert warm[0] == [
        'book.name = "B"',
        "entry.extensions.depth = 4 (5 entries)",
        "entry.extensions.display_index = 0 (5 entries)",
        "entry.extensions.t = [] (5 entries)",
    ]
    assert warm[3][2] == "entry.extensions.display_index = (5 different values) (5 entries)"
    warm[0].append("changed by a caller")
    assert added_fields(source, outputs[0]) == cold[0]  # the kept lines are copied out


def test_a_report_of_equal_items_shares_the_base_and_says_the_same() -> None:
    """Items equal to the base's (not the same objects) count and serialise as the plain items do."""
    items = tuple(FidelityItem(f"card.f{i}", "kept", "", "card.**") for i in range(5))
    base = report_module.Base(items, {})
    report = FidelityReport("ccv3", "ccv3", "card", "card", "ccv3", [FidelityItem(*i) for i in items], _base=base)
    assert report._shared() is not None
    plain = FidelityReport("ccv3", "ccv3", "card", "card", "ccv3", list(items))
    assert report.to_json_text() == plain.to_json_text() == _text(plain)
    report.items.append(FidelityItem("image", "translated", "moved", None))
    plain.items.append(FidelityItem("image", "translated", "moved", None))
    assert report.counts == plain.counts and report.to_json_text() == plain.to_json_text()
    report.items[1] = FidelityItem("card.f1", "lost", "gone", "card.**")
    plain.items[1] = FidelityItem("card.f1", "lost", "gone", "card.**")
    assert report._shared() is None
    assert report.counts == plain.counts and report.to_json_text() == plain.to_json_text()
    assert report.to_json_text() == _text(report)


def _text(report: FidelityReport) -> str:
    """The report's JSON by the stdlib, from its plain ``to_json``."""
    return json.dumps(report.to_json(), ensure_ascii=False, separators=(",", ":"))


def test_an_output_part_that_is_the_source_picture_is_judged_as_hashed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The picture's bytes found again in the output (PNG -> CCv3 data URL, PNG -> PNG) take the picture's
    digest without hashing them again: the same results as hashing every part."""
    from interop.fidelity import container_diff

    picture = solid_png((4, 4), (1, 2, 3))
    other = solid_png((4, 4), (9, 9, 9))
    source = CanonicalView(kind="card", card={}, image=picture, assets={"embeded://x.png": other})
    outputs = [
        CanonicalView(kind="card", card={}, assets={"data:image/png": bytes(picture)}),
        CanonicalView(kind="card", card={}, image=bytes(picture), assets={"embeded://x.png": other}),
        CanonicalView(kind="card", card={}, image=other, members={"m": bytes(picture)}),
        CanonicalView(kind="lorebook", book={}),
    ]
    fast = [list(container_diff.compare_containers(source, out, "ccv3")) for out in outputs]
    hashed: list[bytes] = []
    real = container_diff._digest

    def counted(data: bytes) -> str:
        hashed.append(data)
        return real(data)

    monkeypatch.setattr(container_diff, "_digest", counted)
    plain = [list(container_diff.compare_containers(source, out, "ccv3")) for out in outputs]
    assert fast == plain
    assert [r.fate for r in fast[0]] == ["translated", "lost"]
    assert [r.fate for r in fast[1]] == ["kept", "kept"]
    # the source's own picture once per comparison (no document scope here), never its copies in the outputs
    assert hashed.count(picture) == len(outputs)


finding = st.builds(
    Finding,
    st.sampled_from(["added", "lost", "changed", "moved"]),
    st.tuples(st.sampled_from(["card", "entry"]), st.integers(0, 2)),
    st.sampled_from(["why", ""]),
    st.just("test"),
    st.one_of(st.none(), st.sampled_from(["", "0", "null", "false"])),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(finding, max_size=6))
def test_shown_findings_are_the_plain_filter(recorded: list[Finding]) -> None:
    """The findings a report lists (checked in C first) are those the plain filter keeps."""
    plain = [f.to_json() for f in recorded if f.fate != "added" or f.value is None]
    assert report_module._shown_findings(recorded) == plain


def test_counts_and_json_agree_with_a_report_of_plain_items() -> None:
    """``to_json_text`` (items and counts from one ``_shared``) says what ``to_json`` does, shared or not."""
    items = tuple(FidelityItem(f"card.f{i}", "kept", "", "card.**") for i in range(4))
    base = report_module.Base(items, {})
    for tail in ([], [FidelityItem("image", "lost", "gone", None)]):
        shared = FidelityReport("ccv3", "png", "card", "card", "png", [*items, *tail], output_size=3)
        shared._base = base
        plain = FidelityReport("ccv3", "png", "card", "card", "png", [*items, *tail], output_size=3)
        assert json.loads(shared.to_json_text()) == plain.to_json() == json.loads(plain.to_json_text())
        assert shared.counts == plain.counts and shared.has_losses == plain.has_losses == bool(tail)
