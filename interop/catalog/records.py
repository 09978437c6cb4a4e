"""A read Document flattened into plain, picklable records ready for the catalog.

Workers build these (they are the expensive part: dumping and hashing the
canonical model) and hand them to whoever writes the database. Content
hashes are SHA-256 over key-sorted compact JSON, so the same card read from a
PNG and from a JSON file gets the same hash and is stored once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..chatbook import chats_in_file
from ..document import Document
from ..errors import InteropError
from ..jsonio import orjson_dump
from ..model import Card, Lorebook, LorebookEntry, as_bool, as_number, as_str_list
from ..model.chat import ChatLog
from ..model.versions import as_displayed, spec_label
from ..model.view import dump_view

MAX_URI = 1000  # card_assets.uri column width; longer URIs (data: URIs) are keyed by their hash


_sha256 = hashlib.sha256


def sha256_hex(data: bytes) -> str:
    return _sha256(data).hexdigest()


class Digests:
    """``sha256_hex`` of byte strings, each object hashed once: a PNG card's picture is the input file
    itself (hashed for the file's row), and the asset rows and the blob store hash the same parts.
    Keyed by identity; the objects are held, so an id is never reused while it is a key."""

    def __init__(self, *known: tuple[bytes, str]) -> None:
        self._seen: dict[int, tuple[bytes, str]] = {id(data): (data, digest) for data, digest in known}

    def __call__(self, data: bytes) -> str:
        hit = self._seen.get(id(data))
        if hit is not None:
            return hit[1]
        digest = hashlib.sha256(data).hexdigest()
        self._seen[id(data)] = (data, digest)
        return digest


# ``json.dumps`` with these arguments, without building an encoder per call (a file makes ~20 calls)
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode
_COMPACT_ASCII = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), default=str).encode
_SORTED = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True, default=str).encode


def _orjson(obj: Any, option: int = 0) -> bytes | None:
    """``obj`` as compact JSON written by orjson (~5x json's C encoder), or None where it could
    differ from ``_COMPACT`` / ``_SORTED``: where ``jsonio.orjson_dump`` leaves it to json, and NaN
    and Infinity, which orjson writes ``null``: when the output holds a null, it is read back and
    must equal ``obj``. Sorted keys: orjson compares UTF-8 bytes, json code points, which order alike."""
    out = orjson_dump(obj, option)
    if out is None or (b"null" in out and orjson.loads(out) != obj):
        return None
    return out


def _orjson_checked(obj: Any, option: int = 0) -> bytes | None:
    """``_orjson`` for a part of a value ``_orjson`` already accepted whole: no type it would refuse,
    no small float and no NaN is left in it, so orjson's text is json's."""
    try:
        return orjson.dumps(obj, option=option)
    except TypeError:
        return None


def canonical_json(obj: Any) -> str:
    """Order-preserving compact JSON: what is stored and exported from.

    Lone surrogates (broken emoji in real cards) cannot be stored as UTF-8 text;
    such documents are stored with ``\\u`` escapes instead, which parse back the same.
    """
    fast = _orjson(obj)
    if fast is not None:
        return fast.decode()
    return _canonical_slow(obj)


def _canonical_slow(obj: Any) -> str:
    text = _COMPACT(obj)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _COMPACT_ASCII(obj)
    return text


def content_hash(obj: Any, *, checked: bool = False) -> str:
    """Hash that ignores key order (the same data written by two apps hashes the same).
    ``checked``: ``obj`` is part of a value ``_orjson`` accepted."""
    fast = (_orjson_checked if checked else _orjson)(obj, orjson.OPT_SORT_KEYS)
    if fast is not None:
        return sha256_hex(fast)
    return sha256_hex(_SORTED(obj).encode("utf-8", "surrogatepass"))


@dataclass
class BookRecord:
    content_hash: str
    name: str | None
    canonical: str
    entries: list[dict[str, Any]]


@dataclass
class AssetRecord:
    role: str
    """``asset``, ``image`` or ``member``."""
    uri: str
    sha256: str
    size: int
    type: str | None = None
    name: str | None = None
    ext: str | None = None


@dataclass
class CardRecord:
    content_hash: str
    name: str | None
    creator: str | None
    spec: str | None
    spec_version: str | None
    canonical: str
    tags: list[str]
    book: BookRecord | None
    assets: list[AssetRecord] = field(default_factory=list)


@dataclass
class ChatRecord:
    content_hash: str
    character: str | None
    user_name: str | None
    title: str | None
    is_group: bool
    message_count: int
    first_time: int | None
    last_time: int | None
    bound_book: str | None


@dataclass
class FileChat:
    """One chat of a file, at its place in the file (RisuAI's all-chats export and a Risu character
    hold several), with its own book."""

    index: int
    chat: ChatRecord
    book: BookRecord | None


@dataclass
class ItemRecord:
    """What one file holds: a card (maybe with an embedded book), a standalone book, or a chat
    (with its own book, if the file or its bound world holds one). ``chats``: every chat of the
    file, ``chat`` (the document's) included; a Risu character's chats beside its card."""

    kind: str
    card: CardRecord | None = None
    book: BookRecord | None = None
    chat: ChatRecord | None = None
    chats: list[FileChat] = field(default_factory=list)

    @property
    def any_book(self) -> BookRecord | None:
        return self.book if self.book is not None else (self.card.book if self.card else None)


def _text(value: Any, limit: int | None = None) -> str | None:
    """A string field for a display/search column (the canonical JSON keeps the exact value).

    NUL characters are replaced because PostgreSQL text cannot hold them;
    ``limit`` truncates to the column width.
    """
    if not isinstance(value, str):
        return None
    if "\x00" in value:
        value = value.replace("\x00", "\ufffd")
    if not value.isascii():  # (constant time) ASCII always encodes: only other text may hold surrogates
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = value.encode("utf-8", "replace").decode("utf-8")
    return value[:limit] if limit else value


def _str_list_json(values: list[str]) -> str:
    """``canonical_json`` of a list of strings: only a lone surrogate makes orjson differ (it refuses)."""
    try:
        return orjson.dumps(values).decode()
    except TypeError:
        return _canonical_slow(values)


def entry_row(
    position: int, entry: LorebookEntry, dumped: dict[str, Any] | None = None, *, checked: bool = False
) -> dict[str, Any]:
    """One ``lorebook_entries`` row; ``dumped`` is the entry's ``dump()`` when the caller has it
    (``checked``: part of a value ``_orjson`` accepted).

    A book's rows are most of a file's catalog work: the usual values are taken as they are, inline
    (keys that are lists of strings, ``bool`` flags, numeric orders);
    ``as_str_list``/``as_bool``/``as_number`` only see other values.
    tests/catalog/test_records_json.py compares it with ``_entry_row_general``."""
    if dumped is None:
        dumped, checked = entry.dump(), False
    keys, secondary = entry.keys, entry.secondary_keys
    joined = keys_json = secondary_json = None
    if keys.__class__ is list and secondary.__class__ is list:
        try:  # as_str_list copies a list of strings, and _str_list_json is orjson's text unless it refuses
            joined = "\n".join(keys + secondary)  # TypeError unless every key is a str
            keys_json = orjson.dumps(keys).decode()  # TypeError on a lone surrogate
            secondary_json = orjson.dumps(secondary).decode() if secondary else "[]"
        except TypeError:
            joined = None
    if joined is None:
        keys, secondary = as_str_list(keys), as_str_list(secondary)
        joined = "\n".join(keys + secondary)
        keys_json, secondary_json = _str_list_json(keys), _str_list_json(secondary)
    content = entry.content
    order = entry.insertion_order
    if order.__class__ is not int and order.__class__ is not float:
        order = as_number(order)
    enabled, constant, selective = entry.enabled, entry.constant, entry.selective
    use_regex, case_sensitive = entry.use_regex, entry.case_sensitive
    return {
        "position": position,
        "name": _text(entry.name) or _text(entry.comment),
        "keys": keys_json,
        "secondary_keys": secondary_json,
        "keys_text": joined if joined.isascii() and "\x00" not in joined else _text(joined),  # _text's usual case
        "content": _text(content) if isinstance(content, str) else canonical_json(content or ""),
        "enabled": enabled if enabled.__class__ is bool else as_bool(enabled, True),
        "constant": constant if constant.__class__ is bool else as_bool(constant, False),
        "selective": selective if selective.__class__ is bool else as_bool(selective, False),
        "use_regex": use_regex if use_regex.__class__ is bool else as_bool(use_regex, False),
        "case_sensitive": case_sensitive if case_sensitive.__class__ is bool else as_bool(case_sensitive, False),
        "insertion_order": float(order) if order is not None else None,
        "content_hash": content_hash(dumped, checked=checked),
    }


def _entry_row_general(position: int, entry: LorebookEntry, dumped: dict[str, Any] | None = None) -> dict[str, Any]:
    """``entry_row`` by the lenient readers and ``content_hash`` alone: what its inline cases must equal."""
    if dumped is None:
        dumped = entry.dump()
    keys = as_str_list(entry.keys)
    secondary = as_str_list(entry.secondary_keys)
    content = entry.content
    order = as_number(entry.insertion_order)
    return {
        "position": position,
        "name": _text(entry.name) or _text(entry.comment),
        "keys": _str_list_json(keys),
        "secondary_keys": _str_list_json(secondary),
        "keys_text": _text("\n".join(keys + secondary)),
        "content": _text(content) if isinstance(content, str) else canonical_json(content or ""),
        "enabled": as_bool(entry.enabled, True),
        "constant": as_bool(entry.constant, False),
        "selective": as_bool(entry.selective, False),
        "use_regex": as_bool(entry.use_regex, False),
        "case_sensitive": as_bool(entry.case_sensitive, False),
        "insertion_order": float(order) if order is not None else None,
        "content_hash": content_hash(dumped),
    }


def book_record(book: Lorebook, dumped: dict[str, Any] | None = None) -> BookRecord:
    """The book's row and entry rows. The book hash is built from the entry hashes,
    so the (large) entries are serialised for hashing once, not twice. Without ``dumped``, the
    book's ``dump_view`` is written (no copy), or its ``dump`` where orjson refuses the view."""
    if dumped is None:
        record = _book_record(book, dump_view(book), from_view=True)
        if record is not None:
            return record
        dumped = book.dump()
    record = _book_record(book, dumped)
    assert record is not None  # only a view is refused
    return record


def _book_record(book: Lorebook, dumped: dict[str, Any], *, from_view: bool = False) -> BookRecord | None:
    """``book_record`` of ``dumped``; None when it is a ``dump_view`` orjson does not write (where
    the view may hold a value ``dump`` converts: the dump decides)."""
    fast = _orjson(dumped)  # checked once for the whole book: its entries and head need no check
    if fast is None and from_view:
        return None
    checked = fast is not None
    raw_entries = dumped.get("entries")
    raw_list = raw_entries if isinstance(raw_entries, list) else []
    entries = [
        entry_row(i, e, raw, checked=checked) for i, (e, raw) in enumerate(zip(book.entries, raw_list, strict=False))
    ]
    head = content_hash({k: v for k, v in dumped.items() if k != "entries"}, checked=checked)
    digest = sha256_hex(f"{head}|{'entries' in dumped}|{','.join(e['content_hash'] for e in entries)}".encode())
    return BookRecord(
        content_hash=digest,
        name=_text(book.name),
        canonical=fast.decode() if fast is not None else _canonical_slow(dumped),
        entries=entries,
    )


def _asset_records(doc: Document, card: Card, digest: Callable[[bytes], str] = sha256_hex) -> list[AssetRecord]:
    descriptors = {a.uri: a for a in card.data.assets or [] if isinstance(a.uri, str)}
    records = []
    for uri, data in doc.assets.items():
        desc = descriptors.get(uri)
        records.append(
            AssetRecord(
                role="asset",
                uri=_text(uri) if len(uri) <= MAX_URI else "sha256:" + sha256_hex(uri.encode("utf-8", "replace")),
                sha256=digest(data),
                size=len(data),
                type=_text(desc.type, 64) if desc else None,
                name=_text(desc.name) if desc else None,
                ext=_text(desc.ext, 32) if desc else None,
            )
        )
    if doc.image is not None:
        records.append(AssetRecord("image", "", digest(doc.image), len(doc.image), type="image"))
    for name, data in doc.members.items():
        records.append(AssetRecord("member", _text(name, MAX_URI) or "", digest(data), len(data)))
    return records


def card_record(doc: Document, card: Card, digest: Callable[[bytes], str] = sha256_hex) -> CardRecord:
    """The card's row (its book's and assets' with it), written from the card's ``dump_view`` (a
    fifth of the work is ``dump``'s copy), or from its ``dump`` where orjson refuses the view."""
    record = _card_record(doc, card, dump_view(card), digest, from_view=True)
    if record is None:
        record = _card_record(doc, card, card.dump(), digest)
    assert record is not None  # only a view is refused
    return record


def _card_record(
    doc: Document, card: Card, dumped: dict[str, Any], digest: Callable[[bytes], str], *, from_view: bool = False
) -> CardRecord | None:
    """``card_record`` of ``dumped``; None when it is a ``dump_view`` orjson does not write."""
    shown = as_displayed(card)  # a V1 card's name, creator and book live at its root or in its stash
    book = shown.data.character_book
    stored = dict(dumped)
    book_raw: Any = None
    if book is not None and isinstance(stored.get("data"), dict) and "character_book" in stored["data"]:
        book_raw = stored["data"]["character_book"]
        stored["data"] = {k: v for k, v in stored["data"].items() if k != "character_book"}
    fast = _orjson(stored)  # checked once: the hash's sorted dump needs no check
    if fast is None and from_view:
        return None
    book_rec = None
    if book is not None:
        if isinstance(book_raw, dict):
            book_rec = _book_record(book, book_raw, from_view=from_view)
            if book_rec is None:
                return None
        else:
            book_rec = book_record(book)
    own_hash = content_hash(stored, checked=fast is not None)
    data = shown.data
    version = card.spec_version
    return CardRecord(
        # the card without its book, plus the book's own hash: equal cards hash equal
        content_hash=sha256_hex(f"{own_hash}|{book_rec.content_hash if book_rec else ''}".encode()),
        name=_text(data.name),
        creator=_text(data.creator),
        spec=_text(spec_label(card), 64),
        spec_version=_text(str(version), 32) if version is not None else None,
        canonical=fast.decode() if fast is not None else _canonical_slow(stored),
        tags=_tags(data.tags),
        book=book_rec,
        assets=_asset_records(doc, card, digest),
    )


def _tags(value: Any) -> list[str]:
    """The card's tags for the ``card_tags`` rows: stripped, non-empty, cut to the column, sorted, once each."""
    if value.__class__ is list:
        try:
            stripped = list(map(str.strip, value))  # TypeError unless every tag is a str
        except TypeError:
            stripped = None
        if stripped is not None:
            text = "".join(stripped)
            if text.isascii() and "\x00" not in text and max(map(len, stripped), default=0) <= 200:
                return sorted(set(filter(None, stripped)))  # what _tags_general's _text gives such tags
    return _tags_general(value)


def _tags_general(value: Any) -> list[str]:
    return sorted({_text(t.strip(), 200) or "" for t in as_str_list(value) if t.strip()})


def chat_record(chat: ChatLog) -> ChatRecord:
    """The chat's catalog row: a content hash over its speakers and texts, the facts people search by."""
    messages = [[m.role, m.name, m.text, m.time] for m in chat.messages]
    head = [chat.user, chat.character, chat.title, chat.book_name]
    times = [m.time for m in chat.messages if isinstance(m.time, int)]
    character = chat.character if chat.character is not None else ", ".join(chat.characters) or None
    return ChatRecord(
        content_hash=content_hash({"head": head, "messages": messages}),
        character=_text(character),
        user_name=_text(chat.user),
        title=_text(chat.title),
        is_group=chat.group,
        message_count=len(chat.messages),
        first_time=min(times) if times else None,
        last_time=max(times) if times else None,
        bound_book=_text(chat.book_name),
    )


def item_record(doc: Document, digest: Callable[[bytes], str] = sha256_hex) -> ItemRecord:
    """``doc``'s catalog records; ``digest``: the SHA-256 of its binary parts (a ``Digests``, shared with
    ``blobs_of``, hashes each once)."""
    if doc.chat is not None:
        chat = chat_record(doc.chat)
        book = book_record(doc.chat.lorebook) if doc.chat.lorebook is not None else None
        return ItemRecord(kind="chat", book=book, chat=chat, chats=_file_chats(doc, (chat, book)))
    if doc.card is not None:
        return ItemRecord(kind="card", card=card_record(doc, doc.card, digest), chats=_file_chats(doc))
    if doc.lorebook is None:
        return ItemRecord(kind="lorebook", book=None)
    return ItemRecord(kind="lorebook", book=book_record(doc.lorebook))


def _file_chats(doc: Document, own: tuple[ChatRecord, BookRecord | None] | None = None) -> list[FileChat]:
    """Every chat of the file with its index (``own``: the records of ``doc.chat``, made once); a
    card whose chats do not read keeps its card row, with a warning."""
    try:
        logs = chats_in_file(doc)
    except InteropError as exc:
        if doc.chat is not None:
            raise
        doc.warn(f"the chats this card keeps are not catalogued: {exc.reason}")
        return []
    chats = []
    for index, log in enumerate(logs):
        if own is not None and log is doc.chat:
            chats.append(FileChat(index, *own))
        else:
            book = book_record(log.lorebook) if log.lorebook is not None else None
            chats.append(FileChat(index, chat_record(log), book))
    return chats


def blobs_of(doc: Document, digest: Callable[[bytes], str] = sha256_hex) -> dict[str, bytes]:
    """sha256 -> bytes of every binary part the document carries (written to the blob store)."""
    parts = list(doc.assets.values()) + list(doc.members.values())
    if doc.image is not None:
        parts.append(doc.image)
    return {digest(p): p for p in parts}
