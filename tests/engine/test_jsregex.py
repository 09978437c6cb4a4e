"""JavaScript regex keys translated to the regex module (issue 8, item 4)."""

from __future__ import annotations

import pytest

from interop.engine.jsregex import Untranslatable, compile_js, parse_literal, translate


@pytest.mark.parametrize(
    ("pattern", "flags", "text", "expected"),
    [
        (r"\bcat\b", "i", "The Cat sat", True),
        (r"\w+", "", "éè", False),  # JS \w is ASCII
        (r"\bété\b", "", "un été", False),  # JS \b is ASCII: no boundary next to "é"
        (r"^a.c$", "", "abc\n", False),  # JS $ is the end of input only
        (r"a.c", "", "a\rc", False),  # . excludes all four line terminators
        (r"a.c", "s", "a\nc", True),
        (r"x$", "m", "x\r\ny", True),  # m: $ before any line terminator
        (r"^y", "m", "x\u2028y", True),
        (r"(?<year>\d{4})-\k<year>", "", "2020-2020", True),  # named groups and back references
        (r"\/path", "", "a/path", True),  # escaped delimiter
        (r"\a", "", "a", True),  # identity escape, not a bell
        (r"\cJ", "", "\n", True),
        (r"caf\u00e9", "i", "CAFÉ", True),
        (r"\u{1F600}", "u", "\U0001f600", True),
        (r"\p{L}+", "u", "é", True),
        (r"\p{L}", "", "p{L}", True),  # without u, \p is just "p"
        (r"a\sb", "", "a\u00a0b", True),  # JS \s includes NBSP
        (r"[\W]x", "", "-x", True),
        (r"[^\w]x", "", "ax", False),
        (r"[]", "", "a", False),  # [] never matches
        (r"[^]", "", "\n", True),  # [^] matches anything
        (r"[a-c&&b]", "", "&", True),  # & is literal in a JS class
        (r"abc", "y", "xabc", False),  # sticky: anchored at lastIndex 0
        (r"abc", "g", "xabc", True),
    ],
)
def test_translation_matches_javascript(pattern: str, flags: str, text: str, expected: bool) -> None:
    assert compile_js(pattern, flags).test(text) is expected


@pytest.mark.parametrize(
    ("pattern", "flags"), [("(", ""), ("a", "gg"), ("a", "x"), ("a", "v"), ("(?i:a)", ""), (r"\q", "u")]
)
def test_invalid_or_untranslatable(pattern: str, flags: str) -> None:
    with pytest.raises(Untranslatable):
        compile_js(pattern, flags)


def test_catastrophic_pattern_times_out() -> None:
    regex = compile_js("(x+x+)+y")
    with pytest.raises(TimeoutError):
        regex.test("x" * 5000, timeout=0.05)


def test_literal_parsing() -> None:
    assert parse_literal("/a\\/b/gi") == ("a\\/b", "gi")
    assert parse_literal("plain") is None
    assert translate("^a$") == r"\Aa\Z"
