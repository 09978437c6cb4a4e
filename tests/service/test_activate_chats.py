"""``POST /api/v1/activate`` takes a chat in any chat format (issue 20, item 5; contract in the team board):
multipart ``chat`` (file) or ``chat_text``; the answer adds ``chat: {format, bound_book}``; ``book`` is
optional when the chat carries its own (a Risu chat's ``localLore``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from interop.cli import cli

CHATS = Path(__file__).resolve().parents[2] / "corpus" / "chats"


def post(client: TestClient, chat: Path | None, books: list[Path], **fields: Any) -> Any:
    files: list[Any] = [("book", (b.name, b.read_bytes())) for b in books]
    if chat is not None:
        files.append(("chat", (chat.name, chat.read_bytes())))
    return client.post("/api/v1/activate", files=files or None, data=fields)


@pytest.mark.parametrize(
    ("chat", "fmt", "bound"),
    [
        ("st_harbor.jsonl", "sillytavern-chat", "st_matching"),
        ("st_group.jsonl", "sillytavern-chat", None),
        ("agnai_harbor_chat.json", "agnai-chat", None),
        ("harbor.jsonl", "interop-chat", None),
        ("harbor_transcript.txt", "transcript", None),
    ],
)
def test_every_chat_format_is_accepted(client: TestClient, chat: str, fmt: str, bound: str | None) -> None:
    response = post(client, CHATS / chat, [CHATS / "st_matching.json"], platform="sillytavern")
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["chat"] == {"format": fmt, "bound_book": bound}
    assert data["messages"] == 4


def test_sillytavern_chat_fires_as_the_cli_does(client: TestClient) -> None:
    book, chat = CHATS / "st_matching.json", CHATS / "st_harbor.jsonl"
    data = post(client, chat, [book], platform="sillytavern").json()
    result = CliRunner().invoke(cli, ["activate", str(book), "--chat", str(chat), "--trace", "--json"])
    assert data["results"]["sillytavern"] == json.loads(result.output)


def test_pasted_sillytavern_chat(client: TestClient) -> None:
    text = (CHATS / "st_harbor.jsonl").read_text("utf-8")
    data = post(client, None, [CHATS / "st_matching.json"], chat_text=text, platform="sillytavern").json()
    assert data["chat"]["format"] == "sillytavern-chat" and data["results"]["sillytavern"]["activated"]


def test_a_chat_with_its_own_book_needs_no_book(client: TestClient) -> None:
    """The Risu chat's localLore is the book: its constant "Pier rules" entry fires on SillyTavern and
    Risu (Agnai memory books have no constant entries), its "kraken-bell" key everywhere."""
    data = post(client, CHATS / "risu_harbor_chat.json", []).json()
    assert data["chat"] == {"format": "risu-chat", "bound_book": "Harbour night"}
    fired = {p: [a["title"] for a in data["results"][p]["activated"]] for p in data["platforms"]}
    assert all("Kraken-bell" in titles for titles in fired.values()), fired
    assert "Pier rules" in fired["sillytavern"] and "Pier rules" in fired["risu"]


def test_no_book_and_no_book_in_the_chat(client: TestClient) -> None:
    response = post(client, CHATS / "st_group.jsonl", [])
    assert response.status_code == 400 and "no lorebook given" in response.json()["error"]["reason"]
