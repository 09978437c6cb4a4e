"""The catalog API lists chats (issue 20): ``GET /api/v1/catalog/items?kind=chat`` and one chat by ref."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.catalog.test_chats import migrated


def test_api_lists_chats(make_client: Any, tmp_path: Path) -> None:
    """The rows ``interop catalog list --kind chat`` gives: character, message count, bound book."""
    client = make_client(db=migrated(tmp_path))
    page = client.get("/api/v1/catalog/items", params={"kind": "chat"}).json()
    assert page["total"] == 6 and {r["kind"] for r in page["items"]} == {"chat"}
    mira = next(r for r in page["items"] if r["name"] == "Mira")
    assert (mira["messages"], mira["bound_book"], mira["character"]) == (4, "st_matching", "Mira")
    found = client.get("/api/v1/catalog/items", params={"kind": "chat", "q": "harbour"}).json()
    assert [r["name"] for r in found["items"]] == ["Harbour night"]
    one = client.get(f"/api/v1/catalog/items/{mira['ref']}").json()
    assert (one["kind"], one["character"], one["messages"]) == ("chat", "Mira", 4)
    assert client.get("/api/v1/catalog/items", params={"kind": "chats"}).status_code == 422
    # the harbour chat is chat 0 of its own export and chat 1 of RisuAI's all-chats export
    harbour = client.get(f"/api/v1/catalog/items/{found['items'][0]['ref']}").json()
    assert sorted(s["chat_index"] for s in harbour["sources"]) == [0, 1]
