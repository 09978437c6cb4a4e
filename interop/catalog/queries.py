"""Reading the catalog back: list, show, stats and export of catalogued items."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, exists, func, select
from sqlalchemy.orm import Session

from ..document import Document
from ..errors import CatalogError
from ..mappings import FATES
from ..model import Card as CanonicalCard
from ..model import Lorebook as CanonicalLorebook
from .database import Catalog
from .models import (
    AssetBlob,
    Card,
    CardAsset,
    CardSource,
    CardTag,
    Chat,
    ChatSource,
    FidelityReport,
    Lorebook,
    LorebookEntry,
    LorebookSource,
    Migration,
    SourceFile,
)
from .report_parts import join_report
from .search import Hit, search_entries

SEARCH_BOOKS = 1000
"""Entry hits considered when ``list_items`` matches lorebooks by their content."""


@dataclass(frozen=True)
class ItemRef:
    kind: str  # "card", "lorebook" or "chat"
    id: int

    @classmethod
    def parse(cls, text: str) -> ItemRef:
        """``card:12``, ``book:7`` / ``lorebook:7``, ``chat:3``, or a bare number (a card)."""
        kind, _, ident = text.rpartition(":")
        kinds = {"": "card", "card": "card", "book": "lorebook", "lorebook": "lorebook", "chat": "chat"}
        kind = kinds.get(kind.lower(), "")
        if not kind or not ident.isdigit():
            raise CatalogError(f"not an item reference: {text!r} (use card:ID, book:ID or chat:ID)")
        return cls(kind, int(ident))

    def __str__(self) -> str:
        return f"{'book' if self.kind == 'lorebook' else self.kind}:{self.id}"


def _origin_filter(link: Any, link_col: Any, item_col: Any, fmt: str | None, platform: str | None) -> Any:
    cond = exists().where(link_col == item_col).where(SourceFile.id == link.source_file_id)
    if fmt:
        cond = cond.where(SourceFile.format == fmt)
    if platform:
        cond = cond.where(SourceFile.platform == platform)
    return cond


def list_items(
    session: Session,
    *,
    kind: str = "all",
    fmt: str | None = None,
    tag: str | None = None,
    creator: str | None = None,
    platform: str | None = None,
    limit: int = 100,
    q: str | None = None,
    offset: int = 0,
    hits: list[Hit] | None = None,
) -> list[dict[str, Any]]:
    """Cards, lorebooks and/or chats matching every filter given. Tag and creator apply to cards only.

    ``q`` matches a name or creator containing it (case-insensitive), or a lorebook
    with an entry holding every word of it (``search.search_entries``); a chat by its
    character (or speakers) or title. Cards come before lorebooks, lorebooks before
    chats; ``offset`` skips that many of the combined list. ``hits`` are
    ``search_entries(q, limit=SEARCH_BOOKS)`` when the caller already ran that search.
    """
    window = offset + limit
    search = _Search.of(session, q, hits)
    items: list[dict[str, Any]] = []
    if kind in ("all", "card"):
        items += _card_items(session, window, search, tag, creator, fmt, platform)
    if kind in ("all", "lorebook") and not tag and not creator:
        items += _book_items(session, window, search, fmt, platform)
    if kind in ("all", "chat") and not tag and not creator and len(items) < window:
        items += _chat_items(session, window - len(items), search, fmt, platform)
    return items[offset:window]


@dataclass(frozen=True)
class _Search:
    """``q`` as a LIKE pattern (name or creator containing it) and the ids of the books its words hit."""

    pattern: str
    book_ids: set[int]

    @classmethod
    def of(cls, session: Session, q: str | None, hits: list[Hit] | None) -> _Search | None:
        if not (q and q.strip()):
            return None
        escaped = q.strip().lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        if hits is None:
            hits = search_entries(session.connection(), q, limit=SEARCH_BOOKS)
        return cls(f"%{escaped}%", {hit.lorebook_id for hit in hits})


def count_items(
    session: Session,
    *,
    kind: str = "all",
    fmt: str | None = None,
    tag: str | None = None,
    creator: str | None = None,
    platform: str | None = None,
    q: str | None = None,
    hits: list[Hit] | None = None,
) -> int:
    """How many items ``list_items`` with the same filters would give without its limit ("showing N of M")."""
    search = _Search.of(session, q, hits)
    total = 0
    if kind in ("all", "card"):
        stmt = _card_select(search, tag, creator, fmt, platform)
        total += session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    if kind in ("all", "lorebook") and not tag and not creator:
        stmt = _book_select(search, fmt, platform)
        total += session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    if kind in ("all", "chat") and not tag and not creator:
        stmt = _chat_select(search, fmt, platform)
        total += session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    return total


def _card_select(
    search: _Search | None, tag: str | None, creator: str | None, fmt: str | None, platform: str | None
) -> Select[Any]:
    """Cards matching the filters (shared by the listing and its count)."""
    stmt: Select[Any] = select(Card)
    if search is not None:
        stmt = stmt.where(
            func.lower(Card.name).like(search.pattern, escape="\\")
            | func.lower(Card.creator).like(search.pattern, escape="\\")
            | Card.lorebook_id.in_(search.book_ids or {-1})
        )
    if tag:
        stmt = stmt.where(exists().where(CardTag.card_id == Card.id).where(func.lower(CardTag.tag) == tag.lower()))
    if creator:
        stmt = stmt.where(func.lower(Card.creator) == creator.lower())
    if fmt or platform:
        stmt = stmt.where(_origin_filter(CardSource, CardSource.card_id, Card.id, fmt, platform))
    return stmt


def _book_select(search: _Search | None, fmt: str | None, platform: str | None) -> Select[Any]:
    """Lorebooks matching the filters (shared by the listing and its count)."""
    stmt: Select[Any] = select(Lorebook)
    if search is not None:
        stmt = stmt.where(
            func.lower(Lorebook.name).like(search.pattern, escape="\\") | Lorebook.id.in_(search.book_ids or {-1})
        )
    if fmt or platform:
        stmt = stmt.where(_origin_filter(LorebookSource, LorebookSource.lorebook_id, Lorebook.id, fmt, platform))
    return stmt


def _chat_select(search: _Search | None, fmt: str | None, platform: str | None) -> Select[Any]:
    """Chats matching the filters (shared by the listing and its count)."""
    stmt: Select[Any] = select(Chat)
    if search is not None:
        stmt = stmt.where(
            func.lower(Chat.character).like(search.pattern, escape="\\")
            | func.lower(Chat.title).like(search.pattern, escape="\\")
        )
    if fmt or platform:
        stmt = stmt.where(_origin_filter(ChatSource, ChatSource.chat_id, Chat.id, fmt, platform))
    return stmt


def _chat_items(
    session: Session, window: int, search: _Search | None, fmt: str | None, platform: str | None
) -> list[dict[str, Any]]:
    """Chat rows: the listing's common keys (a chat is named by its title, else its character;
    ``entries`` counts its own lorebook) plus ``character``, ``user``, ``group``, ``messages``,
    ``bound_book`` (the world it binds by name) and ``lorebook`` (its own book's ref)."""
    stmt = _chat_select(search, fmt, platform).order_by(Chat.id).limit(window)
    rows = []
    for chat in session.scalars(stmt):
        book = session.get(Lorebook, chat.lorebook_id) if chat.lorebook_id is not None else None
        rows.append(
            {
                "ref": str(ItemRef("chat", chat.id)),
                "kind": "chat",
                "name": chat.title or chat.character,
                "creator": None,
                "tags": [],
                "entries": book.entry_count if book is not None else 0,
                "formats": _formats(session, ChatSource, ChatSource.chat_id, chat.id),
                "character": chat.character,
                "user": chat.user_name,
                "group": chat.is_group,
                "messages": chat.message_count,
                "bound_book": chat.bound_book,
                "lorebook": str(ItemRef("lorebook", book.id)) if book is not None else None,
            }
        )
    return rows


def _card_items(
    session: Session,
    window: int,
    search: _Search | None,
    tag: str | None,
    creator: str | None,
    fmt: str | None,
    platform: str | None,
) -> list[dict[str, Any]]:
    stmt = _card_select(search, tag, creator, fmt, platform).order_by(Card.id).limit(window)
    return [
        {
            "ref": str(ItemRef("card", card.id)),
            "kind": "card",
            "name": card.name,
            "creator": card.creator,
            "tags": [t.tag for t in card.tags],
            "entries": card.lorebook.entry_count if card.lorebook else 0,
            "formats": _formats(session, CardSource, CardSource.card_id, card.id),
        }
        for card in session.scalars(stmt)
    ]


def _book_items(
    session: Session, window: int, search: _Search | None, fmt: str | None, platform: str | None
) -> list[dict[str, Any]]:
    stmt = _book_select(search, fmt, platform).order_by(Lorebook.id).limit(window)
    return [
        {
            "ref": str(ItemRef("lorebook", book.id)),
            "kind": "lorebook",
            "name": book.name,
            "creator": None,
            "tags": [],
            "entries": book.entry_count,
            "formats": _formats(session, LorebookSource, LorebookSource.lorebook_id, book.id),
        }
        for book in session.scalars(stmt)
    ]


def _formats(session: Session, link: Any, link_col: Any, item_id: int) -> list[str]:
    stmt = (
        select(SourceFile.format)
        .join(link, link.source_file_id == SourceFile.id)
        .where(link_col == item_id)
        .distinct()
        .order_by(SourceFile.format)
    )
    return [f for f in session.scalars(stmt) if f]


def _sources(session: Session, link: Any, link_col: Any, item_id: int) -> list[dict[str, Any]]:
    stmt = (
        select(SourceFile)
        .join(link, link.source_file_id == SourceFile.id)
        .where(link_col == item_id)
        .order_by(SourceFile.id)
    )
    return [
        {"path": s.path, "format": s.format, "platform": s.platform, "sha256": s.sha256, "size": s.size}
        for s in session.scalars(stmt)
    ]


def _migrations(session: Session, column: Any, item_id: int | None = None) -> list[dict[str, Any]]:
    """The migrations of an item: ``column == item_id``, or ``column`` as the whole condition."""
    stmt = (
        select(Migration, FidelityReport, SourceFile.path)
        .join(SourceFile, SourceFile.id == Migration.source_file_id)
        .outerjoin(FidelityReport, FidelityReport.migration_id == Migration.id)
        .where(column == item_id if item_id is not None else column)
        .order_by(Migration.target, Migration.id)
    )
    rows = []
    for m, report, path in session.execute(stmt):
        rows.append(
            {
                "source": path,
                "target": m.target,
                "status": m.status,
                "reason": m.reason,
                "output": m.output_path,
                "output_sha256": m.output_sha256,
                "fates": {f: getattr(report, f) for f in FATES} if report else None,
                "lost": [i for i in _report_items(report) if i.get("fate") == "lost"] if report else [],
            }
        )
    return rows


def report_text(report: FidelityReport) -> str:
    """The report's full JSON text (``report.to_json_text()`` as the run wrote it): what every reader
    of a stored report goes through, since its shared part may be stored apart (``report_parts``)."""
    part = report.part
    if part is None or report.part_at is None:
        return report.report
    return join_report(report.report, report.part_at, part.body)


def _report_items(report: FidelityReport) -> list[dict[str, Any]]:
    data = json.loads(report_text(report))
    items = data.get("items") if isinstance(data, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _book_summary(book: Lorebook) -> dict[str, Any]:
    return {"ref": str(ItemRef("lorebook", book.id)), "name": book.name, "entries": book.entry_count}


def _show_chat(session: Session, ref: ItemRef) -> dict[str, Any]:
    chat = session.get(Chat, ref.id)
    if chat is None:
        raise CatalogError(f"no chat with id {ref.id} in the catalog")
    book = session.get(Lorebook, chat.lorebook_id) if chat.lorebook_id is not None else None
    # a file's migrations converted its chat 0 (the document): the chat's own where it is chat 0
    files = select(ChatSource.source_file_id).where((ChatSource.chat_id == chat.id) & (ChatSource.chat_index == 0))
    index_of = dict(
        session.execute(
            select(SourceFile.sha256, ChatSource.chat_index)
            .join(ChatSource, ChatSource.source_file_id == SourceFile.id)
            .where(ChatSource.chat_id == chat.id)
        ).all()
    )
    sources = [
        {**s, "chat_index": index_of[s["sha256"]]} for s in _sources(session, ChatSource, ChatSource.chat_id, chat.id)
    ]
    return {
        "ref": str(ref),
        "kind": "chat",
        "name": chat.title or chat.character,
        "character": chat.character,
        "user": chat.user_name,
        "title": chat.title,
        "group": chat.is_group,
        "messages": chat.message_count,
        "first_time": chat.first_time,
        "last_time": chat.last_time,
        "bound_book": chat.bound_book,
        "content_hash": chat.content_hash,
        "lorebook": _book_summary(book) if book is not None else None,
        "sources": sources,
        "migrations": _migrations(session, (Migration.item_kind == "chat") & Migration.source_file_id.in_(files)),
    }


def show_item(session: Session, ref: ItemRef) -> dict[str, Any]:
    if ref.kind == "chat":
        return _show_chat(session, ref)
    if ref.kind == "card":
        card = session.get(Card, ref.id)
        if card is None:
            raise CatalogError(f"no card with id {ref.id} in the catalog")
        assets = session.execute(
            select(CardAsset, AssetBlob)
            .join(AssetBlob, AssetBlob.id == CardAsset.asset_id)
            .where(CardAsset.card_id == card.id)
        )
        return {
            "ref": str(ref),
            "kind": "card",
            "name": card.name,
            "creator": card.creator,
            "spec": card.spec,
            "spec_version": card.spec_version,
            "tags": [t.tag for t in card.tags],
            "content_hash": card.content_hash,
            "lorebook": _book_summary(card.lorebook) if card.lorebook else None,
            "assets": [
                {
                    "role": a.role,
                    "uri": a.uri,
                    "type": a.type,
                    "name": a.name,
                    "ext": a.ext,
                    "size": b.size,
                    "sha256": b.sha256,
                }
                for a, b in assets
            ],
            "sources": _sources(session, CardSource, CardSource.card_id, card.id),
            "migrations": _migrations(session, Migration.card_id, card.id),
        }
    book = session.get(Lorebook, ref.id)
    if book is None:
        raise CatalogError(f"no lorebook with id {ref.id} in the catalog")
    cards = session.scalars(select(Card).where(Card.lorebook_id == book.id).order_by(Card.id))
    return {
        "ref": str(ref),
        "kind": "lorebook",
        "name": book.name,
        "content_hash": book.content_hash,
        "entries": [
            {
                "position": e.position,
                "name": e.name,
                "keys": json.loads(e.keys),
                "enabled": e.enabled,
                "constant": e.constant,
            }
            for e in book.entries
        ],
        "cards": [{"ref": str(ItemRef("card", c.id)), "name": c.name} for c in cards],
        "sources": _sources(session, LorebookSource, LorebookSource.lorebook_id, book.id),
        "migrations": _migrations(session, Migration.lorebook_id, book.id),
    }


def stats(session: Session) -> dict[str, Any]:
    files = session.execute(
        select(SourceFile.format, SourceFile.status, func.count()).group_by(SourceFile.format, SourceFile.status)
    )
    by_format: dict[str, dict[str, int]] = {}
    for fmt, status, count in files:
        by_format.setdefault(fmt or "(unknown)", {})[status] = count
    migrations: dict[str, dict[str, Any]] = {}
    for target, status, count in session.execute(
        select(Migration.target, Migration.status, func.count()).group_by(Migration.target, Migration.status)
    ):
        migrations.setdefault(target, {"done": 0, "skipped": 0, "failed": 0})[status] = count
    fate_sums = [func.coalesce(func.sum(getattr(FidelityReport, f)), 0) for f in FATES]
    for target, *sums in session.execute(
        select(Migration.target, *fate_sums)
        .join(FidelityReport, FidelityReport.migration_id == Migration.id)
        .group_by(Migration.target)
    ):
        migrations.setdefault(target, {"done": 0, "skipped": 0, "failed": 0})["fates"] = dict(
            zip(FATES, (int(s) for s in sums), strict=True)
        )
    count = lambda model: session.scalar(select(func.count()).select_from(model)) or 0  # noqa: E731
    return {
        "files_by_format": dict(sorted(by_format.items())),
        "cards": count(Card),
        "lorebooks": count(Lorebook),
        "entries": count(LorebookEntry),
        "assets": count(AssetBlob),
        "migrations_by_target": dict(sorted(migrations.items())),
    }


def _first_source_format(session: Session, link: Any, link_col: Any, item_id: int) -> str:
    formats = _formats(session, link, link_col, item_id)
    return formats[0] if formats else "catalog"


def load_document(catalog: Catalog, session: Session, ref: ItemRef) -> Document:
    """Rebuild a Document (canonical model + asset bytes) from the catalog, for export."""
    if ref.kind == "chat":
        raise CatalogError(f"{ref}: the catalog records a chat's facts, not its messages; convert the source file")
    if ref.kind == "lorebook":
        book = session.get(Lorebook, ref.id)
        if book is None:
            raise CatalogError(f"no lorebook with id {ref.id} in the catalog")
        fmt = _first_source_format(session, LorebookSource, LorebookSource.lorebook_id, book.id)
        return Document(
            format=fmt, lorebook=CanonicalLorebook.model_validate(json.loads(book.canonical)), source=book.name
        )
    card = session.get(Card, ref.id)
    if card is None:
        raise CatalogError(f"no card with id {ref.id} in the catalog")
    raw = json.loads(card.canonical)
    if card.lorebook is not None and isinstance(raw.get("data"), dict):
        raw["data"]["character_book"] = json.loads(card.lorebook.canonical)
    doc = Document(
        format=_first_source_format(session, CardSource, CardSource.card_id, card.id),
        card=CanonicalCard.model_validate(raw),
        source=card.name,
    )
    for link, blob in session.execute(
        select(CardAsset, AssetBlob)
        .join(AssetBlob, AssetBlob.id == CardAsset.asset_id)
        .where(CardAsset.card_id == card.id)
    ):
        path = catalog.asset_path(blob.sha256)
        try:
            data = path.read_bytes()
        except OSError:
            raise CatalogError("asset blob missing from the catalog data dir", file=str(path)) from None
        if link.role == "image":
            doc.image = data
        elif link.role == "member":
            doc.members[link.uri] = data
        else:
            doc.assets[link.uri] = data
    return doc
