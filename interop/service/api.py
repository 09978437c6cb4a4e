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
from dataclasses import asdict, dataclass, replace
from pathlib import PurePath
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response

from ..activation.jsregex import regex_budget
from ..activation.tokenizers import ApproxTokenizer
from ..api import read_bytes, writable_format, write
from ..cardkit.card_image import main_icon
from ..catalog import queries as catalog_queries
from ..catalog.database import Catalog, open_catalog
from ..catalog.pipeline import slug
from ..catalog.queries import SEARCH_BOOKS, ItemRef, list_items, load_document, show_item, stats
from ..catalog.search import search_entries
from ..containers.charx import find_zip, read_zip
from ..conversion import convert_document, output_name, strict_reason
from ..document import Document
from ..engine import app_profile_names, get_profile, profile_names, read_chat_bytes
from ..engine.sidebyside import side_by_side
from ..engine.sources import book_from_bytes
from ..errors import (
    CatalogError,
    ConversionError,
    CorruptInputError,
    FormatError,
    InteropError,
    InvalidCardError,
    LimitExceededError,
    OutputError,
    UnknownFormatError,
    UnsafeInputError,
)
from ..fidelity.entrydiff import diff_documents
from ..fidelity.render import diff_view, leg_view, report_view
from ..fidelity.roundtrip import roundtrip
from ..inspection import summarize
from ..limits import Limits
from ..model.versions import as_displayed
from ..platform.registry import all_formats, get_format, writable_formats
from ..validation import validate_document
from .config import ServiceConfig
from .jobs import load_job, recent_jobs, start_job
from .jsonresponse import SafeJSONResponse
from .schemas import (
    ERROR_CODES,
    READ_ERRORS,
    UPLOAD_ERRORS,
    WRITE_ERRORS,
    Activation,
    CatalogItem,
    CatalogPage,
    CatalogStats,
    Diff,
    Formats,
    Inspection,
    Job,
    JobList,
    Roundtrip,
    Validation,
)
from .security import Unauthorized, require_token
from .uploads import SpooledUpload, Upload, content_disposition, media_type, read_upload, spooled_upload

# SafeJSONResponse: lone surrogates in card text are escaped, not a 500.
router = APIRouter(prefix="/api/v1", responses=READ_ERRORS, default_response_class=SafeJSONResponse)
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


# --- the one error model (BOARD.md contract) -----------------------------------------------------------


class RequestError(InteropError):
    """Bad request input that is not a file problem (a query field), with its error code."""

    def __init__(self, reason: str, *, code: str, file: str | None = None, location: str | None = None) -> None:
        super().__init__(reason, file=file, location=location)
        self.code = code


_CODES: tuple[tuple[type[InteropError], str], ...] = (
    (Unauthorized, "unauthorized"),
    (LimitExceededError, "too_large"),
    (UnsafeInputError, "unsafe_input"),
    (UnknownFormatError, "unknown_format"),
    (CorruptInputError, "corrupt_input"),
    (InvalidCardError, "invalid_card"),
    (FormatError, "bad_format"),
    (ConversionError, "cannot_convert"),
    (OutputError, "output_failed"),
)


def error_code(exc: InteropError) -> str:
    """The machine-readable ``code`` of an error (schemas.ERROR_CODES lists them all)."""
    explicit = getattr(exc, "code", None)
    if isinstance(explicit, str) and explicit in ERROR_CODES:
        return explicit
    if isinstance(exc, CatalogError):
        # Lookups of something absent are 404; a bad reference 400; anything else means
        # the catalog itself cannot be used (unreachable, out-of-date schema): 503.
        if exc.reason.startswith("no "):
            return "not_found"
        return "bad_reference" if exc.reason.startswith("not an item reference") else "catalog_unavailable"
    return next((code for kind, code in _CODES if isinstance(exc, kind)), "bad_request")


_STATUS = {
    "unauthorized": 401,
    "too_large": 413,
    "too_deep": 413,
    "cannot_convert": 422,
    "lossy_conversion": 422,
    "invalid_request": 422,
    "not_found": 404,
    "method_not_allowed": 405,
    "forbidden": 403,
    "too_many_requests": 429,
    "catalog_unavailable": 503,
    "internal": 500,
}


def error_status(code: str) -> int:
    return _STATUS.get(code, 400)


def error_json(
    code: str, reason: str, *, file: str | None = None, location: str | None = None, **extra: Any
) -> dict[str, Any]:
    """``{"error": {"code", "file", "location", "reason"}}``: every error answer of the service."""
    assert code in ERROR_CODES, code
    return {"error": {"code": code, "file": file, "location": location, "reason": reason}, **extra}


def error_response(
    code: str, reason: str, *, status: int | None = None, file: str | None = None, location: str | None = None
) -> JSONResponse:
    body = error_json(code, reason, file=file, location=location)
    return SafeJSONResponse(body, status_code=status or error_status(code))


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


def _picture_upload(image: UploadFile | None, limits: Limits) -> bytes | None:
    """The uploaded picture's bytes, refused unless it is an image a card can carry."""
    if image is None:
        return None
    upload = read_upload(image, limits)
    if not upload.data:
        return None
    if not any(upload.data.startswith(magic) for magic in _PICTURE_TYPES):
        raise RequestError("the picture is not a PNG, JPEG, GIF or WebP image", code="bad_format", file=upload.name)
    return upload.data


def _read(upload: Upload, limits: Limits, fmt: str | None = None) -> Document:
    return read_bytes(upload.data, filename=upload.name, format=fmt, limits=limits)


def _target(name: str, field: str = "to") -> str:
    try:
        return writable_format(name).name
    except FormatError as exc:
        raise RequestError(exc.reason, code="unknown_target", location=field) from None


TARGETS = tuple(f.name for f in writable_formats())
TargetQuery = Annotated[
    str,
    Query(
        description="Target format (see /formats). A name not in the list is a 400 `unknown_target`.",
        json_schema_extra={"enum": list(TARGETS)},
    ),
]


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


@dataclass(frozen=True)
class App:
    """An app a user converts *for*; the page offers these instead of format ids."""

    id: str
    label: str
    card: str | None
    card_with_picture: str | None
    lorebook: str | None

    def target(self, kind: str, *, picture: bool, book: bool) -> str | None:
        """The format this app imports for an input of ``kind`` (a card's own book counts for book-only apps)."""
        if kind == "lorebook":
            return self.lorebook
        chosen = self.card_with_picture if picture else self.card
        return chosen or (self.lorebook if book else None)


APPS = (
    # SillyTavern imports PNG cards (and its own JSON) and world-info JSON (SillyTavern public/scripts/world-info.js).
    App("sillytavern", "SillyTavern", "sillytavern-card", "png", "sillytavern-world"),
    App("risu", "RisuAI", "risu-charx", "risu-charx", "risu-lorebook"),
    App("agnai", "Agnai", "agnai-card", "agnai-card", "agnai-book"),
    # NovelAI has no character cards: a card's lorebook goes over as a .lorebook.
    App("novelai", "NovelAI", None, None, "novelai-lorebook"),
    App("ccv3", "any CCv3 app", "ccv3", "png", "lorebook_v3"),
)


@router.get("/formats", response_model=Formats, summary="Every format, and the apps the page converts for")
def formats() -> dict[str, Any]:
    apps = [
        {
            "id": app.id,
            "label": app.label,
            "formats": {
                key: value
                for key in ("card", "card_with_picture", "lorebook")
                if (value := getattr(app, key)) is not None
            },
        }
        for app in APPS
    ]
    return {"formats": [_format_row(f) for f in all_formats()], "platforms": sorted(profile_names()), "apps": apps}


def writable_targets(doc: Document) -> list[str]:
    """The targets ``doc`` can be written as. Card formats take any card or book (a book becomes a card
    holding it); a lorebook format needs a book, and some (a NovelAI story) more, a chat format a chat:
    those are tried."""
    # Whether a writer accepts a book does not depend on how many entries it has: probing with the first
    # entry only: 60 ms instead of 430 ms for an 85-entry world (writers still read the native stash).
    probe = doc
    if doc.lorebook is not None and len(doc.lorebook.entries) > 1:
        probe = replace(doc, lorebook=doc.lorebook.model_copy(update={"entries": doc.lorebook.entries[:1]}))
    names = []
    for fmt in writable_formats():
        if fmt.kind == "card" and doc.kind in ("card", "lorebook"):
            names.append(fmt.name)
            continue
        try:
            write(probe, fmt.name, pretty=False)
        except InteropError:
            continue
        names.append(fmt.name)
    return names


def content_of(doc: Document) -> dict[str, Any]:
    """What the file holds, for people: the card's text and every lorebook entry with its token estimate."""
    tokenizer = ApproxTokenizer()
    data = as_displayed(doc.card).data if doc.card is not None else None
    entries = []
    book = doc.book
    for position, entry in enumerate(book.entries if book is not None else []):
        content = entry.content if isinstance(entry.content, str) else ""
        entries.append(
            {
                "position": position,
                "name": next((n for n in (entry.comment, entry.name) if isinstance(n, str) and n), ""),
                "keys": [k for k in entry.keys or [] if isinstance(k, str)],
                "secondary_keys": [k for k in entry.secondary_keys or [] if isinstance(k, str)],
                "content": content,
                "enabled": entry.enabled is not False,
                "constant": entry.constant is True,
                "tokens": tokenizer.count(content),
            }
        )
    text = lambda value: value if isinstance(value, str) else None  # noqa: E731
    return {
        "description": text(data.description) if data is not None else None,
        "first_mes": text(data.first_mes) if data is not None else None,
        "entries": entries,
        "book_tokens": sum(e["tokens"] for e in entries),
    }


def picture_of(doc: Document) -> str | None:
    """The card's picture as a data URL (PNG card image or CHARX main icon), if small enough to show."""
    image = doc.image
    if image is None and doc.card is not None:
        image = main_icon(doc.card, doc.assets)
    if image is None or len(image) > PICTURE_MAX_BYTES:
        return None
    kind = next((t for magic, t in _PICTURE_TYPES.items() if image.startswith(magic)), None)
    return f"data:{kind};base64,{base64.b64encode(image).decode()}" if kind else None


@router.post(
    "/inspect",
    response_model=Inspection,
    response_model_exclude_unset=True,  # a lorebook has no name/creator, not a null one
    responses=UPLOAD_ERRORS,
    summary="What `interop inspect --json` says about one file, plus its tags and what it can become",
)
@cpu_bound
def inspect(
    request: Request,
    file: FileField,
    picture: Annotated[bool, Query(description="Also return the card's picture as a data URL.")] = False,
    content: Annotated[bool, Query(description="Also return description, first message and entries.")] = False,
) -> dict[str, Any]:
    upload = read_upload(file, limits_of(request))
    doc = _read(upload, limits_of(request))
    info = summarize(doc, upload.name)
    tags = doc.card.data.tags if doc.card is not None else None
    info["tags"] = [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
    info["writable_targets"] = writable_targets(doc)
    has_picture = picture_of(doc) is not None if doc.kind == "card" else False
    info["has_picture"] = has_picture
    info["app_targets"] = {app.id: app.target(doc.kind, picture=has_picture, book=doc.book is not None) for app in APPS}
    if picture:
        info["picture"] = picture_of(doc)
    if content:
        info["content"] = content_of(doc)
    return info


@router.post(
    "/convert",
    summary="Convert one file; the fidelity report comes in the same call",
    response_description="The converted file (attachment), or with `Accept: application/json` "
    "`{filename, media_type, file_base64, report, warnings}`.",
    responses={
        200: {
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                "application/json": {"schema": {"$ref": "#/components/schemas/ConvertedJson"}},
            }
        },
        **UPLOAD_ERRORS,
    },
)
@cpu_bound
def convert(
    request: Request,
    file: FileField,
    to: TargetQuery,
    strict: Annotated[bool, Query(description="422 when any field is approximated or lost.")] = False,
    image: Annotated[
        UploadFile | None, File(description="A picture for picture formats (png, charx, ...): PNG, JPEG or WebP.")
    ] = None,
    embed_picture: Annotated[
        bool,
        Query(description="ccv3: keep the card picture and PNG asset images as data URLs (false: leave them out)."),
    ] = True,
) -> Response:
    limits = limits_of(request)
    target = _target(to)
    upload = read_upload(file, limits)
    doc = _read(upload, limits)
    picture = _picture_upload(image, limits)
    conversion = convert_document(doc, target, image=picture, options={"embed_picture": embed_picture})
    report = conversion.report
    report.source_file = upload.name
    name = output_name(upload.name, target)
    counts = report.counts
    if strict and report.has_losses:
        return SafeJSONResponse(
            error_json(
                "lossy_conversion",
                strict_reason(report),
                file=upload.name,
                report=report.to_json(),
                view=report_view(report, doc.warnings).to_json(),
            ),
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


@router.post(
    "/roundtrip",
    response_model=Roundtrip,
    responses=UPLOAD_ERRORS,
    summary="Source -> each target -> source, compared with the source",
)
@cpu_bound
def roundtrip_(
    request: Request,
    file: FileField,
    via: Annotated[
        list[str] | None,
        Query(
            description="Targets (repeatable; default every writable one).",
            json_schema_extra={"items": {"type": "string", "enum": list(TARGETS)}},
        ),
    ] = None,
) -> dict[str, Any]:
    limits = limits_of(request)
    targets = [_target(t, "via") for t in via] if via else [f.name for f in writable_formats()]
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


@router.post(
    "/diff",
    response_model=Diff,
    responses=UPLOAD_ERRORS,
    summary="Two files of any formats compared through the canonical model",
)
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


@router.post(
    "/validate",
    response_model=Validation,
    responses=UPLOAD_ERRORS,
    summary="Spec checks, as `interop validate` makes them",
)
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


@router.post(
    "/activate",
    response_model=Activation,
    responses=UPLOAD_ERRORS,
    summary="Which entries fire for a chat on each platform, and why (side by side)",
)
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
    scan_depth: Annotated[
        int | None, Form(ge=0, le=1000, description="Messages scanned (each app's own setting).")
    ] = None,
    budget: Annotated[int | None, Form(ge=0, le=1_000_000, description="Token budget for injected entries.")] = None,
) -> dict[str, Any]:
    limits = limits_of(request)
    # Default: every app's profile (ccv3 is the spec, not an app).
    platforms = platform or app_profile_names()
    known = profile_names()
    for name in platforms:
        if name not in known:
            raise InteropError(f"unknown platform {name!r}; choose from {', '.join(sorted(known))}")
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
    result = side_by_side(books, conversation, seed=seed, settings=playground_settings(platforms, scan_depth, budget))
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


def playground_settings(platforms: list[str], scan_depth: int | None, budget: int | None) -> dict[str, Any] | None:
    """The playground's scan depth and token budget in each app's own setting names (its defaults otherwise)."""
    if scan_depth is None and budget is None:
        return None
    settings: dict[str, Any] = {}
    for name in platforms:
        values = asdict(get_profile(name).default_settings())
        if name == "sillytavern":
            # ST's budget is a percentage of the context size: 100 % of a context of `budget` tokens.
            values.update({"depth": scan_depth} if scan_depth is not None else {})
            values.update({"budget": 100, "max_context": budget, "budget_cap": 0} if budget is not None else {})
        elif name == "agnai":
            values.update({"memory_depth": scan_depth} if scan_depth is not None else {})
            values.update({"memory_budget": budget} if budget is not None else {})
        else:  # risu, ccv3
            values.update({"scan_depth": scan_depth} if scan_depth is not None else {})
            values.update({"token_budget": budget} if budget is not None else {})
        settings[name] = type(get_profile(name).default_settings())(**values)
    return settings


# --- catalog -------------------------------------------------------------------------------------------


def _public_item(info: dict[str, Any]) -> dict[str, Any]:
    """Source and output paths as base names: the server's folders are nobody's business."""
    for source in info.get("sources", []):
        source["path"] = PurePath(source["path"]).name if source.get("path") else None
    for migration in info.get("migrations", []):
        migration["source"] = PurePath(migration["source"]).name if migration.get("source") else None
        migration["output"] = PurePath(migration["output"]).name if migration.get("output") else None
    return info


@router.get(
    "/catalog/items",
    response_model=CatalogPage,
    response_model_exclude_unset=True,
    summary="Browse and search catalogued cards, lorebooks and chats",
)
def catalog_items(
    request: Request,
    q: Annotated[str | None, Query(description="Name/creator contains it, or a lorebook entry has its words.")] = None,
    kind: Annotated[str, Query(pattern="^(all|card|lorebook|chat)$")] = "all",
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
        answer = {
            "items": rows[:PER_PAGE],
            "page": page,
            "per_page": PER_PAGE,
            "has_more": len(rows) > PER_PAGE,
            "entries": [hit.__dict__ for hit in hits[:ENTRY_HITS]],
        }
        # count_items comes with the CLI's "showing N of M" (issue 21, branch cli); until that is merged
        # the page says "showing N" alone.
        count_items = getattr(catalog_queries, "count_items", None)
        if count_items is not None:
            answer["total"] = count_items(session, kind=kind, platform=platform, q=q, hits=hits)
    return answer


@router.get(
    "/catalog/items/{ref}",
    response_model=CatalogItem,
    response_model_exclude_unset=True,
    summary="One item (card:ID or book:ID) with its sources and migration history",
)
def catalog_item(request: Request, ref: str) -> dict[str, Any]:
    catalog = catalog_of(request)
    with catalog.session() as session:
        return _public_item(show_item(session, ItemRef.parse(ref)))


@router.get(
    "/catalog/items/{ref}/export",
    summary="A catalogued item written in any target format",
    response_class=Response,
    responses={200: {"content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}},
)
def catalog_export(request: Request, ref: str, to: TargetQuery) -> Response:
    target = _target(to)
    catalog = catalog_of(request)
    item = ItemRef.parse(ref)
    with catalog.session() as session:
        doc = load_document(catalog, session, item)
    data = write(doc, target)
    name = f"{slug(doc.title or str(item))}.{target}{get_format(target).suffix}"
    return Response(data, media_type=media_type(target), headers={"Content-Disposition": content_disposition(name)})


PLACEHOLDER = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 40"><rect width="30" height="40" rx="3" '
    b'fill="#e3e7ee"/><circle cx="15" cy="15" r="6" fill="#b9c2cf"/><path d="M4 36c2-8 20-8 22 0" '
    b'fill="#b9c2cf"/></svg>'
)


@router.get(
    "/catalog/items/{ref}/picture",
    summary="The item's picture (a card's image or main icon); a neutral placeholder when it has none",
    response_class=Response,
    responses={200: {"content": {"image/*": {"schema": {"type": "string", "format": "binary"}}}}},
)
def catalog_picture(request: Request, ref: str) -> Response:
    catalog = catalog_of(request)
    item = ItemRef.parse(ref)
    with catalog.session() as session:
        doc = load_document(catalog, session, item)
    url = picture_of(doc) if doc.card is not None else None
    headers = {"Cache-Control": "private, max-age=300", "X-Interop-Picture": "yes" if url else "none"}
    if url is None:
        return Response(PLACEHOLDER, media_type="image/svg+xml", headers=headers)
    kind, data = url[5:].split(";base64,", 1)
    return Response(base64.b64decode(data), media_type=kind, headers=headers)


@router.get(
    "/catalog/stats", response_model=CatalogStats, summary="Counts of files, items and migrations by target and fate"
)
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
    response_model=Job,
    responses=WRITE_ERRORS,
    openapi_extra={"security": [{"bearerToken": []}, {}]},  # {}: servers started without --token need none
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
        raise RequestError("no target format given", code="unknown_target", location="to")
    uploads: list[Upload | SpooledUpload] = []
    for file in files:
        spooled = spooled_upload(file, limits)
        uploads.extend([spooled] if spooled else _expand(read_upload(file, limits), limits, config.max_files))
    if len(uploads) > config.max_files:
        raise InteropError(f"{len(uploads)} files, more than the limit of {config.max_files}")
    state = start_job(catalog_of(request), uploads, targets, keep=config.keep_uploads)
    return JSONResponse({**state, "status_url": str(request.url_for("migration", job_id=state["id"]))}, status_code=202)


@router.get("/migrations", response_model=JobList, summary="Recent migration jobs, newest first")
def migrations(request: Request) -> dict[str, Any]:
    return {"jobs": recent_jobs(catalog_of(request))}


@router.get(
    "/migrations/{job_id}", name="migration", response_model=Job, summary="Progress and, when done, the run's summary"
)
def migration(request: Request, job_id: str) -> dict[str, Any]:
    return load_job(catalog_of(request), job_id)
