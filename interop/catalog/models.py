"""The catalog schema as a SQLAlchemy 2.0 typed ORM.

Indexes are kept to what lookups need (natural keys, foreign keys, list
filters): every extra index is paid on each of the thousands of per-file
transactions of a migration run.

Every row that can be produced twice (the same file found again, the same
card inside two files, two processes importing one archive) has a natural
unique key, so writers use ``INSERT ... ON CONFLICT DO NOTHING`` and the
database, not the program, decides what is a duplicate.

The search index (SQLite FTS5 table / PostgreSQL GIN expression index) is
dialect specific and created by the Alembic migration only; it is not part
of this metadata (see ``search.py``).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Deterministic constraint names: Alembic migrations and the ORM agree on them
# on every backend, so the drift test compares like with like.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SHA = String(64)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class SourceFile(Base):
    """One input file, identified by its bytes: the same bytes found twice import once."""

    __tablename__ = "source_files"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(SHA, unique=True)
    path: Mapped[str] = mapped_column(Text)
    size: Mapped[int] = mapped_column(BigInteger)
    format: Mapped[str | None] = mapped_column(String(64), index=True)
    platform: Mapped[str | None] = mapped_column(String(64), index=True)
    kind: Mapped[str | None] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    """``imported`` or ``failed`` (then ``error`` says why)."""
    error: Mapped[str | None] = mapped_column(Text)
    warnings: Mapped[str | None] = mapped_column(Text)
    """JSON list of reader warnings."""
    imported_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Lorebook(Base):
    """A lorebook (standalone or a card's ``character_book``), stored once per content."""

    __tablename__ = "lorebooks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    content_hash: Mapped[str] = mapped_column(SHA, unique=True)
    name: Mapped[str | None] = mapped_column(Text)
    entry_count: Mapped[int] = mapped_column(Integer)
    canonical: Mapped[str] = mapped_column(Text)
    """The canonical ``Lorebook`` as JSON, entries included: what export writes from."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    entries: Mapped[list[LorebookEntry]] = relationship(
        back_populates="lorebook", order_by="LorebookEntry.position", cascade="all, delete-orphan"
    )


class LorebookEntry(Base):
    """One entry, flattened for browsing and full-text search."""

    __tablename__ = "lorebook_entries"
    __table_args__ = (UniqueConstraint("lorebook_id", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    lorebook_id: Mapped[int] = mapped_column(ForeignKey("lorebooks.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str | None] = mapped_column(Text)
    keys: Mapped[str] = mapped_column(Text)
    """JSON list of primary keys."""
    secondary_keys: Mapped[str] = mapped_column(Text)
    keys_text: Mapped[str] = mapped_column(Text)
    """Primary and secondary keys, one per line: what the search index reads."""
    content: Mapped[str] = mapped_column(Text)
    enabled: Mapped[bool] = mapped_column(Boolean)
    constant: Mapped[bool] = mapped_column(Boolean)
    selective: Mapped[bool] = mapped_column(Boolean)
    use_regex: Mapped[bool] = mapped_column(Boolean)
    case_sensitive: Mapped[bool] = mapped_column(Boolean)
    insertion_order: Mapped[float | None] = mapped_column(Float)
    content_hash: Mapped[str] = mapped_column(SHA)
    """Not indexed: a random-key index on the biggest table costs every import; add one
    (new Alembic revision) when a query needs to find equal entries across books."""

    lorebook: Mapped[Lorebook] = relationship(back_populates="entries")


class Card(Base):
    """A character card, stored once per content however many files carry it."""

    __tablename__ = "cards"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    content_hash: Mapped[str] = mapped_column(SHA, unique=True)
    name: Mapped[str | None] = mapped_column(Text)
    creator: Mapped[str | None] = mapped_column(Text)
    spec: Mapped[str | None] = mapped_column(String(64))
    spec_version: Mapped[str | None] = mapped_column(String(32))
    canonical: Mapped[str] = mapped_column(Text)
    """The canonical ``Card`` as JSON without ``data.character_book`` (that is ``lorebook_id``)."""
    lorebook_id: Mapped[int | None] = mapped_column(ForeignKey("lorebooks.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    lorebook: Mapped[Lorebook | None] = relationship()
    tags: Mapped[list[CardTag]] = relationship(cascade="all, delete-orphan", order_by="CardTag.tag")


class CardTag(Base):
    __tablename__ = "card_tags"

    card_id: Mapped[int] = mapped_column(ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(200), primary_key=True, index=True)


class AssetBlob(Base):
    """A content-addressed blob; its bytes live on disk under the catalog's data dir."""

    __tablename__ = "assets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(SHA, unique=True)
    size: Mapped[int] = mapped_column(BigInteger)


class CardAsset(Base):
    """Which blobs a card uses, and as what (an asset URI, the PNG picture, a container member)."""

    __tablename__ = "card_assets"

    card_id: Mapped[int] = mapped_column(ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[str] = mapped_column(String(16), primary_key=True)
    """``asset`` (``uri`` is the card's URI), ``image`` (the PNG picture) or ``member`` (a container part)."""
    uri: Mapped[str] = mapped_column(String(1000), primary_key=True)
    asset_id: Mapped[int] = mapped_column(ForeignKey("assets.id"), index=True)
    type: Mapped[str | None] = mapped_column(String(64))
    name: Mapped[str | None] = mapped_column(Text)
    ext: Mapped[str | None] = mapped_column(String(32))


class CardSource(Base):
    """Provenance: this file carried this card."""

    __tablename__ = "card_sources"

    source_file_id: Mapped[int] = mapped_column(ForeignKey("source_files.id", ondelete="CASCADE"), primary_key=True)
    card_id: Mapped[int] = mapped_column(ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True, index=True)


class LorebookSource(Base):
    """Provenance: this file carried this lorebook (``standalone``, ``embedded`` in a card, or a ``chat``'s own)."""

    __tablename__ = "lorebook_sources"

    source_file_id: Mapped[int] = mapped_column(ForeignKey("source_files.id", ondelete="CASCADE"), primary_key=True)
    lorebook_id: Mapped[int] = mapped_column(
        ForeignKey("lorebooks.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    role: Mapped[str] = mapped_column(String(16))


class Chat(Base):
    """A chat (SillyTavern, RisuAI, Agnai, interop): which character, how many messages, which book."""

    __tablename__ = "chats"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    content_hash: Mapped[str] = mapped_column(SHA, unique=True)
    character: Mapped[str | None] = mapped_column(Text, index=True)
    """The chat's character (a group chat: its speakers, comma-separated)."""
    user_name: Mapped[str | None] = mapped_column(Text)
    title: Mapped[str | None] = mapped_column(Text)
    is_group: Mapped[bool] = mapped_column(Boolean)
    message_count: Mapped[int] = mapped_column(Integer)
    first_time: Mapped[int | None] = mapped_column(BigInteger)
    """Unix ms of the first dated message (None: the file has no dates)."""
    last_time: Mapped[int | None] = mapped_column(BigInteger)
    bound_book: Mapped[str | None] = mapped_column(Text)
    """The lorebook the chat binds by name (SillyTavern ``chat_metadata.world_info``)."""
    lorebook_id: Mapped[int | None] = mapped_column(ForeignKey("lorebooks.id"), index=True)
    """The chat's own lorebook when the file or its bound world holds one (Risu ``localLore``)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatSource(Base):
    """Provenance: this file carried this chat."""

    __tablename__ = "chat_sources"

    source_file_id: Mapped[int] = mapped_column(ForeignKey("source_files.id", ondelete="CASCADE"), primary_key=True)
    chat_id: Mapped[int] = mapped_column(ForeignKey("chats.id", ondelete="CASCADE"), primary_key=True, index=True)
    chat_index: Mapped[int] = mapped_column(Integer, server_default="0")
    """The chat's place in the file, 0-based (RisuAI's all-chats export and a Risu character hold
    several; ``convert --chat-index``); a file's migrations convert its chat 0."""


class Migration(Base):
    """One conversion of one source file to one target format."""

    __tablename__ = "migrations"
    __table_args__ = (UniqueConstraint("source_file_id", "target"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    source_file_id: Mapped[int] = mapped_column(ForeignKey("source_files.id", ondelete="CASCADE"))
    item_kind: Mapped[str] = mapped_column(String(16))
    """``card``, ``lorebook`` or ``chat``: what the source held."""
    card_id: Mapped[int | None] = mapped_column(ForeignKey("cards.id"), index=True)
    lorebook_id: Mapped[int | None] = mapped_column(ForeignKey("lorebooks.id"), index=True)
    target: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    """``done``, ``skipped`` (the target cannot hold this kind of item) or ``failed``."""
    reason: Mapped[str | None] = mapped_column(Text)
    output_path: Mapped[str | None] = mapped_column(Text)
    output_sha256: Mapped[str | None] = mapped_column(SHA)
    read_ms: Mapped[float] = mapped_column(Float)
    convert_ms: Mapped[float] = mapped_column(Float)
    report_ms: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    report: Mapped[FidelityReport | None] = relationship(
        back_populates="migration", cascade="all, delete-orphan", uselist=False
    )


class FidelityReport(Base):
    """What a conversion did with each field: counts per fate plus the itemised list."""

    __tablename__ = "fidelity_reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    migration_id: Mapped[int] = mapped_column(ForeignKey("migrations.id", ondelete="CASCADE"), unique=True)
    kept: Mapped[int] = mapped_column(Integer)
    not_applicable: Mapped[int] = mapped_column(Integer, server_default="0")
    kept_default: Mapped[int] = mapped_column(Integer, server_default="0")
    translated: Mapped[int] = mapped_column(Integer)
    stashed: Mapped[int] = mapped_column(Integer)
    approximated: Mapped[int] = mapped_column(Integer)
    lost: Mapped[int] = mapped_column(Integer)
    has_losses: Mapped[bool] = mapped_column(Boolean)
    report: Mapped[str] = mapped_column(Text)
    """``report.to_json()`` as JSON text, without the part stored in ``report_parts`` when
    ``part_id`` is set: read it through ``queries.report_text``, never directly."""
    # Revision 0008: a report's items (most of its bytes) are the same for every file of a layout.
    part_id: Mapped[int | None] = mapped_column(ForeignKey("report_parts.id"))
    """The shared text cut out of ``report`` (not indexed: parts are never deleted)."""
    part_at: Mapped[int | None] = mapped_column(Integer)
    """Where in ``report`` (a character offset) the part's text goes back."""

    migration: Mapped[Migration] = relationship(back_populates="report")
    part: Mapped[ReportPart | None] = relationship()


class ReportPart(Base):
    """Text shared by many fidelity reports (their items), stored once per content (revision 0008).

    A report's items list is a function of the source's layout and the target, so a run over
    thousands of cards of a few shapes stores a few of these instead of one per report.
    """

    __tablename__ = "report_parts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(SHA, unique=True)
    """SHA-256 of ``body`` as UTF-8."""
    body: Mapped[str] = mapped_column(Text)


class Run(Base):
    """A migration run: what was asked, and how much there is to do.

    A distributed ``interop migrate --broker`` run: workers read the run's settings from
    here (the task messages carry only file paths); progress is the sum of its committed
    batches. A run in one process (``interop migrate``, the web page) records its status
    and summary here when it ends (catalog/runlog.py).
    """

    __tablename__ = "runs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    sources: Mapped[str] = mapped_column(Text)
    """JSON list of the source paths given on the command line."""
    targets: Mapped[str] = mapped_column(Text)
    """Comma-separated target formats."""
    out_dir: Mapped[str] = mapped_column(Text)
    data_dir: Mapped[str] = mapped_column(Text)
    pretty: Mapped[bool] = mapped_column(Boolean)
    total_files: Mapped[int] = mapped_column(Integer)
    batch_count: Mapped[int] = mapped_column(Integer)
    batch_size: Mapped[int] = mapped_column(Integer)
    files: Mapped[str] = mapped_column(Text)
    """JSON list of the files' absolute paths in batch order: batch ``k`` is items
    ``k * batch_size`` to ``(k + 1) * batch_size``, so a batch the broker lost can be sent again."""
    ignored: Mapped[int] = mapped_column(Integer)
    """Files the folder walk left out (documentation, tooling): counted in the summary, never sent."""
    # Revision 0005: every migration is a run, so the CLI and the web page list the same "Recent migrations".
    origin: Mapped[str] = mapped_column(String(16), server_default="cli")
    """Who started it: ``cli`` (``interop migrate``, with or without --broker) or ``web`` (POST /migrations)."""
    status: Mapped[str | None] = mapped_column(String(16))
    """running / done / failed for runs in one process; None for --broker runs (progress is their batches)."""
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    summary: Mapped[str | None] = mapped_column(Text)
    """``RunSummary.to_json()`` as JSON text, once an in-process run has finished."""
    error: Mapped[str | None] = mapped_column(Text)


class RunBatch(Base):
    """One committed batch of a run, written in the same transaction as its files' catalog rows.

    The primary key makes a batch count once however often the broker
    delivers it; ``outcomes`` holds what the summary needs of each file.
    """

    __tablename__ = "run_batches"

    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    batch_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    files: Mapped[int] = mapped_column(Integer)
    outcomes: Mapped[str] = mapped_column(Text)
    """JSON list, one compact record per file (``migrate_run.file_tally``)."""
    worker: Mapped[str | None] = mapped_column(String(255))
    database_ms: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
