"""Text safe to print on a terminal: card text never drives it.

Card names, entry comments and even file names are attacker-chosen. Printed
raw, an escape sequence can clear the screen (CSI ``ESC [ 2 J``), write the
clipboard (OSC 52), plant a disguised link (OSC 8) or overwrite the line
(a bare ``\\r``). ``printable`` shows every such character as a visible escape
instead; newlines and tabs stay (multi-line text is still readable). Lone
surrogates, which no terminal encoding can print, are shown as ``\\udXXX``.
Only human output goes through here: ``--json`` output is JSON-escaped already
and stays byte for byte what it was.
"""

from __future__ import annotations

import re
from typing import Any

# C0 controls but \t and \n, DEL, C1 controls (0x9b is a one-byte CSI), lone surrogates,
# and the bidirectional overrides/isolates that reorder what is shown ("Trojan Source").
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\r": "\\r", "\x1b": "\\e"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def printable(text: str) -> str:
    """``text`` with terminal control characters shown as visible escapes (``\\e``, ``\\r``, ``\\x07``)."""
    return _UNSAFE.sub(_visible, text)


def printable_tree(value: Any) -> Any:
    """``printable`` applied to every string (keys included) in nested dicts, lists and tuples."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable_tree(k): printable_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [printable_tree(v) for v in value]
    return value
