"""interop.chatbook finds the chats of a file through the platforms' services, naming none."""

from __future__ import annotations

import pytest

from interop import chatbook
from interop.api import read
from interop.errors import InvalidCardError

from .conftest import PROJECT_CORPUS

CHATS = PROJECT_CORPUS / "chats"


def test_the_chats_of_an_all_chats_export_come_from_the_platform_service() -> None:
    doc = read(CHATS / "risu_all_chats.json")
    assert [log.title for log in chatbook.chats_in_file(doc)] == ["Storm watch", "Harbour night", "Chat 1"]
    assert chatbook.select_chat(doc, 1).chat.title == "Harbour night"  # type: ignore[union-attr]


def test_without_a_platform_offering_the_service_a_file_has_its_own_chat_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(chatbook, "all_platforms", lambda: [])
    doc = read(CHATS / "st_harbor.jsonl")
    assert chatbook.chats_in_file(doc) == [doc.chat]
    assert chatbook.select_chat(doc, 0) is doc
    with pytest.raises(InvalidCardError, match="chat 1 asked for; the file holds 1 chat"):
        chatbook.select_chat(doc, 1)
    with pytest.raises(InvalidCardError, match="chat -1 asked for"):
        chatbook.select_chat(doc, -1)
