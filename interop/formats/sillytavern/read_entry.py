"""Native world entry -> canonical entry: one reader per table ``transform``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...model import LorebookEntry
from ...model.keys import is_sillytavern_regex_key
from ...model.stash import Stash
from .fields import BY_NATIVE, WorldField, is_number, split_groups
from .model import NAMESPACE, UNKNOWN

Fields = dict[str, Any]


def _read_copy(field: WorldField, value: Any, top: Fields, ns: Fields) -> None:
    if field.ns_key is None:
        top[field.canonical] = value
    else:
        ns[field.ns_key] = value
    if field.native == "position" and is_number(value):
        top["position"] = "before_char" if value == 0 else "after_char"


def _read_invert(field: WorldField, value: Any, top: Fields, ns: Fields) -> None:
    if isinstance(value, bool):
        top[field.canonical] = not value


def _read_match(field: WorldField, value: Any, top: Fields, ns: Fields) -> None:
    sources = ns.setdefault("additional_matching_sources", [])
    if value is True:
        sources.append(field.source)


def _read_recursion(field: WorldField, value: Any, top: Fields, ns: Fields) -> None:
    if is_number(value):
        ns["delay_until_recursion"] = value != 0
        ns["recursion_level"] = value
    else:
        ns["delay_until_recursion"] = value


def _read_group(field: WorldField, value: Any, top: Fields, ns: Fields) -> None:
    if not isinstance(value, str):
        ns["inclusion_groups"] = value
        return
    groups = split_groups(value)
    ns["inclusion_groups"] = groups
    if ",".join(groups) != value:
        ns["group_text"] = value


def _read_case(field: WorldField, value: Any, top: Fields, ns: Fields) -> None:
    if isinstance(value, bool):
        top["case_sensitive"] = value
    else:
        ns["case_sensitive"] = value


def _read_filter(field: WorldField, value: Any, top: Fields, ns: Fields) -> None:
    ns["character_filter"] = filter_to_canonical(value)


_READERS: dict[str, Callable[[WorldField, Any, Fields, Fields], None]] = {
    "copy": _read_copy,
    "invert": _read_invert,
    "match": _read_match,
    "recursion": _read_recursion,
    "group": _read_group,
    "case": _read_case,
    "filter": _read_filter,
}


def read_native_entry(native: dict[str, Any]) -> tuple[Fields, Fields, Fields | None]:
    """Map native fields to (canonical top-level fields, namespace fields, foreign extensions)."""
    top: Fields = {}
    ns: Fields = {}
    foreign: Fields | None = None
    unknown: Fields = {}
    for name, value in native.items():
        field = BY_NATIVE.get(name)
        if field is None:
            unknown[name] = value
        elif field.transform == "extensions":
            if isinstance(value, dict):
                foreign = {k: v for k, v in value.items() if k != NAMESPACE}
                ns["has_extensions"] = True
        elif field.transform in _READERS:
            _READERS[field.transform](field, value, top, ns)
    ns.update(Stash(keep=unknown).to_json(UNKNOWN))
    _mark_regex_keys(top)
    return top, ns, foreign


def _mark_regex_keys(top: Fields) -> None:
    """Keys that are all ``/regex/`` (blank ones aside) make the canonical ``use_regex`` true."""
    keys = top.get("keys")
    if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
        real = [k for k in keys if k.strip()]
        if real and all(is_sillytavern_regex_key(k) for k in real):
            top["use_regex"] = True


def filter_to_canonical(value: Any) -> Any:
    """Native ``characterFilter {isExclude, names, tags}`` as ``{mode, values, tags}``."""
    if not isinstance(value, dict):
        return value
    out: Fields = {}
    for name, item in value.items():
        if name == "isExclude":
            out["mode"] = ("exclude" if item else "include") if isinstance(item, bool) else item
        elif name == "names":
            out["values"] = item
        elif name in ("mode", "values"):
            out[f"native_{name}"] = item  # a native key that would collide with ours
        else:
            out[name] = item
    return out


def build_entry(top: Fields, ns: Fields, foreign: Fields | None) -> LorebookEntry:
    extensions = dict(foreign or {})
    extensions[NAMESPACE] = {"entry": ns}
    return LorebookEntry.model_validate({**top, "extensions": extensions})
