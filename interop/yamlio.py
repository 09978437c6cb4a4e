"""YAML in and out (text-generation-webui characters) with typed errors and bomb guards.

Parsing uses PyYAML's safe loader (no object construction), restricted to what
JSON can hold, because the value becomes canonical card data:

* the text is bounded by ``Limits.max_text_bytes`` and nesting by ``Limits.max_json_depth``;
* an alias to a mapping or sequence is refused (that is the "billion laughs"
  bomb: a few lines that expand to gigabytes once walked); an alias to a
  scalar is accepted, its expanded size counted against ``max_text_bytes``;
* timestamps and ``!!binary`` stay the strings they were written as, mapping
  keys must be strings, and ``!!set``/``!!omap``/``!!pairs`` are refused.

Every failure is a ``CorruptInputError`` or ``LimitExceededError`` with the
line and column when YAML gives one.
"""

from __future__ import annotations

import math
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .errors import CorruptInputError, InteropError, LimitExceededError
from .limits import DEFAULT_LIMITS, Limits, int_digits_limit


class _Refused(Exception):
    def __init__(self, reason: str, mark: Any = None, *, limit: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.mark, self.limit = reason, mark, limit


class _GuardedLoader(yaml.SafeLoader):
    """SafeLoader that counts depth and alias expansion while composing."""

    limits: Limits = DEFAULT_LIMITS

    def __init__(self, stream: str, limits: Limits) -> None:
        super().__init__(stream)
        self.limits = limits
        self._depth = 0
        self._expanded = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node:  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            target = self.anchors.get(event.anchor)  # type: ignore[attr-defined]
            if isinstance(target, MappingNode | SequenceNode):
                raise _Refused(
                    "an alias to a mapping or list is not accepted (YAML alias bomb guard)", event.start_mark
                )
            if isinstance(target, ScalarNode):
                self._expanded += len(target.value)
                if self._expanded > self.limits.max_text_bytes:
                    raise _Refused(
                        f"aliases expand to more than {self.limits.max_text_bytes} bytes", event.start_mark, limit=True
                    )
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > self.limits.max_json_depth:
                raise _Refused(
                    f"YAML nests deeper than {self.limits.max_json_depth} levels",
                    self.peek_event().start_mark,
                    limit=True,
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _keep_text(loader: yaml.SafeLoader, node: Node) -> Any:
    return loader.construct_scalar(node)  # type: ignore[arg-type]


def _refuse(loader: yaml.SafeLoader, node: Node) -> Any:
    raise _Refused(f"YAML type {node.tag} has no JSON equivalent", node.start_mark)


for _tag in ("timestamp", "binary"):
    _GuardedLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _keep_text)
for _tag in ("set", "omap", "pairs"):
    _GuardedLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _refuse)


def _where(mark: Any) -> str | None:
    return f"line {mark.line + 1} column {mark.column + 1}" if mark is not None else None


# The most bits an integer of at most 4,300 decimal digits can have: past it Python
# refuses int -> str (CVE-2020-10735 guard), so the value could never be written.
_MAX_INT_BITS = int(int_digits_limit() * math.log2(10))


def _check_keys(value: Any, file: str | None) -> None:
    """Mapping keys are strings; integers (hex ``0x...`` is read without a digit limit) are writable."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item.__class__ is int and item.bit_length() > _MAX_INT_BITS:
            raise LimitExceededError(f"YAML integer with more than {int_digits_limit()} digits", file=file)
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    raise CorruptInputError(f"mapping key {key!r} is not a string", file=file)
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)


def load_yaml(data: bytes, *, file: str | None = None, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Parse one YAML document (UTF-8, optional BOM) into JSON-compatible values."""
    if len(data) > limits.max_text_bytes:
        raise LimitExceededError(
            f"YAML text of {len(data)} bytes exceeds the limit of {limits.max_text_bytes}", file=file
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorruptInputError(f"text is not valid UTF-8 ({exc.reason})", file=file) from None
    loader: _GuardedLoader | None = None
    try:
        loader = _GuardedLoader(text, limits)  # the reader rejects control characters here already
        value = loader.get_single_data()
    except _Refused as exc:
        error = LimitExceededError if exc.limit else CorruptInputError
        raise error(exc.reason, file=file, location=_where(exc.mark)) from None
    except ComposerError as exc:
        raise CorruptInputError(f"invalid YAML: {exc.problem}", file=file, location=_where(exc.problem_mark)) from None
    except yaml.MarkedYAMLError as exc:
        raise CorruptInputError(
            f"invalid YAML: {exc.problem or exc.context}", file=file, location=_where(exc.problem_mark)
        ) from None
    except yaml.YAMLError as exc:
        raise CorruptInputError(f"invalid YAML: {exc}", file=file) from None
    except InteropError:
        raise
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # int() past the digit limit
            raise LimitExceededError(f"YAML integer with more than {int_digits_limit()} digits", file=file) from None
        raise CorruptInputError(f"unreadable YAML value (ValueError: {exc})", file=file) from None
    except (RecursionError, TypeError, OverflowError) as exc:
        # e.g. an unhashable complex key (``? [a]``); ValueError covers int("0x...") oddities
        raise CorruptInputError(f"unreadable YAML value ({type(exc).__name__}: {exc})", file=file) from None
    finally:
        if loader is not None:
            loader.dispose()
    _check_keys(value, file)
    return value


class _BlockDumper(yaml.SafeDumper):
    """Multi-line strings as ``|`` blocks (readable; PyYAML falls back to quotes when a block cannot hold them)."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _represent_str)


def dump_yaml(value: Any) -> bytes:
    """YAML text of ``value``, keys in their order, Unicode kept, no line wrapping (as text-generation-webui writes)."""
    text = yaml.dump(
        value, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=float("inf"), default_flow_style=False
    )
    return text.encode("utf-8")
