"""The FastAPI application: API router, pages, static files, error handling, protections."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..errors import (
    CatalogError,
    ConversionError,
    InteropError,
    LimitExceededError,
)
from . import api, pages
from .config import ServiceConfig
from .jsonresponse import SafeJSONResponse
from .security import BodyLimit, HeavyRequests, LocalOnly, SecurityHeaders, Unauthorized
from .warmup import warm_up

log = logging.getLogger("interop.service")
STATIC = Path(__file__).parent / "static"
DESCRIPTION = """Convert, check and browse AI roleplay character cards and lorebooks
(SillyTavern, RisuAI, Agnai, NovelAI, CCv3) without losing anything, and see exactly what a
target cannot express. Errors are `{"error": {"file", "location", "reason"}}` with a 4xx status.
See docs/service.md."""


def _status(exc: InteropError) -> int:
    if isinstance(exc, Unauthorized):
        return 401
    if isinstance(exc, LimitExceededError):
        return 413
    if isinstance(exc, ConversionError):
        return 422
    if isinstance(exc, CatalogError):
        # Lookups of something absent are 404; a bad reference 400; anything else means
        # the catalog itself cannot be used (unreachable, out-of-date schema): 503.
        if exc.reason.startswith("no "):
            return 404
        return 400 if exc.reason.startswith("not an item reference") else 503
    return 400


def _error(status: int, reason: str, *, file: str | None = None, location: str | None = None) -> JSONResponse:
    return SafeJSONResponse({"error": {"file": file, "location": location, "reason": reason}}, status_code=status)


def create_app(config: ServiceConfig | None = None) -> FastAPI:
    config = config or ServiceConfig.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if config.warm_up:
            warm_up()
        yield
        if app.state.catalog is not None:
            app.state.catalog.dispose()

    app = FastAPI(
        lifespan=lifespan,
        title="interop",
        version=__version__,
        description=DESCRIPTION,
        openapi_url="/openapi.json",
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.config = config
    app.state.catalog = None

    @app.exception_handler(InteropError)
    async def interop_error(_request: Request, exc: InteropError) -> JSONResponse:
        return _error(_status(exc), exc.reason, file=exc.file, location=exc.location)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first: dict[str, Any] = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return _error(422, str(first.get("msg", "invalid request")), location=where or None)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(RecursionError)
    async def too_deep(_request: Request, _exc: RecursionError) -> JSONResponse:
        return _error(413, "input nested too deeply")

    @app.exception_handler(Exception)
    async def internal(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error")
        return _error(500, f"internal error: {type(exc).__name__} (a bug; the server log has the traceback)")

    app.include_router(api.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # Outermost first: headers on every answer (403s, 413s and 429s included), Host/Origin checks
    # when there is no token, the cap on concurrent uploads, then the body limit.
    app.add_middleware(BodyLimit, max_bytes=config.max_upload_bytes)
    app.add_middleware(HeavyRequests, max_bytes=config.max_upload_bytes_in_progress, body_limit=config.max_upload_bytes)
    if not config.token:
        app.add_middleware(LocalOnly, allowed_hosts=config.allowed_hosts)
    app.add_middleware(SecurityHeaders)
    return app


def app_from_env() -> FastAPI:
    """uvicorn's factory in each worker process (``interop serve --workers N``)."""
    return create_app(ServiceConfig.from_env())
