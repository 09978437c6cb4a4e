"""The chat JSONL format (docs/engine.md) and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from interop.engine import load_chat
from interop.engine.chat_input import Chat, Message, chat_from_records
from interop.errors import CorruptInputError, InvalidCardError
from tests.engine.scenario import CHATS


def test_header_and_messages() -> None:
    chat = load_chat(CHATS / "harbor.jsonl")
    assert chat.user == "Alex" and chat.character.name == "Mira" and chat.character.file == "mira"
    assert chat.greeting_index == 0 and chat.generation_type == "normal"
    assert [m.role for m in chat.messages] == ["assistant", "user", "assistant", "user"]
    assert chat.messages[0].greeting and not chat.messages[1].greeting
    assert chat.turns() == [2, 4]  # one per reply after the greeting, plus the pending one


def test_names_default_from_header() -> None:
    chat = chat_from_records(
        [
            {"user": "Sam", "character": {"name": "Ada"}},
            {"role": "user", "text": "hi"},
            {"role": "assistant", "text": "hello"},
        ]
    )
    assert [m.name for m in chat.messages] == ["Sam", "Ada"]


def test_macros() -> None:
    chat = Chat((Message("Alex", "user", "x"),), user="Alex")
    assert chat.substitute("{{User}} meets {{char}}") == "Alex meets Character"


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        ('{"role": "user", "text": "a"}\nnot json\n', CorruptInputError),
        ('{"role": "narrator", "text": "a"}\n', InvalidCardError),
        ('{"role": "user", "text": 3}\n', InvalidCardError),
        ('{"generation_type": "dream"}\n', InvalidCardError),
        ('{"greeting_index": "one"}\n', InvalidCardError),
        ("[1, 2]\n", InvalidCardError),
        ('{"role": "user", "text": "a"}\n{"role": "user", "text": "b", "swipe": true}\n', InvalidCardError),
        ('{"role": "user", "text": "a"}\n{"role": "assistant", "text": "b", "swipe": true}\n', InvalidCardError),
        (
            '{"role": "assistant", "text": "a", "greeting": true}\n{"role": "assistant", "text": "b", "swipe": true}\n',
            InvalidCardError,
        ),
        ('{"role": "user", "text": "a"}\n{"role": "assistant", "text": "b", "swipe": "yes"}\n', InvalidCardError),
    ],
)
def test_bad_chat_files(tmp_path: Path, lines: str, error: type[Exception]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(lines, encoding="utf-8")
    with pytest.raises(error) as info:
        load_chat(path)
    assert info.value.file == str(path)


def test_swipe_turns() -> None:
    """The swipe extension (docs/engine.md): a swipe replaces the assistant reply before it; chained
    swipes replace each other; system messages in between are skipped over."""
    chat = chat_from_records(
        [
            {"role": "assistant", "text": "Hi.", "greeting": True},
            {"role": "user", "text": "Q"},
            {"role": "assistant", "text": "A1"},
            {"role": "system", "text": "note"},
            {"role": "assistant", "text": "A2", "swipe": True},
            {"role": "assistant", "text": "A3", "swipe": True},
            {"role": "user", "text": "Q2"},
        ]
    )
    assert chat.turns() == [2, 4, 5, 7]
    assert [m.text for m in chat.turn(5).messages] == ["Hi.", "Q", "note", "A2"]
    assert chat.turn(5).generation_type == "swipe" and chat.turn(2).generation_type == "normal"
    assert [m.text for m in chat.turn(7).messages] == ["Hi.", "Q", "note", "A3", "Q2"]
