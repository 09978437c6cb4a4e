"""A document and a target's output read back, as the fidelity report compares them.

Each side's canonical view and the container comparison are computed once and shared
by everything that looks at the pair: the report's field and container items, the
asset descriptors that moved with their files, and a round trip's record of where
container parts went.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..document import Document
from ..memo import memoized
from .container_diff import ContainerResult, compare_containers
from .view import CanonicalView, view_of


@dataclass(frozen=True)
class Compared:
    source_doc: Document
    output_doc: Document | None
    """None when the output cannot be read back (the report then relies on the tables)."""
    target: str
    source: CanonicalView
    output: CanonicalView | None
    containers: list[ContainerResult]
    """``compare_containers(source, output, target)``."""

    @classmethod
    def of(
        cls, source_doc: Document, output_doc: Document | None, target: str, *, source: CanonicalView | None = None
    ) -> Compared:
        """``source``: the source's view when the caller already has it (a round trip's way back)."""
        if source is None:  # the same for every target of a migrated file (read-only: shared in a document scope)
            source = memoized("fidelity_source_view", source_doc, (), lambda: view_of(source_doc))
        if output_doc is source_doc:  # the output is the input file again: one view serves both
            output: CanonicalView | None = source
        else:
            output = view_of(output_doc) if output_doc is not None else None
        return cls(source_doc, output_doc, target, source, output, list(compare_containers(source, output, target)))
