"""Field paths of the fidelity report and the app verdicts, and their mapping-table pattern form.

A path is a tuple of segments. The first segment names the section:

* ``root``  - root-level keys of a card other than ``spec``/``spec_version``/``data``
  (the V1 mirror SillyTavern writes, unknown root keys);
* ``card``  - ``data.*`` of a card except ``character_book``;
* ``book``  - the lorebook object except ``entries``;
* ``entry`` - followed by the entry index, then the keys inside that entry;
* ``asset``, ``member`` - followed by a URI / container member name;
* ``image`` - the picture a PNG card lives in.

Rendered form (the report's ``path``): ``entry[3].extensions.sillytavern.entry.depth``,
``card.assets[0]``, ``asset["embeded://assets/icon/images/main.png"]``; a key that
contains ``.``, ``[``, ``]`` or ``"`` (or is empty) is written ``["key"]``.

Pattern form (what ``mappings/*.json`` rules match): the same segments without
list indexes, joined with ``.``: ``entry.extensions.sillytavern.entry.depth``.
"""

from __future__ import annotations

import functools
import json
import re

Segment = str | int
Path = tuple[Segment, ...]

_BARE = re.compile(r"^[^.\[\]\"\s][^.\[\]\"]*$")
_BRACKETED = ("asset", "member")


def _key(segment: str) -> str:
    return (
        segment
        if _BARE.match(segment) and not segment.endswith(" ")
        else f"[{json.dumps(segment, ensure_ascii=False)}]"
    )


def render(path: Path, *, any_index: bool = False) -> str:
    """The report notation of ``path`` (``any_index``: write every list index as ``[*]``)."""
    out = ""
    for i, segment in enumerate(path):
        if isinstance(segment, int):
            out += "[*]" if any_index else f"[{segment}]"
        elif i == 1 and path[0] in _BRACKETED:
            out += f"[{json.dumps(segment, ensure_ascii=False)}]"
        elif i == 0:
            out = segment
        else:
            key = _key(segment)
            out += key if key.startswith("[") else f".{key}"
    return out


@functools.lru_cache(maxsize=8192)
def _render_cached(path: Path) -> str:
    """``render`` is pure: card-level paths repeat in every report of a run."""
    return render(path)


class PathCache:
    """``render`` and ``pattern_segments`` for many paths; a lorebook repeats the same keys in every entry."""

    def __init__(self) -> None:
        self._rendered: dict[Path, str] = {}
        self._segments: dict[Path, tuple[str, ...]] = {}
        self.described: dict[tuple[str, ...], int] = {}
        """Changed values described so far, per pattern-form path (see report.DEEPDIFF_PER_FIELD)."""

    def render(self, path: Path) -> str:
        if path[0] == "entry" and len(path) > 1 and isinstance(path[1], int):
            rest = path[2:]
            tail = self._rendered.get(rest)
            if tail is None:
                tail = self._rendered[rest] = render(("entry", 0, *rest))[len("entry[0]") :]
            return f"entry[{path[1]}]{tail}"
        return _render_cached(path)

    def segments(self, path: Path) -> tuple[str, ...]:
        key = ("entry", *path[2:]) if path[0] == "entry" and len(path) > 1 and isinstance(path[1], int) else path
        found = self._segments.get(key)
        if found is None:
            found = self._segments[key] = pattern_segments(key)
        return found


def pattern_segments(path: Path) -> tuple[str, ...]:
    """The segments a mapping-table pattern is matched against (list indexes dropped)."""
    return tuple(s for s in path if isinstance(s, str))


def pattern_form(path: Path) -> str:
    return ".".join(pattern_segments(path))


def generic(path: Path) -> str:
    """The rendered path with every list index written ``[*]`` (groups items of many entries)."""
    return render(path, any_index=True)
