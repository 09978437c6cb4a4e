"""A document and a target's output read back, as the fidelity report compares them.

Each side's canonical view and the container comparison are computed once and shared
by everything that looks at the pair: the report's field and container items, the
asset descriptors that moved with their files, and a round trip's record of where
container parts went.

An output in one of the JSON formats our writers dump from the canonical model is viewed
straight from its parsed JSON (``view.view_of_json``); its ``Document`` is then read only
if something asks for it (a platform hook, behaviour items, a round trip's way back).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..appmodel.card_book import share_output_json
from ..document import Document
from ..jsonio import NOT_WRITTEN, written_json
from ..limits import DEFAULT_LIMITS
from ..memo import memoized
from ..platform.registry import Probe
from .container_diff import ContainerResult, compare_containers
from .view import CanonicalView, view_of, view_of_json

ReadBack = Callable[[], "Document | None"]
"""The output read back with its target's reader (``report.read_back`` on the output bytes)."""


@dataclass(frozen=True)
class Compared:
    source_doc: Document
    _output_doc: Document | None
    """The output read back, or None: not readable, or not read yet (``_read_back`` set)."""
    target: str
    source: CanonicalView
    output: CanonicalView | None
    containers: list[ContainerResult]
    """``compare_containers(source, output, target)``."""
    output_json: Any = None
    """The output's parsed JSON ``output`` was viewed from (``view_of_json``); None when it was read back."""
    _read_back: list[ReadBack] = field(default_factory=list, repr=False, compare=False)
    """The reader not run yet (at most one; emptied when it runs)."""

    @property
    def output_doc(self) -> Document | None:
        """The output read back (None when it cannot be); read on first use when it was viewed from its JSON."""
        if self._read_back:
            object.__setattr__(self, "_output_doc", self._read_back.pop()())
        return self._output_doc

    @classmethod
    def of(
        cls, source_doc: Document, output_doc: Document | None, target: str, *, source: CanonicalView | None = None
    ) -> Compared:
        """``source``: the source's view when the caller already has it (a round trip's way back)."""
        if source is None:
            source = _source_view(source_doc)
        if output_doc is source_doc:  # the output is the input file again: one view serves both
            output: CanonicalView | None = source
        else:
            output = view_of(output_doc) if output_doc is not None else None
        return cls(source_doc, output_doc, target, source, output, list(compare_containers(source, output, target)))

    @classmethod
    def read(
        cls, source_doc: Document, data: bytes, target: str, filename: str | None, read_back: ReadBack
    ) -> Compared:
        """``of(source_doc, read_back(), target)`` for the output bytes ``data``: from their parsed JSON when
        ``view_of_json`` takes it (``read_back`` then runs only if ``output_doc`` is asked for)."""
        fast = _json_view(data, target, filename)
        if fast is None:
            return cls.of(source_doc, read_back(), target)
        value, output = fast
        source = _source_view(source_doc)
        containers = list(compare_containers(source, output, target))
        return cls(source_doc, None, target, source, output, containers, value, [read_back])

    def output_card_fields(self, names: tuple[str, ...]) -> dict[str, Any] | None:
        """The output card's ``data`` fields among ``names`` that it has, as read; None when it is no card."""
        if self._read_back:  # viewed from its JSON, which the model reads as it is (``view_of_json``)
            if self.output is None or self.output.kind != "card":
                return None
            data = self.output_json.get("data")
            return {name: data[name] for name in names if name in data} if isinstance(data, dict) else {}
        card = self.output_doc.card if self.output_doc is not None else None
        if card is None:
            return None
        return {name: getattr(card.data, name) for name in names if card.data.has(name)}

    def output_entry_extensions(self) -> list[Any] | None:
        """Each output book entry's ``extensions`` as read (None where it has none); None without a book."""
        if self._read_back:
            if self.output is None or self.output.book is None:
                return None
            book = _json_book(self.output_json, self.target)
            return [entry.get("extensions") for entry in book.get("entries", ())]
        book = self.output_doc.book if self.output_doc is not None else None
        return None if book is None else [entry.extensions for entry in book.entries]


def _source_view(source_doc: Document) -> CanonicalView:
    # the same for every target of a migrated file (read-only: shared in a document scope)
    return memoized("fidelity_source_view", source_doc, (), lambda: view_of(source_doc))


def _json_view(data: bytes, target: str, filename: str | None) -> tuple[Any, CanonicalView] | None:
    """The output's parsed JSON and its view, when ``view_of_json`` takes it (its parse left to the app
    models, as ``apps.read_output`` does)."""
    limits = DEFAULT_LIMITS  # a Probe's
    if len(data) > limits.max_file_bytes:
        return None  # the reader refuses it: the general path says so
    value = written_json(data, limits) if data[:1] == b"{" else NOT_WRITTEN  # one C parse for our writers' text
    if value is NOT_WRITTEN:
        value = Probe(data, filename, limits).json
    if value is None:
        return None
    view = view_of_json(value, target, limits)
    if view is None:
        return None
    share_output_json(data, value)
    return value, view


def _json_book(value: dict[str, Any], target: str) -> dict[str, Any]:
    """The book object of an output viewed from its JSON ``value`` (``view_of_json`` checked its shape)."""
    if target == "lorebook_v3":
        return value["data"]  # type: ignore[no-any-return]
    if target == "character_book":
        return value
    return value["data"]["character_book"]  # type: ignore[no-any-return]
