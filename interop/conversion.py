"""One conversion with its fidelity report: what ``interop convert`` and ``POST /convert`` both do.

Kept apart from ``convert.py`` (which format writers import) because the
fidelity report imports the writers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from .api import write
from .document import Document
from .fidelity import FidelityReport, fidelity_report
from .formats.registry import get_format


@dataclass(frozen=True)
class Conversion:
    data: bytes
    report: FidelityReport


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

    ``options`` are writer options (``WriteContext.options``, e.g. ``embed_picture``)."""
    data = write(doc, target, image=image, pretty=pretty, **dict(options or {}))
    report = fidelity_report(doc, target, data, chats=chats, seed=seed)
    return Conversion(data, report)


def output_name(source_name: str, target: str) -> str:
    """The default output file name: ``<source stem>.<target><target suffix>`` (``card.ccv3.json``)."""
    return f"{PurePath(source_name).stem}.{target}{get_format(target).suffix}"


def strict_reason(report: FidelityReport) -> str:
    """Why ``--strict`` / ``strict=true`` refuses a conversion (the report ``has_losses``)."""
    counts = report.counts
    return (
        f"strict: {counts['approximated']} approximated and {counts['lost']} lost field(s), "
        f"{report.app_losses} setting(s) the target app loads differently"
    )
