"""``interop serve``: the HTTP API and web page (docs/service.md)."""

from __future__ import annotations

import click

from ..errors import InteropError
from ..limits import MiB
from .common import db_option


@click.command("serve")
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to bind (anything but loopback needs --token)."
)
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535))
@db_option
@click.option(
    "--token",
    envvar="INTEROP_TOKEN",
    default=None,
    help="Token required by every request that writes to the catalog (env INTEROP_TOKEN).",
)
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64), help="Worker processes.")
@click.option(
    "--max-upload-mb", default=64, show_default=True, type=click.IntRange(1, 4096), help="Largest request body."
)
def command(host: str, port: int, db: str | None, token: str | None, workers: int, max_upload_mb: int) -> None:
    """Serve the HTTP API (/api/v1, OpenAPI at /openapi.json and /docs) and the web page on HOST:PORT.

    Uploaded files are never stored, except those sent to the catalog (POST /api/v1/migrations).
    """
    # the service pulls in FastAPI, uvicorn and the web app: only `interop serve` pays for importing them
    from ..service.config import ServiceConfig, check_binding
    from ..service.runner import serve

    check_binding(host, token)
    config = ServiceConfig(db=db, token=token, max_upload_bytes=max_upload_mb * MiB)
    click.echo(f"interop: serving on http://{host}:{port}/ (API docs at /docs)", err=True)
    try:
        serve(config, host, port, workers)
    except OSError as exc:
        raise InteropError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
