"""The fidelity report of a chat conversion (``interop convert chat.jsonl --to risu-chat``).

Two read-backs of the output, compared with the source field by field (docs/chats.md):

* what the target app sees: the output read with every ``interop_stash`` taken out. A field that
  comes back equal is ``kept``; one that does not takes the fate the target's mapping table gives
  it (``stashed`` where the app keeps the stash verbatim, ``lost``/``approximated`` otherwise), and
  ``lost`` when no rule names it;
* what interop restores: the output read as it is. A field the stash does not give back is
  ``lost`` whatever the table says (the promise of a stash is the way back).

Message fields are reported once per field over all messages (``message[*].time``: how many
messages carry it, how many the app loses). The chat's lorebook (Risu ``localLore``, a SillyTavern
world bound by name, an Agnai memory book) is converted by the lorebook adapters: its own fidelity
report for the book format of the target app is folded in, paths prefixed ``book.``.
"""

from __future__ import annotations

import json
from typing import Any

from ..api import read_bytes, write, write_with_journal
from ..cardkit.chat_native import STASH_KEY, meaningful
from ..document import Document
from ..findings import Journal
from ..jsonvalue import json_equal
from ..mappings import load
from ..model.chat import CHAT_FIELDS, MESSAGE_FIELDS, ChatLog
from ..platform.registry import all_formats, get_format
from .items import FidelityItem
from .report import FidelityReport, fidelity_report

BOOK_FORMATS = {
    "sillytavern": "sillytavern-world",
    "risu": "risu-lorebook",
    "agnai": "agnai-book",
    "transcript": "lorebook_v3",
}
"""The lorebook format of each chat platform: where a chat's own book goes (and comes from)."""
KEEP_SUBTREES = ("localLore", "entries")
"""Lorebook entries have stashes of their own (the Risu adapter's): left alone here."""


def without_stash(value: Any) -> Any:
    """``value`` with every chat-level ``interop_stash`` removed (lorebook entries keep theirs)."""
    if isinstance(value, dict):
        return {k: v if k in KEEP_SUBTREES else without_stash(v) for k, v in value.items() if k != STASH_KEY}
    if isinstance(value, list):
        return [without_stash(v) for v in value]
    return value


def app_view_bytes(data: bytes, suffix: str) -> bytes:
    """The output as the target app reads it: the same file without interop's stash."""
    if suffix == ".jsonl":
        lines = [json.dumps(without_stash(json.loads(line)), ensure_ascii=False) for line in data.splitlines() if line]
        return "\n".join(lines).encode("utf-8")
    return json.dumps(without_stash(json.loads(data)), ensure_ascii=False).encode("utf-8")


def chat_report(source: Document, target: str, output: bytes, *, journal: Journal | None = None) -> FidelityReport:
    """The fate of every field of the chat ``source`` written as ``target`` (``output``).

    ``journal`` is what the writer recorded (``api.write_with_journal``): carried in the report's
    ``findings`` as for cards and books; the fates here come from the two read-backs."""
    fmt = get_format(target)
    assert source.chat is not None
    warnings: list[str] = []
    restored = read_bytes(output, format=target, filename=source.source).chat
    seen = read_bytes(app_view_bytes(output, fmt.suffix), format=target, filename=source.source).chat
    assert restored is not None and seen is not None
    rules = _Rules(fmt.platform, target)
    items = _chat_items(source.chat, seen, restored, rules)
    items += _message_items(source.chat, seen, restored, rules)
    items += _native_items(source.chat, fmt.platform, rules)
    book_items, book_warnings = _book_items(source, target, fmt.platform, rules)
    items += book_items
    warnings += book_warnings
    return FidelityReport(
        source_format=source.format,
        target_format=target,
        source_kind="chat",
        target_kind="chat",
        target_platform=fmt.platform,
        items=items,
        source_file=source.source,
        output_size=len(output),
        warnings=warnings,
        journal=journal,
    )


class _Rules:
    """The target platform's mapping rules for one chat target."""

    def __init__(self, platform: str, target: str) -> None:
        self.mapping = load(platform)
        self.target = target

    def fate(self, path: str, rule_path: str, detail: str) -> FidelityItem:
        rule = self.mapping.rule_for(self.target, rule_path)
        if rule is None:
            return FidelityItem(path, "lost", f"not in the output ({detail})")
        text = f"{rule.detail} ({detail})" if detail else rule.detail
        return FidelityItem(path, rule.fate, text, rule.pattern)


def _set(value: Any) -> bool:
    return value is not None and value is not False


def _chat_items(source: ChatLog, seen: ChatLog, restored: ChatLog, rules: _Rules) -> list[FidelityItem]:
    items = []
    for name in CHAT_FIELDS:
        value = source.value(name)
        if not _set(value):
            continue
        path = f"chat.{name}"
        if json_equal(seen.value(name), value):
            items.append(FidelityItem(path, "kept"))
        elif not json_equal(restored.value(name), value):
            items.append(FidelityItem(path, "lost", f"not restored: {restored.value(name)!r} instead of {value!r}"))
        else:
            items.append(rules.fate(path, path, ""))
    return items


def _message_items(source: ChatLog, seen: ChatLog, restored: ChatLog, rules: _Rules) -> list[FidelityItem]:
    count = len(source.messages)
    if len(seen.messages) != count or len(restored.messages) != count:
        return [FidelityItem("chat.messages", "lost", f"{count} messages became {len(seen.messages)}")]
    items = [FidelityItem("chat.messages", "kept", f"{count} messages")]
    for name in MESSAGE_FIELDS:
        carrying = [i for i, m in enumerate(source.messages) if _set(m.value(name))]
        if not carrying:
            continue
        changed = [i for i in carrying if not json_equal(seen.messages[i].value(name), source.messages[i].value(name))]
        unrestored = [
            i for i in carrying if not json_equal(restored.messages[i].value(name), source.messages[i].value(name))
        ]
        path = f"message[*].{name}"
        if unrestored:
            items.append(FidelityItem(path, "lost", f"not restored in {len(unrestored)} of {len(carrying)} messages"))
        elif not changed:
            items.append(FidelityItem(path, "kept", f"{len(carrying)} messages"))
        else:
            detail = f"{len(changed)} of {len(carrying)} messages, e.g. message[{changed[0]}]"
            items.append(rules.fate(path, f"message.{name}", detail))
    return items


def _native_items(source: ChatLog, target_platform: str, rules: _Rules) -> list[FidelityItem]:
    """The source app's own fields (its native records): kept by its own format, stashed elsewhere."""
    items = []
    platforms = {p for p, r in source.native.items() if meaningful(r)}
    for message in source.messages:
        platforms.update(p for p, r in message.native.items() if meaningful(r))
    for platform in sorted(platforms - {"interop"}):
        for level in ("chat", "message"):
            path = f"{level}.native.{platform}"
            if platform == target_platform:
                items.append(FidelityItem(path, "kept", "the app's own fields, written back as read"))
            else:
                items.append(rules.fate(path, path, "fields only the source app has"))
    return items


def _book_items(
    source: Document, target: str, target_platform: str, rules: _Rules
) -> tuple[list[FidelityItem], list[str]]:
    """The chat's lorebook: ``chat.lorebook`` by the table, then its own report for the book format of
    the target app (what ``localLore`` holds, what ``--to sillytavern-world`` / ``agnai-book`` writes)."""
    chat = source.chat
    assert chat is not None
    if chat.lorebook is None:
        if chat.book_name is not None:
            return [], [f"the bound lorebook {chat.book_name!r} is not in the chat: only its name is converted"]
        return [], []
    entries = f"{len(chat.lorebook.entries)} entries"
    bound = chat.native.get("interop", {})
    if chat.book_external and target_platform == "sillytavern":
        return [FidelityItem("chat.lorebook", "kept", f"bound by name: {bound.get('book_file')} ({entries})")], []
    head = rules.fate("chat.lorebook", "chat.lorebook", entries)
    book_target = BOOK_FORMATS.get(target_platform)
    if book_target is None:
        return [head], []
    source_platform = get_format(source.format).platform
    book_format = bound.get("book_format") or BOOK_FORMATS.get(source_platform, "lorebook_v3")
    book_doc = Document(format=book_format, lorebook=chat.lorebook, source=bound.get("book_file") or source.source)
    report = fidelity_report(book_doc, book_target)
    items = [head] + [FidelityItem(f"book.{i.path}", i.fate, i.detail, i.rule) for i in report.items]
    warnings = [f"lorebook ({book_target}): {w}" for w in report.warnings]
    return items, warnings


def chat_differences(source: ChatLog, back: ChatLog) -> list[str]:
    """Report paths (``chat.user``, ``message[*].time``, ``chat.native.risu``, ...) where ``back`` differs."""
    paths = [f"chat.{name}" for name in CHAT_FIELDS if not json_equal(source.value(name), back.value(name))]
    if (source.lorebook is None) != (back.lorebook is None) or (
        source.lorebook is not None and back.lorebook is not None and source.lorebook.dump() != back.lorebook.dump()
    ):
        paths.append("chat.lorebook")
    if len(source.messages) != len(back.messages):
        return [*paths, "chat.messages"]
    for name in MESSAGE_FIELDS:
        if any(
            not json_equal(a.value(name), b.value(name)) for a, b in zip(source.messages, back.messages, strict=True)
        ):
            paths.append(f"message[*].{name}")
    for platform in sorted(set(source.native) - {"interop"}):
        if not json_equal(source.native.get(platform), back.native.get(platform)):
            paths.append(f"chat.native.{platform}")
    mine = {p for m in source.messages for p in m.native}
    for platform in sorted(mine):
        pairs = zip(source.messages, back.messages, strict=True)
        if any(not json_equal(a.native.get(platform), b.native.get(platform)) for a, b in pairs):
            paths.append(f"message.native.{platform}")
    return paths


def back_format(source: Document) -> str:
    """The format a chat goes back to: its own, or for a read-only one (RisuAI's all-chats export)
    the chat format its app writes (``risu-chat``)."""
    own = get_format(source.format)
    if own.write is not None:
        return own.name
    return next(f.name for f in all_formats() if f.kind == "chat" and f.platform == own.platform and f.write)


def chat_round_trip(source: Document, target: str) -> tuple[FidelityReport, list[str], list[str]]:
    """``source`` to ``target`` and back to its own format (``back_format``): (the report of the way
    there, the paths that differ after the way back, those among them the report did not predict
    as lost or approximated)."""
    assert source.chat is not None
    written = write_with_journal(source, target)
    report = chat_report(source, target, written.data, journal=written.journal)
    data = written.data
    middle = read_bytes(data, format=target, filename=source.source)
    home = back_format(source)
    back = read_bytes(write(middle, home), format=home, filename=source.source)
    assert back.chat is not None
    differences = chat_differences(source.chat, back.chat)
    predicted = {i.path for i in report.items if i.fate in ("lost", "approximated")}
    # A field the source did not have and the way back filled in (a default) is added, not lost.
    added = {f"chat.{n}" for n in CHAT_FIELDS if not _set(source.chat.value(n))}
    return report, differences, [p for p in differences if p not in predicted and p not in added]
