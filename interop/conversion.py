"""One conversion with its fidelity report: what ``interop convert`` and ``POST /convert`` both do.

Kept apart from ``convert.py`` (which format writers import) because the
fidelity report imports the writers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from .api import write_with_journal
from .document import Document
from .fidelity import FidelityReport, fidelity_report
from .fidelity.chats import chat_report
from .findings import Journal
from .memo import document_scope, in_scope
from .platform.registry import get_format


@dataclass(frozen=True)
class Conversion:
    data: bytes
    report: FidelityReport

    @property
    def journal(self) -> Journal | None:
        """What the writer recorded while writing ``data`` (also folded into ``report``)."""
        return self.report.journal


def convert_document(
    doc: Document,
    target: str,
    *,
    image: bytes | None = None,
    pretty: bool = True,
    chats: Sequence[Any] | None = None,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
) -> Conversion:
    """Write ``doc`` as ``target`` and report the fate of every source field (read back, compared).

    The writer's journal (``interop.findings``) goes to the report with the bytes; one
    ``document_scope`` spans both, so what the writer derived from the source (its SillyTavern
    world view, ...) is not derived again by the report's app checks. A chat written as a chat
    is judged by ``fidelity.chats.chat_report`` (its two read-backs), carrying the same journal.
    ``options`` are writer options (``WriteContext.options``, e.g. ``embed_picture``).
    """
    with nullcontext() if in_scope() else document_scope():
        written = write_with_journal(doc, target, image=image, pretty=pretty, **dict(options or {}))
        report = report_of(doc, target, written.data, written.journal, chats=chats, seed=seed)
    return Conversion(written.data, report)


def report_of(
    doc: Document,
    target: str,
    data: bytes,
    journal: Journal | None,
    *,
    chats: Sequence[Any] | None = None,
    seed: int = 0,
    output_doc: Document | None = None,
) -> FidelityReport:
    """The report on ``data`` (``doc`` written as ``target``, ``journal`` recorded as it was written):
    a chat written as a chat by ``chat_report`` (its two read-backs), anything else by
    ``fidelity_report`` (``output_doc``: ``data`` already read back)."""
    if doc.kind == "chat" and get_format(target).kind == "chat":
        return chat_report(doc, target, data, journal=journal)
    return fidelity_report(doc, target, data, chats=chats, seed=seed, journal=journal, output_doc=output_doc)


def output_name(source_name: str, target: str) -> str:
    """The default output file name: ``<source stem>.<target><target suffix>`` (``card.ccv3.json``).

    A target named as its suffix is not said twice (``card.png``, not ``card.png.png``), unless
    that is the source's own name (``card.converted.png``): an output never takes its input's name.
    """
    source = PurePath(source_name)
    suffix = get_format(target).suffix
    name = f"{source.stem}{suffix}" if suffix == f".{target}" else f"{source.stem}.{target}{suffix}"
    return f"{source.stem}.converted{suffix}" if name == source.name else name


def strict_reason(report: FidelityReport) -> str:
    """Why ``--strict`` / ``strict=true`` refuses a conversion (the report ``has_losses``)."""
    counts = report.counts
    return (
        f"strict: {counts['approximated']} approximated and {counts['lost']} lost field(s), "
        f"{report.app_losses} setting(s) the target app loads differently"
    )
