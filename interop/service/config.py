"""What ``interop serve`` was started with, passed to every worker process through one env variable."""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
from dataclasses import dataclass

from ..activation.jsregex import DEFAULT_BUDGET
from ..errors import InteropError
from ..limits import DEFAULT_LIMITS, Limits, MiB

ENV_CONFIG = "INTEROP_SERVE_CONFIG"
ENV_TOKEN = "INTEROP_TOKEN"


@dataclass(frozen=True)
class ServiceConfig:
    db: str | None = None
    """Catalog URL (None: ``INTEROP_DB`` or the default SQLite file), opened on first catalog request."""
    token: str | None = None
    """When set, every request that writes to the catalog must carry it (``Authorization: Bearer``)."""
    allowed_hosts: tuple[str, ...] = ()
    """Without a token, ``Host`` names accepted besides loopback ones and the bound host (``runner.serve``
    adds it): e.g. a name in /etc/hosts for 127.0.0.1. Anything else is refused (DNS rebinding)."""
    max_upload_bytes: int = 64 * MiB
    """Largest request body accepted; checked before anything is parsed."""
    max_upload_bytes_in_progress: int = 256 * MiB
    """Most bytes of uploads (POSTs to the API, by ``Content-Length``) in progress at once per worker;
    more get 429 + Retry-After. Each is held in memory while it is read, so this bounds that memory."""
    max_files: int = 1000
    """Most files in one multipart request (a migration upload)."""
    max_total_uncompressed: int = 256 * MiB
    """Zip uploads and CHARX cards: most bytes all members may inflate to."""
    max_entries: int = DEFAULT_LIMITS.max_entries
    """Most lorebook entries in one book read from an upload (a small zip can hold very many)."""
    idle_timeout: float = 30.0
    """Seconds a connection may stay silent while its request is incomplete (``idle.py``)."""
    keep_uploads: bool = False
    """Keep the files uploaded to ``POST /migrations`` after their job ends (they are in the catalog)."""
    regex_budget: float = DEFAULT_BUDGET
    """Seconds of regex matching one request may spend, all keys and platforms together."""
    warm_up: bool = True
    """Convert a sample to every format and freeze the heap at start-up (``warmup.py``); tests skip it."""

    @property
    def limits(self) -> Limits:
        """The reader limits: the library's defaults, tightened to what one request may carry."""
        return dataclasses.replace(
            DEFAULT_LIMITS,
            max_file_bytes=min(DEFAULT_LIMITS.max_file_bytes, self.max_upload_bytes),
            max_total_uncompressed=min(DEFAULT_LIMITS.max_total_uncompressed, self.max_total_uncompressed),
            max_entries=self.max_entries,
        )

    def to_env(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_env(cls) -> ServiceConfig:
        raw = os.environ.get(ENV_CONFIG)
        if not raw:
            return cls(token=os.environ.get(ENV_TOKEN) or None)
        values = json.loads(raw)
        values["allowed_hosts"] = tuple(values.get("allowed_hosts", ()))
        return cls(**values)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_binding(host: str, token: str | None) -> None:
    """Anywhere but loopback, catalog writes need a token: refuse to start without one."""
    if not is_loopback(host) and not token:
        raise InteropError(
            f"binding to {host} exposes the catalog to the network: set --token or {ENV_TOKEN} "
            "(required for every request that writes to the catalog)"
        )
