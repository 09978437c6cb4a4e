"""Where a cross-platform rewrite records what the target app will not honour.

A rewrite that cannot express a value for the target (a SillyTavern knob with no
Risu decorator, ...) leaves the value where the target keeps it unread and calls
``unsupported(path, detail)`` at that very spot, as sqlglot's generators do. The
records are ``Conflict``s (interop.model.conflict), never sentences to parse later;
``path`` is relative to the object the rewrite works on (an entry: ``("extensions",
"sillytavern", "entry", "delay")``); ``Losses.under(prefix)`` places them in a book
or card.

A rewrite step is ``step(obj, rewrite)``: it reads and mutates ``obj`` and reports to
the ``rewrite`` it is given; ``compose`` runs steps in order, so each target's
rewrite is the list of its steps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..model.conflict import Conflict, PathPart

State = TypeVar("State")


@dataclass
class Losses:
    """The conflicts one rewrite recorded, in the order they happened."""

    conflicts: list[Conflict] = field(default_factory=list)

    def unsupported(self, path: str | tuple[PathPart, ...], detail: str, fate: str = "approximated") -> None:
        parts = tuple(path.split(".")) if isinstance(path, str) else path
        self.conflicts.append(Conflict(parts, detail, fate))

    def under(self, *prefix: PathPart) -> list[Conflict]:
        """The records with ``prefix`` in front of their paths (``under("entry", 3)``)."""
        return [Conflict((*prefix, *c.path), c.detail, c.fate) for c in self.conflicts]

    def __iter__(self) -> Iterator[Conflict]:
        return iter(self.conflicts)

    def __len__(self) -> int:
        return len(self.conflicts)


Step = Callable[[dict[str, Any], State], None]


@dataclass(frozen=True)
class Composed(Generic[State]):
    """Steps run in order on one object; each may mutate it and report to the shared state."""

    steps: tuple[Step[State], ...]

    def __call__(self, obj: dict[str, Any], state: State) -> State:
        for step in self.steps:
            step(obj, state)
        return state


def compose(steps: Iterable[Step[State]]) -> Composed[State]:
    return Composed(tuple(steps))
