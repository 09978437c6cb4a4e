"""JavaScript value coercions, for fields a platform reads without checking their type.

A world file is JSON written by hand or by other tools, so ``"order": "5"`` or
``"disable": "false"`` happen. SillyTavern reads such fields with JavaScript operators
(``==``, ``-``, ``+``, ``<=``, template strings), and these helpers give the same
results as those operators on JSON values (ECMA-262 ToNumber, ToString, IsLooselyEqual,
the ``+`` operator).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


class _Undefined:
    """JavaScript ``undefined``: a field the object does not have (JSON ``null`` is None)."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED: Any = _Undefined()

# WhiteSpace and LineTerminator code points: what String.prototype.trim strips (Python's strip
# differs: it also strips U+001C-U+001F and U+0085, and keeps U+FEFF).
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_WHITESPACE)


def js_string(value: Any) -> str:
    """``String(value)`` / a template literal, for JSON values (``undefined`` is None)."""
    if type(value) is int:
        return str(value)
    if value is None:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number_string(float(value))
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _number_string(number: float) -> str:
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number.is_integer() and abs(number) < 1e21:
        return str(int(number))
    return repr(number)


def js_number(value: Any) -> float:
    """``Number(value)`` (ToNumber) for JSON values: null is 0, "" is 0, "0x1f" is 31, junk is NaN."""
    if type(value) is int or type(value) is float:
        return float(value)
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | dict):
        return js_number(js_string(value)) if isinstance(value, list) else math.nan
    text = js_trim(str(value))
    if not text:
        return 0.0
    return _string_number(text)


def _string_number(text: str) -> float:
    if text in ("Infinity", "+Infinity", "-Infinity"):
        return -math.inf if text[0] == "-" else math.inf
    prefix = text[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        base = {"0x": 16, "0o": 8, "0b": 2}[prefix]
        digits = text[2:]
        valid = "0123456789abcdefABCDEF"[: base + (6 if base == 16 else 0)]
        return float(int(digits, base)) if digits and all(ch in valid for ch in digits) else math.nan
    if not all(ch in "0123456789+-.eE" for ch in text):
        return math.nan  # rejects Python-only spellings: "nan", "inf", "1_000"
    try:
        return float(text)
    except ValueError:
        return math.nan


def js_loosely_true(value: Any) -> bool:
    """``value == true`` (IsLooselyEqual): true for true, 1, "1", " 1 ", [1]; false for "true"."""
    if value is None or value is False:
        return False
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, dict):
        return False
    return js_number(value) == 1.0


def js_add(left: Any, right: Any) -> Any:
    """The ``+`` operator: string concatenation as soon as either side is a string."""
    if isinstance(left, str | list | dict) or isinstance(right, str | list | dict):
        return js_string(left) + js_string(right)
    return js_number(left) + js_number(right)


def js_less_equal(left: Any, right: Any) -> bool:
    """``left <= right`` for a number and a number or a string (NaN compares false)."""
    if isinstance(left, str) and isinstance(right, str):
        return left <= right
    a, b = js_number(left), js_number(right)
    return not (math.isnan(a) or math.isnan(b)) and a <= b


def js_truthy(value: Any) -> bool:
    """ToBoolean: false for null/undefined (None), false, 0, NaN and ""; true for everything else,
    including "0", "false", [] and {} (unlike Python's ``bool``)."""
    if value is None or value is False or value == "":
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == value and value != 0
    return True


def js_round(number: float) -> float:
    """``Math.round``: the nearest integer, halves towards +Infinity (2.5 is 3, -2.5 is -2), unlike
    Python's ``round`` (halves to even: ``round(1024.5)`` is 1024, ``Math.round(1024.5)`` 1025)."""
    if number != number or number in (math.inf, -math.inf):
        return number
    floor = math.floor(number)
    return floor + 1 if number - floor >= 0.5 else floor


def _primitive(value: Any) -> Any:
    """ToPrimitive (hint number) for JSON values: arrays and objects become their strings."""
    if isinstance(value, list | dict):
        return js_string(value)
    return value


def js_less_than(left: Any, right: Any) -> bool:
    """``left < right`` (IsLessThan): two strings compare by UTF-16 code units ("9" > "10"), anything
    else as numbers (NaN compares false). ``a > b`` is ``js_less_than(b, a)``."""
    left, right = _primitive(left), _primitive(right)
    if isinstance(left, str) and isinstance(right, str):
        return left.encode("utf-16-be") < right.encode("utf-16-be")
    a, b = js_number(left), js_number(right)
    return a < b  # False when either is NaN


def js_strictly_equal(left: Any, right: Any) -> bool:
    """``left === right`` for JSON values: numbers by value (1 === 1.0, NaN never), strings and
    booleans by value, null only to null, arrays and objects only to themselves."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, list | dict) or isinstance(right, list | dict):
        return left is right
    return type(left) is type(right) and left == right


def js_parse_int(value: Any) -> int | None:
    """JavaScript ``parseInt(String(value))`` (no radix): leading white space and sign, then a
    ``0x``/``0X`` prefix means hexadecimal (``parseInt("0x4")`` is 4), else decimal digits; None for NaN."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value == value and abs(value) != float("inf") else None
    text = js_trim(str(value))
    sign = 1
    if text[:1] in ("+", "-"):
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    base, allowed = 10, "0123456789"
    if text[:2] in ("0x", "0X"):
        base, allowed, text = 16, "0123456789abcdefABCDEF", text[2:]
    digits = ""
    for ch in text:
        if ch not in allowed:
            break
        digits += ch
    return sign * int(digits, base) if digits else None


def js_slice(items: Sequence[Any], start: int, end: int | None = None) -> list[Any]:
    """``Array.prototype.slice`` with JavaScript's negative-index rules."""
    n = len(items)

    def clamp(i: int) -> int:
        return max(n + i, 0) if i < 0 else min(i, n)

    lo = clamp(start)
    hi = n if end is None else clamp(end)
    return list(items[lo:hi]) if lo < hi else []
