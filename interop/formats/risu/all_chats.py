"""``risu-all-chats``: RisuAI's "Export all chats" (``{"type": "risuAllChats", "ver": 2, "data": [Chat],
"folders": [...]}``), read only.

Facts (RisuAI ``src/ts/characters.ts``): ``exportAllChats`` writes ``JSON.stringify`` (compact) of
``{type: 'risuAllChats', ver: 2, data: char.chats, folders: char.chatFolders}`` (``folders`` left
out when the character has no folder list); ``importChat`` takes ``ver`` 2 (``data`` a list, the
folders appended, ids remapped on collision, every chat a new ``id``, put in front of the
character's chats) and ``ver`` 1 (``data`` a non-empty list, no folders). Risu's own character
package (``chats/chats.json``) holds the same object.

The file holds several chats; a document is one of them: ``chat`` is the selected chat (the first
unless ``select_chat`` picks another) and ``chats_in(doc)`` lists them all. Each chat reads as the
``risu-chat`` reader reads an export's ``data``, with the wrapper its single export would have
(``exportChat``: ``folders`` = the chat's folder), so ``interop convert ALL --to risu-chat`` writes
the selected chat as the file RisuAI's "Export as JSON" would give.
"""

from __future__ import annotations

import copy
from typing import Any

from ...document import Document
from ...errors import InvalidCardError
from ...model.chat import ChatLog
from ...platform.registry import Format, Probe, ReadContext
from .chat import PLATFORM, chat_log, wrapper_record

EXPORT_TYPE = "risuAllChats"
CHATS_KEY = "chats"
"""``Document.native`` key: every chat of the file, in file order."""
SELECTED_KEY = "selected"


def _detect(probe: Probe) -> int:
    obj = probe.json_object
    if obj is None or obj.get("type") != EXPORT_TYPE:
        return 0
    return 100 if isinstance(obj.get("data"), list) else 0


def _read(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    file = ctx.filename
    if not isinstance(obj, dict) or obj.get("type") != EXPORT_TYPE or not isinstance(obj.get("data"), list):
        raise InvalidCardError("not a RisuAI all-chats export (type 'risuAllChats' with a 'data' list)", file=file)
    folders = obj.get("folders")
    folders = [f for f in folders if isinstance(f, dict)] if isinstance(folders, list) else []
    chats: list[ChatLog] = []
    for index, raw in enumerate(obj["data"]):
        where = f"data[{index}]"
        if not isinstance(raw, dict):
            raise InvalidCardError("a Risu chat must be an object", file=file, location=where)
        log = chat_log(raw, file, where)
        own = [f for f in folders if raw.get("folderId") is not None and f.get("id") == raw.get("folderId")]
        log.native[PLATFORM]["wrapper"] = wrapper_record(own)
        chats.append(log)
    if not chats:
        raise InvalidCardError("RisuAI all-chats export holds no chat (RisuAI refuses it too)", file=file)
    doc = Document(format="risu-all-chats", chat=chats[0], source=file)
    doc.native.update({CHATS_KEY: chats, SELECTED_KEY: 0})
    if obj.get("ver") not in (1, 2):
        doc.warn(f"Risu all-chats export version {obj.get('ver')!r}; RisuAI imports 1 and 2")
    return doc


def chats_in(doc: Document) -> list[ChatLog]:
    """Every chat the document's file holds: an all-chats export's, a single chat, or the chats a
    Risu character keeps (``risu-character``: ``chats``, kept whole under
    ``extensions.risuai.character``; each named after the character)."""
    chats = doc.native.get(CHATS_KEY)
    if isinstance(chats, list):
        return list(chats)
    if doc.chat is not None:
        return [doc.chat]
    return _character_chats(doc)


def _character_chats(doc: Document) -> list[ChatLog]:
    if doc.card is None:
        return []
    extensions = doc.card.data.extensions  # None in a V1 card
    risu = extensions.get("risuai") if isinstance(extensions, dict) else None
    character = risu.get("character") if isinstance(risu, dict) else None
    raw = character.get("chats") if isinstance(character, dict) else None
    if not isinstance(raw, list):
        return []
    name = doc.card.data.name if isinstance(doc.card.data.name, str) else None
    # RisuAI stamps each reply with the speaking character's id (process/index.svelte.ts sendChat:
    # ``saying: currentChar.chaId``); the character's own id names its replies
    speaker = character.get("chaId")
    speakers = {speaker: name} if isinstance(speaker, str) and name else {}
    logs = []
    for index, chat in enumerate(raw):
        where = f"extensions.risuai.character.chats[{index}]"
        if not isinstance(chat, dict):
            raise InvalidCardError("a Risu chat must be an object", file=doc.source, location=where)
        log = chat_log(chat, doc.source, where, speakers)
        log.character = log.character or name
        logs.append(log)
    return logs


def select_chat(doc: Document, index: int) -> Document:
    """The document with chat ``index`` (0-based, file order) selected; an index out of range is
    an ``InvalidCardError`` naming how many chats there are. A chat of a Risu character is given
    as a ``risu-chat`` document (written: the file RisuAI's "Export as JSON" gives)."""
    chats = chats_in(doc)
    if not chats:
        raise InvalidCardError(f"chat {index} asked for; the file holds no chat", file=doc.source)
    if not 0 <= index < len(chats):
        raise InvalidCardError(
            f"chat {index} asked for; the file holds {len(chats)} chat(s), 0 to {len(chats) - 1}", file=doc.source
        )
    if CHATS_KEY not in doc.native and doc.chat is not None:
        return doc  # a file of one chat: chat 0 is the document itself
    if doc.chat is None:
        return Document(format="risu-chat", chat=chats[index], source=doc.source)
    picked = copy.copy(doc)
    picked.native = {**doc.native, SELECTED_KEY: index}
    picked.chat = chats[index]
    return picked


def describe_chats(doc: Document) -> list[dict[str, Any]]:
    """``inspect``'s line per chat of the file: name, messages, local lore entries."""
    return [
        {
            "name": log.title,
            "messages": len(log.messages),
            "local_lore_entries": len(log.lorebook.entries) if log.lorebook is not None else 0,
        }
        for log in chats_in(doc)
    ]


def _describe(doc: Document) -> dict[str, Any]:
    return {"chats": describe_chats(doc), "selected": doc.native.get(SELECTED_KEY, 0)}


FORMATS = (
    Format(
        name="risu-all-chats",
        kind="chat",
        title='RisuAI "Export all chats" (type risuAllChats)',
        suffix=".json",
        platform=PLATFORM,
        detect=_detect,
        detect_max=100,
        read=_read,
        write=None,
        describe=_describe,
    ),
)
