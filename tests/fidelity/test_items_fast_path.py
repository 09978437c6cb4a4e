"""The per-entry item templates give exactly what a plain per-field loop gives."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from interop.appmodel.paths import PathCache
from interop.fidelity.compare import changed_fields
from interop.fidelity.report import FidelityItem, _field_items, _not_back, _unverified
from interop.fidelity.rules import RuleBook
from interop.fidelity.view import CanonicalView, leaves

value = st.sampled_from([0, 1, True, "x", None, [], ["k"], {}])
ext = st.dictionaries(st.sampled_from(["a", "b"]), st.one_of(value, st.dictionaries(st.sampled_from(["c"]), value)))
entry = st.fixed_dictionaries(
    {}, optional={"keys": value, "content": value, "case_sensitive": value, "extensions": ext, "x_extra": value}
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
