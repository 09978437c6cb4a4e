"""JSON values as the identity rule sees them: one equality, one "absent" sentinel, dotted paths.

Every module that compares, stashes or walks native JSON uses these, so "equal"
means the same everywhere: ``1``, ``1.0`` and ``true`` are three different values.
"""

from __future__ import annotations

import json
from typing import Any


class _Absent:
    """A field that is not there at all (not the same as a field holding ``null``).

    Truthy, like the per-adapter sentinels it replaces; copies stay the one sentinel."""

    def __copy__(self) -> _Absent:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Absent:
        return self

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


def json_equal(a: Any, b: Any) -> bool:
    """Deep equality that tells ``1``, ``1.0`` and ``true`` apart (as the identity rule's deepdiff does)."""
    if type(a) is not type(b):
        return False
    if a is None or isinstance(a, str | int | float):
        return bool(a == b)
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):
        return bool(a == b)


def get_path(obj: dict[str, Any], path: str) -> Any:
    """The value at dotted ``path`` (``a.b.c``), or None when any step is missing."""
    node: Any = obj
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def has_path(obj: dict[str, Any], path: str) -> bool:
    node: Any = obj
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def pop_path(obj: dict[str, Any], path: str) -> Any:
    parent, _, last = path.rpartition(".")
    node = get_path(obj, parent) if parent else obj
    return node.pop(last) if isinstance(node, dict) else None


def set_path(obj: dict[str, Any], path: str, value: Any, created: list[str] | None = None) -> bool:
    """Set ``path``; False when an existing non-dict value is in the way. Records new containers in ``created``."""
    node = obj
    parts = path.split(".")
    for i, part in enumerate(parts[:-1]):
        if part not in node:
            node[part] = {}
            if created is not None:
                created.append(".".join(parts[: i + 1]))
        if not isinstance(node[part], dict):
            return False
        node = node[part]
    node[parts[-1]] = value
    return True


def drop_empty(obj: dict[str, Any], containers: list[str]) -> None:
    """Remove the listed containers again if they are empty (deepest first)."""
    for path in sorted(containers, key=lambda p: -p.count(".")):
        if get_path(obj, path) == {}:
            pop_path(obj, path)
