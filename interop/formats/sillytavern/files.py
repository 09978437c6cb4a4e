"""The two SillyTavern formats (``FORMATS``, registered in ``__init__``): reading and writing them."""

from __future__ import annotations

from pathlib import PurePath

from ...cardkit.as_kind import as_card, as_lorebook
from ...cardkit.card_io import card_version, read_card_document
from ...document import Document
from ...errors import InvalidCardError
from ...jsonio import dump_json
from ...model import Lorebook
from ...platform.registry import Format, Probe, ReadContext, WriteContext
from .card import sillytavern_card
from .describe import describe
from .fields import entry_label
from .model import NAMESPACE, entry_stash
from .normalize import conflict_text, normalize_card
from .world import lorebook_from_world, normalized, st_exported_use_regex, world_from_normalized


def detect_world(probe: Probe) -> int:
    obj = probe.json_object
    return 100 if obj is not None and isinstance(obj.get("entries"), dict) else 0


def read_world(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    if not isinstance(obj, dict):
        raise InvalidCardError("world info is not a JSON object", file=ctx.filename)
    book = lorebook_from_world(obj, file=ctx.filename)
    if book.name is None and ctx.filename:
        book.name = PurePath(ctx.filename).stem  # ST names a world by its file name
    doc = Document(format="sillytavern-world", lorebook=book, source=ctx.filename)
    for index, entry in enumerate(book.entries):
        stash = entry_stash(entry.ext(NAMESPACE).get("entry"))  # set by the reader only when not empty
        if stash:
            fields = sorted(set(stash.keep) | set(stash.absent))
            doc.warn(f"{entry_label(index, entry)}: fields kept verbatim (unusual values): {', '.join(fields)}")
    return doc


def write_world(doc: Document, ctx: WriteContext) -> bytes:
    book = as_lorebook(doc)
    folded, conflicts = normalized(book)  # once: the world below is written from the same folded book
    for conflict in conflicts:
        doc.warn(conflict_text(book, conflict))
    world = world_from_normalized(book, folded, from_card=doc.card is not None)
    return dump_json(world, pretty=ctx.pretty)


def read_card(data: bytes, ctx: ReadContext) -> Document:
    """A card JSON read as SillyTavern reads it: flat keys folded into the namespace, conflicts as warnings.

    Never chosen by detection (SillyTavern cards are detected as ccv2/ccv3, whose
    readers keep the file as it is); used with ``--from sillytavern-card`` and by
    the fidelity report to read our own ``sillytavern-card`` output back.
    """
    obj = ctx.json(data)
    if not isinstance(obj, dict) or card_version(obj) not in ("v2", "v3"):
        raise InvalidCardError("not a V2/V3 character card JSON", file=ctx.filename)
    doc = read_card_document(obj, "sillytavern-card", ctx)
    if doc.card is None:  # read_card_document always sets it; keeps the type checker honest
        raise InvalidCardError("not a character card", file=ctx.filename)
    source = doc.card.data.character_book
    doc.card, conflicts = normalize_card(doc.card, keep_flat=True)
    for conflict in conflicts:
        doc.warn(conflict_text(source, conflict) if source is not None else conflict.detail)
    return doc


def write_card(doc: Document, ctx: WriteContext) -> bytes:
    source = as_card(doc)
    book = source.data.character_book
    plain = [st_exported_use_regex(e) for e in book.entries] if isinstance(book, Lorebook) else None
    card, conflicts = normalize_card(source)
    for conflict in conflicts:
        doc.warn(conflict_text(book, conflict) if book is not None else conflict.detail)
    return dump_json(sillytavern_card(card, from_card=doc.card is not None, plain=plain), pretty=ctx.pretty)


FORMATS = (
    Format(
        name="sillytavern-world",
        kind="lorebook",
        title="SillyTavern world info ({entries: {uid: entry}})",
        suffix=".json",
        platform="sillytavern",
        detect=detect_world,
        detect_max=100,
        read=read_world,
        write=write_world,
        describe=describe,
        aliases=("st-world", "worldinfo"),
    ),
    Format(
        name="sillytavern-card",
        kind="card",
        title="Character card JSON as SillyTavern writes it (V2, V1 mirror, flat lorebook keys)",
        suffix=".json",
        platform="sillytavern",
        read=read_card,
        write=write_card,
        describe=describe,
        aliases=("st-card",),
    ),
)
