"""Chat transcripts: interop's own chat JSON Lines (the activation engine's input, docs/engine.md)
and plain ``Name: message`` transcripts (read only). The package's one public face."""

from __future__ import annotations

from ...platform.registry import Platform, register_platform
from . import adapter

PLATFORM = register_platform(
    Platform(name="transcript", title="Chat transcripts (interop chat JSONL, Name: message text)"),
    *adapter.FORMATS,
)
