"""``interop serve``: the library behind an HTTP API (``/api/v1``) and a web page (docs/service.md)."""

from .app import create_app
from .config import ServiceConfig

__all__ = ["ServiceConfig", "create_app"]
