"""Lorebook entry decorators: the ``@@name value`` lines at the top of ``content``.

Parsing follows the CCv3 spec and the reference implementation's rules
(``risu.md`` 3.5): the content is scanned line by line after leading white
space; each line is trimmed; the block ends at the first line that does not
start with ``@@`` (a blank line ends it too); a line's name runs from after
``@@``/``@@@`` to the first space and the rest is split on commas (each part
trimmed, empty parts dropped); ``@@@end`` is the legacy spelling of ``@@end``.
``@@@name`` lines are fallbacks of the decorator above them.

The parsed view never changes the text: ``ParsedContent.prefix + body`` is the
original content byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class ArgKind(StrEnum):
    NONE = "none"
    INT = "int"
    STR = "str"
    LIST = "list"
    ROLE = "role"
    TEXT = "text"  # free text, args joined back with spaces


@dataclass(frozen=True)
class DecoratorSpec:
    name: str
    arg: ArgKind
    origin: str  # "spec" (CCv3) or "risu" (RisuAI-only)
    repeatable: bool = False


_SPEC = [
    DecoratorSpec("activate_only_after", ArgKind.INT, "spec"),
    DecoratorSpec("activate_only_every", ArgKind.INT, "spec"),
    DecoratorSpec("keep_activate_after_match", ArgKind.NONE, "spec"),
    DecoratorSpec("dont_activate_after_match", ArgKind.NONE, "spec"),
    DecoratorSpec("depth", ArgKind.INT, "spec"),
    DecoratorSpec("instruct_depth", ArgKind.INT, "spec"),
    DecoratorSpec("reverse_depth", ArgKind.INT, "spec"),
    DecoratorSpec("reverse_instruct_depth", ArgKind.INT, "spec"),
    DecoratorSpec("role", ArgKind.ROLE, "spec"),
    DecoratorSpec("scan_depth", ArgKind.INT, "spec"),
    DecoratorSpec("instruct_scan_depth", ArgKind.INT, "spec"),
    DecoratorSpec("is_greeting", ArgKind.INT, "spec"),
    DecoratorSpec("position", ArgKind.STR, "spec"),
    DecoratorSpec("ignore_on_max_context", ArgKind.NONE, "spec"),
    DecoratorSpec("additional_keys", ArgKind.LIST, "spec", repeatable=True),
    DecoratorSpec("exclude_keys", ArgKind.LIST, "spec", repeatable=True),
    DecoratorSpec("is_user_icon", ArgKind.STR, "spec"),
    DecoratorSpec("dont_activate", ArgKind.NONE, "spec"),
    DecoratorSpec("activate", ArgKind.NONE, "spec"),
    DecoratorSpec("disable_ui_prompt", ArgKind.STR, "spec"),
]
_RISU = [
    DecoratorSpec("end", ArgKind.NONE, "risu"),
    DecoratorSpec("exclude_keys_all", ArgKind.LIST, "risu", repeatable=True),
    DecoratorSpec("match_full_word", ArgKind.NONE, "risu"),
    DecoratorSpec("match_partial_word", ArgKind.NONE, "risu"),
    DecoratorSpec("probability", ArgKind.INT, "risu"),
    DecoratorSpec("priority", ArgKind.INT, "risu"),
    DecoratorSpec("recursive", ArgKind.NONE, "risu"),
    DecoratorSpec("unrecursive", ArgKind.NONE, "risu"),
    DecoratorSpec("no_recursive_search", ArgKind.NONE, "risu"),
    DecoratorSpec("inject_lore", ArgKind.TEXT, "risu"),
    DecoratorSpec("inject_at", ArgKind.TEXT, "risu"),
    DecoratorSpec("inject_replace", ArgKind.TEXT, "risu"),
    DecoratorSpec("inject_prepend", ArgKind.TEXT, "risu"),
]

SPEC_DECORATORS: dict[str, DecoratorSpec] = {d.name: d for d in _SPEC}
RISU_DECORATORS: dict[str, DecoratorSpec] = {d.name: d for d in _RISU}
KNOWN_DECORATORS: dict[str, DecoratorSpec] = {**SPEC_DECORATORS, **RISU_DECORATORS}
ROLES = ("system", "user", "assistant")
# JavaScript's String.prototype.trim() set, which Risu's parser uses; Python's str.strip()
# differs (it also strips \x1c-\x1f and \x85, and keeps \ufeff).
JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(map(chr, range(0x2000, 0x200B)))


@dataclass(frozen=True)
class Decorator:
    """One decorator line, with the fallbacks written under it (``@@@`` lines)."""

    name: str
    args: tuple[str, ...]
    line: str  # the trimmed source line
    fallback: bool = False  # written with @@@
    fallbacks: tuple[Decorator, ...] = ()

    @property
    def spec(self) -> DecoratorSpec | None:
        return KNOWN_DECORATORS.get(self.name)

    @property
    def known(self) -> bool:
        return self.name in KNOWN_DECORATORS

    @property
    def raw_value(self) -> str:
        """Everything after the name, untouched."""
        head = "@@@" if self.fallback else "@@"
        rest = self.line[len(head) + len(self.name) :]
        return rest[1:] if rest.startswith(" ") else rest

    @property
    def value(self) -> Any:
        """The typed value: int, str, list[str], a role, free text, or None (no value / invalid)."""
        spec = self.spec
        kind = spec.arg if spec else (ArgKind.LIST if len(self.args) > 1 else ArgKind.STR)
        if kind is ArgKind.NONE:
            return None
        if kind is ArgKind.LIST:
            return list(self.args)
        if kind is ArgKind.TEXT:
            return " ".join(self.args) if self.args else None
        first = self.args[0] if self.args else None
        if first is None:
            return None
        if kind is ArgKind.INT:
            try:
                return int(first)
            except ValueError:
                try:
                    number = float(first)
                except ValueError:
                    return None
                return int(number) if number.is_integer() else None
        if kind is ArgKind.ROLE:
            return first if first in ROLES else None
        return first

    def chain(self) -> tuple[Decorator, ...]:
        """This decorator followed by its fallbacks, in the order they are tried."""
        return (self, *self.fallbacks)

    def render(self) -> str:
        head = "@@@" if self.fallback else "@@"
        return f"{head}{self.name} {','.join(self.args)}" if self.args else f"{head}{self.name}"


@dataclass(frozen=True)
class ParsedContent:
    """Entry content split into its decorator block and its body, losslessly."""

    prefix: str  # the exact text of the decorator block, including its line ends
    body: str  # the exact remaining text
    decorators: tuple[Decorator, ...] = field(default=())

    @property
    def text(self) -> str:
        """The original content, byte for byte."""
        return self.prefix + self.body

    @property
    def prompt_text(self) -> str:
        """What a decorator-aware app inserts: the body with surrounding white space trimmed."""
        return self.body.strip(JS_WHITESPACE)

    def __iter__(self) -> Iterator[Decorator]:
        return iter(self.decorators)

    def all_lines(self) -> Iterator[Decorator]:
        """Every decorator line including fallbacks, in source order."""
        for deco in self.decorators:
            yield from deco.chain()

    def first(self, name: str) -> Decorator | None:
        """First primary decorator named ``name`` (first occurrence wins)."""
        return next((d for d in self.decorators if d.name == name), None)

    def resolve(self, accept: Callable[[Decorator], bool]) -> list[Decorator]:
        """Walk each fallback chain: call ``accept`` on each link until one returns True.

        ``accept`` is the application's handler; its return value says whether the
        decorator was honoured (ccardlib's hook semantics). Returns the honoured ones.
        """
        honoured: list[Decorator] = []
        for deco in self.decorators:
            if deco.fallback:
                continue  # @@@ lines with no decorator above them never run
            for link in deco.chain():
                if not link.name:
                    break  # an empty name calls nothing and ends the chain (as ccardlib does)
                if accept(link):
                    honoured.append(link)
                    break
        return honoured

    def effective(self, recognised: Callable[[str], bool] | None = None) -> dict[str, Decorator]:
        """Name -> decorator an app that recognises ``recognised`` names would use.

        Fallbacks are followed for unrecognised names; the first occurrence of a
        name wins. Default: the spec list plus the RisuAI-only names.
        """
        known = recognised or (lambda name: name in KNOWN_DECORATORS)
        chosen: dict[str, Decorator] = {}
        for deco in self.resolve(lambda d: known(d.name)):
            chosen.setdefault(deco.name, deco)
        return chosen


def _parse_line(line: str, fallback: bool) -> Decorator:
    body = line[3:] if fallback else line[2:]
    name, _, rest = body.partition(" ")
    if fallback and name == "end" and not rest:
        # Legacy: a bare "@@@end" is "@@end", a primary decorator.
        return Decorator(name="end", args=(), line=line, fallback=False)
    args = tuple(part.strip(JS_WHITESPACE) for part in rest.split(",") if part.strip(JS_WHITESPACE))
    return Decorator(name=name, args=args, line=line, fallback=fallback)


def parse_decorators(content: str | None) -> ParsedContent:
    """Split ``content`` into decorators and body without changing a byte."""
    if not content or "@@" not in content:
        return ParsedContent(prefix="", body=content or "")
    stripped = content.lstrip(JS_WHITESPACE)
    offset = len(content) - len(stripped)
    decorators: list[Decorator] = []
    pos = offset
    while pos < len(content):
        end = content.find("\n", pos)
        line_end = len(content) if end == -1 else end + 1
        line = content[pos:line_end].strip(JS_WHITESPACE)
        if not line.startswith("@@"):
            break
        deco = _parse_line(line, fallback=line.startswith("@@@"))
        if deco.fallback and decorators:
            last = decorators[-1]
            decorators[-1] = Decorator(
                last.name, last.args, last.line, last.fallback, (*last.fallbacks, deco)
            )
        elif deco.fallback:
            # A fallback with nothing above it: no primary to fall back from; keep it as a chain head.
            decorators.append(deco)
        else:
            decorators.append(deco)
        pos = line_end
    if not decorators:
        return ParsedContent(prefix="", body=content)
    return ParsedContent(prefix=content[:pos], body=content[pos:], decorators=tuple(decorators))
