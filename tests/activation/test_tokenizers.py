"""Token counters: the offline default, wrappers for real encodings, callables (issue 8, item 3)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from interop.activation.tokenizers import ApproxTokenizer, CharsTokenizer, EncodingTokenizer, as_tokenizer
from interop.errors import InteropError


def test_default_is_offline_and_plausible() -> None:
    counter = as_tokenizer()
    assert isinstance(counter, ApproxTokenizer)
    assert counter.count("") == 0
    # cl100k says 7; the estimate is unbiased on average, not exact per sentence (docs/engine.md)
    assert 6 <= counter.count("The harbor bells ring at midnight.") <= 10
    assert counter.count("港口") >= 2


def test_identical_runs_agree_whatever_the_hash_seed() -> None:
    """Fractional costs round by a fixed hash of the piece, not Python's salted ``hash()``:
    a fresh process with another PYTHONHASHSEED counts the same."""
    text = "The harbor bells ring at midnight; Grete's lantern swings over the quay, 港口の灯り."
    script = f"from interop.activation.tokenizers import ApproxTokenizer; print(ApproxTokenizer().count({text!r}))"
    counts = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert counts == {str(ApproxTokenizer().count(text))}


def test_count_is_additive_after_a_newline() -> None:
    # The engine relies on this to count growing prompt text incrementally.
    counter = ApproxTokenizer()
    a, b = "First entry, with punctuation!\n", "Second entry: more text.\n"
    assert counter.splits_after_newline
    assert counter.count(a + b) == counter.count(a) + counter.count(b)


class FakeEncoding:
    name = "fake"

    def encode(self, text: str, disallowed_special: tuple[str, ...] = ()) -> list[int]:
        return list(range(len(text.split())))


class FakeHFEncoding:
    def __init__(self, n: int) -> None:
        self.ids = list(range(n))


class FakeHFTokenizer:
    def encode(self, text: str) -> FakeHFEncoding:
        return FakeHFEncoding(len(text))


def test_wraps_tiktoken_and_tokenizers_shapes() -> None:
    assert as_tokenizer(FakeEncoding()).count("a b c") == 3
    assert isinstance(as_tokenizer(FakeEncoding()), EncodingTokenizer)
    assert as_tokenizer(FakeHFTokenizer()).count("abcd") == 4
    assert as_tokenizer(lambda text: 42).count("x") == 42
    assert CharsTokenizer(4).count("abcdefgh") == 2
    with pytest.raises(InteropError):
        as_tokenizer(3)
