"""Idle half-sent requests are timed out: uvicorn's only timer is keep-alive, armed after a
response, so a client that opens a connection, sends part of a request line, headers or body,
and then goes quiet held a connection (and, inside a request, an upload slot) forever.

``uvicorn`` takes the protocol class to use (``http=``): these are its own two protocols with
one timer more. It runs while the server waits for the client (no request yet, headers or body
incomplete, or the next request of a keep-alive connection), is restarted by every byte that
arrives, and closes the connection when ``ServiceConfig.idle_timeout`` passes in silence. It
never runs while the app works on a complete request, nor while reading is paused because the
app consumes the body slower than it arrives.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from .config import ServiceConfig

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools is optional for uvicorn; h11 is always there
    HttpToolsProtocol = None

_timeout: float | None = None


def idle_timeout() -> float:
    """This worker's ``ServiceConfig.idle_timeout`` (from the environment ``runner.serve`` sets)."""
    global _timeout
    if _timeout is None:
        _timeout = ServiceConfig.from_env().idle_timeout
    return _timeout


class _IdleTimer:
    """Mixed into a uvicorn HTTP protocol (which provides transport, cycle, flow and loop)."""

    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    _idle: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm()

    def data_received(self, data: bytes) -> None:
        self._arm()
        super().data_received(data)  # type: ignore[misc]

    def connection_lost(self, exc: Exception | None) -> None:
        if self._idle is not None:
            self._idle.cancel()
        super().connection_lost(exc)  # type: ignore[misc]

    def _arm(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        self._idle = self.loop.call_later(idle_timeout(), self._expired)

    def _waiting_for_client(self) -> bool:
        cycle = getattr(self, "cycle", None)
        return cycle is None or cycle.response_complete or cycle.more_body

    def _expired(self) -> None:
        self._idle = None
        if self.transport.is_closing():
            return
        flow = getattr(self, "flow", None)
        if flow is not None and flow.read_paused:
            self._arm()  # we stopped reading, not the client: look again later
        elif self._waiting_for_client():
            self.transport.close()  # the app, if inside a request, sees http.disconnect


class IdleH11Protocol(_IdleTimer, H11Protocol):
    pass


PROTOCOL: type[asyncio.Protocol] = IdleH11Protocol
if HttpToolsProtocol is not None:

    class IdleHttpToolsProtocol(_IdleTimer, HttpToolsProtocol):
        pass

    PROTOCOL = IdleHttpToolsProtocol
