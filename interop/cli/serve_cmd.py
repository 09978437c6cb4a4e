"""``interop serve``: the HTTP API and web page (docs/service.md)."""

from __future__ import annotations

import os

import click

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
    import uvicorn

    from ..limits import MiB
    from ..service.config import ENV_CONFIG, ServiceConfig, check_binding

    check_binding(host, token)
    config = ServiceConfig(db=db, token=token, max_upload_bytes=max_upload_mb * MiB)
    os.environ[ENV_CONFIG] = config.to_env()  # every worker process builds its app from it
    click.echo(f"interop: serving on http://{host}:{port}/ (API docs at /docs)", err=True)
    uvicorn.run(
        "interop.service.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
        server_header=False,
        timeout_graceful_shutdown=5,
        proxy_headers=False,
    )
