"""The result of one scan: the activated entries placed in the prompt, and the request log in load
order (entries never checked are explained here, lazily)."""

from __future__ import annotations

from collections.abc import Callable

from ....activation.chat import Chat
from ....activation.result import Activation, LogRecord, Reason, Result
from ....activation.tokenizers import Tokenizer
from .assembly import Placed, assemble
from .entries import INITIAL, POSITIONS, STEntry, STPool
from .request_log import RequestLog
from .timed_effects import TimedEffects

Gate = Callable[[STEntry, int, int], tuple[str, str]]
"""``CandidateChecks.gate``: the checks before key matching."""


def scan_result(
    activated: dict[str, STEntry], budget: int, steps: int, chat: Chat, log: RequestLog, tokenizer: Tokenizer
) -> Result:
    """The activated entries in prompt order (``assemble``); entries that fired but have no place in
    the prompt say so in their record. The caller adds the request log (``load_order_log``)."""
    result = Result("sillytavern", budget=budget, steps=steps, turn=len(chat.messages))
    assembly = assemble(activated.values(), lambda e: chat.substitute(e.content))
    for index, why in assembly.unplaced.items():
        record = log.records.get(index)
        if record is not None:
            record.detail = (record.detail + "; " if record.detail else "") + f"{why}: nothing injected"
    used = 0
    for placed in assembly.placed:
        tokens = tokenizer.count(placed.content)
        used += tokens
        result.activated.append(_activation(placed, tokens))
    result.tokens_used = used
    return result


def load_order_log(pool: STPool, log: RequestLog, explain: Callable[[STEntry], LogRecord]) -> list[LogRecord]:
    """The request log in load order (book, then file order), not in scan order: the scan's records,
    ``explain`` for the unusual entries never checked, the shared "no match" record for the rest."""
    records = list(pool.no_match)  # by load order; most entries simply did not match
    for entry in pool.unusual:
        records[entry.seq] = explain(entry)
    by_index = pool.entries
    for index, record in log.records.items():
        records[by_index[index].seq] = record
    for entry in pool.quirky:
        record = records[entry.seq]
        if record.fired:
            record.detail = (record.detail + "; " if record.detail else "") + entry.quirks
    return records


def _activation(placed: Placed, tokens: int) -> Activation:
    entry = placed.entry
    position = entry.position
    assert position is not None
    return Activation(
        entry.entry_id,
        entry.title,
        placed.content,
        POSITIONS[position],
        entry.shown_order,
        placed.depth,
        placed.role,
        entry.outlet if position == 7 else None,
        tokens,
        entry.uid,
        tuple(entry.keys or ()),
    )


def never_checked(entry: STEntry, pool: STPool, timed: TimedEffects, gate: Gate) -> LogRecord:
    """Why an entry that never became a candidate did not fire."""
    if entry.plain_gate and not (timed.buffers["cooldown"] and entry.hash in timed.buffers["cooldown"]):
        return pool.no_match[entry.seq]
    verdict, reason = gate(entry, INITIAL, 0)
    code, _, detail = reason.partition(":")
    if verdict == "skip":
        return LogRecord(entry.entry_id, entry.title, False, code, detail, None)
    if verdict == "activate":
        return LogRecord(entry.entry_id, entry.title, False, Reason.NOT_REACHED, f"would fire ({code})", None)
    return LogRecord(entry.entry_id, entry.title, False, Reason.NO_MATCH, "", None)
