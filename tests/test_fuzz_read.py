"""Whatever the bytes, reading raises only interop's own errors (never KeyError, struct.error, ...)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import interop
from interop.errors import InteropError
from tests.conftest import PROJECT_CORPUS

SAMPLES = sorted(
    p
    for p in PROJECT_CORPUS.rglob("*")
    if p.is_file() and p.suffix not in {".py", ".md", ".jsonl"} and p.stat().st_size < 300_000
)


def _read_quietly(data: bytes) -> None:
    try:
        doc = interop.read_bytes(data, filename="fuzz")
    except InteropError:
        return
    # Whatever was read must also write back in its own format without crashing.
    try:
        interop.write(doc, doc.format)
    except InteropError:
        pass


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=2048))
def test_random_bytes(data: bytes) -> None:
    _read_quietly(data)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet='{}[]":,0123456789abcdefghijklmnopqrstuvwxyz_ \n', max_size=300))
def test_random_json_like_text(text: str) -> None:
    _read_quietly(text.encode())


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="name:context greeting&*!|>-[]{}'\"#%@?,0123abc\n\t", max_size=300))
def test_random_yaml_like_text(text: str) -> None:
    _read_quietly(text.encode())


@pytest.mark.skipif(not SAMPLES, reason="no corpus samples")
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_mutated_corpus_files(data: st.DataObject) -> None:
    path: Path = data.draw(st.sampled_from(SAMPLES))
    raw = bytearray(path.read_bytes())
    mode = data.draw(st.sampled_from(["truncate", "flip", "splice"]))
    if mode == "truncate":
        raw = raw[: data.draw(st.integers(0, max(0, len(raw) - 1)))]
    elif mode == "flip":
        for _ in range(data.draw(st.integers(1, 8))):
            i = data.draw(st.integers(0, len(raw) - 1))
            raw[i] = data.draw(st.integers(0, 255))
    else:
        i = data.draw(st.integers(0, len(raw)))
        raw[i:i] = data.draw(st.binary(min_size=1, max_size=64))
    _read_quietly(bytes(raw))
