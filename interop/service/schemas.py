"""Typed shapes of the API's answers, so /openapi.json (and /docs) says what each endpoint returns.

Models name the fields a client relies on and allow the rest (``extra="allow"``): the
nested report and engine documents are described in docs/, and typing every level here
would duplicate them. Errors have one model, ``ErrorResponse``, with a machine-readable
``code`` from ``ERROR_CODES``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ErrorCode = Literal[
    "bad_request",
    "unknown_format",
    "unknown_target",
    "bad_format",
    "corrupt_input",
    "invalid_card",
    "unsafe_input",
    "cannot_convert",
    "lossy_conversion",
    "too_large",
    "too_deep",
    "unauthorized",
    "forbidden",
    "too_many_requests",
    "not_found",
    "bad_reference",
    "invalid_request",
    "method_not_allowed",
    "catalog_unavailable",
    "output_failed",
    "internal",
]
ERROR_CODES: tuple[str, ...] = ErrorCode.__args__  # type: ignore[attr-defined]


class ErrorDetail(BaseModel):
    code: ErrorCode = Field(description="What went wrong, for programs (stable; see docs/service.md).")
    file: str | None = Field(description="The uploaded file (or form field) at fault, if any.")
    location: str | None = Field(description="Where in it: a PNG chunk, zip member, JSON path or query field.")
    reason: str = Field(description="One line for people.")


class ErrorResponse(BaseModel):
    error: ErrorDetail


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    words = {
        400: "Bad input: unreadable file, unknown format or target, bad reference.",
        401: "A catalog write without the right token.",
        404: "No such item, job or path.",
        413: "Request body, file, inflated size or nesting over the server's limits.",
        422: "A required field is missing or malformed, or the conversion is impossible (or lossy with strict).",
    }
    return {status: {"model": ErrorResponse, "description": words[status]} for status in statuses}


UPLOAD_ERRORS = _errors(400, 413, 422)
READ_ERRORS = _errors(400, 404, 422)
WRITE_ERRORS = _errors(400, 401, 413, 422)


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class FormatRow(BaseModel):
    name: str
    kind: str
    platform: str
    title: str
    suffix: str
    read: bool
    write: bool


class AppChoice(BaseModel):
    """One app on the page's "convert for" menu, and the format it gets for each kind of input."""

    id: str
    label: str
    formats: dict[str, str] = Field(description="Input kind (card, card_with_book, lorebook) -> target format.")


class Formats(BaseModel):
    formats: list[FormatRow]
    platforms: list[str]
    apps: list[AppChoice]


class EntryView(BaseModel):
    position: int
    name: str
    keys: list[str]
    secondary_keys: list[str]
    content: str
    enabled: bool
    constant: bool
    tokens: int = Field(description="Estimated cl100k tokens of the content (interop.activation.tokenizers).")


class ContentView(BaseModel):
    description: str | None
    first_mes: str | None
    entries: list[EntryView]
    book_tokens: int = Field(description="Sum of the entries' token estimates.")


class Inspection(_Open):
    file: str
    format: str
    kind: str
    name: str | None = None
    creator: str | None = None
    lorebook: str | None
    entries: int
    warnings: list[str]
    tags: list[str]
    writable_targets: list[str] = Field(description="Formats this input can be converted to.")
    picture: str | None = Field(None, description="With ?picture=true: the card's picture as a data URL.")
    content: ContentView | None = Field(None, description="With ?content=true: what the file holds.")


class ConvertedJson(BaseModel):
    filename: str
    media_type: str
    file_base64: str
    report: dict[str, Any]
    warnings: list[str]


class Problem(BaseModel):
    path: str
    message: str
    severity: str


class Validation(BaseModel):
    file: str
    format: str
    status: Literal["ok", "invalid"]
    problems: list[Problem]


class Roundtrip(BaseModel):
    file: str
    format: str
    ok: bool
    legs: list[dict[str, Any]]


class FileRef(BaseModel):
    file: str
    format: str


class Diff(_Open):
    a: FileRef
    b: FileRef
    identical: bool
    count: int


class Activation(_Open):
    books: list[str]
    messages: int
    platforms: list[str]
    rows: list[dict[str, Any]]
    differences: int


class CatalogPage(BaseModel):
    items: list[dict[str, Any]]
    page: int
    per_page: int
    has_more: bool
    total: int | None = Field(None, description="Items matching the query over all pages ('showing N of M').")
    entries: list[dict[str, Any]]


class Job(_Open):
    """A migration run, from the web page or the CLI (one list: the catalog's run records)."""

    id: str
    origin: Literal["cli", "web"] = "web"
    status: str
    total: int
    done: int
    imported: int | None = Field(description="None for a --broker run (see `interop catalog runs`).")
    failed: int | None
    targets: list[str]


class JobList(BaseModel):
    jobs: list[Job]


class ItemLink(_Open):
    ref: str
    name: str | None


class CatalogItem(_Open):
    """A card (with ``lorebook``: its book), a lorebook (with ``entries`` and ``cards`` that carry it)
    or a chat (``character``, ``messages``, ``bound_book``, ``lorebook``: its own book)."""

    ref: str
    kind: Literal["card", "lorebook", "chat"]
    name: str | None
    sources: list[dict[str, Any]]
    migrations: list[dict[str, Any]]
    lorebook: ItemLink | None = None
    cards: list[ItemLink] | None = None


class CatalogStats(_Open):
    cards: int
    lorebooks: int
    entries: int
    assets: int
    files_by_format: dict[str, dict[str, int]]
    migrations_by_target: dict[str, dict[str, Any]]
