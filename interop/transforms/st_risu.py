"""SillyTavern knobs <-> RisuAI decorators, both ways, exactly reversible.

Risu keeps advanced entry behaviour in ``@@`` lines at the top of ``content``;
SillyTavern (and the canonical model, ``entry.extensions.sillytavern.entry.*``)
keeps it in fields. The knobs Risu honours as decorators are translated the way
Risu's own card importer does (risu.md 3.1), plus ``enabled: false`` as
``@@dont_activate``. Each knob is one row of ``KNOBS`` (both directions come from
it); which decorator carries which SillyTavern field, and for which value, is the
``decorator`` column of mappings/sillytavern.json:

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
import functools
import json
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable
from dataclasses import astuple, dataclass, field
from types import MappingProxyType
from typing import Any

from ..jsonvalue import drop_empty, get_path, has_path, pop_path, set_path
from ..mappings import load as load_mapping
from ..model.decorators import JS_WHITESPACE, Decorator, ParsedContent, parse_decorators
from ..model.stash import Stash
from .losses import Composed, Losses, Step, compose

ST_ENTRY = "extensions.sillytavern.entry"


def st_canonical(native: str) -> str:
    """Where the SillyTavern adapter keeps world field ``native`` in a canonical entry (mappings/sillytavern.json)."""
    row = load_mapping("sillytavern").by_native("entry", native)
    if row is None or not (row.canonical or "").startswith(f"{ST_ENTRY}."):
        raise ValueError(f"mappings/sillytavern.json: entry.{native} is not under {ST_ENTRY}")
    return str(row.canonical)


# The SillyTavern adapter's canonical layout of the knobs, by SillyTavern's own field names.
TRIGGER_PERCENT = st_canonical("probability")
USE_PROBABILITY = st_canonical("useProbability")
POSITION = st_canonical("position")
DEPTH = st_canonical("depth")
ROLE = st_canonical("role")
LOGIC = st_canonical("selectiveLogic")
DELAY = st_canonical("delay")
WHOLE_WORDS = st_canonical("matchWholeWords")


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


def card_flavour(path: str) -> str:
    """The flat card ``extensions`` key SillyTavern writes a namespaced knob to (mappings/sillytavern.json)."""
    rows = [
        f.native for f in load_mapping("sillytavern").fields_at("entry")
        if f.canonical == path and f.native.startswith("extensions.")
    ]  # fmt: skip
    if len(rows) != 1:
        raise ValueError(f"mappings/sillytavern.json: {len(rows)} card-flavour rows for {path}")
    return rows[0]


NAMESPACED = Layout(WHOLE_WORDS, DELAY, LOGIC, POSITION, DEPTH, ROLE, TRIGGER_PERCENT, USE_PROBABILITY)
# The SillyTavern adapter's namespace first; then the flat keys SillyTavern writes into a
# card entry's ``extensions`` (what Risu's own importer translates).
LAYOUTS = (NAMESPACED, Layout(*(card_flavour(path) for path in astuple(NAMESPACED))))


def st_enum(native: str) -> dict[str, int]:
    """A SillyTavern entry enum from mappings/sillytavern.json: canonical name -> native number."""
    values = load_mapping("sillytavern").enum_values("entry", native)
    if not values:
        raise ValueError(f"mappings/sillytavern.json: no enum values for entry.{native}")
    return {name: int(json.loads(value)) for value, name in values.items()}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


_POSITIONS = st_enum("position")
AT_DEPTH = _POSITIONS["at_depth"]  # SillyTavern position 4 (atDepth), as the SillyTavern adapter stores it
# A position naming at-depth: the table's name, SillyTavern's own spelling (``atDepth``) or the number.
AT_DEPTH_VALUES = ("at_depth", _camel("at_depth"), AT_DEPTH)
_ROLES = st_enum("role")
ROLE_NAMES = tuple(sorted(_ROLES, key=_ROLES.__getitem__))  # indexed by SillyTavern's role number
assert [_ROLES[name] for name in ROLE_NAMES] == list(range(len(ROLE_NAMES))), "mappings/sillytavern.json: role"
# Secondary-key logic by name; a canonical value may spell the table's name in lower case.
LOGIC_CODES = {name.lower(): code for name, code in st_enum("selectiveLogic").items()}
# Risu's decorators for the logics it has (risu.md 3.1); Risu's own logic is AND ANY.
# The generated lines' record (``Generated.fields``) is a keep/absent stash (interop.model.stash) spelled
# as one dict: dotted path -> value replaced (keep), and under this key the paths that were missing
# (absent; they also appear in keep, in the order they were taken, which the on-disk record preserves).
ABSENT_PATHS = "!absent"


def generated_stash(fields: dict[str, Any]) -> Stash | None:
    """``Generated.fields`` as a Stash; None when its absent part is not a list (not ours)."""
    absent = fields.get(ABSENT_PATHS, [])
    if not isinstance(absent, list):
        return None
    return Stash(keep={path: value for path, value in fields.items() if path != ABSENT_PATHS}, absent=list(absent))




@functools.cache
def st_decorators(native: str) -> MappingProxyType[str, Any]:
    """The Risu decorators of SillyTavern entry field ``native`` (the table's ``decorator`` column):
    decorator name -> the native value it stands for (``name=value``, JSON), or None when the
    decorator carries the value as its argument."""
    row = load_mapping("sillytavern").by_native("entry", native)
    if row is None or not row.decorator:
        raise ValueError(f"mappings/sillytavern.json: entry.{native} has no decorator column")
    pairs = (d.partition("=") for d in row.decorator)
    return MappingProxyType({name: json.loads(value) if sep else None for name, sep, value in pairs})


@functools.cache
def st_decorator(native: str) -> str:
    """The one Risu decorator that carries SillyTavern entry field ``native`` as its argument."""
    (name,) = st_decorators(native)
    return name


LOGIC_BY_DECORATOR: dict[str, int] = dict(st_decorators("selectiveLogic"))
ACTING_LOGICS = tuple(LOGIC_BY_DECORATOR.values())
JOINED_LOGIC = "exclude_keys_all"  # the one logic decorator that takes every key on one line


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


def _acting_logic(logic: int | None, secondary: Any) -> bool:
    """A secondary-key logic other than Risu's own (AND ANY) over a non-empty key list."""
    return logic in ACTING_LOGICS and isinstance(secondary, list) and bool(secondary)


def _decorator_safe(key: Any) -> bool:
    """Can ``key`` be a decorator argument unchanged? (Risu splits arguments on commas and trims them.)"""
    return isinstance(key, str) and key != "" and key == key.strip(JS_WHITESPACE) and "," not in key and "\n" not in key


@dataclass
class Generated:
    """Decorator lines made from fields, and the canonical values they replace (dotted path -> value).

    ``losses``: knobs SillyTavern acts on that no decorator expresses; they stay in the entry
    (stashed in Risu's ``extentions``) and have no effect in Risu.
    """

    text: str = ""
    fields: dict[str, Any] = field(default_factory=dict)
    losses: Losses = field(default_factory=Losses)


@dataclass
class _ToRisu:
    """The state the ``to_risu`` steps share: lines written so far, values they replace, losses."""

    lines: list[str] = field(default_factory=list)
    removed: dict[str, Any] = field(default_factory=dict)
    losses: Losses = field(default_factory=Losses)

    def take(self, entry: dict[str, Any], *paths: str) -> None:
        for path in paths:
            if has_path(entry, path):
                self.removed[path] = copy.deepcopy(get_path(entry, path))
                pop_path(entry, path)


Attempt = Callable[[dict[str, Any], _ToRisu, Layout], bool]
Left = Callable[[dict[str, Any], Layout], bool]


def _first_layout(attempt: Attempt, left: Left, knob: str, detail: str) -> Step[_ToRisu]:
    """A step that translates the knob from the first layout where it can, else records what is left as a loss.

    ``left(entry, layout)``: the layout still holds a value SillyTavern would act on; ``knob`` names
    the ``Layout`` field the loss is reported at.
    """

    def step(entry: dict[str, Any], state: _ToRisu) -> None:
        for layout in LAYOUTS:
            if attempt(entry, state, layout):
                return
        for layout in LAYOUTS:
            if left(entry, layout):
                state.losses.unsupported(getattr(layout, knob), detail)
                return

    return step


def to_risu(entry: dict[str, Any]) -> Generated:
    """Pop the knobs Risu expresses as decorators out of ``entry`` (a canonical entry dict, mutated).

    ``selective`` is set to false when a secondary-key logic became decorators,
    as Risu's importer does; its canonical value is in ``fields``. Knobs left in the
    entry that SillyTavern would act on are recorded in ``losses``.
    """
    state = TO_RISU(entry, _ToRisu())
    return Generated("".join(line + "\n" for line in state.lines), state.removed, state.losses)


def strip_generated(entry: dict[str, Any], text: str, fields: dict[str, Any]) -> bool:
    """Undo ``to_risu`` on a canonical entry dict read back from Risu; False if the lines were edited."""
    content = entry.get("content")
    if not (isinstance(content, str) and isinstance(text, str) and isinstance(fields, dict)):
        return False
    stash = generated_stash(fields)
    if not content.startswith(text) or stash is None:
        return False
    entry["content"] = content[len(text) :]
    for path, value in stash.keep.items():  # dotted paths, in the order they were taken
        if path in stash.absent:
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


@dataclass
class _FromRisu:
    """The state the ``from_risu`` steps share: the parsed block, the lines taken and the fields they give."""

    entry: dict[str, Any]
    parsed: ParsedContent
    names: Counter[str]
    chosen: list[Decorator] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)

    def once(self, name: str) -> Decorator | None:
        """The decorator ``name`` when it is on one line only, without fallbacks."""
        found = [d for d in self.parsed.decorators if d.name == name]
        if self.names[name] != 1 or len(found) != 1 or found[0].fallback or found[0].fallbacks:
            return None
        return found[0]

    def take(self, deco: Decorator) -> None:
        self.chosen.append(deco)


# --- the knobs: one row each, both directions ----------------------------------------


class Knob(ABC):
    """One SillyTavern knob and the Risu decorator lines that carry it.

    ``write`` (canonical -> Risu) and ``read`` (Risu -> canonical) come from the same row;
    ``read`` takes a line only when ``write`` would produce it again (``from_risu`` checks).
    ``at``: the ``Layout`` field a loss is reported at; ``loss``: why a value SillyTavern acts on
    has no decorator (recorded when such a value stays in the entry).
    """

    at: str
    loss: str

    @abstractmethod
    def write(self, entry: dict[str, Any], state: _ToRisu, layout: Layout) -> bool:
        """Write the lines for ``layout``'s value; False when that layout has none to write."""

    @abstractmethod
    def left(self, entry: dict[str, Any], layout: Layout) -> bool:
        """``layout`` still holds a value SillyTavern would act on."""

    @abstractmethod
    def read(self, found: _FromRisu) -> None:
        """Turn the knob's lines into canonical fields (``found.values``) when they are exact."""

    @abstractmethod
    def natives(self) -> tuple[str, ...]:
        """The SillyTavern fields whose ``decorator`` column (mappings/sillytavern.json) this row reads."""

    def step(self) -> Step[_ToRisu]:
        return _first_layout(self.write, self.left, self.at, self.loss)


@dataclass(frozen=True)
class Disabled(Knob):
    """``enabled: false`` <-> ``@@dont_activate`` (unless ``@@activate`` is there too); a top-level field,
    the same in every layout, and nothing is left to lose."""

    native: str = "disable"
    at: str = ""
    loss: str = ""

    @property
    def name(self) -> str:
        return _by_value(self.native)[True]

    def natives(self) -> tuple[str, ...]:
        return (self.native,)

    def write(self, entry: dict[str, Any], state: _ToRisu, layout: Layout) -> bool:
        if entry.get("enabled") is not False:
            return False
        state.lines.append(f"@@{self.name}")
        state.take(entry, "enabled")
        return True

    def left(self, entry: dict[str, Any], layout: Layout) -> bool:
        return False

    def read(self, found: _FromRisu) -> None:
        deco = found.once(self.name)
        if deco and not deco.args and "activate" not in found.names:
            found.take(deco)
            found.values["enabled"] = False


@functools.cache
def _by_value(native: str) -> dict[Any, str]:
    """The native value -> its decorator (``name=value`` entries of the table's decorator column)."""
    return {value: name for name, value in st_decorators(native).items()}


@dataclass(frozen=True)
class Switch(Knob):
    """A true/false field <-> one of two argument-less decorators (the table's ``name=true``/``name=false``)."""

    at: str
    native: str
    loss: str

    def _names(self) -> dict[bool, str]:
        return _by_value(self.native)

    def natives(self) -> tuple[str, ...]:
        return (self.native,)

    def write(self, entry: dict[str, Any], state: _ToRisu, layout: Layout) -> bool:
        value = get_path(entry, getattr(layout, self.at))
        if not isinstance(value, bool):
            return False
        state.lines.append(f"@@{self._names()[value]}")
        state.take(entry, getattr(layout, self.at))
        return True

    def left(self, entry: dict[str, Any], layout: Layout) -> bool:
        return get_path(entry, getattr(layout, self.at)) is not None

    def read(self, found: _FromRisu) -> None:
        names = self._names()
        word = [n for n in names.values() if n in found.names]
        if len(word) == 1 and (deco := found.once(word[0])) is not None and not deco.args:
            found.take(deco)
            found.values[getattr(NAMESPACED, self.at)] = word[0] == names[True]


@dataclass(frozen=True)
class Count(Knob):
    """A whole-number field <-> ``@@decorator N`` for ``N >= low`` where ``acts(N)``; a ``gate`` field
    must pass ``gate_ok`` and is set to ``gate_value`` on the way back."""

    at: str
    native: str
    low: int
    acts: Callable[[Any], bool]
    loss: str
    gate: str = ""
    gate_ok: Callable[[Any], bool] = lambda value: True
    gate_value: Any = None

    def _exact(self, value: Any) -> bool:
        return _is_int(value) and value >= self.low and self.acts(value)

    def _gate(self, entry: dict[str, Any], layout: Layout) -> bool:
        return not self.gate or self.gate_ok(get_path(entry, getattr(layout, self.gate)))

    def natives(self) -> tuple[str, ...]:
        return (self.native,)

    def write(self, entry: dict[str, Any], state: _ToRisu, layout: Layout) -> bool:
        value = get_path(entry, getattr(layout, self.at))
        if not (self._gate(entry, layout) and self._exact(value)):
            return False
        state.lines.append(f"@@{st_decorator(self.native)} {value}")
        state.take(entry, *(getattr(layout, name) for name in (self.at, self.gate) if name))
        return True

    def left(self, entry: dict[str, Any], layout: Layout) -> bool:
        return self._gate(entry, layout) and self.acts(get_path(entry, getattr(layout, self.at)))

    def read(self, found: _FromRisu) -> None:
        deco = found.once(st_decorator(self.native))
        if deco and (n := _int_arg(deco)) is not None and self._exact(n):
            found.take(deco)
            found.values[getattr(NAMESPACED, self.at)] = n
            if self.gate:
                found.values[getattr(NAMESPACED, self.gate)] = self.gate_value


@dataclass(frozen=True)
class SecondaryLogic(Knob):
    """``optional_logic`` over the secondary keys <-> ``@@exclude_keys_all k1,k2`` / one ``@@exclude_keys k``
    or ``@@additional_keys k`` per key (the table's decorator column); Risu's ``selective`` becomes false."""

    at: str
    loss: str

    def natives(self) -> tuple[str, ...]:
        return ("selectiveLogic",)

    def write(self, entry: dict[str, Any], state: _ToRisu, layout: Layout) -> bool:
        logic = _logic_code(get_path(entry, layout.logic))
        secondary = entry.get("secondary_keys")
        if not (_acting_logic(logic, secondary) and all(_decorator_safe(k) for k in secondary)):
            return False
        name = next(name for name, code in LOGIC_BY_DECORATOR.items() if code == logic)
        if name == JOINED_LOGIC:
            state.lines.append(f"@@{name} " + ",".join(secondary))
        else:
            state.lines.extend(f"@@{name} {k}" for k in secondary)
        state.take(entry, layout.logic)
        state.removed["selective"] = entry.get("selective")
        if "selective" not in entry:
            state.removed[ABSENT_PATHS] = ["selective"]
        entry["selective"] = False
        return True

    def left(self, entry: dict[str, Any], layout: Layout) -> bool:
        return _acting_logic(_logic_code(get_path(entry, layout.logic)), entry.get("secondary_keys"))

    def read(self, found: _FromRisu) -> None:
        logic_lines = _logic_lines(found.parsed.decorators, found.names, found.entry)
        if logic_lines:
            found.chosen.extend(logic_lines)
            found.values[LOGIC] = LOGIC_BY_DECORATOR[logic_lines[0].name]
            found.values["selective"] = True


@dataclass(frozen=True)
class AtDepth(Knob):
    """Position at-depth with a whole ``depth >= 0`` and a known (or no) role <-> ``@@depth N`` + ``@@role r``."""

    at: str
    loss: str

    def natives(self) -> tuple[str, ...]:
        return ("depth", "role")

    def write(self, entry: dict[str, Any], state: _ToRisu, layout: Layout) -> bool:
        depth = get_path(entry, layout.depth)
        role_value = get_path(entry, layout.role)
        role = _role_name(role_value)
        if not (
            get_path(entry, layout.position) in AT_DEPTH_VALUES
            and _is_int(depth)
            and depth >= 0
            and (role is not None or role_value is None)
        ):
            return False
        state.lines.append(f"@@{st_decorator('depth')} {depth}")
        if role is not None:
            state.lines.append(f"@@{st_decorator('role')} {role}")
        state.take(entry, layout.position, layout.depth, layout.role)
        return True

    def left(self, entry: dict[str, Any], layout: Layout) -> bool:
        return get_path(entry, layout.position) in AT_DEPTH_VALUES

    def read(self, found: _FromRisu) -> None:
        depth_name, role_name = st_decorator("depth"), st_decorator("role")
        deco, role_deco = found.once(depth_name), found.once(role_name)
        role_ok = role_name not in found.names or (role_deco is not None and role_deco.value is not None)
        if deco and (n := _int_arg(deco)) is not None and n >= 0 and role_ok:
            found.take(deco)
            found.values[POSITION] = AT_DEPTH
            found.values[DEPTH] = n
            if role_deco is not None:
                found.take(role_deco)
                found.values[ROLE] = ROLE_NAMES.index(role_deco.value)


def _any_number(value: Any) -> bool:
    return isinstance(value, int | float)


def _real_number(value: Any) -> bool:
    return _any_number(value) and not isinstance(value, bool)


KNOBS: tuple[Knob, ...] = (
    Disabled(),
    Switch("whole", "matchWholeWords", "a per-entry whole-word setting other than true/false has no Risu decorator"),
    Count(
        "delay", "delay", low=1, acts=lambda n: _any_number(n) and n > 0,
        loss="a delay that is not a whole number of messages has no @@activate_only_after",
    ),
    SecondaryLogic(
        "logic",
        "secondary keys with commas, edge spaces or line breaks cannot be decorator arguments; Risu applies AND ANY",
    ),
    AtDepth("position", "an at-depth position without a whole depth >= 0 and a known role has no @@depth/@@role"),
    Count(
        "percent", "probability", low=0, acts=lambda n: _real_number(n) and n < 100,
        gate="use_probability", gate_ok=lambda value: value is True, gate_value=True,
        loss="a trigger percent that is not a whole number has no @@probability; Risu always triggers",
    ),
)  # fmt: skip
"""The knobs in the order their lines are written (the order Risu's own card importer uses) and read
back (the record's field order)."""
TO_RISU: Composed[_ToRisu] = compose(knob.step() for knob in KNOBS)
FROM_RISU = tuple(knob.read for knob in KNOBS)


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
    found = _FromRisu(entry, parsed, Counter(line.name for line in parsed.all_lines()))
    for step in FROM_RISU:
        step(found)
    chosen, values = found.chosen, found.values
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
    if kind == JOINED_LOGIC:
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
    current = generated_stash(generated.fields)
    if current is None or current.keep != fields:
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
