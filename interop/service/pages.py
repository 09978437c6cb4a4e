"""The web pages: server-rendered Jinja2 templates; the little JavaScript in static/app.js calls /api/v1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from .. import __version__
from ..catalog.queries import ItemRef
from ..engine import app_profile_names
from ..mappings import FATES
from ..platform.registry import writable_formats
from .api import APPS

STATIC = Path(__file__).parent / "static"

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=Path(__file__).parent / "templates")


def _context(request: Request, page: str, **extra: Any) -> dict[str, Any]:
    return {
        "request": request,
        "page": page,
        # Links and static files under the proxy's prefix (--root-path), without scheme or host, so
        # they stay right whatever Host the proxy forwards.
        "root": request.scope.get("root_path", "").rstrip("/"),
        "version": __version__,
        "targets": sorted((f.name, f.kind, f.title) for f in writable_formats()),
        "platforms": app_profile_names(),  # the playground compares every app by default
        "apps": APPS,
        # The playground names apps as people know them (RisuAI, not risu).
        "app_labels": {app.id: app.label for app in APPS},
        # The report view (static/report.js, owned by the report work) is loaded when it exists.
        "report_js": (STATIC / "report.js").exists(),
        "fates": FATES,
        "token_required": bool(request.app.state.config.token),
        **extra,
    }


@router.get("/", response_class=HTMLResponse)
def convert_page(request: Request) -> HTMLResponse:
    return templates.TemplateResponse(request, "convert.html", _context(request, "convert"))


@router.get("/catalog", response_class=HTMLResponse)
def catalog_page(request: Request) -> HTMLResponse:
    return templates.TemplateResponse(request, "catalog.html", _context(request, "catalog"))


@router.get("/catalog/{ref}", response_class=HTMLResponse)
def item_page(request: Request, ref: str) -> HTMLResponse:
    item = ItemRef.parse(ref)  # a bad reference is a 400 through the InteropError handler
    return templates.TemplateResponse(request, "item.html", _context(request, "item", ref=str(item)))


@router.get("/playground", response_class=HTMLResponse)
def playground_page(request: Request) -> HTMLResponse:
    return templates.TemplateResponse(request, "playground.html", _context(request, "playground"))


@router.get("/validate", response_class=HTMLResponse)
def validate_page(request: Request) -> HTMLResponse:
    return templates.TemplateResponse(request, "validate.html", _context(request, "validate"))


@router.get("/diff", response_class=HTMLResponse)
def diff_page(request: Request) -> HTMLResponse:
    return templates.TemplateResponse(request, "diff.html", _context(request, "diff"))
