"""The FastAPI application: API router, pages, static files, error handling, protections."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..errors import InteropError
from . import api, pages
from .api import error_code, error_response
from .config import ServiceConfig
from .schemas import ConvertedJson, ErrorResponse
from .security import BodyLimit, HeavyRequests, LocalOnly, SecurityHeaders
from .warmup import warm_up

log = logging.getLogger("interop.service")
STATIC = Path(__file__).parent / "static"
DESCRIPTION = """Convert, check and browse AI roleplay character cards and lorebooks
(SillyTavern, RisuAI, Agnai, NovelAI, CCv3) without losing anything, and see exactly what a
target cannot express. Every error is `{"error": {"code", "file", "location", "reason"}}` with a
4xx/5xx status; `code` is one of the `ErrorDetail.code` values. Catalog writes need the server's
token (if it has one) as `Authorization: Bearer <token>`. See docs/service.md."""
SWAGGER_UI_VERSION = "5.35.0"  # static/swagger-ui/ (npm swagger-ui-dist, Apache-2.0)


def _docs_page(root: str) -> str:
    """Swagger UI from our own static files (works offline); the start-up script is a static file too (CSP)."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>interop API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="{root}/static/swagger-ui/swagger-ui.css">
<link rel="icon" href="{root}/static/favicon.svg" type="image/svg+xml"></head>
<body><div id="swagger-ui" data-openapi="{root}/openapi.json"></div>
<script src="{root}/static/swagger-ui/swagger-ui-bundle.js"></script>
<script src="{root}/static/docs.js"></script></body></html>"""


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema plus what it cannot infer: the token scheme and the models named only in `responses`."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes, servers=app.servers
    )
    components = schema.setdefault("components", {})
    components.setdefault("securitySchemes", {})["bearerToken"] = {
        "type": "http",
        "scheme": "bearer",
        "description": "The server's --token (INTEROP_TOKEN); required for catalog writes when the server has one.",
    }
    schemas = components.setdefault("schemas", {})
    for model in (ConvertedJson, ErrorResponse):
        defs = model.model_json_schema(ref_template="#/components/schemas/{model}")
        for name, sub in defs.pop("$defs", {}).items():
            schemas.setdefault(name, sub)
        schemas.setdefault(model.__name__, defs)
    # FastAPI documents its own 422 body; ours is the one error model like every other error.
    error_ref = {"$ref": "#/components/schemas/ErrorResponse"}
    for methods in schema.get("paths", {}).values():
        for operation in methods.values():
            for status, answer in operation.get("responses", {}).items():
                if status.startswith(("4", "5")):
                    answer["content"] = {"application/json": {"schema": error_ref}}
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    app.openapi_schema = schema
    return schema


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
        docs_url=None,
        redoc_url=None,
    )
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    app.state.config = config
    app.state.catalog = None

    @app.exception_handler(InteropError)
    async def interop_error(_request: Request, exc: InteropError) -> JSONResponse:
        return error_response(error_code(exc), exc.reason, file=exc.file, location=exc.location)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first: dict[str, Any] = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return error_response("invalid_request", str(first.get("msg", "invalid request")), location=where or None)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(exc.status_code, "bad_request")
        return error_response(code, str(exc.detail), status=exc.status_code)

    @app.exception_handler(RecursionError)
    async def too_deep(_request: Request, _exc: RecursionError) -> JSONResponse:
        return error_response("too_deep", "input nested too deeply")

    @app.exception_handler(Exception)
    async def internal(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error")
        return error_response(
            "internal", f"internal error: {type(exc).__name__} (a bug; the server log has the traceback)"
        )

    @app.get("/docs", include_in_schema=False)
    async def docs(request: Request) -> HTMLResponse:
        return HTMLResponse(_docs_page(request.scope.get("root_path", "").rstrip("/")))

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
