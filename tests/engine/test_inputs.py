"""Bad books raise typed interop errors; native files are recognised by content."""

from __future__ import annotations

from pathlib import Path

import pytest

from interop.engine import evaluate, load_book, native_kind
from interop.engine.chat_input import Chat
from interop.engine.sources import book_from_bytes
from interop.errors import InteropError, InvalidCardError, LimitExceededError
from interop.limits import Limits
from interop.platform.registry import Platform, get_platform, register_platform, unregister_platform
from tests.engine.scenario import CHATS


@pytest.mark.parametrize(
    ("platform", "book"),
    [
        ("sillytavern", {"entries": []}),
        ("sillytavern", 42),
        ("risu", {"type": "risu", "data": "nope"}),
        ("agnai", {"kind": "memory"}),
        ("ccv3", {"entries": "nope"}),
        ("ccv3", "text"),
    ],
)
def test_malformed_native_books(platform: str, book: object) -> None:
    with pytest.raises(InvalidCardError):
        evaluate([book], Chat(), platform)


def test_unknown_platform() -> None:
    with pytest.raises(InteropError, match="unknown platform"):
        evaluate([], Chat(), "kobold")


def test_native_detection() -> None:
    assert native_kind({"entries": {"0": {"key": ["a"]}}}) == "sillytavern"
    assert native_kind({"type": "risu", "data": []}) == "risu"
    assert native_kind([{"key": "a", "insertorder": 1}]) == "risu"
    assert native_kind({"kind": "memory", "entries": []}) == "agnai"
    assert native_kind({"spec": "lorebook_v3", "data": {"entries": []}}) is None


def test_native_file_is_used_as_read() -> None:
    name, world = load_book(CHATS / "st_timed.json", "sillytavern")
    assert name == "st_timed" and set(world["entries"]) == {"0", "1", "2", "3"}


def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "junk.json"
    path.write_bytes(b"\x00\x01not a book")
    with pytest.raises(InteropError):
        load_book(path, "sillytavern")


def test_native_file_obeys_the_read_limits() -> None:
    data = (CHATS / "st_timed.json").read_bytes()
    with pytest.raises(LimitExceededError):
        book_from_bytes(data, "st_timed.json", "sillytavern", limits=Limits(max_text_bytes=len(data) - 1))


def test_native_shape_comes_from_the_platform() -> None:
    sample = Platform(
        name="sample-native",
        title="Sample",
        native_book_kind=lambda obj: obj == {"sample": []},
        profile=get_platform("sillytavern").profile,  # a profile that reads its native books as they are
    )
    register_platform(sample)
    try:
        assert native_kind({"sample": []}) == "sample-native"
        assert book_from_bytes(b'{"sample": []}', "s.json", "sample-native") == ("s", {"sample": []})
    finally:
        unregister_platform("sample-native")
    assert native_kind({"sample": []}) is None
