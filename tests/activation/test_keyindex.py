"""The Aho-Corasick key index agrees with SillyTavern's one-key-at-a-time rule (sillytavern.md §7 step 4)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from interop.activation.keyindex import KeyIndex, is_multi_word, plain_match

ALPHABET = "abAB _-.é中\n"


def js_rule(text: str, key: str, case_sensitive: bool, whole_words: bool) -> bool:
    """world-info.js matchKeys, written as ST writes it: a regex per single-word key."""
    if not case_sensitive:
        text, key = text.lower(), key.lower()
    if whole_words and len(re.split(r"\s+", key)) == 1:
        return re.search(r"(?:^|[^A-Za-z0-9_])(" + re.escape(key) + r")(?:$|[^A-Za-z0-9_])", text) is not None
    return key in text


@settings(max_examples=100, deadline=None)
@given(
    text=st.text(ALPHABET, max_size=40),
    keys=st.lists(
        st.text(ALPHABET.replace("\n", ""), min_size=1, max_size=4).map(str.strip).filter(bool), min_size=1, max_size=6
    ),
    flags=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=6, max_size=6),
)
def test_index_equals_per_key_rule(text: str, keys: list[str], flags: list[tuple[bool, bool]]) -> None:
    index = KeyIndex()
    ids = [index.add(key, cs, ww) for key, (cs, ww) in zip(keys, flags, strict=False)]
    found = index.scan(text)
    for kid, key, (cs, ww) in zip(ids, keys, flags, strict=False):
        expected = js_rule(text, key, cs, ww)
        assert (kid in found) is expected, (text, key, cs, ww)
        assert plain_match(text, key, cs, ww) is expected


def test_cjk_keys_act_as_substrings_under_whole_words() -> None:
    # JS \W is ASCII-only, so CJK characters are boundaries (sillytavern.md §7 step 4)
    assert plain_match("我们去港口吧", "港口", False, True)
    assert not plain_match("seaport", "port", False, True)


def test_multi_word_detection_uses_js_whitespace() -> None:
    assert is_multi_word("glass\u00a0isles")
    assert not is_multi_word("kraken-bell")
