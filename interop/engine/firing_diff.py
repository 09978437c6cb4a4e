"""Behavioural fidelity: does a migrated lorebook fire the same entries on its new platform?

Both sides are simulated over the same chats, turn by turn, each with its own
platform's semantics. Entries are paired by native id/uid first, then by
(keys, content); an entry fired on one side and not the other is a difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..activation.chat import Chat
from ..activation.result import EntryInfo, LogRecord, Reason, Result
from .platform_profiles import get_profile
from .run import simulate


@dataclass(frozen=True)
class BehaviourDifference:
    chat: int  # index into ``chats``
    turn: int  # number of chat messages the prompt was built on
    entry: str  # a readable name: the entry title
    source_entry: str | None  # entry id on the source platform (None: no counterpart)
    target_entry: str | None
    fired_source: bool
    fired_target: bool
    source_reason: str
    target_reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        src = "fires" if self.fired_source else "does not fire"
        dst = "fires" if self.fired_target else "does not fire"
        return (
            f"chat {self.chat}, turn {self.turn}: {self.entry!r} {src} on the source ({self.source_reason}) "
            f"but {dst} on the target ({self.target_reason})"
        )


def _norm_keys(keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(k.strip().lower() for k in keys if k.strip()))


def pair_entries(source: list[EntryInfo], target: list[EntryInfo]) -> dict[str, str]:
    """source entry id -> target entry id, by uid, then by keys + content, then by content."""
    pairs: dict[str, str] = {}
    used: set[str] = set()
    by_uid: dict[str, list[EntryInfo]] = {}
    for info in target:
        if info.uid is not None and info.uid != "":
            by_uid.setdefault(str(info.uid), []).append(info)
    for info in source:
        if info.uid is None or info.uid == "":
            continue
        candidates = [c for c in by_uid.get(str(info.uid), []) if c.entry_id not in used]
        if len(candidates) == 1:
            pairs[info.entry_id] = candidates[0].entry_id
            used.add(candidates[0].entry_id)
    for exact in (True, False):
        for info in source:
            if info.entry_id in pairs:
                continue
            for cand in target:
                if cand.entry_id in used or cand.content.strip() != info.content.strip():
                    continue
                if exact and _norm_keys(cand.keys) != _norm_keys(info.keys):
                    continue
                pairs[info.entry_id] = cand.entry_id
                used.add(cand.entry_id)
                break
    return pairs


def _reason(record: LogRecord | None) -> str:
    if record is None:
        return Reason.NO_COUNTERPART
    return f"{record.reason}: {record.detail}" if record.detail else record.reason


def compare_results(
    source_info: list[EntryInfo],
    target_info: list[EntryInfo],
    source_runs: list[Result],
    target_runs: list[Result],
    chat_index: int = 0,
) -> list[BehaviourDifference]:
    pairs = pair_entries(source_info, target_info)
    reverse = {t: s for s, t in pairs.items()}
    titles = {i.entry_id: i.title for i in source_info} | {i.entry_id: i.title for i in target_info}
    diffs: list[BehaviourDifference] = []
    for src, dst in zip(source_runs, target_runs, strict=True):
        src_records = {r.entry_id: r for r in src.log}
        dst_records = {r.entry_id: r for r in dst.log}
        for info in source_info:
            record = src_records.get(info.entry_id)
            other_id = pairs.get(info.entry_id)
            other = dst_records.get(other_id) if other_id else None
            fired_src = bool(record and record.fired)
            fired_dst = bool(other and other.fired)
            if fired_src != fired_dst:
                diffs.append(
                    BehaviourDifference(
                        chat_index,
                        src.turn or 0,
                        titles[info.entry_id],
                        info.entry_id,
                        other_id,
                        fired_src,
                        fired_dst,
                        _reason(record),
                        _reason(other),
                    )
                )
        for info in target_info:
            if info.entry_id in reverse:
                continue
            record = dst_records.get(info.entry_id)
            if record and record.fired:
                diffs.append(
                    BehaviourDifference(
                        chat_index,
                        dst.turn or 0,
                        titles[info.entry_id],
                        None,
                        info.entry_id,
                        False,
                        True,
                        Reason.NO_COUNTERPART,
                        _reason(record),
                    )
                )
    return diffs


def compare_behaviour(
    source_books: Sequence[Any],
    source_platform: str,
    target_books: Sequence[Any],
    target_platform: str,
    chats: Sequence[Chat],
    seed: int = 0,
    *,
    source_settings: Any = None,
    target_settings: Any = None,
    tokenizer: Any = None,
) -> list[BehaviourDifference]:
    """Every (chat, turn, entry) whose activation differs between source and target."""
    source_profile = get_profile(source_platform)
    target_profile = get_profile(target_platform)
    source_settings = source_settings if source_settings is not None else source_profile.default_settings()
    target_settings = target_settings if target_settings is not None else target_profile.default_settings()
    source_pool = source_profile.prepare(source_books, source_settings)
    target_pool = target_profile.prepare(target_books, target_settings)
    source_info, target_info = source_profile.entries(source_pool), target_profile.entries(target_pool)
    diffs: list[BehaviourDifference] = []
    run: dict[str, Any] = {"seed": seed, "tokenizer": tokenizer}
    for index, chat in enumerate(chats):  # each book prepared once, for every chat
        source_runs = simulate(
            source_books, chat, source_platform, settings=source_settings, **run, prepared=source_pool
        )
        target_runs = simulate(
            target_books, chat, target_platform, settings=target_settings, **run, prepared=target_pool
        )
        diffs.extend(compare_results(source_info, target_info, source_runs, target_runs, index))
    return diffs
