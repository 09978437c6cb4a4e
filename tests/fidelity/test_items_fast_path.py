"""The per-entry item templates and the shared per-layout items give exactly what a plain per-field loop gives."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from interop.appmodel.paths import PathCache
from interop.fidelity.field_diff import changed_fields
from interop.fidelity.report import FidelityItem, _field_items, _not_back, _unverified
from interop.fidelity.rules import RuleBook
from interop.fidelity.view import CanonicalView, leaves

value = st.sampled_from([0, 1, True, "x", None, [], ["k"], {}])
ext = st.dictionaries(st.sampled_from(["a", "b"]), st.one_of(value, st.dictionaries(st.sampled_from(["c"]), value)))
entry = st.fixed_dictionaries(
    {},
    optional={
        "keys": value,
        "content": value,
        "case_sensitive": value,
        "extensions": ext,
        "x_extra": value,
        "use_regex": st.sampled_from([False, True, 0]),
    },
)


def plain(source: CanonicalView, output: CanonicalView | None, rules: RuleBook, target: str) -> list[FidelityItem]:
    changed = changed_fields(source, output) if output is not None else None
    paths = PathCache()
    items = []
    for path, val in leaves(source).items():
        rule = rules.rule(paths.segments(path))
        name = paths.render(path)
        if changed is None:
            items.append(_unverified(name, rule))
        elif path in changed:
            items.append(_not_back(path, name, rule, target, val, changed[path], paths))
        else:
            items.append(
                FidelityItem(name, "kept", "", None)
                if rule is None
                else FidelityItem(name, rule.fate, rule.detail, rule.pattern)
            )
    return items


@settings(max_examples=100, deadline=None)
@given(
    st.lists(entry, max_size=4),
    st.lists(entry, max_size=4),
    st.sampled_from(["agnai-book", "lorebook_v3", "ccv1"]),
)
def test_fast_path_matches_plain_loop(mine: list[dict[str, Any]], theirs: list[dict[str, Any]], target: str) -> None:
    source = CanonicalView(kind="lorebook", book={"name": "B"}, entries=mine)
    output = CanonicalView(kind="lorebook", book={"name": "B"}, entries=theirs)
    rules = RuleBook(target)
    assert _field_items(source, output, rules, target) == plain(source, output, rules, target)
    assert _field_items(source, None, rules, target) == plain(source, None, rules, target)


card = st.fixed_dictionaries(
    {}, optional={"name": value, "description": value, "extensions": ext, "character_version": value, "tags": value}
)
TARGETS = ("agnai-book", "lorebook_v3", "ccv1", "risu-lorebook", "sillytavern-world")
SHARED = {target: RuleBook(target) for target in TARGETS}
"""One rule book per target for every example: the items kept per layout on it are reused across sources
(``sillytavern-world`` has a rule default: ``entry.use_regex`` false that does not come back is kept_default)."""


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(st.none(), card),
    st.one_of(st.none(), card),
    st.lists(entry, max_size=3),
    st.lists(entry, max_size=3),
    st.sampled_from(sorted(SHARED)),
)
def test_shared_items_match_plain_loop(
    mine_card: dict[str, Any] | None,
    their_card: dict[str, Any] | None,
    mine: list[dict[str, Any]],
    theirs: list[dict[str, Any]],
    target: str,
) -> None:
    """Cards too (a lorebook target has none of their fields), one rule book over many sources."""
    kind = "card" if mine_card is not None else "lorebook"
    source = CanonicalView(kind=kind, card=mine_card, book={"name": "B"}, entries=mine, has_book_key=True)
    output = CanonicalView(kind=kind, card=their_card, book={"name": "B"}, entries=theirs, has_book_key=True)
    rules = SHARED[target]
    assert _field_items(source, output, rules, target) == plain(source, output, rules, target)
    assert _field_items(source, source, rules, target) == plain(source, source, rules, target)
    assert _field_items(source, None, rules, target) == plain(source, None, rules, target)


def test_absent_field_with_a_rule_default_is_judged_by_its_value_every_time() -> None:
    """Two sources of one layout: ``use_regex`` false absent from the output is the default the
    target applies (kept_default), true absent is lost; the first answer is not reused for the second."""
    rules = RuleBook("sillytavern-world")
    output = CanonicalView(kind="lorebook", book={"name": "B"}, entries=[{"keys": ["k"]}])
    fates = []
    for flag in (False, True, False):
        source = CanonicalView(kind="lorebook", book={"name": "B"}, entries=[{"keys": ["k"], "use_regex": flag}])
        items = _field_items(source, output, rules, "sillytavern-world")
        assert items == plain(source, output, rules, "sillytavern-world")
        fates.append(next(i.fate for i in items if i.path == "entry[0].use_regex"))
    assert fates == ["kept_default", "lost", "kept_default"]


def _held(book: RuleBook) -> int:
    """Items the shared bases of ``book`` keep alive, their variants included."""
    return sum(len(b.items) + sum(len(v.items) for v in b.variants.values()) for b in book.bases.values())


def test_shared_items_are_bounded_for_the_whole_process(monkeypatch: Any) -> None:
    """A long migrate to several targets has several rule books, and cards written as lorebooks give each
    base a variant: the bound on kept items holds for all of them together, variants included."""
    from interop.fidelity import report

    monkeypatch.setattr(report, "_BASE_ITEMS_KEPT", 60)
    books = [RuleBook("lorebook_v3"), RuleBook("agnai-book")]
    for i in range(12):  # each card its own layout (a field name of its own)
        card = {"name": "x", f"f{i}": 1, "description": "d"}
        source = CanonicalView(kind="card", card=card, book={"name": "B"}, entries=[{"keys": ["k"]}])
        output = CanonicalView(kind="lorebook", book={"name": "B"}, entries=[{"keys": ["k"]}])
        for book in books:
            assert _field_items(source, output, book, book.target) == plain(source, output, book, book.target)
            assert sum(map(_held, books)) <= 60
