"""JavaScript regular expressions, translated to the ``regex`` module and run with a time limit.

Lorebook regex keys are JavaScript (``/pattern/flags``). Python's dialect
differs in ways that change results, so the pattern is rewritten token by token:

* ``\\d \\w \\s \\b`` and their negations get JavaScript's meaning (``\\d``/``\\w``/``\\b``
  ASCII-only, ``\\s`` JavaScript's white-space set) without ``re.ASCII``, which
  would also make ``i`` ASCII-only;
* ``.`` excludes all four JS line terminators (``s`` flag: everything); ``$``
  is the end of input only (``m``: before any line terminator); ``^`` likewise;
* ``(?<name>`` / ``\\k<name>`` become ``(?P<name>`` / ``(?P=name)``; ``\\/`` is ``/``;
  ``\\cX``, ``\\u{...}`` (``u``), ``\\0`` and identity escapes (``\\a`` is ``a`` in JS,
  a bell in Python) are spelled out; ``[]`` never matches, ``[^]`` matches anything;
* flags: ``i`` case-insensitive with JavaScript's own equivalence (``jscase``: without ``u``
  the Kelvin sign, "ſ" and "İ" match only themselves), spelled out as character classes
  instead of the regex module's IGNORECASE; ``m``, ``s``, ``u``; ``g`` is irrelevant to a
  single ``test``; ``y`` anchors the test at the start of the text;
* ``\\N`` is a back reference only when the pattern has N groups; otherwise (without ``u``,
  ECMA-262 Annex B) a legacy octal escape (``/\\1/`` is U+0001) or the digit 8/9; a back
  reference to a group that has not captured matches the empty string;
* without ``u`` the text and the pattern are UTF-16 code units (``.`` matches half an emoji);
* what JavaScript rejects raises ``JSSyntaxError``: a quantifier after nothing, an assertion or
  another quantifier (``a*+``), a quantifier range or class range out of order, an unbalanced
  group, duplicate or unknown group names, and with ``u`` identity escapes of non-syntax
  characters and class escapes as range bounds; without ``u`` a ``{`` that is no quantifier
  is a literal, ``[a-\\d]`` is a literal "-" between "a" and the digits, and ``\\k`` is "k"
  when the pattern has no named groups.

What cannot be translated faithfully raises ``Untranslatable`` (counted as "no match"
plus a warning); ``JSSyntaxError`` is its subclass for what JavaScript itself rejects, so
callers can do what the app does (SillyTavern then matches the key as plain text, RisuAI's
search fails).
Every search runs with a timeout so a catastrophic pattern cannot hang a run, and every
search inside ``regex_budget()`` (a run, a side-by-side, a service request) draws on one
shared budget, so a book of many catastrophic keys costs one budget, not one timeout per key.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

import regex

from .jscase import variants_table

DEFAULT_TIMEOUT = 0.25  # seconds per search
DEFAULT_BUDGET = 1.0
"""Seconds of regex matching per run or request, all keys, platforms and turns together: a real
book's searches take microseconds each, so only catastrophic patterns ever come near it."""
JS_FLAGS = frozenset("dgimsuyv")

_WORD = "A-Za-z0-9_"
_LINE_TERMINATORS = "\\n\\r\\u2028\\u2029"
# JavaScript's \s: WhiteSpace + LineTerminator (ECMA-262 22.2.2.9).
_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_NOT_WORD_CLASS = "\\x00-/:-@\\[-^`{-\\U0010ffff"  # complement of [A-Za-z0-9_]
_NOT_WORD_FOLDED = "\\x00-/:-@\\[-^`{-\\u017e\\u0180-\\u2129\\u212b-\\U0010ffff"  # ... minus ſ and K (u + i)
_NOT_DIGIT_CLASS = "\\x00-/:-\\U0010ffff"
_NOT_SPACE_CLASS = (
    "\\x00-\\x08\\x0e-\\x1f!-\\x9f\\xa1-\\u167f\\u1681-\\u1fff\\u200b-\\u2027\\u202a-\\u202e"
    "\\u2030-\\u205e\\u2060-\\u2fff\\u3001-\\ufefe\\uff00-\\U0010ffff"
)
_SURROGATE = regex.compile("[\ud800-\udfff]")
_ASTRAL = regex.compile("[\U00010000-\U0010ffff]")
_BRACE_QUANTIFIER = regex.compile(r"\{(\d+)(?:,(\d*))?\}")
_SIMPLE_ESCAPES = {"n": "\\n", "r": "\\r", "t": "\\t", "v": "\\x0b", "f": "\\x0c"}


class RegexBudget:
    """CPU seconds of regex matching left to the searches of one run or request (the searching
    thread's CPU time: a loaded machine slows a run down but does not spend its budget)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.spent = 0.0

    @property
    def remaining(self) -> float:
        return self.seconds - self.spent


_BUDGET: ContextVar[RegexBudget | None] = ContextVar("regex_budget", default=None)


@contextlib.contextmanager
def regex_budget(seconds: float = DEFAULT_BUDGET) -> Iterator[RegexBudget]:
    """Every ``JSRegex.test`` inside shares one time budget. Nested: the outermost budget governs
    (a request's budget covers every platform and run it starts)."""
    current = _BUDGET.get()
    if current is not None:
        yield current
        return
    budget = RegexBudget(seconds)
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


class BudgetSpent(TimeoutError):
    """The run's regex budget is spent: the search was not even tried."""


class Untranslatable(ValueError):
    """The JavaScript pattern is invalid, or valid but not expressible here."""


class JSSyntaxError(Untranslatable):
    """JavaScript itself rejects the pattern (``new RegExp`` throws a SyntaxError)."""


@dataclass(frozen=True)
class JSRegex:
    source: str
    flags: str
    compiled: regex.Pattern[str]
    sticky: bool
    units: bool = False  # without u, and the pattern can tell code units from code points
    # With i: the same pattern with every letter under the regex module's IGNORECASE, whose
    # equivalents include JavaScript's (checked in the tests): no match there, no match here.
    prefilter: regex.Pattern[str] | None = None

    def test(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> bool:
        """``RegExp.prototype.test`` from lastIndex 0. Raises TimeoutError past ``timeout`` or past
        what is left of the enclosing ``regex_budget`` (``BudgetSpent`` when nothing is left)."""
        budget = _BUDGET.get()
        if budget is None:
            return self._test(text, timeout)
        timeout = min(timeout, budget.remaining)
        if timeout <= 0:
            raise BudgetSpent(f"regex time budget of {budget.seconds:g} s spent")
        started = time.thread_time()
        try:
            return self._test(text, timeout)
        finally:
            budget.spent += time.thread_time() - started

    def _test(self, text: str, timeout: float) -> bool:
        if self.units and not text.isascii() and _ASTRAL.search(text):
            text = utf16_units(text)  # without u, JavaScript matches UTF-16 code units
        if self.prefilter is not None and self.prefilter.search(text, timeout=timeout) is None:
            return False
        if self.sticky:
            return self.compiled.match(text, timeout=timeout) is not None
        return self.compiled.search(text, timeout=timeout) is not None


def utf16_units(text: str) -> str:
    """``text`` with every astral character written as its two surrogate code units."""
    return _ASTRAL.sub(lambda m: _surrogates(m.group()), text)


def _surrogates(ch: str) -> str:
    code = ord(ch) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def parse_literal(key: str) -> tuple[str, str] | None:
    """``/pattern/flags`` -> (pattern, flags); None when the key is not written that way."""
    if len(key) < 3 or not key.startswith("/"):
        return None
    end = key.rfind("/")
    if end <= 0:
        return None
    return key[1:end], key[end + 1 :]


@functools.lru_cache(maxsize=4096)
def compile_js(pattern: str, flags: str = "") -> JSRegex:
    """Translate and compile a JavaScript pattern; raises Untranslatable."""
    if len(set(flags)) != len(flags) or not set(flags) <= JS_FLAGS:
        raise JSSyntaxError(f"invalid regular expression flags {flags!r}")
    if "v" in flags:
        raise Untranslatable("the 'v' (unicodeSets) flag is not supported")
    translator = _Translator(pattern, flags)
    translated = translator.run()
    try:
        compiled = regex.compile(translated, regex.V0)
    except regex.error as exc:
        # Out-of-order ranges are the one class error left to the regex module; JavaScript rejects them too.
        error = JSSyntaxError if "bad character range" in str(exc) else Untranslatable
        raise error(f"invalid regular expression: {exc}") from None
    prefilter = None
    if translator.strict_letters:
        # Letters spelled out as classes break the regex module's literal search; a looser
        # pattern rules most texts out quickly.
        prefilter = regex.compile(_Translator(pattern, flags, loose=True).run(), regex.V0)
    return JSRegex(pattern, flags, compiled, "y" in flags, translator.unit_sensitive, prefilter)


def translate(pattern: str, flags: str = "") -> str:
    """The ``regex``-module spelling of a JavaScript pattern (see module docstring)."""
    return _Translator(pattern, flags).run()


def _capturing_groups(pattern: str) -> list[str]:
    """The capturing groups in order, each by its name ("" when unnamed)."""
    groups: list[str] = []
    i = 0
    in_class = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(" and not pattern.startswith("(?", i):
            groups.append("")
        elif pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            close = pattern.find(">", i)
            groups.append(pattern[i + 3 : close] if close != -1 else "")
        i += 1
    return groups


class _Translator:
    """One pattern's translation; ``fold`` spells out JavaScript's case equivalence (``i``)."""

    def __init__(self, pattern: str, flags: str, *, loose: bool = False) -> None:
        self.loose = loose
        self.strict_letters = False  # some letter needed a class (IGNORECASE would be too wide)
        self.negative = 0  # open negative lookarounds: a looser letter there would narrow the match
        self.opened = 0  # capturing groups opened so far
        self.open_refs: list[tuple[str, ...]] = []  # per open group: its number and name, if capturing
        if "u" not in flags:
            pattern = utf16_units(pattern)  # an astral character is two units without u
        self.pattern = pattern
        # Without u, can a match depend on whether the text's astral characters are split into
        # UTF-16 units? Only through atoms that can match a lone surrogate (see unit()).
        self.unit_sensitive = "u" not in flags and _SURROGATE.search(pattern) is not None
        self.unicode = "u" in flags
        self.dotall = "s" in flags
        self.multiline = "m" in flags
        self.fold = variants_table(self.unicode) if "i" in flags else None
        captures = _capturing_groups(pattern)
        self.groups = len(captures)
        self.names = {name for name in captures if name}
        if len(self.names) < sum(1 for name in captures if name):
            raise JSSyntaxError("duplicate capture group name")
        # With u and i, JavaScript's \w, \b also take the characters that fold into [A-Za-z0-9_].
        self.word = _WORD + ("\\u017f\\u212a" if self.unicode and self.fold is not None else "")
        self.not_word = _NOT_WORD_FOLDED if self.word != _WORD else _NOT_WORD_CLASS

    def run(self) -> str:
        out: list[str] = []
        pattern = self.pattern
        stack: list[str] = []  # open groups: "group", "lookahead", "lookbehind"
        last: str | None = None  # what precedes: None, "atom", "assertion", "quantified"
        i = 0
        while i < len(pattern):
            c = pattern[i]
            if c in "*+?" or (c == "{" and _BRACE_QUANTIFIER.match(pattern, i)):
                text, i = self.quantifier(i, last)
                last = "quantified"
            elif c == "\\":
                text, i = self.escape(i, in_class=False)
                last = "assertion" if pattern[i - 1] in "bB" and pattern[i - 2] == "\\" else "atom"
            elif c == "[":
                text, i = self.char_class(i)
                last = "atom"
            elif c == "(":
                text, i = self.group(i)
                stack.append("lookbehind" if text.startswith("(?<") and text[3:4] in "=!" else "group")
                if text.startswith(("(?=", "(?!")):
                    stack[-1] = "lookahead"
                if text in ("(?!", "(?<!"):
                    stack[-1] += "-negative"
                    self.negative += 1
                self.open_refs.append(self.capture_refs(text))
                last = None
            elif c == ")":
                if not stack:
                    raise JSSyntaxError("unmatched ')'")
                kind = stack.pop()
                self.open_refs.pop()
                if kind.endswith("-negative"):
                    self.negative -= 1
                    kind = kind.removesuffix("-negative")
                lookahead_atom = kind == "lookahead" and not self.unicode  # Annex B: (?=a)* is allowed
                last = "atom" if kind == "group" or lookahead_atom else "assertion"
                text, i = ")", i + 1
            elif c == "|":
                text, i, last = "|", i + 1, None
            else:
                text, i = self.plain(c), i + 1
                last = "assertion" if c in "^$" else "atom"
            if last == "quantified" and out and isinstance(out[-1], _Folded):
                out[-1] = f"(?i:{out[-1]})"  # the quantifier applies to this character alone
            out.append(text)
        if stack:
            raise JSSyntaxError("unterminated group")
        return _join(out)

    def quantifier(self, i: int, last: str | None) -> tuple[str, int]:
        """``* + ? {n} {n,} {n,m}`` plus an optional lazy ``?``; JavaScript rejects a quantifier
        after nothing, an assertion or another quantifier (so no possessive ``a*+``)."""
        if last != "atom":
            raise JSSyntaxError("nothing to repeat")
        pattern = self.pattern
        brace = _BRACE_QUANTIFIER.match(pattern, i)
        end = brace.end() if brace else i + 1
        if brace and brace.group(2) and int(brace.group(2)) < int(brace.group(1)):
            raise JSSyntaxError("numbers out of order in {} quantifier")
        if end < len(pattern) and pattern[end] == "?":
            end += 1
        return pattern[i:end], end

    def capture_refs(self, opener: str) -> tuple[str, ...]:
        """How a back reference names the group ``opener`` starts: its number and name (capturing)."""
        if opener != "(" and not opener.startswith("(?P<"):
            return ()
        self.opened += 1
        return (str(self.opened), opener[4:-1]) if opener.startswith("(?P<") else (str(self.opened),)

    def group(self, i: int) -> tuple[str, int]:
        pattern = self.pattern
        if pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            close = pattern.find(">", i + 3)
            if close == -1:
                raise JSSyntaxError("unterminated group name")
            return "(?P<" + pattern[i + 3 : close] + ">", close + 1
        if pattern.startswith("(?", i) and not pattern.startswith(("(?:", "(?=", "(?!", "(?<=", "(?<!"), i):
            raise Untranslatable("group modifiers (?flags:) are not translated")
        for opener in ("(?:", "(?=", "(?!", "(?<=", "(?<!"):
            if pattern.startswith(opener, i):
                return opener, i + len(opener)
        return "(", i + 1

    def unit(self) -> None:
        """The atom being translated can match a lone surrogate (``.``, ``\\S``, ``[^...]``, ranges)."""
        self.unit_sensitive = not self.unicode

    def plain(self, c: str) -> str:
        if c == ".":
            self.unit()
            return "(?s:.)" if self.dotall else f"[^{_LINE_TERMINATORS}]"
        if c == "$":
            return f"(?=[{_LINE_TERMINATORS}]|\\Z)" if self.multiline else "\\Z"
        if c == "^":
            return f"(?:\\A|(?<=[{_LINE_TERMINATORS}]))" if self.multiline else "\\A"
        if c in "{}]":
            if self.unicode:
                raise JSSyntaxError(f"lone quantifier bracket {c!r}")
            return "\\" + c  # literal in JavaScript (a "{" that is no quantifier), not in regex
        if c == "#" or c.isspace():
            return regex.escape(c)  # never verbose, but keep them literal in any mode
        if self.fold is not None and c in self.fold:
            return self.folded(c)
        return c

    def folded(self, ch: str) -> str:
        """A case-insensitive character: under the regex module's IGNORECASE when that gives exactly
        JavaScript's equivalents (fast literal search), else spelled out as a class."""
        assert self.fold is not None
        if _regex_equivalents(ch, self.unicode) == frozenset(self.fold[ch]) or (self.loose and not self.negative):
            return _Folded(regex.escape(ch))
        self.strict_letters = True
        return "[" + regex.escape(self.fold[ch]) + "]"

    def literal(self, ch: str, in_class: bool) -> str:
        """One character produced by an escape, case-folded when ``i`` is on."""
        if 0xD800 <= ord(ch) <= 0xDFFF:
            self.unit()
        if not in_class and self.fold is not None and ch in self.fold:
            return self.folded(ch)
        return f"\\x{ord(ch):02x}" if ord(ch) < 256 else f"\\U{ord(ch):08x}"

    def escape(self, i: int, *, in_class: bool) -> tuple[str, int]:
        pattern = self.pattern
        if i + 1 >= len(pattern):
            raise JSSyntaxError("\\ at end of pattern")
        c = pattern[i + 1]
        nxt = i + 2
        if c in "dDwWsSbB":
            return self.class_escape(c, in_class), nxt
        if c in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[c], nxt
        if c.isdigit() and c.isascii():
            return self.decimal_escape(i, in_class)
        if c == "c" and nxt < len(pattern) and pattern[nxt].isascii() and pattern[nxt].isalpha():
            return f"\\x{ord(pattern[nxt]) % 32:02x}", nxt + 1
        if c == "x" and _hex(pattern, nxt, 2):
            return self.literal(chr(int(pattern[nxt : nxt + 2], 16)), in_class), nxt + 2
        if c == "u":
            return self.unicode_escape(nxt, in_class)
        if c == "k" and not in_class and (self.unicode or self.names):
            # A named reference only where named groups exist (or with u); otherwise \k is "k".
            return self.named_reference(nxt)
        if c in "pP" and self.unicode:
            return self.property_escape(c, nxt, in_class)
        if self.unicode and c not in "^$\\.*+?()[]{}|/" and not (in_class and c == "-"):
            raise JSSyntaxError(f"invalid escape \\{c} with the u flag")
        if c == "k" and self.names:
            raise JSSyntaxError("\\k without a group name where named groups exist")
        # Identity escape: the character itself (\/ is /, \a is a, \. is .).
        return self.literal(c, in_class) if c.isalnum() else regex.escape(c), nxt

    def named_reference(self, i: int) -> tuple[str, int]:
        """``\\k<name>`` (``i`` is just after the ``k``): a backreference to a named group."""
        pattern = self.pattern
        close = pattern.find(">", i) if pattern.startswith("<", i) else -1
        if close == -1 or pattern[i + 1 : close] not in self.names:
            raise JSSyntaxError("invalid named reference")
        return self.backreference(pattern[i + 1 : close]), close + 1

    def property_escape(self, c: str, i: int, in_class: bool) -> tuple[str, int]:
        """``\\p{...}`` / ``\\P{...}`` with the u flag (``i`` is just after the ``p``)."""
        pattern = self.pattern
        if i >= len(pattern) or pattern[i] != "{":
            raise JSSyntaxError("invalid \\p escape")
        close = pattern.find("}", i)
        if close == -1:
            raise JSSyntaxError("unterminated \\p{...}")
        prop = "\\" + c + pattern[i : close + 1]
        if self.fold is not None and not in_class:
            return "[" + prop + self.folded_members(prop) + "]", close + 1
        return prop, close + 1

    def class_escape(self, c: str, in_class: bool) -> str:
        sets = {
            "d": "0-9",
            "D": _NOT_DIGIT_CLASS,
            "w": self.word,
            "W": self.not_word,
            "s": _SPACE,
            "S": _NOT_SPACE_CLASS,
        }
        if c in sets:
            if c in "DWS":
                self.unit()
            return sets[c] if in_class else f"[{sets[c]}]"
        if in_class:
            if c == "B":
                if self.unicode:
                    raise JSSyntaxError("\\B inside a character class")
                return "B"  # an identity escape in a class without u
            return "\\x08"
        word = self.word
        if c == "b":
            return f"(?:(?<=[{word}])(?![{word}])|(?<![{word}])(?=[{word}]))"
        self.unit()  # \\B also matches between the two units of an astral character
        return f"(?:(?<=[{word}])(?=[{word}])|(?<![{word}])(?![{word}]))"

    def decimal_escape(self, i: int, in_class: bool) -> tuple[str, int]:
        """``\\N``: a back reference when N <= the group count, else (without ``u``, Annex B)
        a legacy octal escape (``\\1`` is U+0001) or, for 8 and 9, the digit itself."""
        pattern = self.pattern
        end = i + 1
        while end < len(pattern) and pattern[end].isdigit() and pattern[end].isascii():
            end += 1
        digits = pattern[i + 1 : end]
        if digits == "0":
            return "\\x00", end
        if digits[0] != "0" and not in_class and int(digits) <= self.groups:
            return self.backreference(digits), end
        if self.unicode:
            raise JSSyntaxError(f"invalid escape \\{digits} with the u flag")
        if digits[0] in "89":
            return digits[0], i + 2
        octal = digits[0]
        for ch in digits[1 : 3 if digits[0] in "0123" else 2]:
            if ch not in "01234567":
                break
            octal += ch
        return self.literal(chr(int(octal, 8)), in_class), i + 1 + len(octal)

    def backreference(self, group: str) -> str:
        """A back reference to ``group`` (number or name). JavaScript matches the empty string when
        the group has not captured (yet); the regex module would fail, hence the conditional.
        With ``i``, JavaScript compares after Canonicalize; the regex module's scoped
        case-insensitivity is the closest (it differs only for the few characters jscase names)."""
        if any(group in refs for refs in self.open_refs):
            return "(?:)"  # inside the group it names: not captured yet (JS resets it per iteration)
        ref = f"\\{group}" if group.isdigit() else f"(?P={group})"
        if self.fold is not None:
            ref = f"(?i:{ref})"
        return f"(?({group}){ref}|)"

    def unicode_escape(self, nxt: int, in_class: bool) -> tuple[str, int]:
        pattern = self.pattern
        if self.unicode and nxt < len(pattern) and pattern[nxt] == "{":
            close = pattern.find("}", nxt)
            digits = pattern[nxt + 1 : close] if close != -1 else ""
            if not digits or not all(ch in "0123456789abcdefABCDEF" for ch in digits):
                raise JSSyntaxError("invalid \\u{...} escape")
            return self.literal(chr(int(digits, 16)), in_class), close + 1
        if _hex(pattern, nxt, 4):
            return self.literal(chr(int(pattern[nxt : nxt + 4], 16)), in_class), nxt + 4
        if self.unicode:
            raise JSSyntaxError("invalid \\u escape")
        return self.literal("u", in_class), nxt

    def char_class(self, i: int) -> tuple[str, int]:
        pattern = self.pattern
        j = i + 1
        negated = j < len(pattern) and pattern[j] == "^"
        if negated:
            j += 1
            self.unit()
        if j < len(pattern) and pattern[j] == "]":
            # JS: [] matches nothing, [^] matches any character.
            return ("(?s:.)" if negated else "(?!)"), j + 1
        parts: list[str] = []
        kinds: list[str] = []  # "char", "set" (\\d \\w \\s ... \\p{}) or "-"
        while j < len(pattern) and pattern[j] != "]":
            ch = pattern[j]
            if ch == "\\":
                kinds.append("set" if pattern[j + 1 : j + 2] in tuple("dDwWsSpP") else "char")
                text, j = self.escape(j, in_class=True)
                parts.append(text)
                continue
            if ch == "-":
                self.unit()  # a range may span the surrogates
            kinds.append("-" if ch == "-" else "char")
            parts.append("\\" + ch if ch in "[&~|-" else ch)  # literal in JS classes, operators here
            j += 1
        if j >= len(pattern):
            raise JSSyntaxError("unterminated character class")
        body = "".join(self.ranges(parts, kinds))
        if self.fold is not None:
            body += self.folded_members(body)
        return ("[^" if negated else "[") + body + "]", j + 1

    def ranges(self, parts: list[str], kinds: list[str]) -> list[str]:
        """Item, "-", item is a range (the first item may itself be a "-"); next to a class escape
        (``[a-\\d]``) the "-" stays literal without ``u`` (Annex B) and is a SyntaxError with it."""
        out = list(parts)
        k = 0
        while k < len(kinds):
            if k + 2 < len(kinds) and kinds[k + 1] == "-":
                if "set" in (kinds[k], kinds[k + 2]):
                    if self.unicode:
                        raise JSSyntaxError("character class escape as a range bound")
                else:
                    out[k + 1] = "-"
                k += 3
                continue
            k += 1
        return out

    def folded_members(self, body: str) -> str:
        """The characters JavaScript's ``i`` adds to a class: the case-equivalents of its members."""
        try:
            members = regex.compile(f"[{body}]", regex.V0)
        except regex.error as exc:
            raise Untranslatable(f"invalid character class: {exc}") from None
        assert self.fold is not None
        universe = _fold_universe(self.unicode)
        hit = set(members.findall(universe))
        extra = {same for ch in hit for same in self.fold[ch]} - hit
        return regex.escape("".join(sorted(extra))) if extra else ""


class _Folded(str):
    """A translated character to match under IGNORECASE; runs of them share one ``(?i:...)``."""


def _join(pieces: list[str]) -> str:
    out: list[str] = []
    run: list[str] = []
    for piece in pieces:
        if isinstance(piece, _Folded):
            run.append(piece)
            continue
        if run:
            out.append("(?i:" + "".join(run) + ")")
            run = []
        out.append(piece)
    if run:
        out.append("(?i:" + "".join(run) + ")")
    return "".join(out)


@functools.lru_cache(maxsize=2)
def _cased_characters(unicode: bool) -> str:
    """Every character with a case mapping or folding (what IGNORECASE can relate); without ``u``
    only the BMP matters (no case pair crosses planes, and astral letters are two units there)."""
    top = 0x110000 if unicode else 0x10000
    everything = "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, top)))
    cased = r"[\p{Cased}\p{Changes_When_Casemapped}\p{Changes_When_Casefolded}]"
    return "".join(regex.findall(cased, everything))


@functools.lru_cache(maxsize=8192)
def _regex_equivalents(ch: str, unicode: bool) -> frozenset[str]:
    """The characters the regex module's IGNORECASE matches for ``ch``."""
    pattern = regex.compile("(?i)" + regex.escape(ch), regex.V0)
    return frozenset(pattern.findall(_cased_characters(unicode))) | {ch}


@functools.lru_cache(maxsize=2)
def _fold_universe(unicode: bool) -> str:
    return "".join(sorted(variants_table(unicode)))


def _hex(pattern: str, start: int, count: int) -> bool:
    chunk = pattern[start : start + count]
    return len(chunk) == count and all(ch in "0123456789abcdefABCDEF" for ch in chunk)
