"""A memo for the work every target of one input file repeats (batch migration).

``interop migrate`` writes each input file to several targets and reports on each; the
SillyTavern-readable book of the source (every card-book writer's) and the source's settings as
SillyTavern entries (the report's app check) are the same for every target. Inside
``document_scope()`` they are computed once per source object; outside one, nothing is kept.

The memo is keyed on object identity, so a scope must only wrap work that does not change the
source document (``catalog.pipeline.process_file``: read, then write and report every target).
Memoized values are shared: callers treat them as read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

_SCOPE: ContextVar[dict[tuple[Any, ...], tuple[Any, Any]] | None] = ContextVar("interop_memo", default=None)


@contextmanager
def document_scope() -> Iterator[None]:
    """Memoize per-source work until the block ends (the source must not change inside it)."""
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def in_scope() -> bool:
    """Whether a ``document_scope`` is open (a caller that would open one can join it instead)."""
    return _SCOPE.get() is not None


def memoized(kind: str, obj: Any, args: tuple[Hashable, ...], compute: Callable[[], T]) -> T:
    """``compute()``, or its value from earlier in the scope for the same ``obj`` (identity) and ``args``."""
    scope = _SCOPE.get()
    if scope is None:
        return compute()
    key = (kind, id(obj), args)
    hit = scope.get(key)
    if hit is not None and hit[0] is obj:  # the scope holds ``obj``: its id cannot be reused meanwhile
        return hit[1]  # type: ignore[no-any-return]
    value = compute()
    scope[key] = (obj, value)
    return value
