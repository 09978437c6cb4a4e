"""``/api/v1``: the library over HTTP. Every answer is JSON except file downloads.

Each endpoint does what the matching CLI command computes (the same library
functions: ``inspection.summarize``, ``conversion.convert_document``,
``fidelity.roundtrip``, ``entrydiff.diff_documents``, ``validate_document``,
``engine.side_by_side``, ``catalog.queries``), on uploaded bytes instead of
paths. Nothing uploaded is stored, except by ``POST /migrations``.
"""

from __future__ import annotations

import base64
import functools
import threading
from collections.abc import Callable
from pathlib import PurePath
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response

from ..api import read_bytes, writable_format, write
from ..catalog.database import Catalog, open_catalog
from ..catalog.pipeline import slug
from ..catalog.queries import SEARCH_BOOKS, ItemRef, list_items, load_document, show_item, stats
from ..catalog.search import search_entries
from ..containers.charx import find_zip, read_zip
from ..conversion import convert_document, output_name, strict_reason
from ..document import Document
from ..engine import PROFILES, read_chat_bytes
from ..engine.jsregex import regex_budget
from ..engine.sidebyside import side_by_side
from ..engine.sources import book_from_bytes
from ..errors import FormatError, InteropError
from ..fidelity.entrydiff import diff_documents
from ..fidelity.render import diff_view, leg_view, report_view
from ..fidelity.roundtrip import roundtrip
from ..formats.card_image import main_icon
from ..formats.registry import all_formats, get_format, writable_formats
from ..inspection import summarize
from ..limits import Limits
from ..validation import validate_document
from .config import ServiceConfig
from .jobs import load_job, recent_jobs, start_job
from .jsonresponse import SafeJSONResponse
from .security import require_token
from .uploads import SpooledUpload, Upload, content_disposition, media_type, read_upload, spooled_upload

PLAYGROUND_PLATFORMS = tuple(p for p in PROFILES if p != "ccv3")
"""The profiles the playground compares when none is named: every app's (ccv3 is the spec, not an app)."""

router = APIRouter(prefix="/api/v1", default_response_class=SafeJSONResponse)  # lone surrogates: no 500
PER_PAGE = 50
ENTRY_HITS = 20
"""Lorebook entries a catalog search shows beside the items."""
PICTURE_MAX_BYTES = 8 * 1024 * 1024
_PICTURE_TYPES = {b"\x89PNG": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF8": "image/gif", b"RIFF": "image/webp"}

FileField = Annotated[UploadFile, File(description="A card or lorebook file, any supported format.")]


Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


def cpu_bound(func: Endpoint) -> Endpoint:
    """Run a synchronous endpoint in the thread pool, whatever its body size, under one regex time
    budget for the whole request: the event loop keeps answering other clients meanwhile (a 10 KB
    request can hold seconds of work: compressed entries, catastrophic regex keys)."""

    def budgeted(*args: Any, **kwargs: Any) -> Any:
        with regex_budget(config_of(kwargs["request"]).regex_budget):
            return func(*args, **kwargs)

    @functools.wraps(func)
    async def endpoint(*args: Any, **kwargs: Any) -> Any:
        return await run_in_threadpool(budgeted, *args, **kwargs)

    return endpoint  # type: ignore[return-value]


def config_of(request: Request) -> ServiceConfig:
    return request.app.state.config


def limits_of(request: Request) -> Limits:
    return config_of(request).limits


_catalog_lock = threading.Lock()


def catalog_of(request: Request) -> Catalog:
    """The catalog, opened (and created by its migrations if empty) on first use, once per process."""
    state = request.app.state
    with _catalog_lock:
        if getattr(state, "catalog", None) is None:
            state.catalog = open_catalog(config_of(request).db)
        return state.catalog


def _read(upload: Upload, limits: Limits, fmt: str | None = None) -> Document:
    return read_bytes(upload.data, filename=upload.name, format=fmt, limits=limits)


def _target(name: str) -> str:
    return writable_format(name).name


def _format_row(fmt: Any) -> dict[str, Any]:
    return {
        "name": fmt.name,
        "kind": fmt.kind,
        "platform": fmt.platform,
        "title": fmt.title,
        "suffix": fmt.suffix,
        "read": fmt.read is not None,
        "write": fmt.write is not None,
    }


@router.get("/formats", summary="Every format: kind, platform, whether it can be read and written")
def formats() -> dict[str, Any]:
    return {"formats": [_format_row(f) for f in all_formats()], "platforms": sorted(PROFILES)}


def picture_of(doc: Document) -> str | None:
    """The card's picture as a data URL (PNG card image or CHARX main icon), if small enough to show."""
    image = doc.image
    if image is None and doc.card is not None:
        image = main_icon(doc.card, doc.assets)
    if image is None or len(image) > PICTURE_MAX_BYTES:
        return None
    kind = next((t for magic, t in _PICTURE_TYPES.items() if image.startswith(magic)), None)
    return f"data:{kind};base64,{base64.b64encode(image).decode()}" if kind else None


@router.post("/inspect", summary="What `interop inspect --json` says about one file, plus its tags")
@cpu_bound
def inspect(
    request: Request,
    file: FileField,
    picture: Annotated[bool, Query(description="Also return the card's picture as a data URL.")] = False,
) -> dict[str, Any]:
    upload = read_upload(file, limits_of(request))
    doc = _read(upload, limits_of(request))
    info = summarize(doc, upload.name)
    tags = doc.card.data.tags if doc.card is not None else None
    info["tags"] = [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
    info["writable_targets"] = [f.name for f in writable_formats()]
    if picture:
        info["picture"] = picture_of(doc)
    return info


@router.post(
    "/convert",
    summary="Convert one file; the fidelity report comes in the same call",
    response_description="The converted file (attachment), or with `Accept: application/json` "
    "`{filename, media_type, file_base64, report, warnings}`.",
    responses={200: {"content": {"application/octet-stream": {}, "application/json": {}}}},
)
@cpu_bound
def convert(
    request: Request,
    file: FileField,
    to: Annotated[str, Query(description="Target format (see /formats).")],
    strict: Annotated[bool, Query(description="422 when any field is approximated or lost.")] = False,
    embed_picture: Annotated[
        bool,
        Query(description="ccv3: keep the card picture and PNG asset images as data URLs (false: leave them out)."),
    ] = True,
) -> Response:
    limits = limits_of(request)
    target = _target(to)
    upload = read_upload(file, limits)
    doc = _read(upload, limits)
    conversion = convert_document(doc, target, options={"embed_picture": embed_picture})
    report = conversion.report
    report.source_file = upload.name
    name = output_name(upload.name, target)
    counts = report.counts
    if strict and report.has_losses:
        return SafeJSONResponse(
            {
                "error": {"file": upload.name, "location": None, "reason": strict_reason(report)},
                "report": report.to_json(),
                "view": report_view(report, doc.warnings).to_json(),
            },
            status_code=422,
        )
    if "application/json" in request.headers.get("accept", ""):
        return SafeJSONResponse(
            {
                "filename": name,
                "media_type": media_type(target),
                "file_base64": base64.b64encode(conversion.data).decode(),
                "report": report.to_json(),
                "view": report_view(report, doc.warnings).to_json(),  # static/report.js draws it as the CLI prints
                "warnings": list(doc.warnings),
            }
        )
    summary = ", ".join(f"{fate}={count}" for fate, count in counts.items())
    return Response(
        conversion.data,
        media_type=media_type(target),
        headers={"Content-Disposition": content_disposition(name), "X-Interop-Fidelity": summary},
    )


@router.post("/roundtrip", summary="Source -> each target -> source, compared with the source")
@cpu_bound
def roundtrip_(
    request: Request,
    file: FileField,
    via: Annotated[list[str] | None, Query(description="Targets (repeatable; default every writable one).")] = None,
) -> dict[str, Any]:
    limits = limits_of(request)
    targets = [_target(t) for t in via] if via else [f.name for f in writable_formats()]
    upload = read_upload(file, limits)
    doc = _read(upload, limits)
    legs = []
    for target in targets:
        try:
            leg = roundtrip(doc, target)
            legs.append({**leg.to_json(), "view": leg_view(leg).to_json()})
        except InteropError as exc:
            legs.append({"target": target, "error": exc.reason, "ok": False})
    return {"file": upload.name, "format": doc.format, "ok": all(leg["ok"] for leg in legs), "legs": legs}


@router.post("/diff", summary="Two files of any formats compared through the canonical model")
@cpu_bound
def diff(
    request: Request,
    a: Annotated[UploadFile, File(description="The first file.")],
    b: Annotated[UploadFile, File(description="The second file.")],
) -> dict[str, Any]:
    limits = limits_of(request)
    up_a, up_b = read_upload(a, limits), read_upload(b, limits)
    doc_a, doc_b = _read(up_a, limits), _read(up_b, limits)
    result = diff_documents(doc_a, doc_b, up_b.data)  # B's bytes: what its app loads, as the CLI says
    return {
        "a": {"file": up_a.name, "format": doc_a.format},
        "b": {"file": up_b.name, "format": doc_b.format},
        **result.to_json(),
        "view": diff_view(result).to_json(),
    }


@router.post("/validate", summary="Spec checks, as `interop validate` makes them")
@cpu_bound
def validate(
    request: Request,
    file: FileField,
    strict: Annotated[bool, Query(description="Spec violations are errors (status invalid).")] = False,
) -> dict[str, Any]:
    limits = limits_of(request)
    upload = read_upload(file, limits)
    doc = _read(upload, limits)
    problems = validate_document(doc)
    invalid = strict and any(p.severity == "error" for p in problems)
    return {
        "file": upload.name,
        "format": doc.format,
        "status": "invalid" if invalid else "ok",
        "problems": [
            {"path": p.path, "message": p.message, "severity": p.severity if strict else "warning"} for p in problems
        ],
    }


@router.post("/activate", summary="Which entries fire for a chat on each platform, and why (side by side)")
@cpu_bound
def activate(
    request: Request,
    book: Annotated[
        list[UploadFile] | None,
        File(description="Lorebook file(s), pooled as the platform does; optional when the chat carries its own."),
    ] = None,
    chat: Annotated[
        UploadFile | None,
        File(
            description="Chat in any chat format: SillyTavern JSONL, RisuAI or Agnai chat export, "
            "interop chat JSONL, `Name: message` text (docs/chats.md)."
        ),
    ] = None,
    chat_text: Annotated[str | None, Form(description="Or the chat pasted, in any of those formats.")] = None,
    platform: Annotated[list[str] | None, Form(description="Platforms (repeatable; default all but ccv3).")] = None,
    seed: Annotated[int, Form()] = 0,
) -> dict[str, Any]:
    limits = limits_of(request)
    platforms = platform or list(PLAYGROUND_PLATFORMS)
    for name in platforms:
        if name not in PROFILES:
            raise InteropError(f"unknown platform {name!r}; choose from {', '.join(sorted(PROFILES))}")
    uploads = [read_upload(f, limits) for f in book or []]
    if chat is not None:
        chat_upload = read_upload(chat, limits)
        conversation, chat_format, log = read_chat_bytes(chat_upload.data, file=chat_upload.name, limits=limits)
    elif chat_text and chat_text.strip():
        conversation, chat_format, log = read_chat_bytes(chat_text, file="chat", limits=limits)
    else:
        raise InteropError("no chat given (upload `chat` or paste `chat_text`)", file="chat")
    own_book = log.lorebook if log is not None else None
    if own_book is not None and not (isinstance(own_book.name, str) and own_book.name):
        own_book = own_book.model_copy(update={"name": (log.book_name or log.title or "chat") if log else "chat"})
    if not uploads and own_book is None:
        raise InteropError("no lorebook given (upload `book`, or a chat that carries its own book)", file="book")
    books = {p: [book_from_bytes(u.data, u.name, p, limits=limits) for u in uploads] for p in platforms}
    if own_book is not None:  # the chat's own book (Risu localLore, a stashed world) is pooled with the others
        for pooled in books.values():
            pooled.append(own_book)
    result = side_by_side(books, conversation, seed=seed)
    bound = (
        (log.book_name or (own_book.name if own_book is not None and isinstance(own_book.name, str) else None))
        if log
        else None
    )
    return {
        "books": [u.name for u in uploads],
        "messages": len(conversation.messages),
        "chat": {"format": chat_format, "bound_book": bound},
        **result.to_json(),
    }


# --- catalog -------------------------------------------------------------------------------------------


def _public_item(info: dict[str, Any]) -> dict[str, Any]:
    """Source and output paths as base names: the server's folders are nobody's business."""
    for source in info.get("sources", []):
        source["path"] = PurePath(source["path"]).name if source.get("path") else None
    for migration in info.get("migrations", []):
        migration["source"] = PurePath(migration["source"]).name if migration.get("source") else None
        migration["output"] = PurePath(migration["output"]).name if migration.get("output") else None
    return info


@router.get("/catalog/items", summary="Browse and search catalogued cards and lorebooks")
def catalog_items(
    request: Request,
    q: Annotated[str | None, Query(description="Name/creator contains it, or a lorebook entry has its words.")] = None,
    kind: Annotated[str, Query(pattern="^(all|card|lorebook)$")] = "all",
    platform: Annotated[str | None, Query(description="Only items read from files of this platform.")] = None,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
) -> dict[str, Any]:
    catalog = catalog_of(request)
    with catalog.session() as session:
        # One entry search serves both the item filter and the entry hits shown (the first ENTRY_HITS,
        # in entry order: a prefix of the longer search).
        hits = search_entries(session.connection(), q, limit=SEARCH_BOOKS) if q else []
        rows = list_items(
            session, kind=kind, platform=platform, q=q, limit=PER_PAGE + 1, offset=(page - 1) * PER_PAGE, hits=hits
        )
    return {
        "items": rows[:PER_PAGE],
        "page": page,
        "per_page": PER_PAGE,
        "has_more": len(rows) > PER_PAGE,
        "entries": [hit.__dict__ for hit in hits[:ENTRY_HITS]],
    }


@router.get("/catalog/items/{ref}", summary="One item (card:ID or book:ID) with its sources and migration history")
def catalog_item(request: Request, ref: str) -> dict[str, Any]:
    catalog = catalog_of(request)
    with catalog.session() as session:
        return _public_item(show_item(session, ItemRef.parse(ref)))


@router.get("/catalog/items/{ref}/export", summary="A catalogued item written in any target format")
def catalog_export(request: Request, ref: str, to: Annotated[str, Query()]) -> Response:
    target = _target(to)
    catalog = catalog_of(request)
    item = ItemRef.parse(ref)
    with catalog.session() as session:
        doc = load_document(catalog, session, item)
    data = write(doc, target)
    name = f"{slug(doc.title or str(item))}.{target}{get_format(target).suffix}"
    return Response(data, media_type=media_type(target), headers={"Content-Disposition": content_disposition(name)})


@router.get("/catalog/stats", summary="Counts of files, items and migrations by target and fate")
def catalog_stats(request: Request) -> dict[str, Any]:
    catalog = catalog_of(request)
    with catalog.session() as session:
        return stats(session)


def _expand(upload: Upload, limits: Limits, max_files: int) -> list[Upload]:
    """A zip that is not itself a card is a bundle: its members, through the CHARX safety checks."""
    if not find_zip(upload.data):
        return [upload]
    try:
        read_bytes(upload.data, filename=upload.name, limits=limits)
        return [upload]  # a CHARX card
    except FormatError:
        pass  # not a card: a bundle (bombs and unsafe names still raise, from either reader)
    members = read_zip(upload.data, limits=limits, filename=upload.name).members
    files = [Upload(name.rsplit("/", 1)[-1], data) for name, data in members.items() if data]
    if len(files) > max_files:
        raise InteropError(f"zip holds {len(files)} files, more than the limit of {max_files}", file=upload.name)
    return files


@router.post(
    "/migrations",
    status_code=202,
    dependencies=[Depends(require_token)],
    summary="Catalog uploaded files (or a zip of them) and convert each to the targets; returns a job id",
)
def create_migration(
    request: Request,
    files: Annotated[list[UploadFile], File(description="Cards and lorebooks, or zip archives of them.")],
    to: Annotated[str, Form(description="Target formats, comma-separated.")] = "ccv3",
) -> JSONResponse:
    config = config_of(request)
    limits = config.limits
    targets = tuple(dict.fromkeys(_target(t.strip()) for t in to.split(",") if t.strip()))
    if not targets:
        raise InteropError("no target format given", location="to")
    uploads: list[Upload | SpooledUpload] = []
    for file in files:
        spooled = spooled_upload(file, limits)
        uploads.extend([spooled] if spooled else _expand(read_upload(file, limits), limits, config.max_files))
    if len(uploads) > config.max_files:
        raise InteropError(f"{len(uploads)} files, more than the limit of {config.max_files}")
    state = start_job(catalog_of(request), uploads, targets, keep=config.keep_uploads)
    return JSONResponse({**state, "status_url": str(request.url_for("migration", job_id=state["id"]))}, status_code=202)


@router.get("/migrations", summary="Recent migration jobs, newest first")
def migrations(request: Request) -> dict[str, Any]:
    return {"jobs": recent_jobs(catalog_of(request))}


@router.get("/migrations/{job_id}", name="migration", summary="Progress and, when done, the run's summary")
def migration(request: Request, job_id: str) -> dict[str, Any]:
    return load_job(catalog_of(request), job_id)
