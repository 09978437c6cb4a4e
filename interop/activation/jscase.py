"""JavaScript's case-insensitive character equivalence for regular expressions (ECMA-262 Canonicalize).

With the ``i`` flag, JavaScript compares characters after ``Canonicalize``:

* without ``u``: the character's ``toUpperCase()``, unless that is not a single code unit,
  or maps a non-ASCII character to ASCII (so the Kelvin sign, the long s "ſ" and the dotted
  capital I "İ" match only themselves: ``/k/i`` does not match "K", ``/s/i`` not "ſ");
* with ``u``: Unicode simple case folding (``/k/iu`` matches the Kelvin sign, "İ" still only itself).

The ``regex`` module's IGNORECASE uses its own folding and matches all three, so the
translator does not use it: it spells out each equivalence class instead. The classes
are computed once per mode from Python's Unicode case mappings.
"""

from __future__ import annotations

import functools
import sys


def canonical_legacy(ch: str) -> str:
    """``Canonicalize`` without the ``u`` flag for one BMP code unit."""
    upper = ch.upper()
    if len(upper) != 1 or ord(upper) > 0xFFFF:
        return ch
    if ord(ch) >= 128 and ord(upper) < 128:
        return ch
    return upper


def simple_fold(ch: str) -> str:
    """Unicode simple case folding (CaseFolding.txt statuses C and S), from Python's mappings."""
    folded = ch.casefold()
    if len(folded) == 1:
        return folded
    lower = ch.lower()
    return lower if len(lower) == 1 else ch


@functools.lru_cache(maxsize=2)
def variants_table(unicode: bool) -> dict[str, str]:
    """Character -> every character equivalent to it (itself included), for characters with company."""
    limit = sys.maxunicode + 1 if unicode else 0x10000
    canon = simple_fold if unicode else canonical_legacy
    groups: dict[str, set[str]] = {}
    for code in range(limit):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        key = canon(ch)
        if key != ch:
            groups.setdefault(key, {key}).add(ch)
    table: dict[str, str] = {}
    for members in groups.values():
        unique = "".join(sorted(set(members)))
        if len(unique) > 1:
            for ch in unique:
                table[ch] = unique
    return table
