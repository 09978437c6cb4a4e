"""``interop catalog``: query, export and upgrade the catalog that ``interop migrate`` fills."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..api import write
from ..catalog.database import default_url, head_revision, make_engine, upgrade_schema
from ..catalog.distributed import run_statuses
from ..catalog.pipeline import slug
from ..catalog.queries import ItemRef, count_items, list_items, load_document, show_item, stats
from ..catalog.search import search_entries
from ..conversion import output_name
from ..io import write_atomic
from ..jsonio import escape_lone_surrogates
from ..terminal import printable_tree
from .catalog_open import announce, open_named
from .common import AliasOption, db_option, format_choice

F = TypeVar("F", bound=Callable[..., Any])


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(func)


def _echo_json(value: Any) -> None:
    click.echo(escape_lone_surrogates(json.dumps(value, ensure_ascii=False, indent=2, default=str)))


@click.group("catalog")
def command() -> None:
    """Query the catalog of imported cards and lorebooks, export items, upgrade its schema."""


@command.command("upgrade")
@db_option
@click.option("--revision", default="head", show_default=True, help="Alembic revision to upgrade to.")
@json_option
def upgrade_cmd(db: str | None, revision: str, as_json: bool) -> None:
    """Create the catalog, or bring an existing one to the current schema."""
    announce(db or default_url())
    engine = make_engine(db or default_url())
    try:
        before, after = upgrade_schema(engine, revision)
    finally:
        engine.dispose()
    if as_json:
        _echo_json({"before": before, "after": after, "head": head_revision()})
    elif before == after:
        click.echo(f"catalog already at revision {after} (head is {head_revision()})")
    else:
        click.echo(f"catalog upgraded from {before or 'empty'} to {after}")


@command.command("list")
@db_option
@click.option("--kind", type=click.Choice(["all", "card", "lorebook", "chat"]), default="all", show_default=True)
@click.option("--format", "fmt", default=None, help="Only items read from files of this format.")
@click.option(
    "--platform",
    default=None,
    help="Only items read from files of this platform (ccv3, sillytavern, risu, agnai, novelai).",
)
@click.option("--tag", default=None, help="Only cards with this tag (case-insensitive).")
@click.option("--creator", default=None, help="Only cards by this creator (case-insensitive).")
@click.option("--limit", default=100, show_default=True, type=click.IntRange(1))
@json_option
def list_cmd(
    db: str | None,
    kind: str,
    fmt: str | None,
    platform: str | None,
    tag: str | None,
    creator: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """List catalogued cards, lorebooks and chats."""
    catalog = open_named(db)
    try:
        with catalog.session() as session:
            filters: dict[str, Any] = {"kind": kind, "fmt": fmt, "tag": tag, "creator": creator, "platform": platform}
            items = list_items(session, limit=limit, **filters)
            total = count_items(session, **filters)
    finally:
        catalog.dispose()
    shown = f"showing {len(items)} of {total}" + (f" (--limit {limit})" if len(items) < total else "")
    if as_json:
        _echo_json(items)
        click.echo(shown, err=True)  # standard output stays one JSON document
        return
    for item in printable_tree(items):  # card text must not drive the terminal
        who = f" by {item['creator']}" if item["creator"] else ""
        tags = f" [{', '.join(item['tags'])}]" if item["tags"] else ""
        entries = f", {item['entries']} entries" if item["entries"] else ""
        if item["kind"] == "chat":
            entries = _chat_facts(item) + entries
        click.echo(
            f"{item['ref']:<11} {item['name'] or '(unnamed)'}{who}{tags} ({', '.join(item['formats'])}{entries})"
        )
    click.echo(shown if items else "no items match")


def _chat_facts(item: dict[str, Any]) -> str:
    """``, Mira, 4 messages, binds st_matching`` for a chat row of the listing."""
    who = f", {item['character']}" if item["character"] and item["character"] != item["name"] else ""
    book = f", binds {item['bound_book']}" if item["bound_book"] else ""
    return f"{who}, {item['messages']} messages{book}"


@command.command("show")
@db_option
@click.argument("item")
@json_option
def show_cmd(db: str | None, item: str, as_json: bool) -> None:
    """Show ITEM (card:ID, book:ID, chat:ID, or a card id) with its lorebook, sources, migrations and fidelity."""
    catalog = open_named(db)
    try:
        with catalog.session() as session:
            info = show_item(session, ItemRef.parse(item))
    finally:
        catalog.dispose()
    if as_json:
        _echo_json(info)
        return
    info = printable_tree(info)
    click.secho(f"{info['ref']}  {info['name'] or '(unnamed)'}", bold=True)
    for key in ("creator", "spec", "spec_version", "character", "user", "messages", "bound_book", "content_hash"):
        if info.get(key) or (key == "messages" and key in info):  # a chat's 0 messages is a fact to show
            click.echo(f"  {key:<14}{info[key]}")
    if info.get("tags"):
        click.echo(f"  {'tags':<14}{', '.join(info['tags'])}")
    if info.get("lorebook"):
        book = info["lorebook"]
        click.echo(f"  {'lorebook':<14}{book['ref']} {book['name'] or '(unnamed)'} ({book['entries']} entries)")
    for entry in info.get("entries", [])[:50]:
        click.echo(f"  entry {entry['position']:<4} {entry['name'] or ''} keys={', '.join(entry['keys'])}")
    for card in info.get("cards", []):
        click.echo(f"  used by       {card['ref']} {card['name']}")
    for asset in info.get("assets", []):
        click.echo(f"  asset         {asset['role']} {asset['uri'] or ''} {asset['size']} bytes")
    for source in info["sources"]:
        place = f", chat {source['chat_index']}" if "chat_index" in source else ""  # its place in a multi-chat file
        click.echo(f"  source        {source['path']} ({source['format']}{place})")
    for m in info["migrations"]:
        fates = ", ".join(f"{k} {v}" for k, v in m["fates"].items()) if m["fates"] else "no report"
        where = m["output"] or m["reason"] or ""
        click.echo(f"  -> {m['target']:<20} {m['status']:<8} {where} ({fates})")
        for lost in m["lost"][:20]:
            click.echo(f"       lost {lost.get('path')}: {lost.get('detail') or ''}")


@command.command("search")
@db_option
@click.argument("query")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1))
@json_option
def search_cmd(db: str | None, query: str, limit: int, as_json: bool) -> None:
    """Find lorebook entries whose name, keys or content contain every word of QUERY."""
    catalog = open_named(db)
    try:
        with catalog.engine.connect() as conn:
            hits = search_entries(conn, query, limit)
    finally:
        catalog.dispose()
    if as_json:
        _echo_json([hit.__dict__ for hit in hits])
        return
    for hit in (printable_tree(h.__dict__) for h in hits):
        click.secho(
            f"book:{hit['lorebook_id']} {hit['lorebook'] or '(unnamed)'} #{hit['position']} {hit['name'] or ''}",
            bold=True,
        )
        click.echo(f"  keys: {hit['keys']}")
        click.echo(f"  {hit['snippet']}")
    if not hits:
        click.echo("no entries match")


@command.command("export")
@db_option
@click.argument("item")
@click.option("--to", "target", required=True, type=format_choice(), help="Target format.")
@click.option(
    "-o",
    "--output",
    "out",
    cls=AliasOption,
    hidden_aliases=["--out"],
    type=click.Path(dir_okay=False),
    help="Output file (default ./<name>.<target><ext>).",
)
@json_option
def export_cmd(db: str | None, item: str, target: str, out: str | None, as_json: bool) -> None:
    """Write a catalogued ITEM (card:ID or book:ID) in any target format."""
    catalog = open_named(db)
    try:
        with catalog.session() as session:
            ref = ItemRef.parse(item)
            doc = load_document(catalog, session, ref)
    finally:
        catalog.dispose()
    data = write(doc, target)
    # the slug has no suffix of its own: name it as a file with one, so none of it is taken for a suffix
    path = Path(out) if out else Path.cwd() / output_name(slug(doc.title or str(ref)) + ".item", target)
    write_atomic(path, data)
    if as_json:
        _echo_json({"item": str(ref), "output": str(path), "target": target, "bytes": len(data)})
    else:
        click.echo(f"{ref} -> {path} ({target})")


@command.command("stats")
@db_option
@json_option
def stats_cmd(db: str | None, as_json: bool) -> None:
    """Counts of files by format and status, items, and migrations by target and fate."""
    catalog = open_named(db)
    try:
        with catalog.session() as session:
            data = stats(session)
    finally:
        catalog.dispose()
    if as_json:
        _echo_json(data)
        return
    click.echo(
        f"cards {data['cards']}, lorebooks {data['lorebooks']}, entries {data['entries']}, assets {data['assets']}"
    )
    click.echo("files by format:")
    for fmt, statuses in data["files_by_format"].items():
        click.echo(f"  {fmt:<22}" + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    click.echo("migrations by target:")
    for target, info in data["migrations_by_target"].items():
        fates = info.get("fates")
        fate_text = " | " + ", ".join(f"{k} {v}" for k, v in fates.items()) if fates else ""
        click.echo(f"  {target:<22}done {info['done']}, skipped {info['skipped']}, failed {info['failed']}{fate_text}")


@command.command("runs")
@db_option
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1), help="Newest runs shown.")
@json_option
def runs_cmd(db: str | None, limit: int, as_json: bool) -> None:
    """Distributed runs (`interop migrate --broker`), newest first, with their progress."""
    catalog = open_named(db)
    try:
        found = run_statuses(catalog, limit=limit)
    finally:
        catalog.dispose()
    if as_json:
        _echo_json([r.to_json() for r in found])
        return
    if not found:
        click.echo("no distributed runs (interop migrate --broker ...)")
        return
    click.echo(f"{'run':<34}{'started (UTC)':<21}{'state':<10}{'files':>15}  targets")
    for r in found:
        files = f"{r.done_files}/{r.total_files}"
        click.echo(f"{r.id:<34}{r.created_at:%Y-%m-%d %H:%M:%S}  {r.state:<10}{files:>15}  {r.targets}")
