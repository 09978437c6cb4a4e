"""Start-up work that keeps first requests and latency tails short.

A worker imports the format modules and loads the mapping tables lazily, on
the first conversion to each target; doing it at start-up moves that cost out
of users' requests. Then ``gc.freeze()`` moves everything alive (modules,
pydantic schemas, mapping tables: ~130,000 objects) out of the garbage
collector's reach: a full collection over them took ~29 ms, a pause that
landed on whichever request triggered it; after the freeze it takes
microseconds. Objects allocated by requests are collected as usual.
"""

from __future__ import annotations

import gc
import logging

from ..api import read_bytes
from ..conversion import convert_document
from ..errors import InteropError
from ..platform.registry import writable_formats

log = logging.getLogger("interop.service")

SAMPLE = (
    b'{"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "Warm-up", "description": "",'
    b' "tags": ["x"], "character_book": {"name": "Book", "entries": [{"keys": ["k"], "content": "c",'
    b' "extensions": {}, "enabled": true, "insertion_order": 0, "use_regex": false}], "extensions": {}}}}'
)


def warm_up() -> None:
    """One small conversion (with its report) to every writable format, then freeze the heap."""
    doc = read_bytes(SAMPLE, filename="warm-up.json")
    for fmt in writable_formats():
        try:
            convert_document(doc, fmt.name)
        except InteropError as exc:  # a target that refuses the sample is still warmed up to that point
            log.debug("warm-up %s: %s", fmt.name, exc)
    gc.collect()
    gc.freeze()
