"""The request log of one scan: each entry's latest record, with what earlier passes decided about it."""

from __future__ import annotations

from ....activation.result import LogRecord
from .entries import STEntry


class RequestLog:
    def __init__(self) -> None:
        self.records: dict[int, LogRecord] = {}
        """Pool index -> the entry's record (entries never checked are explained at the end)."""

    def record(self, index: int, record: LogRecord) -> None:
        """Set an entry's log record, keeping what earlier passes decided about it."""
        previous = self.records.get(index)
        if previous is not None and (previous.step, previous.reason) != (record.step, record.reason):
            record.earlier = (*previous.earlier, previous.summary())
        self.records[index] = record

    def skip(self, entry: STEntry, reason: str, detail: str, step: int) -> None:
        self.record(entry.index, LogRecord(entry.entry_id, entry.title, False, reason, detail, step))
