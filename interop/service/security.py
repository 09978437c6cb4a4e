"""Request-level protections: body size before parsing, security headers, the write token."""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from starlette.exceptions import HTTPException

from ..errors import InteropError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

PAGE_CSP = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
# Swagger UI on ``/docs`` is served from static/swagger-ui (no CDN); it sets inline styles.
DOCS_CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
BODY_METHODS = {"POST", "PUT", "PATCH"}


class Unauthorized(InteropError):
    """A catalog write without the right token."""


def error_body(reason: str, *, code: str, file: str | None = None, location: str | None = None) -> bytes:
    """The service's error model (api.error_json), built here because this runs before the app."""
    return json.dumps({"error": {"code": code, "file": file, "location": location, "reason": reason}}).encode()


class BodyLimit:
    """Counts the request body as the application reads it and stops it past ``max_bytes``.

    A ``Content-Length`` over the limit is refused at once, before anything is read; a chunked
    (or lying) body is refused the moment it passes the limit: 413 with the one-line reason.
    Nothing is buffered here: the multipart parser spools each file to disk as it arrives,
    so a request holds its upload once (the bytes a reader gets), not three times.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.max_bytes
            except ValueError:
                await _reply(send, 400, "invalid Content-Length header")
                return
            if too_big:
                await _reply(send, 413, self._reason())
                return
        size = 0
        started = False

        async def counted() -> Message:
            nonlocal size
            message = await receive()
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                # An HTTPException: FastAPI re-raises it from body parsing (anything else becomes a 400).
                raise HTTPException(413, self._reason())
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except HTTPException as exc:  # raised while reading outside FastAPI's handlers
            if started or exc.status_code != 413:
                raise
            await _reply(send, 413, str(exc.detail))

    def _reason(self) -> str:
        return f"request body exceeds the limit of {self.max_bytes} bytes"


class HeavyRequests:
    """Uploads (POST/PUT/PATCH under ``/api/``) in progress at once may declare at most ``max_bytes``
    together per process; past that, 429 with ``Retry-After`` before the body is read. Each upload is
    held in memory while it is read and converted, so this bounds the memory of concurrent large
    uploads (8 x 60 MB took the server from 0.1 to 1.3 GB) while small requests, the usual ones,
    are never turned away. A body without ``Content-Length`` counts as ``body_limit`` bytes; one
    request is always admitted when nothing else is in progress."""

    def __init__(self, app: ASGIApp, max_bytes: int, body_limit: int, retry_after: int = 2) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.body_limit = body_limit
        self.retry_after = retry_after
        self.in_flight = 0  # declared bytes of the uploads in progress

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        size = int(declared) if declared.isdigit() else self.body_limit
        if self.in_flight and self.in_flight + size > self.max_bytes:
            reason = f"the server is busy with {self.in_flight} bytes of uploads; retry in {self.retry_after} s"
            await _reply(send, 429, reason, extra=[(b"retry-after", str(self.retry_after).encode())])
            return
        self.in_flight += size  # one event loop per process: no lock needed
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= size


_REPLY_CODES = {400: "bad_request", 403: "forbidden", 413: "too_large", 429: "too_many_requests"}
"""The error model's ``code`` for what these middlewares refuse (api.ERROR_CODES)."""


async def _reply(send: Send, status: int, reason: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = error_body(reason, code=_REPLY_CODES.get(status, "bad_request"))
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *SECURITY_HEADERS,
                *(extra or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
WRITE_METHODS = BODY_METHODS | {"DELETE"}


def host_name(host: str) -> str:
    """``Host`` header -> the lower-case name without port or brackets (``[::1]:8080`` -> ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0].rstrip(".") if host.count(":") == 1 else host.rstrip(".")


def same_origin(origin: str, host: str) -> bool:
    """Does the browser's ``Origin`` name this very server (scheme, name and port as in ``Host``)?"""
    parts = urlsplit(origin.strip().lower())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False  # "null" (sandboxed frames, files) and anything else
    default = "443" if parts.scheme == "https" else "80"
    return _with_port(parts.netloc, default) == _with_port(host.strip().lower(), default)


def _with_port(netloc: str, default: str) -> str:
    if netloc.startswith("["):  # [IPv6]:port
        name, _, rest = netloc.partition("]")
        return f"{name}]:{rest.removeprefix(':') or default}"
    name, _, port = netloc.partition(":")
    return f"{name}:{port or default}"


class LocalOnly:
    """Without a token, a loopback server trusts whoever reaches it, so it makes sure that is
    really a local client: the ``Host`` header must name this server (loopback names, the bound
    host, ``allowed_hosts``), which defeats DNS rebinding (a hostile name resolved to 127.0.0.1
    reading the catalog); and a write from a browser must come from the server's own origin,
    which stops a page on another site, or another localhost port, posting to ``/migrations``.
    With a token set, the token is the protection and this is not installed."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str]) -> None:
        self.app = app
        self.allowed = {*LOOPBACK_HOSTS, *(host_name(h) for h in allowed_hosts)}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.lower(): value.decode("latin-1") for name, value in scope["headers"]}
        host = headers.get(b"host", "")
        if host_name(host) not in self.allowed:
            reason = f"Host {host!r} is not a name of this server (allowed: {', '.join(sorted(self.allowed))})"
            await _reply(send, 403, reason)
            return
        origin = headers.get(b"origin")
        if scope["method"] in WRITE_METHODS and origin is not None and not same_origin(origin, host):
            await _reply(
                send, 403, f"cross-origin request from {origin!r} refused (set a token to allow other clients)"
            )
            return
        await self.app(scope, receive, send)


SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """nosniff, no referrer, no framing on every response; a CSP on every page."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        csp = DOCS_CSP if path in ("/docs", "/redoc") else PAGE_CSP

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() not in _OURS]
                headers += [*SECURITY_HEADERS, (b"content-security-policy", csp.encode())]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


_OURS = {h[0] for h in SECURITY_HEADERS} | {b"content-security-policy"}


def require_token(request: Request) -> None:
    """FastAPI dependency for catalog writes: the configured token, if any, must be presented."""
    token: str | None = request.app.state.config.token
    if not token:
        return
    given = request.headers.get("authorization", "")
    scheme, _, value = given.partition(" ")
    presented = value.strip() if scheme.lower() == "bearer" else request.headers.get("x-interop-token", "")
    if not presented or not hmac.compare_digest(presented.encode(), token.encode()):
        raise Unauthorized("this server requires a token for catalog writes (Authorization: Bearer <token>)")
