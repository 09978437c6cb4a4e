"""Multi-pattern key matching: one Aho-Corasick automaton per case class instead of a regex per key.

SillyTavern matches a plain key as a substring of the (lower-cased unless
case-sensitive) scan text; with whole words on, a single-word key must sit
between JavaScript ``\\W`` characters (ASCII: anything but ``[A-Za-z0-9_]``) or
the ends of the text, while a multi-word key stays a substring
(sillytavern.md §7 step 4). Each distinct (needle, case, whole-word) triple is
one key id; ``scan`` reports which ids occur in a text, checking word
boundaries only around automaton hits.
"""

from __future__ import annotations

import itertools
import re

import ahocorasick

WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
# JavaScript's \s, used by SillyTavern to decide whether a key has several words.
JS_SPACE = frozenset(
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


_JS_SPACE_RE = re.compile("[" + re.escape("".join(sorted(JS_SPACE))) + "]")


def is_multi_word(needle: str) -> bool:
    """``needle.split(/\\s+/).length > 1`` for a trimmed needle."""
    return _JS_SPACE_RE.search(needle) is not None


def whole_word_at(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]`` bounded by ``^``/``$`` or JS ASCII ``\\W`` on both sides?"""
    return (start == 0 or text[start - 1] not in WORD_CHARS) and (end == len(text) or text[end] not in WORD_CHARS)


def plain_match(text: str, needle: str, case_sensitive: bool, whole_words: bool) -> bool:
    """SillyTavern's plain-key rule for one key (the reference the automaton must agree with)."""
    if not case_sensitive:
        text = text.lower()
        needle = needle.lower()
    if not whole_words or is_multi_word(needle):
        return needle in text
    if not needle:
        # The JS regex (?:^|\W)()(?:$|\W) on the text: an empty text, or any \W at an edge or pair.
        return (
            text == ""
            or text[0] not in WORD_CHARS
            or text[-1] not in WORD_CHARS
            or any(a not in WORD_CHARS or b not in WORD_CHARS for a, b in itertools.pairwise(text))
        )
    start = text.find(needle)
    while start != -1:
        if whole_word_at(text, start, start + len(needle)):
            return True
        start = text.find(needle, start + 1)
    return False


class KeyIndex:
    """All plain keys of a book, matched together."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, bool, bool], int] = {}
        self.needles: list[str] = []
        self._by_class: dict[bool, dict[str, list[tuple[int, bool]]]] = {False: {}, True: {}}
        self._automata: dict[bool, ahocorasick.Automaton | None] = {}

    def add(self, needle: str, case_sensitive: bool, whole_words: bool) -> int:
        """Register a (trimmed, non-empty) key; returns its id."""
        pattern = needle if case_sensitive else needle.lower()
        whole = whole_words and not is_multi_word(pattern)
        key = (pattern, case_sensitive, whole)
        kid = self._ids.get(key)
        if kid is None:
            kid = len(self.needles)
            self._ids[key] = kid
            self.needles.append(needle)
            self._by_class[case_sensitive].setdefault(pattern, []).append((kid, whole))
            self._automata.clear()
        return kid

    def __len__(self) -> int:
        return len(self.needles)

    def _automaton(self, case_sensitive: bool) -> ahocorasick.Automaton | None:
        if case_sensitive not in self._automata:
            patterns = self._by_class[case_sensitive]
            if not patterns:
                self._automata[case_sensitive] = None
            else:
                automaton = ahocorasick.Automaton()
                for pattern, ids in patterns.items():
                    automaton.add_word(pattern, (len(pattern), tuple(ids)))
                automaton.make_automaton()
                self._automata[case_sensitive] = automaton
        return self._automata[case_sensitive]

    def build(self) -> None:
        """Build both automata now (part of preparing a book) rather than on the first scan."""
        for case_sensitive in (False, True):
            self._automaton(case_sensitive)

    def scan(self, text: str) -> set[int]:
        """Ids of the keys that match somewhere in ``text``."""
        found: set[int] = set()
        if not text:
            return found
        for case_sensitive in (False, True):
            automaton = self._automaton(case_sensitive)
            if automaton is None:
                continue
            haystack = text if case_sensitive else text.lower()
            for end, (length, ids) in automaton.iter(haystack):
                for kid, whole in ids:
                    if kid in found:
                        continue
                    if not whole or whole_word_at(haystack, end - length + 1, end + 1):
                        found.add(kid)
        return found
