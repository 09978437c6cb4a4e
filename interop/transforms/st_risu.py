"""SillyTavern knobs <-> RisuAI decorators, both ways, exactly reversible.

Risu keeps advanced entry behaviour in ``@@`` lines at the top of ``content``;
SillyTavern (and the canonical model, ``entry.extensions.sillytavern.entry.*``)
keeps it in fields. The knobs Risu honours as decorators are translated the way
Risu's own card importer does (risu.md 3.1), plus ``enabled: false`` as
``@@dont_activate``:

* ``enabled: false`` -> ``@@dont_activate``
* ``match_whole_words`` true / false -> ``@@match_full_word`` / ``@@match_partial_word``
* ``delay`` N > 0 -> ``@@activate_only_after N``
* ``optional_logic`` 1 / 2 / 3 with ``secondary_keys`` -> ``@@exclude_keys_all k1,k2`` /
  one ``@@exclude_keys k`` per key / one ``@@additional_keys k`` per key, and Risu's
  ``selective`` becomes false
* ``insertion_position`` 4 (at depth) -> ``@@depth N`` + ``@@role r``
* ``use_probability`` + ``trigger_percent`` N < 100 -> ``@@probability N``

Field names are the SillyTavern adapter's (``extensions.sillytavern.entry.*``);
the flat keys SillyTavern itself writes into a card entry's ``extensions``
(``probability``, ``selectiveLogic``, ...) are read too, as Risu's importer does.

Two directions, each leaving a record so the other can undo it exactly:

* ``to_risu`` (canonical -> Risu) pops the knobs, returns the lines to prepend
  and the popped values; the caller stores both in the Risu entry
  (``extentions.interop_stash.decorators``). ``strip_generated`` undoes it when
  the content still starts with those lines, so user-written decorators are
  never mistaken for generated ones.
* ``from_risu`` (Risu -> canonical) turns decorators of a Risu-made entry into
  fields when an exact equivalent exists, removes their lines and returns a
  record (``extensions.risuai.decorators``) with which ``restore_text`` writes
  the original lines back byte for byte while the fields are unchanged.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..jsonvalue import drop_empty, get_path, has_path, pop_path, set_path
from ..model.decorators import JS_WHITESPACE, Decorator, ParsedContent, parse_decorators

ST_ENTRY = "extensions.sillytavern.entry"
# Field names of the SillyTavern adapter's canonical layout (spec Appendix A).
TRIGGER_PERCENT = f"{ST_ENTRY}.trigger_percent"
USE_PROBABILITY = f"{ST_ENTRY}.use_probability"
POSITION = f"{ST_ENTRY}.insertion_position"
DEPTH = f"{ST_ENTRY}.depth"
ROLE = f"{ST_ENTRY}.role"
LOGIC = f"{ST_ENTRY}.optional_logic"
DELAY = f"{ST_ENTRY}.delay"
WHOLE_WORDS = f"{ST_ENTRY}.match_whole_words"


@dataclass(frozen=True)
class Layout:
    """Where one spelling of the SillyTavern knobs lives in a canonical entry."""

    whole: str
    delay: str
    logic: str
    position: str
    depth: str
    role: str
    percent: str
    use_probability: str


# The SillyTavern adapter's namespace first; then the flat keys SillyTavern writes into a
# card entry's ``extensions`` (what Risu's own importer translates).
LAYOUTS = (
    Layout(WHOLE_WORDS, DELAY, LOGIC, POSITION, DEPTH, ROLE, TRIGGER_PERCENT, USE_PROBABILITY),
    Layout(*(f"extensions.{name}" for name in (
        "match_whole_words", "delay", "selectiveLogic", "position", "depth", "role", "probability", "useProbability"
    ))),
)
AT_DEPTH_VALUES = ("at_depth", "atDepth", 4)
AT_DEPTH = 4  # SillyTavern position 4 (atDepth), as the SillyTavern adapter stores it
ROLE_NAMES = ("system", "user", "assistant")  # SillyTavern role 0 / 1 / 2
LOGIC_CODES = {"and_any": 0, "not_all": 1, "not_any": 2, "and_all": 3}
LOGIC_BY_DECORATOR = {"exclude_keys_all": 1, "exclude_keys": 2, "additional_keys": 3}


# --- dotted paths in plain dicts ----------------------------------------------


# --- canonical -> Risu -------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _role_name(value: Any) -> str | None:
    if _is_int(value) and 0 <= value < len(ROLE_NAMES):
        return ROLE_NAMES[value]
    return value if value in ROLE_NAMES else None


def _logic_code(value: Any) -> int | None:
    if _is_int(value):
        return value
    return LOGIC_CODES.get(value) if isinstance(value, str) else None


def _decorator_safe(key: Any) -> bool:
    """Can ``key`` be a decorator argument unchanged? (Risu splits arguments on commas and trims them.)"""
    return isinstance(key, str) and key != "" and key == key.strip(JS_WHITESPACE) and "," not in key and "\n" not in key


@dataclass
class Generated:
    """Decorator lines made from fields, and the canonical values they replace (dotted path -> value)."""

    text: str = ""
    fields: dict[str, Any] = field(default_factory=dict)


def to_risu(entry: dict[str, Any]) -> Generated:
    """Pop the knobs Risu expresses as decorators out of ``entry`` (a canonical entry dict, mutated).

    ``selective`` is set to false when a secondary-key logic became decorators,
    as Risu's importer does; its canonical value is in ``fields``.
    """
    lines: list[str] = []
    removed: dict[str, Any] = {}

    def take(*paths: str) -> None:
        for path in paths:
            if has_path(entry, path):
                removed[path] = copy.deepcopy(get_path(entry, path))
                pop_path(entry, path)

    if entry.get("enabled") is False:
        lines.append("@@dont_activate")
        take("enabled")
    for layout in LAYOUTS:
        whole = get_path(entry, layout.whole)
        if isinstance(whole, bool):
            lines.append("@@match_full_word" if whole else "@@match_partial_word")
            take(layout.whole)
            break
    for layout in LAYOUTS:
        delay = get_path(entry, layout.delay)
        if _is_int(delay) and delay > 0:
            lines.append(f"@@activate_only_after {delay}")
            take(layout.delay)
            break
    secondary = entry.get("secondary_keys")
    for layout in LAYOUTS:
        logic = _logic_code(get_path(entry, layout.logic))
        if not (
            logic in (1, 2, 3)
            and isinstance(secondary, list)
            and secondary
            and all(_decorator_safe(k) for k in secondary)
        ):
            continue
        if logic == 1:
            lines.append("@@exclude_keys_all " + ",".join(secondary))
        else:
            name = "exclude_keys" if logic == 2 else "additional_keys"
            lines.extend(f"@@{name} {k}" for k in secondary)
        take(layout.logic)
        removed["selective"] = entry.get("selective")
        if "selective" not in entry:
            removed["!absent"] = ["selective"]
        entry["selective"] = False
        break
    for layout in LAYOUTS:
        depth = get_path(entry, layout.depth)
        role_value = get_path(entry, layout.role)
        role = _role_name(role_value)
        if (
            get_path(entry, layout.position) in AT_DEPTH_VALUES
            and _is_int(depth)
            and depth >= 0
            and (role is not None or role_value is None)
        ):
            lines.append(f"@@depth {depth}")
            if role is not None:
                lines.append(f"@@role {role}")
            take(layout.position, layout.depth, layout.role)
            break
    for layout in LAYOUTS:
        percent = get_path(entry, layout.percent)
        if get_path(entry, layout.use_probability) is True and _is_int(percent) and 0 <= percent < 100:
            lines.append(f"@@probability {percent}")
            take(layout.percent, layout.use_probability)
            break
    return Generated("".join(line + "\n" for line in lines), removed)


def strip_generated(entry: dict[str, Any], text: str, fields: dict[str, Any]) -> bool:
    """Undo ``to_risu`` on a canonical entry dict read back from Risu; False if the lines were edited."""
    content = entry.get("content")
    if not (isinstance(content, str) and isinstance(text, str) and isinstance(fields, dict)):
        return False
    if not content.startswith(text) or not isinstance(fields.get("!absent", []), list):
        return False
    entry["content"] = content[len(text) :]
    absent = fields.get("!absent", [])
    for path, value in fields.items():
        if path == "!absent":
            continue
        if path in absent:
            entry.pop(path, None)
        else:
            set_path(entry, path, copy.deepcopy(value))
    return True


# --- Risu -> canonical -------------------------------------------------------------


def _int_arg(deco: Decorator) -> int | None:
    """The single integer argument, only if it renders back to the same text."""
    if len(deco.args) != 1 or deco.raw_value != deco.args[0]:
        return None
    try:
        value = int(deco.args[0])
    except ValueError:
        return None
    return value if str(value) == deco.args[0] else None


def from_risu(entry: dict[str, Any]) -> dict[str, Any] | None:
    """Turn decorators of a Risu-made canonical entry dict into fields (mutates ``entry``).

    Only lines ``to_risu`` would write identically, without fallbacks and not
    repeated, are translated; every other decorator stays in ``content``.
    Returns the record for ``restore_text`` or None when nothing was translated.
    """
    content = entry.get("content")
    parsed = parse_decorators(content if isinstance(content, str) else None)
    if not parsed.decorators:
        return None
    names = Counter(line.name for line in parsed.all_lines())
    plain = {d.name: d for d in parsed.decorators if not d.fallback and not d.fallbacks and names[d.name] == 1}
    chosen: list[Decorator] = []
    values: dict[str, Any] = {}

    def once(name: str) -> Decorator | None:
        return plain.get(name)

    deco = once("dont_activate")
    if deco and not deco.args and "activate" not in names:
        chosen.append(deco)
        values["enabled"] = False
    word = [n for n in ("match_full_word", "match_partial_word") if n in names]
    if len(word) == 1 and (deco := once(word[0])) is not None and not deco.args:
        chosen.append(deco)
        values[WHOLE_WORDS] = word[0] == "match_full_word"
    deco = once("activate_only_after")
    if deco and (n := _int_arg(deco)) is not None and n > 0:
        chosen.append(deco)
        values[DELAY] = n
    logic_lines = _logic_lines(parsed.decorators, names, entry)
    if logic_lines:
        chosen.extend(logic_lines)
        values[LOGIC] = LOGIC_BY_DECORATOR[logic_lines[0].name]
        values["selective"] = True
    deco, role_deco = once("depth"), once("role")
    role_ok = "role" not in names or (role_deco is not None and role_deco.value is not None)
    if deco and (n := _int_arg(deco)) is not None and n >= 0 and role_ok:
        chosen.append(deco)
        values[POSITION] = AT_DEPTH
        values[DEPTH] = n
        if role_deco is not None:
            chosen.append(role_deco)
            values[ROLE] = ROLE_NAMES.index(role_deco.value)
    deco = once("probability")
    if deco and (n := _int_arg(deco)) is not None and 0 <= n < 100:
        chosen.append(deco)
        values[TRIGGER_PERCENT] = n
        values[USE_PROBABILITY] = True
    if not chosen:
        return None
    # Only take lines whose rendering is exactly what to_risu writes, so regenerating is faithful too.
    probe = copy.deepcopy(entry)
    created: list[str] = []
    for path, value in values.items():
        if not set_path(probe, path, value, created):
            return None
    regenerated = to_risu(copy.deepcopy(probe)).text
    if sorted(regenerated.splitlines()) != sorted(d.line for d in chosen):
        return None
    rest = _remove_lines(parsed.prefix, {id(d) for d in chosen}, parsed)
    for path, value in values.items():
        set_path(entry, path, value)
    entry["content"] = rest + parsed.body
    return {"text": parsed.prefix, "rest": rest, "fields": values, "created": created}


def _logic_lines(decorators: tuple[Decorator, ...], names: Counter[str], entry: dict[str, Any]) -> list[Decorator]:
    kinds = [n for n in LOGIC_BY_DECORATOR if names[n]]
    secondary = entry.get("secondary_keys")
    if len(kinds) != 1 or entry.get("selective") is not False or not isinstance(secondary, list) or not secondary:
        return []
    kind = kinds[0]
    lines = [d for d in decorators if d.name == kind]
    if any(d.fallback or d.fallbacks for d in lines) or len(lines) != names[kind]:
        return []
    if kind == "exclude_keys_all":
        ok = len(lines) == 1 and list(lines[0].args) == secondary
    else:
        ok = [list(d.args) for d in lines] == [[k] for k in secondary]
    return lines if ok else []


def _remove_lines(prefix: str, drop: set[int], parsed: ParsedContent) -> str:
    """The decorator block without the dropped lines, every other byte kept."""
    lead = prefix[: len(prefix) - len(prefix.lstrip(JS_WHITESPACE))]
    pieces = prefix[len(lead) :].split("\n")
    lines = [p + "\n" for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
    kept = [line for line, deco in zip(lines, parsed.all_lines(), strict=True) if id(deco) not in drop]
    return lead + "".join(kept)


def restore_text(entry: dict[str, Any], record: dict[str, Any]) -> bool:
    """Write back the original decorator lines of a Risu entry if its translated fields are unchanged.

    Mutates ``entry``: pops the translated fields (and containers ``from_risu``
    created) and puts the original lines back in ``content``. False if the
    fields or the remaining decorator block were edited.
    """
    content = entry.get("content")
    text, rest, fields = record.get("text"), record.get("rest"), record.get("fields")
    if not (isinstance(content, str) and isinstance(text, str) and isinstance(rest, str) and isinstance(fields, dict)):
        return False
    if not content.startswith(rest):
        return False
    probe = copy.deepcopy(entry)
    generated = to_risu(probe)
    current = {path: value for path, value in generated.fields.items() if path != "!absent"}
    if current != fields:
        return False
    entry.clear()
    entry.update(probe)
    entry["content"] = text + content[len(rest) :]
    if "selective" in fields:
        entry["selective"] = False
    drop_empty(entry, list(record.get("created") or []))
    return True


def decorator_counts(content: Any) -> Counter[str]:
    """How many lines of each decorator name ``content`` starts with (fallbacks included)."""
    return Counter(d.name for d in parse_decorators(content if isinstance(content, str) else None).all_lines())


# --- a Risu-disabled entry in a card: the ``@@dont_activate`` line goes back into content ---

CARD_LINE = "@@dont_activate\n"
"""RisuAI's card import (``convertCharbook``, src/ts/characterCards.ts) drops ``enabled``, and its
engine honours ``@@dont_activate``; SillyTavern knows the same decorator (``KNOWN_DECORATORS``,
public/scripts/world-info.js) and skips a disabled entry before reading decorators, so the line
changes nothing ST does with the entry."""
CARD_TEXT = "card_text"
"""Key of the ``extensions.risuai.decorators`` record naming the line a card writer prepended."""


def risu_disabled(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The decorator record of an entry a Risu source disabled with ``@@dont_activate`` (still disabled)."""
    ext = entry.get("extensions")
    ns = ext.get("risuai") if isinstance(ext, dict) else None
    record = ns.get("decorators") if isinstance(ns, dict) else None
    if entry.get("enabled") is not False or not isinstance(record, dict):
        return None
    fields = record.get("fields")
    return record if isinstance(fields, dict) and fields.get("enabled") is False else None


def add_card_line(entry: dict[str, Any]) -> bool:
    """Prepend ``@@dont_activate`` to a Risu-disabled entry dict's content (mutated) and record it.

    False (nothing done) for any other entry, or when the content already has the decorator.
    """
    record = risu_disabled(entry)
    content = entry.get("content")
    if record is None or not isinstance(content, str):
        return False
    if any(d.name == "dont_activate" for d in parse_decorators(content).all_lines()):
        return False
    entry["content"] = CARD_LINE + content
    record[CARD_TEXT] = CARD_LINE
    return True


def strip_card_line(entry: dict[str, Any], record: Any) -> None:
    """Undo ``add_card_line`` on an entry dict and its record (both mutated): the way back."""
    if not isinstance(record, dict) or CARD_TEXT not in record:
        return
    text = record.pop(CARD_TEXT)
    content = entry.get("content")
    if isinstance(text, str) and isinstance(content, str) and content.startswith(text):
        entry["content"] = content[len(text):]
