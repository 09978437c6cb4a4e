"""added_fields: every field only the output has, the same answer however it is found."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from interop.appmodel.paths import render
from interop.fidelity.added import SAME_VALUES_SHOWN, _shown, added_fields
from interop.fidelity.view import CanonicalView

scalar = st.sampled_from([0, 1, True, False, "", "x", None, 1.5, [], ["k"], {}])
obj = st.recursive(
    st.dictionaries(st.sampled_from(["a", "b", "c"]), scalar, max_size=3),
    lambda inner: st.dictionaries(st.sampled_from(["a", "b", "d", "e"]), st.one_of(scalar, inner), max_size=3),
    max_leaves=8,
)


def plain(source: CanonicalView, output: CanonicalView) -> list[str]:
    """A plain walk of both views, field by field (what ``added_fields`` must say)."""
    found: Counter[tuple[str, str]] = Counter()

    def walk(mine: dict[str, Any], theirs: dict[str, Any], prefix: tuple[Any, ...]) -> None:
        for key, value in theirs.items():
            if key not in mine:
                found[(render((*prefix, key)), _shown(value))] += 1
            elif type(value) is dict and type(mine[key]) is dict and value:
                walk(mine[key], value, (*prefix, key))

    for label, mine, theirs in (("card", source.card, output.card), ("book", source.book, output.book)):
        if isinstance(theirs, dict) and theirs:
            walk(mine if isinstance(mine, dict) else {}, theirs, (label,))
    for mine, theirs in zip(source.entries or [], output.entries or [], strict=False):
        walk(mine, theirs, ("entry",))
    by_name: dict[str, list[tuple[str, int]]] = {}
    for (name, value), count in sorted(found.items()):
        by_name.setdefault(name, []).append((value, count))
    lines = []
    for name, values in by_name.items():
        entries = name.startswith("entry.")
        if len(values) > SAME_VALUES_SHOWN:
            total = sum(count for _, count in values)
            lines.append(f"{name} = ({len(values)} different values)" + (f" ({total} entries)" if entries else ""))
        else:
            lines += [f"{name} = {value}" + (f" ({count} entries)" if entries else "") for value, count in values]
    return lines


@settings(max_examples=200, deadline=None)
@given(obj, obj, st.lists(obj, max_size=3), st.lists(obj, max_size=3))
def test_added_fields_match_a_plain_walk(
    card: dict[str, Any], their_card: dict[str, Any], entries: list[dict[str, Any]], theirs: list[dict[str, Any]]
) -> None:
    source = CanonicalView(kind="card", card=card, book={}, entries=entries)
    output = CanonicalView(kind="card", card=their_card, book={"name": "B"}, entries=theirs)
    for _ in range(2):  # the second time from what the first kept (objects filled from empty)
        assert added_fields(source, output) == plain(source, output)


def test_an_empty_object_filled_by_the_writer_lists_each_key_with_its_entry_count() -> None:
    filled = {"position": 1, "triggers": [], "depth": 4}
    source = CanonicalView(kind="lorebook", book={}, entries=[{"extensions": {}}, {"extensions": {}}])
    output = CanonicalView(kind="lorebook", book={}, entries=[{"extensions": dict(filled)} for _ in range(2)])
    expected = [
        "entry.extensions.depth = 4 (2 entries)",
        "entry.extensions.position = 1 (2 entries)",
        "entry.extensions.triggers = [] (2 entries)",
    ]
    assert added_fields(source, output) == expected
    assert added_fields(source, output) == expected
    assert added_fields(source, source) == []


def test_shown_tells_negative_zero_from_zero() -> None:
    """The shown-value memo must not merge values that compare equal but print apart (0.0 == -0.0)."""
    assert _shown(0.0) == "0.0"
    assert _shown(-0.0) == "-0.0"
    source = CanonicalView(kind="lorebook", book={}, entries=[{"a": 1}, {"a": 1}])
    output = CanonicalView(kind="lorebook", book={}, entries=[{"a": 1, "w": 0.0}, {"a": 1, "w": -0.0}])
    assert added_fields(source, output) == ["entry.w = -0.0 (1 entries)", "entry.w = 0.0 (1 entries)"]


def test_shown_keeps_no_long_text_alive() -> None:
    """The shown-value memo is for the short defaults writers add: a long added text (a moved
    description) is shown cut, and not kept for the rest of a long run."""
    from interop.fidelity import added

    text = "long " * 10_000
    assert _shown(text) == _shown(text) == '"' + text[: added.SHOWN - 4] + "..."
    assert all(key[1] is not text for key in added._SHOWN_SCALARS)
