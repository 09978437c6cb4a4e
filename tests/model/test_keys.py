"""Key syntax rules per app (interop/model/keys.py)."""

from __future__ import annotations

import pytest

from interop.model.keys import agnai_keyword, is_regex_key, is_sillytavern_regex_key


@pytest.mark.parametrize(
    ("key", "written", "sillytavern"),
    [
        ("/dragon/i", True, True),
        (" /dragon/i ", True, False),  # ST trims before it parses; the rule itself does not
        ("/dragon/", True, True),
        ("/dra/gon/", True, False),  # an unescaped slash inside: ST matches the text
        ("/dra\\/gon/", True, True),
        ("/dragon/x", True, False),  # not a JS flag
        ("/dragon/I", False, False),
        ("//", False, False),
        ("dragon", False, False),
    ],
)
def test_regex_key_rules(key: str, written: bool, sillytavern: bool) -> None:
    assert is_regex_key(key) is written
    assert is_sillytavern_regex_key(key) is sillytavern


def test_sillytavern_rule_takes_any_value() -> None:
    assert is_sillytavern_regex_key(None) is False


def test_agnai_keyword_deletes_metacharacters_after_trimming() -> None:
    assert agnai_keyword("  Mr. (Smith) ") == "Mr Smith"
    assert agnai_keyword("snake_case|x") == "snakecasex"
    assert agnai_keyword("wild*card?") == "wild*card?"
