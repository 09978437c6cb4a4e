"""The phases of ``interop migrate`` for one file, in one process, for ``instructions.py`` to count.

    python benchmarks/phase_workload.py FOLDER TARGETS PHASE

Warms up on the first 20 files (imports, memos, compiled statements: every phase),
then runs every other file up to and including PHASE: ``none``, ``read``
(``read_bytes``), ``record`` (the catalog rows, ``item_record``), ``convert`` (the
writers, each target), ``report`` (the fidelity report, each target) or ``json``
(the report's JSON text, as the catalog stores it). These are the calls
``catalog/pipeline.py`` makes per file, without the database and the file writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from interop.api import read_bytes, write_with_journal
from interop.catalog.records import Digests, item_record, sha256_hex
from interop.conversion import report_of
from interop.memo import document_scope

PHASES = ("none", "read", "record", "convert", "report", "json")
WARM_UP = 20


def one_file(name: str, data: bytes, targets: list[str], last: int) -> None:
    """The phases of one file up to ``PHASES[last]``."""
    if last < PHASES.index("read"):
        return
    doc = read_bytes(data, filename=name)
    if last >= PHASES.index("record"):
        item_record(doc, Digests((data, sha256_hex(data))))
    if last < PHASES.index("convert"):
        return
    with document_scope():  # as pipeline.process_file: a file's targets share the per-source work
        for target in targets:
            written = write_with_journal(doc, target, pretty=True)
            if last >= PHASES.index("report"):
                report = report_of(doc, target, written.data, written.journal)
                if last >= PHASES.index("json"):
                    report.to_json_text()


def main() -> None:
    folder, targets, phase = Path(sys.argv[1]), sys.argv[2].split(","), sys.argv[3]
    files = [(str(p), p.read_bytes()) for p in sorted(folder.rglob("*")) if p.is_file()]
    for name, data in files[:WARM_UP]:
        one_file(name, data, targets, len(PHASES) - 1)
    for name, data in files[WARM_UP:]:
        one_file(name, data, targets, PHASES.index(phase))


if __name__ == "__main__":
    main()
