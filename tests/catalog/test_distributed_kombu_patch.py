"""The runtime patch of kombu's Redis ``QoS.ack`` in interop/catalog/distributed.py (issue 21, kombu).

kombu's ``kombu/transport/redis.py`` ``QoS.ack`` first removes the message from
Redis' unacknowledged set (``_remove_from_indices(...).execute()``), and only then
calls ``virtual.QoS.ack``, which releases the worker's count of messages in hand
(``kombu/transport/virtual/base.py`` ``QoS.can_consume``: delivered minus dirty
below the prefetch count). When Redis has just gone away the first step raises,
the count keeps the message, and with ``worker_prefetch_multiplier=1`` the worker
never asks for another task. No Redis server is needed: the channel's client is a
stand-in whose pipeline fails as a dropped connection does.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

kombu_redis = pytest.importorskip(
    "kombu.transport.redis", reason="kombu is not installed (pip install 'interop-cards[queue]')"
)
redis = pytest.importorskip("redis", reason="the redis client is not installed (pip install 'interop-cards[queue]')")

REPO = Path(__file__).resolve().parents[2]


class _BrokenPipeline:
    """``client.pipeline()`` of a Redis that has gone away: queueing works, ``execute`` fails."""

    def zrem(self, *args: Any) -> _BrokenPipeline:
        return self

    def hdel(self, *args: Any) -> _BrokenPipeline:
        return self

    def execute(self) -> None:
        raise redis.exceptions.ConnectionError("Connection closed by server.")


class _Channel:
    unacked_key = "unacked"
    unacked_index_key = "unacked_index"

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        yield type("Client", (), {"pipeline": lambda self: _BrokenPipeline()})()


def _qos_holding_one_message() -> Any:
    qos = kombu_redis.QoS(_Channel(), prefetch_count=1)
    qos.restore_at_shutdown = False  # nothing to put back into the stand-in at garbage collection
    qos._delivered["tag-1"] = object()  # as QoS.append leaves it after the Redis write
    assert not qos.can_consume()  # prefetch 1, one in hand
    return qos


# Run in a fresh interpreter: the patch, once installed by make_app, stays for the whole process.
UNPATCHED = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_distributed_kombu_patch import _qos_holding_one_message
qos = _qos_holding_one_message()
try:
    qos.ack("tag-1")
except Exception:
    pass
print("frees" if qos.can_consume() else "stuck")
"""


def test_unpatched_kombu_keeps_the_slot_of_a_failed_ack() -> None:
    """The fault the patch is for is real in the installed kombu (if this starts failing, kombu fixed it:
    drop the patch and this test, and widen the pin in pyproject.toml)."""
    result = subprocess.run(
        [sys.executable, "-c", UNPATCHED], capture_output=True, text=True, timeout=60, env={"PYTHONPATH": str(REPO)}
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "stuck"


def test_the_patch_frees_the_slot_and_still_reports_the_failure() -> None:
    from interop.catalog.distributed import make_app

    make_app("redis://127.0.0.1:1/0")  # installs the patch; connects to nothing
    qos = _qos_holding_one_message()
    with pytest.raises(redis.exceptions.ConnectionError):
        qos.ack("tag-1")  # the caller still learns the ack failed (Celery logs it)
    assert qos.can_consume()  # ... and the worker asks for the next task
    patched = kombu_redis.QoS.ack
    make_app("redis://127.0.0.1:1/0")
    assert kombu_redis.QoS.ack is patched  # installed once, not wrapped again per app


def test_kombu_pin_covers_the_installed_version() -> None:
    import tomllib
    from importlib.metadata import version

    from packaging.requirements import Requirement

    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["queue"]
    (pin,) = [Requirement(s) for s in extras if Requirement(s).name == "kombu"]
    assert pin.specifier and version("kombu") in pin.specifier
