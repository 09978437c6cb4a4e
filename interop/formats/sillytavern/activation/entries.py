"""SillyTavern World Info entries as ST's runtime reads them, the pool and ST's constants.

Shared by the profile (``profile``: reading books, building the key index) and the
scan (``scan`` and its phases: ``checkWorldInfo``), which all import this module.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from ....activation.jsregex import DEFAULT_TIMEOUT, JSRegex, JSSyntaxError, Untranslatable, compile_js
from ....activation.jssort import sort_ascending_by
from ....activation.jsvalue import UNDEFINED, js_loosely_true, js_number, js_string, js_trim, js_truthy
from ....activation.keyindex import KeyIndex
from ....activation.result import LogRecord
from ....mappings import Mapping
from ....mappings import load as load_mapping

POSITIONS = {
    0: "before_char",
    1: "after_char",
    2: "an_top",
    3: "an_bottom",
    4: "at_depth",
    5: "em_top",
    6: "em_bottom",
    7: "outlet",
}
_TABLE = load_mapping("sillytavern")
ROLES = {int(k): v for k, v in _TABLE.enum_values("entry", "role").items()}
LOGIC_NAMES = {int(k): v for k, v in _TABLE.enum_values("entry", "selectiveLogic").items()}
AND_ANY, NOT_ALL, NOT_ANY, AND_ALL = 0, 1, 2, 3
_DEFAULTS = _TABLE.defaults("entry")
DEFAULT_DEPTH: int = _DEFAULTS["depth"]  # world-info.js DEFAULT_DEPTH
DEFAULT_WEIGHT: int = _DEFAULTS["groupWeight"]  # world-info.js DEFAULT_WEIGHT
MAX_SCAN_DEPTH = 1000
KNOWN_DECORATORS = ("@@activate", "@@dont_activate")
SOURCES = (
    ("matchPersonaDescription", "persona"),
    ("matchCharacterDescription", "description"),
    ("matchCharacterPersonality", "personality"),
    ("matchCharacterDepthPrompt", "depth_prompt"),
    ("matchScenario", "scenario"),
    ("matchCreatorNotes", "creator_notes"),
)
INITIAL, RECURSION, MIN_ACTIVATIONS = 1, 2, 3
BOOK_KINDS = ("chat", "persona", "character", "global")
UNUSABLE = "unusable-regex"


@dataclass
class STSettings:
    """``world_info_settings``. Defaults: the shipped ``default/content/settings.json`` (what a new
    install runs with); ``code_defaults()`` gives the values hard-coded in world-info.js instead
    (they differ in ``recursive`` and ``match_whole_words``, sillytavern.md §1.4)."""

    depth: int = 2
    min_activations: int = 0
    min_activations_depth_max: int = 0
    budget: float = 25  # percent of max_context
    budget_cap: int = 0
    include_names: bool = True
    recursive: bool = True
    max_recursion_steps: int = 0
    case_sensitive: bool = False
    match_whole_words: bool = True
    use_group_scoring: bool = False
    character_strategy: int = 1  # 0 evenly, 1 character_first, 2 global_first
    max_context: int = 8192  # the generation's context size (ours: not a WI setting)
    scan_injects: tuple[str, ...] = ()  # extension prompts flagged "scan" (e.g. Author's Note)
    dry_run: bool = False  # dry runs read but never write timed effects
    regex_timeout: float = DEFAULT_TIMEOUT

    @classmethod
    def code_defaults(cls, **overrides: Any) -> STSettings:
        return cls(**{"recursive": False, "match_whole_words": False, **overrides})

    @classmethod
    def from_settings_json(cls, settings: dict[str, Any], **overrides: Any) -> STSettings:
        """From ST's ``settings.json`` (its ``world_info_settings`` object or the object itself)."""
        source = settings.get("world_info_settings", settings)
        names = {
            "world_info_depth": "depth",
            "world_info_min_activations": "min_activations",
            "world_info_min_activations_depth_max": "min_activations_depth_max",
            "world_info_budget": "budget",
            "world_info_budget_cap": "budget_cap",
            "world_info_include_names": "include_names",
            "world_info_recursive": "recursive",
            "world_info_max_recursion_steps": "max_recursion_steps",
            "world_info_case_sensitive": "case_sensitive",
            "world_info_match_whole_words": "match_whole_words",
            "world_info_use_group_scoring": "use_group_scoring",
            "world_info_character_strategy": "character_strategy",
        }
        known = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}
        for native, ours in names.items():
            if native in source and ours in known:
                values[ours] = source[native]
        if isinstance(values.get("budget"), int | float) and values["budget"] > 100:
            values["budget"] = 25  # ST migrates old absolute budgets to 25 %
        values.update(overrides)
        return cls(**values)


@dataclass
class STBook:
    """One world file in the pool. ``kind`` decides the sort group (chat, persona, character, global)."""

    name: str
    world: dict[str, Any]
    kind: str = "global"


def _flag(raw: dict[str, Any], name: str) -> bool:
    """A JS truthiness test of an optional field ("0" and [] are true, 0 and "" false)."""
    return js_truthy(raw.get(name))


def _timed(raw: dict[str, Any], name: str) -> float | None:
    """A timed effect: None when ST's ``!entry[type]`` test skips it, else the
    ``Number()`` ST computes with ("5" is 5; a truthy "0" is 0, "abc" NaN)."""
    value = raw.get(name)
    return js_number(value) if js_truthy(value) else None


def _nullable_number(raw: dict[str, Any], name: str) -> float | None:
    """``entry[name] ?? global``: None for null/missing, else the number ``<=``, ``>`` and
    ``slice`` read from it ("1" is 1, true 1, "abc" NaN)."""
    value = raw.get(name)
    return None if value is None else js_number(value)


def _absent(raw: dict[str, Any], name: str) -> str:
    return "null" if name in raw else "undefined"


def _strict_int(value: Any) -> int | None:
    """A JSON number that ``===`` an integer (1 and 1.0 alike); None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if value == value and float(value).is_integer() else None


def _order(raw: dict[str, Any]) -> float:
    """``order`` as ST's sort (``b.order - a.order``) reads it: JavaScript ToNumber ("5" is 5, null 0,
    missing or "abc" NaN: the comparator then answers NaN, read as "equal", and V8's sort decides)."""
    value = raw.get("order", UNDEFINED)
    if type(value) is int:
        return value
    if value is UNDEFINED:
        return math.nan
    number = js_number(value)
    return int(number) if number.is_integer() else number


def _quirks(raw: dict[str, Any], keys: list[str]) -> str:
    """What ST does with this entry that its author probably did not mean (noted in the trace)."""
    notes = []
    disable = raw.get("disable")
    if isinstance(disable, str) and js_trim(disable).lower() in ("true", "yes", "on") and not js_loosely_true(disable):
        notes.append(f"ST bug: disable {disable!r} is not == true, so the entry stays enabled")
    if any(k and not js_trim(k) for k in keys):
        notes.append("ST quirk: a blank key trims to '' and matches every scan text")
    return "; ".join(notes)


def order_quirk(entry: STEntry) -> str:
    """The trace note for an entry whose order is not a number in a pool where others have one."""
    shown = "missing" if "order" not in entry.raw else repr(entry.raw["order"])
    return (
        f"ST quirk: order {shown} is not a number, so b.order - a.order is NaN ('equal' to every entry): "
        "its place among the others comes from V8's sort (Chrome, Edge; Firefox and Safari sort differently)"
    )


def _optional_bool(raw: dict[str, Any], name: str) -> bool | None:
    """``entry[name] ?? global`` then a truth test (null or missing: the global setting)."""
    value = raw.get(name)
    return None if value is None else js_truthy(value)


COERCIONS: dict[str, Callable[[dict[str, Any], str], Any]] = {
    "flag": _flag,
    "optional_bool": _optional_bool,
    "timed": _timed,
    "nullable_number": _nullable_number,
}
"""The table's ``engine`` column: how ``checkWorldInfo`` reads a raw field (``STEntry`` attribute =
the native name in snake case)."""


def _snake(native: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", native).lower()


def coerced_fields(mapping: Mapping) -> tuple[tuple[str, str, Callable[[dict[str, Any], str], Any]], ...]:
    """``(attribute, native field, coercion)`` of every entry row with an ``engine`` column."""
    return tuple((_snake(f.native), f.native, COERCIONS[f.engine]) for f in mapping.with_column("entry", "engine"))


_COERCED = coerced_fields(_TABLE)


def parse_st_decorators(content: str) -> tuple[list[str], str]:
    """ST's own ``parseDecorators``: only when the content starts with ``@@`` exactly; a line is
    known when it starts with ``@@activate`` or ``@@dont_activate`` (prefix test, so
    ``@@activate_only_after`` counts as known but never equals ``@@activate``); ``@@@`` lines are
    read only after an unknown line; the block ends at the first line not starting with ``@@``."""
    if not content.startswith("@@"):
        return [], content
    lines = content.split("\n")
    decorators: list[str] = []
    fallback = False
    body = content
    for index, line in enumerate(lines):
        if not line.startswith("@@"):
            body = "\n".join(lines[index:])
            break
        if line.startswith("@@@") and not fallback:
            continue
        probe = line[1:] if line.startswith("@@@") else line
        if any(probe.startswith(name) for name in KNOWN_DECORATORS):
            decorators.append(probe)
            fallback = False
        else:
            fallback = True
    return decorators, body


class STEntry:
    """A world-info entry as checkWorldInfo reads it."""

    _OWN = (
        "book",
        "character_filter",
        "comment",
        "content",
        "decorators",
        "delay_until_recursion",
        "depth",
        "disable",
        "entry_id",
        "fast_primary",
        "fast_secondary",
        "group",
        "group_weight",
        "hash",
        "index",
        "js_key",
        "keys",
        "logic_raw",
        "order",
        "outlet",
        "plain_gate",
        "position",
        "position_raw",
        "probability",
        "probability_exact_100",
        "quirks",
        "raw",
        "role",
        "secondary",
        "selective_logic",
        "seq",
        "slow",
        "sources",
        "triggers",
        "uid",
    )
    __slots__ = tuple(sorted({*_OWN, *(attribute for attribute, _, _ in _COERCED)}))

    def __init__(self, book: str, uid: Any, raw: dict[str, Any]) -> None:
        self.book = book
        self.uid = raw.get("uid", uid)
        self.entry_id = f"{book}.{self.uid}"
        # ST keys activations and timed effects by `${entry.world}.${entry.uid}`: entries without
        # a uid all become "<world>.undefined" (and a null uid "<world>.null").
        self.js_key = f"{book}.{js_string(raw['uid']) if raw.get('uid') is not None else _absent(raw, 'uid')}"
        self.raw = raw
        keys = raw.get("key")
        self.keys = [k if isinstance(k, str) else js_string(k) for k in keys] if isinstance(keys, list) else None
        secondary = raw.get("keysecondary")
        self.secondary = (
            [k if isinstance(k, str) else js_string(k) for k in secondary] if isinstance(secondary, list) else []
        )
        self.comment = raw.get("comment") if isinstance(raw.get("comment"), str) else ""
        content = raw.get("content") if isinstance(raw.get("content"), str) else ""
        self.decorators, self.content = parse_st_decorators(content)
        for attribute, native, coerce in _COERCED:  # the table's `engine` column
            setattr(self, attribute, coerce(raw, native))
        logic = raw.get("selectiveLogic")
        self.logic_raw = logic  # ST compares it with ===: "1" is no logic at all
        self.selective_logic = _strict_int(logic)
        self.order = _order(raw)
        self.position_raw = raw.get("position")
        self.position = _strict_int(self.position_raw)  # switch (===): null, "1" or 1.5 place nothing
        self.disable = js_loosely_true(raw.get("disable"))  # `entry.disable == true`
        self.quirks = _quirks(raw, self.keys or [])
        # The level as ST compares it (`entry.delayUntilRecursion > currentLevel`): any truthy value,
        # kept as written ("1" is a level; true counts as 1), or 0 for none.
        delay_level = raw.get("delayUntilRecursion")
        self.delay_until_recursion = delay_level if js_truthy(delay_level) else 0
        # `probability === 100` skips the roll (no random number drawn); `roll <= probability` coerces.
        self.probability = js_number(raw["probability"]) if "probability" in raw else math.nan
        self.probability_exact_100 = _strict_int(raw.get("probability")) == 100
        self.depth = raw.get("depth", UNDEFINED)  # read by the assembly with ?? and ===, injected as Number()
        self.outlet = raw.get("outletName") if isinstance(raw.get("outletName"), str) else ""
        self.group = raw.get("group") if isinstance(raw.get("group"), str) else ""
        self.group_weight = raw.get("groupWeight")  # summed with JS `+`: strings concatenate
        self.role = raw.get("role", UNDEFINED)  # like depth
        triggers = raw.get("triggers")
        self.triggers = [t for t in triggers if isinstance(t, str)] if isinstance(triggers, list) else []
        cf = raw.get("characterFilter")
        self.character_filter = cf if isinstance(cf, dict) else None
        self.sources = tuple(name for flag, name in SOURCES if _flag(raw, flag))
        blob = json.dumps(raw, sort_keys=True, ensure_ascii=False, default=str)
        # lone surrogates read (as in the apps), so they must hash too
        self.hash = hashlib.sha1(f"{book}\x00{blob}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
        self.index = -1  # position in the sorted pool
        self.seq = -1  # position in load order (books, then Object.values order)
        self.fast_primary: list[int | None] = []
        self.fast_secondary: list[int | None] = []
        self.slow = False
        self.plain_gate = False  # no check but the keys can stop it (set by the pool)

    @property
    def shown_order(self) -> float | None:
        """The order to report: None when it is not a number."""
        return None if self.order != self.order else self.order

    @property
    def title(self) -> str:
        return self.comment or (self.keys[0] if self.keys else "")

    @property
    def state_key(self) -> str:
        return self.js_key


def js_object_values_order(entries: dict[str, Any]) -> list[tuple[str, Any]]:
    """``Object.values`` order: array-index keys ascending first, then the rest as inserted."""

    def is_index(key: str) -> bool:
        return key.isdigit() and (key == "0" or not key.startswith("0")) and int(key) < 2**32 - 1

    indexed = sorted(((k, v) for k, v in entries.items() if is_index(k)), key=lambda kv: int(kv[0]))
    others = [(k, v) for k, v in entries.items() if not is_index(k)]
    return indexed + others


@dataclass
class STPool:
    entries: list[STEntry]
    index: KeyIndex
    primary_of: dict[int, list[int]]  # key id -> entries having it as a primary key
    always: list[int]  # constant / @@activate entries: candidates without a key hit
    slow: list[int]  # entries whose keys need the exact per-entry path
    warnings: list[str] = field(default_factory=list)
    regexes: dict[str, JSRegex | str | None] = field(default_factory=dict)
    max_scan_depth: int = 0  # the largest per-entry scanDepth
    delayed: list[int] = field(default_factory=list)  # entries with a delay
    levels: list[Any] = field(default_factory=list)  # delayUntilRecursion levels, as ST sorts them
    # One shared "no key matched" record per entry, in load order: the common case of the log,
    # built once (records are read-only once returned).
    no_match: list[LogRecord] = field(default_factory=list)
    by_seq: list[STEntry] = field(default_factory=list)  # the entries in load order
    unusual: list[STEntry] = field(default_factory=list)  # entries a check other than keys can stop
    quirky: list[STEntry] = field(default_factory=list)  # entries with a trace note (STEntry.quirks)
    shared_keys: bool = False  # two entries share `${world}.${uid}` (e.g. no uid: "w.undefined")


def split_groups(group: str) -> list[str]:
    """``group.split(/,\\s*/)`` without empty names."""
    return [g for g in re.split(r",\s*", group) if g]


def parse_regex_key(pool: STPool, key: str) -> JSRegex | str | None:
    """ST's parseRegexFromString on a trimmed key: ``/pattern/flags`` with flags from ``gimsuy``
    and no unescaped ``/`` inside. Returns the regex, None for a plain key, or UNUSABLE for a
    pattern we cannot run (counted as no match, with a warning)."""
    if key in pool.regexes:
        return pool.regexes[key]
    compiled: JSRegex | str | None = None
    end = key.rfind("/")
    if len(key) >= 3 and key.startswith("/") and end > 1:
        pattern, flags = key[1:end], key[end + 1 :]
        unescaped_slash = any(pattern[i] == "/" and (i == 0 or pattern[i - 1] != "\\") for i in range(len(pattern)))
        # Repeated flags make JS throw, and ST then matches the key as plain text.
        if all(f in "gimsuy" for f in flags) and len(set(flags)) == len(flags) and not unescaped_slash:
            try:
                compiled = compile_js(pattern.replace("\\/", "/", 1), flags)
            except JSSyntaxError as exc:
                compiled = None  # new RegExp throws, parseRegexFromString returns null: plain text
                message = f"regex key {key!r}: JavaScript rejects it ({exc}); ST matches it as plain text"
                if message not in pool.warnings:
                    pool.warnings.append(message)
            except Untranslatable as exc:
                compiled = UNUSABLE
                message = f"regex key {key!r} cannot be used ({exc}); counted as no match"
                if message not in pool.warnings:
                    pool.warnings.append(message)
    pool.regexes[key] = compiled
    return compiled


def recursion_levels(entries: list[STEntry]) -> list[Any]:
    """``availableRecursionDelayLevels``: ``[...new Set(truthy delayUntilRecursion, true as 1)]`` sorted
    with ``(a, b) => a - b``. The Set keeps 1 and "1" apart (and every array or object), so both become
    levels; the sort is V8's (a level like "abc" makes the comparator NaN)."""
    seen: set[tuple[str, Any]] = set()
    levels: list[Any] = []
    for entry in entries:
        level = entry.delay_until_recursion
        if not level:
            continue
        level = 1 if level is True else level
        if isinstance(level, int | float):
            identity: tuple[str, Any] = ("number", float(level))
        elif isinstance(level, str):
            identity = ("string", level)
        else:
            identity = ("object", id(level))
        if identity not in seen:
            seen.add(identity)
            levels.append(level)
    return sort_ascending_by(levels, js_number)
