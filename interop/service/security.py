"""Request-level protections: body size before parsing, security headers, the write token."""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import Request

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
    """Reads the whole request body, up to ``max_bytes``, before the application sees any of it.

    A ``Content-Length`` over the limit is refused at once; a chunked body is
    counted as it arrives and refused the moment it passes the limit. Either
    way nothing was parsed (no multipart spooling, no JSON), and the answer is
    413 with the one-line reason. The body is then replayed to the app.
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
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _reply(send, 413, self._reason())
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        scope.setdefault("state", {})["body_bytes"] = len(body)  # request.state.body_bytes
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _reason(self) -> str:
        return f"request body exceeds the limit of {self.max_bytes} bytes"


async def _reply(send: Send, status: int, reason: str) -> None:
    body = error_body(reason, code="too_large" if status == 413 else "bad_request")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


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
