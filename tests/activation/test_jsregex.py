"""JavaScript regex keys translated to the regex module (issue 8, item 4)."""

from __future__ import annotations

import pytest

from interop.activation.jsregex import JSSyntaxError, Untranslatable, compile_js, parse_literal, translate


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


# ---- issue 12, class 7: JavaScript semantics exactly -------------------------------------


@pytest.mark.parametrize(
    ("pattern", "flags", "text", "expected"),
    [
        (r"\1", "", "a\x01b", True),  # no group 1: legacy octal escape U+0001 (Annex B)
        (r"\1", "", "1", False),
        (r"(a)\1", "", "aa", True),  # a group 1 exists: back reference
        (r"\12", "", "\n", True),  # octal 12 = U+000A
        (r"(a)\12", "", "a\n", True),  # 12 > one group: octal again
        (r"\101", "i", "a", True),  # octal 101 = "A", then case-folded
        (r"\8", "", "8", True),  # not octal: the digit itself
        (r"[\1]", "", "\x01", True),
        (r"\1(a)", "", "a", True),  # forward reference: matches the empty string
        (r"(a)?b\1", "", "b", True),  # group did not take part: empty
        (r"k", "i", "\u212a", False),  # Kelvin sign: toUpperCase is itself, no match without u
        (r"\u212a", "i", "k", False),
        (r"s", "i", "\u017f", False),  # long s: upper-cases to ASCII "S", so Canonicalize keeps it
        (r"\u0130", "i", "i", False),  # dotted capital I matches only itself
        (r"i", "i", "\u0130", False),
        (r"[a-z]", "i", "\u212a", False),
        (r"k", "iu", "\u212a", True),  # with u: simple case folding, Kelvin folds to k
        (r"s", "iu", "\u017f", True),
        (r"\u0130", "iu", "i", False),  # no simple folding for U+0130
        (r"\w", "iu", "\u017f", True),  # u + i: \w takes the characters folding into it
        (r"\w", "i", "\u017f", False),
        (r"\u00b5", "i", "\u039c", True),  # micro sign upper-cases to capital mu
        (r"(a)\1", "i", "aA", True),
        (r"^.$", "", "\U0001f600", False),  # without u, "." is one UTF-16 code unit
        (r"^.$", "u", "\U0001f600", True),
        (r"^..$", "", "\U0001f600", True),
        (r"a{,2}", "", "a{,2}", True),  # not a quantifier in JavaScript: literal text
    ],
)
def test_javascript_semantics(pattern: str, flags: str, text: str, expected: bool) -> None:
    """ECMA-262 RegExp semantics as SillyTavern runs them: ``parseRegexFromString`` in
    ``public/scripts/world-info.js`` builds ``new RegExp(pattern, flags)`` and ``matchKeys``
    calls ``.test`` on the scan text. Expected values follow the spec (Canonicalize,
    Annex B DecimalEscape/LegacyOctalEscapeSequence) and agree with Node 20's V8."""
    assert compile_js(pattern, flags).test(text) is expected


@pytest.mark.parametrize("pattern", ["a*+", "a??+", "^*", r"\b+", "a{2,1}", "(a", "a)", "*a", "(?<=a)*"])
def test_javascript_rejects(pattern: str) -> None:
    """``new RegExp`` throws a SyntaxError for these (nothing to repeat, numbers out of order,
    unbalanced groups); ``parseRegexFromString`` then returns null and ST matches the key as text."""
    with pytest.raises(JSSyntaxError):
        compile_js(pattern, "")


def test_prefilter_is_never_narrower_than_javascript() -> None:
    """``JSRegex.prefilter`` runs letters under the regex module's IGNORECASE and skips the exact
    pattern when it finds nothing; that is only sound if every JavaScript case equivalent of a
    letter is also an IGNORECASE equivalent (both modes, every character with case)."""
    from interop.activation.jscase import variants_table
    from interop.activation.jsregex import _regex_equivalents

    for unicode in (False, True):
        table = variants_table(unicode)
        assert all(set(table[ch]) <= _regex_equivalents(ch, unicode) for ch in table)


def test_prefilter_pattern_keeps_exact_results() -> None:
    regex = compile_js("mirakax", "i")
    assert regex.prefilter is not None
    assert regex.test("MIRAKAX") and not regex.test("MIRA\u212aAX") and not regex.test("zzz")
