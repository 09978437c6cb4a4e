"""The straightforward SillyTavern algorithm, kept as the reference the fast scan must agree with.

Every pass looks at every entry and every key, building each entry's scan text
and running one regex per whole-word key, as world-info.js does. Tests check
that ``STScan`` gives the same activations; ``benchmarks/activate.py`` times both.
"""

from __future__ import annotations

import re

from interop.activation.jsvalue import js_trim
from interop.activation.keyindex import is_multi_word
from interop.formats.sillytavern.activation.entries import STEntry, parse_regex_key
from interop.formats.sillytavern.activation.matching import KeyMatcher
from interop.formats.sillytavern.activation.scan import STScan


class ReferenceMatcher(KeyMatcher):
    """``KeyMatcher`` with the key index switched off: no candidates, no automaton."""

    def candidates(self, scan_state: int, done: set[int], failed: set[int]) -> list[int]:
        return self.not_taken([i for i in range(len(self.pool.entries)) if i not in done and i not in failed])

    def key_matches(
        self,
        entry: STEntry,
        keys: list[str],
        ids: list[int | None],
        scan_state: int,
        text_cache: list[str | None],
    ) -> list[tuple[str, str | None]]:
        text = self.text_for(entry, scan_state)
        out: list[tuple[str, str | None]] = []
        for key in keys:
            substituted = self.chat.substitute(key)
            if not substituted:
                out.append((key, None))
                continue
            needle = js_trim(substituted)  # " " trims to "", which matches every text (as in ST)
            if parse_regex_key(self.pool, needle) is not None:
                out.append((key, "scan text" if self.match_key(entry, needle, text) else None))
                continue
            cs = entry.case_sensitive if entry.case_sensitive is not None else self.settings.case_sensitive
            ww = entry.match_whole_words if entry.match_whole_words is not None else self.settings.match_whole_words
            haystack, pattern = (text, needle) if cs else (text.lower(), needle.lower())
            if ww and not is_multi_word(pattern):
                # (?:^|\W)(key)(?:$|\W) with JavaScript's ASCII \W
                found = re.search(r"(?:^|[^A-Za-z0-9_])(" + re.escape(pattern) + r")(?:$|[^A-Za-z0-9_])", haystack)
                hit = found is not None
            else:
                hit = pattern in haystack
            out.append((key, "scan text" if hit else None))
        return out


class ReferenceScan(STScan):
    """``STScan`` matching every entry and key the straightforward way."""

    matcher_type = ReferenceMatcher
