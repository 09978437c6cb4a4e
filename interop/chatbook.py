"""The lorebook a chat binds by name: SillyTavern's ``chat_metadata.world_info`` names a world file.

SillyTavern keeps chats in ``data/<user>/chats/<character>/<chat>.jsonl`` and worlds in
``data/<user>/worlds/<name>.json`` (``src/endpoints/chats.js`` and ``worldinfo.js``); a chat file
holds only the world's name. Reading a chat from a path, ``attach_bound_book`` looks for the named
world beside the chat and in SillyTavern's ``worlds`` folder and, when it finds a lorebook, puts
it on the chat (``book_external``) so a conversion carries it (Risu ``localLore``, the stash of
the other targets) and the report lists its fields. Nothing found: the name travels alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .api import read
from .document import Document
from .errors import InteropError, InvalidCardError
from .limits import DEFAULT_LIMITS, Limits
from .model.chat import ChatLog
from .platform.registry import all_platforms


def bound_book_candidates(chat_path: Path, name: str) -> list[Path]:
    """Where the world ``name`` of the chat at ``chat_path`` may be: beside it, then SillyTavern's folders."""
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        return []  # a world name is a file name, never a path
    folder = chat_path.resolve().parent
    return [
        folder / f"{name}.json",
        folder.parent.parent / "worlds" / f"{name}.json",
        folder.parent / "worlds" / f"{name}.json",
    ]


def attach_bound_book(doc: Document, chat_path: str | Path, *, limits: Limits = DEFAULT_LIMITS) -> str | None:
    """Attach the lorebook the chat binds by name; returns a note saying what was done (None: nothing to do)."""
    chat = doc.chat
    if chat is None or chat.book_name is None or chat.lorebook is not None:
        return None
    for candidate in bound_book_candidates(Path(chat_path), chat.book_name):
        if not candidate.is_file():
            continue
        try:
            book_doc = read(candidate, limits=limits)
        except InteropError as exc:
            return f"bound world {chat.book_name!r}: {candidate} is not readable ({exc.reason})"
        if book_doc.kind != "lorebook" or book_doc.lorebook is None:
            continue
        chat.lorebook = book_doc.lorebook
        chat.book_external = True
        chat.native.setdefault("interop", {}).update(book_format=book_doc.format, book_file=str(candidate))
        return f"bound world {chat.book_name!r} read from {candidate}"
    where = "beside the chat or in SillyTavern's worlds folder"
    return f"bound world {chat.book_name!r} not found {where}: only its name travels"


def _chat_service(name: str) -> Callable[..., Any] | None:
    """The platform service that finds the chats of a file holding several (RisuAI's: its
    all-chats export and the chats a Risu character keeps under ``extensions.risuai``)."""
    return next((s for p in all_platforms() if (s := p.service(name)) is not None), None)


def chats_in_file(doc: Document) -> list[ChatLog]:
    """Every chat the document's file holds, in file order: a chat file's one chat, each chat of
    RisuAI's "Export all chats", or the chats a Risu character keeps (none for other cards and
    books). The document's own chat (``doc.chat``) is chat 0 unless a chat was picked."""
    service = _chat_service("chats_in")
    if service is not None:
        return list(service(doc))
    return [doc.chat] if doc.chat is not None else []


def select_chat(doc: Document, index: int) -> Document:
    """The document with chat ``index`` (0-based, file order) selected; an index out of range is
    an ``InvalidCardError`` naming how many chats there are."""
    service = _chat_service("select_chat")
    if service is not None:
        return service(doc, index)  # type: ignore[no-any-return]
    count = len(chats_in_file(doc))
    if not 0 <= index < count:
        raise InvalidCardError(f"chat {index} asked for; the file holds {count} chat(s)", file=doc.source)
    return doc
