"""Decorator parsing: byte-exact, fallback chains, first occurrence wins (CCv3 spec, risu.md §3.5)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from interop.model.decorators import KNOWN_DECORATORS, RISU_DECORATORS, SPEC_DECORATORS, parse_decorators


def test_content_is_unchanged_byte_for_byte() -> None:
    content = "  @@depth 4\r\n@@@instruct_depth 4\n@@role system\n\n  Body text\n@@not_a_decorator\n"
    parsed = parse_decorators(content)
    assert parsed.text == content
    assert parsed.prefix + parsed.body == content
    assert [d.name for d in parsed] == ["depth", "role"]
    assert parsed.prompt_text == "Body text\n@@not_a_decorator"


def test_blank_line_ends_the_block() -> None:
    parsed = parse_decorators("@@depth 1\n\n@@role user\nx")
    assert [d.name for d in parsed] == ["depth"]
    assert parsed.body == "\n@@role user\nx"


def test_fallback_chain_five_deep_walks_until_recognised() -> None:
    content = "@@a 1\n@@@b 2\n@@@c 3\n@@@d 4\n@@@e 5\n@@@activate_only_after 6\nbody"
    parsed = parse_decorators(content)
    assert len(parsed.decorators) == 1
    chain = parsed.decorators[0].chain()
    assert [d.name for d in chain] == ["a", "b", "c", "d", "e", "activate_only_after"]
    chosen = parsed.effective()
    assert list(chosen) == ["activate_only_after"]
    assert chosen["activate_only_after"].value == 6


def test_fallback_skipped_when_primary_recognised() -> None:
    parsed = parse_decorators("@@depth 4\n@@@instruct_depth 9\nx")
    assert {k: d.value for k, d in parsed.effective().items()} == {"depth": 4}


def test_resolve_calls_hook_like_ccardlib() -> None:
    # Risu's hook returns False for keep_activate_after_match (side effect, then fallback runs).
    calls: list[str] = []

    def hook(d):  # type: ignore[no-untyped-def]
        calls.append(d.name)
        return d.name != "keep_activate_after_match" and d.name in KNOWN_DECORATORS

    parsed = parse_decorators("@@keep_activate_after_match\n@@@depth 2\n@@unknown\n@@@role user\nx")
    honoured = parsed.resolve(hook)
    assert calls == ["keep_activate_after_match", "depth", "unknown", "role"]
    assert [d.name for d in honoured] == ["depth", "role"]


def test_first_occurrence_wins() -> None:
    parsed = parse_decorators("@@depth 1\n@@depth 2\nx")
    assert parsed.first("depth").value == 1
    assert parsed.effective()["depth"].value == 1


def test_unknown_decorators_are_kept_and_rendered() -> None:
    parsed = parse_decorators("@@my_tool a, b ,,c\nx")
    deco = parsed.decorators[0]
    assert not deco.known
    assert deco.args == ("a", "b", "c")
    assert deco.render() == "@@my_tool a,b,c"


def test_legacy_at_at_at_end_is_end() -> None:
    parsed = parse_decorators("@@@end\nx")
    assert parsed.decorators[0].name == "end"
    assert not parsed.decorators[0].fallback


def test_typed_values() -> None:
    parsed = parse_decorators(
        "@@depth 3\n@@role assistant\n@@additional_keys a,b\n@@position after_desc\n"
        "@@activate\n@@inject_lore Some Title\nx"
    )
    values = {d.name: d.value for d in parsed}
    assert values == {
        "depth": 3,
        "role": "assistant",
        "additional_keys": ["a", "b"],
        "position": "after_desc",
        "activate": None,
        "inject_lore": "Some Title",
    }
    assert parse_decorators("@@role pirate\nx").decorators[0].value is None
    assert parse_decorators("@@depth four\nx").decorators[0].value is None


def test_known_lists_cover_spec_and_risu() -> None:
    assert len(SPEC_DECORATORS) == 20
    assert {"probability", "exclude_keys_all", "match_full_word", "inject_lore"} <= set(RISU_DECORATORS)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("@ \n\r\tab,1")), max_size=60))
def test_parsing_never_changes_text(content: str) -> None:
    assert parse_decorators(content).text == content
