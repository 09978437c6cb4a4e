"""``interop serve``: the HTTP API and web page (docs/service.md)."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import click

from ..errors import InteropError
from ..limits import MiB
from .common import current_limits, db_option

LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
READY_WAIT_S = 120.0


def _announce_when_ready(host: str, port: int, root_path: str) -> None:
    """Print "serving on ..." once the port accepts connections (not before: a user who clicks too early
    gets "connection refused"), from a daemon thread while uvicorn starts in the main one."""
    probe = "127.0.0.1" if host in ("0.0.0.0", "") else "::1" if host == "::" else host.strip("[]")
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    deadline = time.monotonic() + READY_WAIT_S
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((probe, port), timeout=1):
                break
        except OSError:
            time.sleep(0.1)
    else:
        return
    # With --root-path the proxy strips the prefix before forwarding: this address has none.
    behind = f"; the proxy serves it under {root_path}/" if root_path else ""
    click.echo(f"interop: serving on http://{shown}:{port}/ (API docs at /docs{behind})", err=True)


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
# The service settings' defaults live in ServiceConfig (importing it here would load FastAPI for every
# `interop` run): a flag left out is not passed, and the help repeats the default.
@click.option(
    "--max-uploads-in-progress-mb",
    type=click.IntRange(1, 65536),
    help="Most MiB of uploads (by Content-Length) in progress at once per worker; more get 429 + Retry-After. "
    "[default: 256]",
)
@click.option(
    "--max-entries",
    type=click.IntRange(1),
    help="Most lorebook entries in one uploaded book. [default: the global --input-limit max_entries=N, else 10000]",
)
@click.option(
    "--idle-timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Seconds a connection may stay silent while its request is incomplete. [default: 30]",
)
@click.option(
    "--regex-budget",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Seconds of regex matching one request may spend, all keys and platforms together. [default: 1]",
)
@click.option(
    "--allow-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="Without a token: a Host name accepted besides loopback names and --host (repeatable).",
)
@click.option(
    "--keep-uploads", is_flag=True, help="Keep the files uploaded to POST /api/v1/migrations after their job ends."
)
@click.option(
    "--root-path",
    default="",
    help="URL prefix the app is served under behind a reverse proxy (e.g. /interop); links and static files follow it.",
)
@click.option(
    "--proxy-headers/--no-proxy-headers",
    default=False,
    show_default=True,
    help="Trust X-Forwarded-Proto/For from --forwarded-allow-ips (behind a reverse proxy).",
)
@click.option(
    "--forwarded-allow-ips",
    default="127.0.0.1",
    show_default=True,
    help="Comma-separated proxy addresses whose X-Forwarded-* headers are trusted ('*' for any).",
)
@click.option("--log-level", type=click.Choice(LOG_LEVELS), default="info", show_default=True, help="Server log level.")
@click.option(
    "--access-log/--no-access-log", default=True, show_default=True, help="Log every request (at level info)."
)
def command(
    host: str,
    port: int,
    db: str | None,
    token: str | None,
    workers: int,
    max_upload_mb: int,
    max_uploads_in_progress_mb: int | None,
    max_entries: int | None,
    idle_timeout: float | None,
    regex_budget: float | None,
    allowed_hosts: tuple[str, ...],
    keep_uploads: bool,
    root_path: str,
    proxy_headers: bool,
    forwarded_allow_ips: str,
    log_level: str,
    access_log: bool,
) -> None:
    """Serve the HTTP API (/api/v1, OpenAPI at /openapi.json and /docs) and the web page on HOST:PORT.

    Uploaded files are never stored, except those sent to the catalog (POST /api/v1/migrations).
    """
    # the service pulls in FastAPI, uvicorn and the web app: only `interop serve` pays for importing them
    from ..catalog.database import default_url
    from ..service.config import ServiceConfig, check_binding
    from ..service.runner import serve
    from .catalog_open import announce

    check_binding(host, token)
    announce(db or default_url())  # which catalog the page and API read and write
    in_progress = None if max_uploads_in_progress_mb is None else max_uploads_in_progress_mb * MiB
    settings: dict[str, Any] = {
        "max_upload_bytes_in_progress": in_progress,
        "max_entries": max_entries if max_entries is not None else current_limits().max_entries,
        "idle_timeout": idle_timeout,
        "regex_budget": regex_budget,
        "allowed_hosts": tuple(name.strip() for name in allowed_hosts if name.strip()) or None,
        "keep_uploads": keep_uploads or None,
    }
    given = {name: value for name, value in settings.items() if value is not None}
    config = ServiceConfig(db=db, token=token, max_upload_bytes=max_upload_mb * MiB, **given)
    root_path = root_path.rstrip("/")
    if root_path and not root_path.startswith("/"):
        raise click.BadParameter("must start with '/'", param_hint="--root-path")
    options = {
        "root_path": root_path,
        "proxy_headers": proxy_headers,
        "forwarded_allow_ips": forwarded_allow_ips,
        "log_level": log_level,
        "access_log": access_log,
    }
    if port:
        threading.Thread(target=_announce_when_ready, args=(host, port, root_path), daemon=True).start()
    try:
        serve(config, host, port, workers, options)
    except OSError as exc:
        raise InteropError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
