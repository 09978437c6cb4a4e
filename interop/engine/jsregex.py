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
* flags: ``i`` case-insensitive, ``m``, ``s``, ``u``; ``g`` is irrelevant to a
  single ``test``; ``y`` anchors the test at the start of the text.

What cannot be translated faithfully raises ``Untranslatable``; callers treat
that, like a pattern JavaScript itself rejects, as "no match" plus a warning.
Every search runs with a timeout so a catastrophic pattern cannot hang a run.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import regex

DEFAULT_TIMEOUT = 0.25  # seconds per search
JS_FLAGS = frozenset("dgimsuyv")

_WORD = "A-Za-z0-9_"
_LINE_TERMINATORS = "\\n\\r\\u2028\\u2029"
# JavaScript's \s: WhiteSpace + LineTerminator (ECMA-262 22.2.2.9).
_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_NOT_WORD_CLASS = "\\x00-/:-@\\[-^`{-\\U0010ffff"  # complement of [A-Za-z0-9_]
_NOT_DIGIT_CLASS = "\\x00-/:-\\U0010ffff"
_NOT_SPACE_CLASS = (
    "\\x00-\\x08\\x0e-\\x1f!-\\x9f\\xa1-\\u167f\\u1681-\\u1fff\\u200b-\\u2027\\u202a-\\u202e"
    "\\u2030-\\u205e\\u2060-\\u2fff\\u3001-\\ufefe\\uff00-\\U0010ffff"
)
_BOUNDARY = f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))"
_NOT_BOUNDARY = f"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))"
_SIMPLE_ESCAPES = {"n": "\\n", "r": "\\r", "t": "\\t", "v": "\\x0b", "f": "\\x0c"}


class Untranslatable(ValueError):
    """The JavaScript pattern is invalid, or valid but not expressible here."""


@dataclass(frozen=True)
class JSRegex:
    source: str
    flags: str
    compiled: regex.Pattern[str]
    sticky: bool

    def test(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> bool:
        """``RegExp.prototype.test`` from lastIndex 0. Raises TimeoutError past ``timeout``."""
        if self.sticky:
            return self.compiled.match(text, timeout=timeout) is not None
        return self.compiled.search(text, timeout=timeout) is not None


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
        raise Untranslatable(f"invalid regular expression flags {flags!r}")
    if "v" in flags:
        raise Untranslatable("the 'v' (unicodeSets) flag is not supported")
    if "u" in flags and "v" in flags:
        raise Untranslatable("flags 'u' and 'v' together")
    translated = translate(pattern, flags)
    options = regex.V0
    if "i" in flags:
        options |= regex.IGNORECASE
    try:
        compiled = regex.compile(translated, options)
    except regex.error as exc:
        raise Untranslatable(f"invalid regular expression: {exc}") from None
    return JSRegex(pattern, flags, compiled, "y" in flags)


def translate(pattern: str, flags: str = "") -> str:
    """The ``regex``-module spelling of a JavaScript pattern (see module docstring)."""
    unicode = "u" in flags
    dotall = "s" in flags
    multiline = "m" in flags
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            text, i = _escape(pattern, i, unicode, in_class=False)
            out.append(text)
            continue
        if c == "[":
            text, i = _char_class(pattern, i, unicode)
            out.append(text)
            continue
        if c == "(":
            if pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
                close = pattern.find(">", i + 3)
                if close == -1:
                    raise Untranslatable("unterminated group name")
                out.append("(?P<" + pattern[i + 3 : close] + ">")
                i = close + 1
                continue
            if pattern.startswith("(?", i) and not pattern.startswith(("(?:", "(?=", "(?!", "(?<=", "(?<!"), i):
                raise Untranslatable("group modifiers (?flags:) are not translated")
            out.append("(")
            i += 1
            continue
        if c == ".":
            out.append("(?s:.)" if dotall else f"[^{_LINE_TERMINATORS}]")
        elif c == "$":
            out.append(f"(?=[{_LINE_TERMINATORS}]|\\Z)" if multiline else "\\Z")
        elif c == "^":
            out.append(f"(?:\\A|(?<=[{_LINE_TERMINATORS}]))" if multiline else "\\A")
        elif c in "#" or c.isspace():
            out.append(regex.escape(c))  # never verbose, but keep them literal in any mode
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _escape(pattern: str, i: int, unicode: bool, *, in_class: bool) -> tuple[str, int]:
    if i + 1 >= len(pattern):
        raise Untranslatable("\\ at end of pattern")
    c = pattern[i + 1]
    nxt = i + 2
    if c == "d":
        return ("0-9" if in_class else "[0-9]"), nxt
    if c == "D":
        return (_NOT_DIGIT_CLASS if in_class else f"[{_NOT_DIGIT_CLASS}]"), nxt
    if c == "w":
        return (_WORD if in_class else f"[{_WORD}]"), nxt
    if c == "W":
        return (_NOT_WORD_CLASS if in_class else f"[{_NOT_WORD_CLASS}]"), nxt
    if c == "s":
        return (_SPACE if in_class else f"[{_SPACE}]"), nxt
    if c == "S":
        return (_NOT_SPACE_CLASS if in_class else f"[{_NOT_SPACE_CLASS}]"), nxt
    if c == "b":
        return ("\\x08" if in_class else _BOUNDARY), nxt
    if c == "B":
        if in_class:
            raise Untranslatable("\\B inside a character class")
        return _NOT_BOUNDARY, nxt
    if c in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[c], nxt
    if c == "0" and not (nxt < len(pattern) and pattern[nxt].isdigit()):
        return "\\x00", nxt
    if c.isdigit():
        if in_class:
            raise Untranslatable("octal escape in a character class")
        end = nxt
        while end < len(pattern) and pattern[end].isdigit():
            end += 1
        return "\\" + pattern[i + 1 : end], end  # back reference (JS octal legacy not supported)
    if c == "c" and nxt < len(pattern) and pattern[nxt].isascii() and pattern[nxt].isalpha():
        return f"\\x{ord(pattern[nxt]) % 32:02x}", nxt + 1
    if c == "x" and _hex(pattern, nxt, 2):
        return "\\x" + pattern[nxt : nxt + 2], nxt + 2
    if c == "u":
        if unicode and nxt < len(pattern) and pattern[nxt] == "{":
            close = pattern.find("}", nxt)
            digits = pattern[nxt + 1 : close] if close != -1 else ""
            if not digits or not all(ch in "0123456789abcdefABCDEF" for ch in digits):
                raise Untranslatable("invalid \\u{...} escape")
            return f"\\U{int(digits, 16):08x}", close + 1
        if _hex(pattern, nxt, 4):
            return "\\u" + pattern[nxt : nxt + 4], nxt + 4
        if unicode:
            raise Untranslatable("invalid \\u escape")
        return "u", nxt
    if c == "k" and not in_class and nxt < len(pattern) and pattern[nxt] == "<":
        close = pattern.find(">", nxt)
        if close == -1:
            raise Untranslatable("unterminated \\k<name>")
        return f"(?P={pattern[nxt + 1 : close]})", close + 1
    if c in "pP" and unicode:
        if nxt < len(pattern) and pattern[nxt] == "{":
            close = pattern.find("}", nxt)
            if close == -1:
                raise Untranslatable("unterminated \\p{...}")
            return "\\" + c + pattern[nxt : close + 1], close + 1
        raise Untranslatable("invalid \\p escape")
    if c.isalnum() and unicode:
        raise Untranslatable(f"invalid escape \\{c} with the u flag")
    # Identity escape: the character itself (\/ is /, \a is a, \. is .).
    return regex.escape(c), nxt


def _hex(pattern: str, start: int, count: int) -> bool:
    chunk = pattern[start : start + count]
    return len(chunk) == count and all(ch in "0123456789abcdefABCDEF" for ch in chunk)


def _char_class(pattern: str, i: int, unicode: bool) -> tuple[str, int]:
    j = i + 1
    negated = j < len(pattern) and pattern[j] == "^"
    if negated:
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        # JS: [] matches nothing, [^] matches any character.
        return ("(?s:.)" if negated else "(?!)"), j + 1
    parts: list[str] = []
    while j < len(pattern) and pattern[j] != "]":
        ch = pattern[j]
        if ch == "\\":
            text, j = _escape(pattern, j, unicode, in_class=True)
            parts.append(text)
            continue
        if ch in "[&~|":
            parts.append("\\" + ch)  # literal in JS classes, operators in regex-module classes
        else:
            parts.append(ch)
        j += 1
    if j >= len(pattern):
        raise Untranslatable("unterminated character class")
    body = "".join(parts)
    # Negated shorthand classes inside a negated class would need set algebra; keep it explicit.
    return ("[^" if negated else "[") + body + "]", j + 1
