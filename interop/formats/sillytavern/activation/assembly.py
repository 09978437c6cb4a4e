"""SillyTavern's prompt assembly: the end of ``checkWorldInfo`` (public/scripts/world-info.js) and
what ``Generate`` (public/script.js) does with the lists it returns (sillytavern.md §7 step 9).

* The activated entries are sorted with ``sortFn`` (``b.order - a.order``, V8's sort) and walked
  once. Every position list is built with ``unshift`` (so it ends up ascending by order) except an
  outlet (``push``: highest order first).
* Example-message entries (``EMEntries``, built with ``unshift``): ``Generate`` then ``unshift``s
  each "top" entry into the examples and ``push``es each "bottom" one, so the top ones end up
  highest order first again and the bottom ones ascending.
* At-depth entries are grouped into ``WIDepthEntries``: an entry joins the first group whose
  ``depth === (entry.depth ?? 4)`` and ``role === (entry.role ?? 0)`` (strict, on the raw values)
  and is ``unshift``ed into it; otherwise it opens a group whose depth is the entry's raw ``depth``
  (``undefined`` and ``null`` included). ``Generate`` registers each group with
  ``setExtensionPrompt(`customDepthWI_${depth}_${role}`, ..., Number(depth), Number(role))``: a
  later group with the same key replaces an earlier one ("2" and 2 share ``customDepthWI_2_0``), and
  ``doChatInject``/``populationInjectionPrompts`` only pick prompts whose depth ``===`` a whole
  number 0..10000 and whose role is 0, 1 or 2. So a missing depth is never injected (Number is
  NaN) unless a same-role depth-4 group opened earlier, ``null`` is depth 0, "2" is depth 2, 2.5
  is never injected.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ....activation.jssort import sort_descending_by
from ....activation.jsvalue import UNDEFINED, js_number, js_strictly_equal, js_string
from .entries import DEFAULT_DEPTH, POSITIONS, ROLES, STEntry

MAX_INJECTION_DEPTH = 10000  # public/script.js
EM_TOP, AT_DEPTH, OUTLET = 5, 4, 7


@dataclass
class Placed:
    """An entry the prompt holds, with where ``doChatInject`` puts it when it is at depth."""

    entry: STEntry
    content: str
    depth: int | None = None
    role: str | None = None


@dataclass
class _DepthGroup:
    depth: Any  # the raw depth of the entry that opened it
    role: Any
    members: list[STEntry] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"customDepthWI_{_template(self.depth)}_{_template(self.role)}"


@dataclass
class Assembly:
    placed: list[Placed]  # prompt order
    unplaced: dict[int, str]  # entry index -> why the prompt does not hold it


def _template(value: Any) -> str:
    """A value inside a template literal."""
    if value is UNDEFINED:
        return "undefined"
    return "null" if value is None else js_string(value)


def _nullish(value: Any, default: Any) -> Any:
    return default if value is None or value is UNDEFINED else value


def unplaced_reason(entry: STEntry, content: str) -> str | None:
    """Why the assembly switch places a fired entry nowhere, or None."""
    if not content:
        return "empty content"
    if entry.position_raw is None:
        # switch (entry.position) has no case for undefined/null and no default that places it.
        return "no position (missing or null: ST's assembly switch matches no case)"
    if entry.position not in POSITIONS:
        return f"unknown position {entry.position_raw!r}"
    if entry.position == OUTLET and not entry.outlet:
        return "outlet position without an outlet name"
    if entry.position in (EM_TOP, EM_TOP + 1) and content == "<START>":
        return "example-message content '<START>' alone makes no example (parseMesExamples)"
    return None


def _group(groups: list[_DepthGroup], entry: STEntry) -> None:
    depth = _nullish(entry.depth, DEFAULT_DEPTH)
    role = _nullish(entry.role, 0)
    for group in groups:
        if js_strictly_equal(group.depth, depth) and js_strictly_equal(group.role, role):
            group.members.insert(0, entry)
            return
    groups.append(_DepthGroup(entry.depth, role, [entry]))


def _injection(group: _DepthGroup) -> tuple[int, str] | str:
    """(depth, role name) where the group's extension prompt is injected, or why it never is."""
    depth = math.nan if group.depth is UNDEFINED else js_number(group.depth)  # Number(null) is 0
    role = js_number(group.role)
    if not (depth == depth and float(depth).is_integer() and 0 <= depth <= MAX_INJECTION_DEPTH):
        shown = "missing" if group.depth is UNDEFINED else repr(group.depth)
        return (
            f"at-depth entry with depth {shown} (Number() is {js_string(depth)}): ST injects only whole "
            f"depths 0-{MAX_INJECTION_DEPTH}, so the prompt never holds it"
        )
    if role not in (0, 1, 2):
        return f"at-depth entry with role {group.role!r}: ST injects only roles 0-2 (system, user, assistant)"
    return int(depth), ROLES.get(int(role), "system")


def _depth_layout(ordered: list[STEntry], unplaced: dict[int, str]) -> dict[int, tuple[int, str, bytes, int]]:
    """WIDepthEntries, then setExtensionPrompt per group: entry index -> (depth, role) where it is
    injected, with its rank there: ``getExtensionPrompt`` joins the prompts of one depth and role in
    ``Object.keys(extension_prompts).sort()`` order (UTF-16 code units), each group in member order."""
    groups: list[_DepthGroup] = []
    for entry in ordered:
        if entry.position == AT_DEPTH and entry.index not in unplaced:
            _group(groups, entry)
    by_key: dict[str, _DepthGroup] = {}
    for group in groups:
        replaced = by_key.get(group.key)
        if replaced is not None:
            for member in replaced.members:
                unplaced[member.index] = (
                    f"its at-depth group ({_template(replaced.depth)}, role {_template(replaced.role)}) has the "
                    f"prompt key {group.key!r} of a later group, which replaced it (ST quirk)"
                )
        by_key[group.key] = group
    layout: dict[int, tuple[int, str, bytes, int]] = {}
    for key, group in by_key.items():
        where = _injection(group)
        for rank, member in enumerate(group.members):
            if isinstance(where, str):
                unplaced[member.index] = where
            else:
                layout[member.index] = (*where, key.encode("utf-16-be"), rank)
    return layout


def assemble(activated: Iterable[STEntry], content_of: Callable[[STEntry], str]) -> Assembly:
    """The prompt's entries in prompt order, and why the others are not in it."""
    ordered = sort_descending_by(list(activated), lambda e: e.order)  # sortFn, in V8
    contents = {e.index: content_of(e) for e in ordered}
    unplaced: dict[int, str] = {}
    for entry in ordered:
        reason = unplaced_reason(entry, contents[entry.index])
        if reason:
            unplaced[entry.index] = reason
    depths = _depth_layout(ordered, unplaced)
    # Lists built with unshift end up ascending: the walk reversed. The slots of an outlet (push) and
    # of the top example messages (unshifted once more by Generate) take their entries in walk order;
    # the slots of one injection depth and role take them in getExtensionPrompt's order.
    kept = [e for e in ordered if e.index not in unplaced]
    queues: dict[Any, list[STEntry]] = {}
    for entry in kept:
        kind = _slot_kind(entry, depths)
        if kind is not None:
            queues.setdefault(kind, []).append(entry)
    for kind, queue in queues.items():
        if kind[0] == "depth":
            queue.sort(key=lambda e: depths[e.index][2:])
    placed: list[Placed] = []
    for entry in reversed(kept):
        kind = _slot_kind(entry, depths)
        chosen = queues[kind].pop(0) if kind is not None else entry
        depth, role = depths[chosen.index][:2] if chosen.index in depths else (None, None)
        placed.append(Placed(chosen, contents[chosen.index], depth, role))
    return Assembly(placed, unplaced)


def _slot_kind(entry: STEntry, depths: dict[int, tuple[int, str, bytes, int]]) -> tuple[Any, ...] | None:
    """The lists whose order is not simply ascending, or None."""
    if entry.position == OUTLET:
        return ("outlet", entry.outlet)
    if entry.position == EM_TOP:
        return ("em_top",)
    if entry.position == AT_DEPTH:
        return ("depth", *depths[entry.index][:2])
    return None
