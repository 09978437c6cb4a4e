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
    rows = {r["formats"][-1] + ":" + (r["name"] or ""): r for r in json.loads(listed.stdout)}
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
    assert risu["formats"] == ["risu-all-chats", "risu-chat"]  # also chat 1 of the all-chats export
    assert rows["risu-all-chats:Storm watch"]["messages"] == 7
    assert rows["risu-all-chats:Chat 1"]["messages"] == 0
    assert rows["agnai-chat:Exported"]["messages"] == 4
    assert len(rows) == 6
    text = CliRunner().invoke(cli, ["catalog", "list", "--kind", "chat", "--db", url])
    assert "4 messages, binds st_matching" in text.output and "showing 6 of 6" in text.output
    everything = CliRunner().invoke(cli, ["catalog", "list", "--db", url, "--json"])
    kinds = [r["kind"] for r in json.loads(everything.stdout)]
    assert kinds.count("chat") == 6 and kinds[-6:] == ["chat"] * 6  # chats list after cards and lorebooks
    shown = CliRunner().invoke(cli, ["catalog", "show", st["ref"], "--db", url, "--json"])
    info = json.loads(shown.stdout)
    assert (info["kind"], info["messages"], info["bound_book"]) == ("chat", 4, "st_matching")
    assert [m["target"] for m in info["migrations"]] == ["risu-chat"] and info["sources"]
    refused = CliRunner().invoke(cli, ["catalog", "export", st["ref"], "--to", "risu-chat", "--db", url])
    assert refused.exit_code != 0 and "not its messages" in refused.output


def test_migrate_catalogues_every_chat_of_a_file_with_its_index(tmp_path: Path) -> None:
    """RisuAI's "Export all chats" (``exportAllChats``, src/ts/characters.ts: ``data`` = every chat of
    the character) gives one chat row per chat, linked to the file with the chat's index; the
    harbour chat, also exported alone (``risu_harbor_chat.json``), is one row with both sources.
    The file's migrations converted its chat 0, so they are shown under that chat only."""
    url = migrated(tmp_path)
    listed = json.loads(CliRunner().invoke(cli, ["catalog", "list", "--kind", "chat", "--db", url, "--json"]).stdout)
    refs = {r["name"]: r["ref"] for r in listed}

    def show(name: str) -> dict:
        return json.loads(CliRunner().invoke(cli, ["catalog", "show", refs[name], "--db", url, "--json"]).stdout)

    harbour, storm, empty = show("Harbour night"), show("Storm watch"), show("Chat 1")
    assert sorted((Path(s["path"]).name, s["chat_index"]) for s in harbour["sources"]) == [
        ("risu_all_chats.json", 1),
        ("risu_harbor_chat.json", 0),
    ]
    assert [(Path(s["path"]).name, s["chat_index"]) for s in storm["sources"]] == [("risu_all_chats.json", 0)]
    assert [(Path(s["path"]).name, s["chat_index"]) for s in empty["sources"]] == [("risu_all_chats.json", 2)]
    assert [Path(m["source"]).name for m in storm["migrations"]] == ["risu_all_chats.json"]
    assert [Path(m["source"]).name for m in harbour["migrations"]] == ["risu_harbor_chat.json"]
    assert empty["migrations"] == [] and harbour["lorebook"]["entries"] == 2  # localLore
    text = CliRunner().invoke(cli, ["catalog", "show", refs["Harbour night"], "--db", url]).output
    assert "risu_all_chats.json (risu-all-chats, chat 1)" in text and "(risu-chat, chat 0)" in text
    empty_text = CliRunner().invoke(cli, ["catalog", "show", refs["Chat 1"], "--db", url]).output
    assert "  messages      0\n" in empty_text  # an empty chat says so, as `catalog list` does


def test_migrate_catalogues_the_chats_a_risu_character_keeps(tmp_path: Path) -> None:
    """A Risu character object keeps its chats in ``chats`` (RisuAI src/ts/storage/database.svelte.ts,
    ``character.chats``): the card is catalogued and each chat beside it, with its index."""
    source = tmp_path / "in"
    source.mkdir()
    character = json.loads((CHATS.parent / "risu" / "lantern_harbor_character.json").read_bytes())
    character["chats"] = [*character["chats"], json.loads((CHATS / "risu_harbor_chat.json").read_bytes())["data"]]
    (source / "mira.json").write_text(json.dumps(character), "utf-8")
    db = tmp_path / "catalog.db"
    out = str(tmp_path / "out")
    result = CliRunner().invoke(
        cli, ["migrate", str(source), "--to", "risu-chat", "--out-dir", out, "--db", f"sqlite:///{db}"]
    )
    assert result.exit_code == 0, result.output
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT c.character, c.title, c.message_count, s.chat_index, c.lorebook_id IS NOT NULL "
        "FROM chats c JOIN chat_sources s ON s.chat_id = c.id ORDER BY s.chat_index"
    ).fetchall()
    assert rows == [("Mira", "Chat 1", 0, 0, 0), ("Mira", "Harbour night", 4, 1, 1)]
    assert conn.execute("SELECT count(*) FROM cards").fetchone()[0] == 1
    roles = conn.execute("SELECT role FROM lorebook_sources ORDER BY role").fetchall()
    assert ("chat",) in roles  # the harbour chat's localLore, linked to the file


def test_a_0006_catalog_with_chats_upgrades_to_chat_index_0(tmp_path: Path) -> None:
    """Alembic 0007 on a catalog filled before it: each link was the file's only (first) chat, so it
    gets index 0, and listing and showing the chats works after ``catalog upgrade``."""
    from alembic import command
    from interop.catalog.database import alembic_config, make_engine

    url = migrated(tmp_path)
    conn = sqlite3.connect(tmp_path / "catalog.db")
    with conn:  # what 0006's migrate recorded: chat 0 of each file only
        conn.execute("DELETE FROM chat_sources WHERE chat_index > 0")
        conn.execute("DELETE FROM chats WHERE id NOT IN (SELECT chat_id FROM chat_sources)")
    conn.close()
    engine, config = make_engine(url), alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0006")
    engine.dispose()
    refused = CliRunner().invoke(cli, ["catalog", "list", "--kind", "chat", "--db", url])
    assert refused.exit_code == 3 and "revision 0006" in refused.output
    upgraded = CliRunner().invoke(cli, ["catalog", "upgrade", "--db", url])
    assert upgraded.exit_code == 0 and f"from 0006 to {head_revision()}" in upgraded.output
    listed = json.loads(CliRunner().invoke(cli, ["catalog", "list", "--kind", "chat", "--db", url, "--json"]).stdout)
    assert sorted(r["name"] for r in listed) == ["Exported", "Harbour night", "Mira", "Mira, Roderick", "Storm watch"]
    for row in listed:
        shown = json.loads(CliRunner().invoke(cli, ["catalog", "show", row["ref"], "--db", url, "--json"]).stdout)
        assert [s["chat_index"] for s in shown["sources"]] == [0] * len(shown["sources"])
