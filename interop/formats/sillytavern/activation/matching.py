"""Key matching of one scan: which entries are candidates in a pass, and which of their keys match.

The fast path asks ``ScanText`` where an indexed key occurs; keys the index cannot decide (regex
keys, keys with macros) take ST's per-entry path (``matchKeys`` on the exact scan text). The
test oracle (tests: ``ReferenceMatcher``) overrides ``candidates`` and ``key_matches`` to run the
per-entry path for every entry and key.
"""

from __future__ import annotations

from ....activation.chat import Chat
from ....activation.jsregex import JSRegex
from ....activation.jsvalue import js_trim
from ....activation.keyindex import plain_match
from .entries import AND_ALL, AND_ANY, MAX_SCAN_DEPTH, UNUSABLE, STEntry, STPool, STSettings, parse_regex_key
from .scan_text import ScanText
from .timed_effects import TimedEffects


class KeyMatcher:
    def __init__(
        self,
        pool: STPool,
        chat: Chat,
        settings: STSettings,
        text: ScanText,
        timed: TimedEffects,
        activated: dict[str, STEntry],
        warnings: list[str],
    ) -> None:
        self.pool = pool
        self.chat = chat
        self.settings = settings
        self.text = text
        self.timed = timed
        self.activated = activated
        """The scan's activation map (``${world}.${uid}`` -> entry), filled by the budget phase."""
        self.warnings = warnings
        self.timed_out: set[str] = set()  # regex keys that hit the time limit in this run

    def candidates(self, scan_state: int, done: set[int], failed: set[int]) -> list[int]:
        """Pool indexes worth checking in this pass: keyless firers, slow-path entries, sticky
        entries and entries with an indexed primary key inside their window."""
        text = self.text
        text.scan_messages(int(min(max(self.settings.depth + text.skew, self.pool.max_scan_depth), MAX_SCAN_DEPTH)))
        found: set[int] = set(self.pool.always)
        found.update(self.pool.slow)
        found.update(self.timed.sticky_indexes)
        for kid in text.hits:
            for i in self.pool.primary_of.get(kid, ()):
                if i not in found and text.where(self.pool.entries[i], kid, scan_state) is not None:
                    found.add(i)
        return self.not_taken(sorted(i for i in found if i not in done and i not in failed))

    def not_taken(self, indexes: list[int]) -> list[int]:
        """ST skips an entry whose `${world}.${uid}` is already activated, whichever entry set it."""
        if not self.pool.shared_keys:
            return indexes
        return [i for i in indexes if self.pool.entries[i].state_key not in self.activated]

    def text_for(self, entry: STEntry, scan_state: int) -> str:
        return self.text.text_for(entry, scan_state)

    def match_key(self, entry: STEntry, key: str, text: str) -> bool:
        """``matchKeys`` for one key on the exact text (the per-entry path)."""
        regex = parse_regex_key(self.pool, key)
        if regex == UNUSABLE:
            return False
        if isinstance(regex, JSRegex):
            if key in self.timed_out:
                return False
            try:
                return regex.test(text, self.settings.regex_timeout)
            except TimeoutError:
                # One timeout per key and run: later tests of the same key are skipped, so a book full
                # of catastrophic patterns costs at most one timeout per key.
                self.timed_out.add(key)
                self.warnings.append(f"regex key {key!r} of {entry.entry_id} timed out; counted as no match")
                return False
        cs = entry.case_sensitive if entry.case_sensitive is not None else self.settings.case_sensitive
        ww = entry.match_whole_words if entry.match_whole_words is not None else self.settings.match_whole_words
        return plain_match(text, key, cs, ww)

    def key_matches(
        self, entry: STEntry, keys: list[str], ids: list[int | None], scan_state: int, text_cache: list[str | None]
    ) -> list[tuple[str, str | None]]:
        """Per key (in order): (key, where) for matches; where None means no match."""
        out: list[tuple[str, str | None]] = []
        for key, kid in zip(keys, ids, strict=True):
            if kid is not None:
                out.append((key, self.text.where(entry, kid, scan_state)))
                continue
            substituted = self.chat.substitute(key)
            if not substituted:
                out.append((key, None))
                continue
            if text_cache[0] is None:
                text_cache[0] = self.text_for(entry, scan_state)
            # A key of " " trims to "" and matches every scan text, as in ST (matchKeys).
            hit = self.match_key(entry, js_trim(substituted), text_cache[0])
            out.append((key, "scan text" if hit else None))
        return out

    def score(self, entry: STEntry, scan_state: int) -> int:
        """``getScore`` (inclusion-group scoring): raw keys (no macro substitution, no trim) matched on
        the entry's text. Secondary hits count only for a ``selectiveLogic`` that is exactly 0 (AND_ANY)
        or 3 (AND_ALL): the switch has no default, so a missing logic scores the primary keys alone."""
        if not entry.keys:
            return 0
        text = self.text_for(entry, scan_state)
        primary = sum(1 for k in entry.keys if self.match_key(entry, k, text))
        if not entry.secondary or entry.selective_logic not in (AND_ANY, AND_ALL):
            return primary
        secondary = sum(1 for k in entry.secondary if self.match_key(entry, k, text))
        if entry.selective_logic == AND_ANY or secondary == len(entry.secondary):
            return primary + secondary
        return primary
