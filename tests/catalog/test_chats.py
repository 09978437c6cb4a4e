"""``migrate`` picks chats up in folders and catalogues them (issue 20, item 4): which character, how
many messages, which lorebook the chat binds (by name, and the book itself when it is found)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from interop.catalog.database import head_revision
from interop.cli import cli

CHATS = Path(__file__).resolve().parents[2] / "corpus" / "chats"
FILES = [
    "st_harbor.jsonl",
    "st_group_header.jsonl",
    "risu_harbor_chat.json",
    "agnai_harbor_chat.json",
    "st_matching.json",
]


def test_migrate_catalogues_chats(tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    for name in FILES:
        shutil.copy(CHATS / name, source / name)
    db = tmp_path / "catalog.db"
    result = CliRunner().invoke(
        cli, ["migrate", str(source), "--to", "risu-chat", "--out", str(tmp_path / "out"), "--db", f"sqlite:///{db}"]
    )
    assert result.exit_code == 0, result.output
    conn = sqlite3.connect(db)
    rows = {
        r[0]: r[1:]
        for r in conn.execute(
            "SELECT f.path, c.character, c.message_count, c.bound_book, c.is_group, c.lorebook_id "
            "FROM chats c JOIN chat_sources s ON s.chat_id = c.id JOIN source_files f ON f.id = s.source_file_id"
        )
    }
    by_name = {Path(path).name: row for path, row in rows.items()}
    assert by_name["st_harbor.jsonl"][:4] == ("Mira", 4, "st_matching", 0)
    assert by_name["st_harbor.jsonl"][4] is not None  # the bound world, found beside the chat
    assert by_name["st_group_header.jsonl"][:2] == ("Mira, Roderick", 4) and by_name["st_group_header.jsonl"][3] == 1
    assert by_name["risu_harbor_chat.json"][1] == 4 and by_name["risu_harbor_chat.json"][4] is not None  # localLore
    assert by_name["agnai_harbor_chat.json"][1] == 4
    kinds = dict(
        conn.execute("SELECT f.path, m.item_kind FROM migrations m JOIN source_files f ON f.id = m.source_file_id")
    )
    assert {Path(p).name: k for p, k in kinds.items()}["st_harbor.jsonl"] == "chat"
    written = sorted(p.name for p in (tmp_path / "out" / "risu-chat").iterdir())
    assert len(written) == 4
    assert conn.execute("SELECT version_num FROM alembic_version").fetchone()[0] == head_revision()


def migrated(tmp_path: Path) -> str:
    """The chat corpus (and RisuAI's all-chats export) migrated into a fresh catalog; its URL."""
    source = tmp_path / "in"
    source.mkdir()
    for name in [*FILES, "risu_all_chats.json"]:
        shutil.copy(CHATS / name, source / name)
    url = f"sqlite:///{tmp_path / 'catalog.db'}"
    result = CliRunner().invoke(
        cli, ["migrate", str(source), "--to", "risu-chat", "--out", str(tmp_path / "out"), "--db", url]
    )
    assert result.exit_code == 0, result.output
    return url


def test_catalog_list_shows_chats(tmp_path: Path) -> None:
    """``interop catalog list --kind chat``: character, message count, bound book, own lorebook."""
    url = migrated(tmp_path)
    listed = CliRunner().invoke(cli, ["catalog", "list", "--kind", "chat", "--db", url, "--json"])
    assert listed.exit_code == 0, listed.output
    rows = {r["formats"][0] + ":" + (r["name"] or ""): r for r in json.loads(listed.stdout)}
    st = rows["sillytavern-chat:Mira"]
    assert (st["kind"], st["character"], st["messages"], st["bound_book"], st["group"]) == (
        "chat",
        "Mira",
        4,
        "st_matching",
        False,
    )
    assert st["lorebook"] is not None and st["entries"] > 0  # the bound world, found beside the chat
    group = rows["sillytavern-chat:Mira, Roderick"]
    assert group["group"] is True and group["messages"] == 4
    risu = rows["risu-chat:Harbour night"]
    assert (risu["messages"], risu["entries"]) == (4, 2)  # localLore
    assert rows["risu-all-chats:Storm watch"]["messages"] == 7  # the file's first chat
    assert rows["agnai-chat:Exported"]["messages"] == 4
    assert len(rows) == 5
    text = CliRunner().invoke(cli, ["catalog", "list", "--kind", "chat", "--db", url])
    assert "4 messages, binds st_matching" in text.output and "showing 5 of 5" in text.output
    everything = CliRunner().invoke(cli, ["catalog", "list", "--db", url, "--json"])
    kinds = [r["kind"] for r in json.loads(everything.stdout)]
    assert kinds.count("chat") == 5 and kinds[-5:] == ["chat"] * 5  # chats list after cards and lorebooks
    shown = CliRunner().invoke(cli, ["catalog", "show", st["ref"], "--db", url, "--json"])
    info = json.loads(shown.stdout)
    assert (info["kind"], info["messages"], info["bound_book"]) == ("chat", 4, "st_matching")
    assert [m["target"] for m in info["migrations"]] == ["risu-chat"] and info["sources"]
    refused = CliRunner().invoke(cli, ["catalog", "export", st["ref"], "--to", "risu-chat", "--db", url])
    assert refused.exit_code != 0 and "not its messages" in refused.output
