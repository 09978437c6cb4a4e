"""``interop activate``: which lorebook entries a platform injects for a chat, and why."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import click

from ..activation.result import Result
from ..activation.tokenizers import CharsTokenizer
from ..api import read_bytes
from ..chatbook import select_chat
from ..engine import app_profile_names, chat_from_bytes, load_chat, profile_names, simulate
from ..engine.chat_input import GENERATION_TYPES, NATIVE_PARSERS, Chat, chat_from_log
from ..engine.sidebyside import SideBySide, setting_names, settings_with, side_by_side
from ..engine.sources import book_from_bytes, load_book
from ..errors import InteropError, LimitExceededError
from ..io import read_limited
from ..jsonio import escape_lone_surrogates
from .common import STDIO, InputPath, chat_index_option, current_limits, read_stdin

TOKENIZERS = ("approx-cl100k", "chars")


def _print_activated(result: Result) -> None:
    click.secho(
        f"turn {result.turn} ({result.platform}): {len(result.activated)} entries injected, "
        f"{result.tokens_used} tokens" + (f" of a {result.budget}-token budget" if result.budget else ""),
        bold=True,
    )
    if result.error:
        click.secho(f"  error: {result.error}", fg="red")
    for act in result.activated:
        where = act.position
        if act.depth is not None:
            where += f" depth={act.depth}"
        if act.role:
            where += f" role={act.role}"
        if act.outlet:
            where += f" outlet={act.outlet}"
        preview = " ".join(act.content.split())
        preview = preview if len(preview) <= 70 else preview[:67] + "..."
        click.echo(f"  [{where}] order={act.order} {act.entry_id} {act.title!r}: {preview}")


def _print_log(result: Result) -> None:
    click.echo("  request log:")
    rows = [("entry", "fired", "reason", "step", "key", "where", "detail")]
    for r in result.log:
        rows.append(
            (r.entry_id, "yes" if r.fired else "no", r.reason, str(r.step or ""), r.key or "", r.where or "", r.detail)
        )
    widths = [min(max(len(row[i]) for row in rows), 32) for i in range(6)]
    for number, row in enumerate(rows):
        cells = [row[i][: widths[i]].ljust(widths[i]) for i in range(6)]
        click.echo("    " + "  ".join(cells) + "  " + row[6])
        record = result.log[number - 1] if number else None
        # Earlier passes' decisions, e.g. the roll an inclusion group was lost in (matches are implied).
        for note in record.earlier if record else ():
            if ": key_match" not in note:
                click.echo(f"      earlier {note}")
    for warning in result.warnings:
        click.secho(f"  warning: {warning}", fg="yellow")


def profile_settings(platform: str, overrides: tuple[str, ...]) -> Any:
    """The profile's default settings with ``NAME=VALUE`` overrides (VALUE parsed as JSON, else text)."""
    known = setting_names(platform)
    changes: dict[str, Any] = {}
    for item in overrides:
        name, sep, raw = item.partition("=")
        if not sep or name not in known:
            raise click.BadParameter(
                f"{item!r}: expected NAME=VALUE with NAME one of {', '.join(sorted(known))}", param_hint="--setting"
            )
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        changes[name] = value
    return settings_with(platform, changes)


@click.command("activate")
@click.argument("books", nargs=-1, required=True, type=InputPath(dir_okay=False))
@click.option(
    "--chat",
    "chat_path",
    required=True,
    type=InputPath(dir_okay=False),
    help="Chat in any chat format: SillyTavern JSONL, RisuAI or Agnai chat export, interop chat JSONL, "
    "'Name: message' text (docs/chats.md); '-' reads standard input.",
)
@chat_index_option()
@click.option(
    "--platform",
    type=click.Choice([*sorted(profile_names()), "all"]),
    default="sillytavern",
    show_default=True,
    help="Whose activation rules to apply; 'all': every app's side by side (the last turn), as the web page does.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for probability and group rolls.")
@click.option(
    "--turn",
    type=int,
    default=None,
    help="Evaluate the prompt built on the first N messages (default: the whole chat); earlier turns "
    "are simulated first for their state.",
)
@click.option(
    "--last",
    is_flag=True,
    help="Run one scan only: the pending turn on the whole chat, without simulating earlier turns.",
)
@click.option(
    "--generation",
    type=click.Choice(GENERATION_TYPES),
    default=None,
    help="Generation type of the pending turn (default: the chat header's); swipe and regenerate "
    "drop the last reply as SillyTavern does.",
)
@click.option("--time", "show_time", is_flag=True, help="Print how long reading the books and the shown scan took.")
@click.option(
    "--tokenizer",
    type=click.Choice(TOKENIZERS),
    default="approx-cl100k",
    show_default=True,
    help="Token counter for budgets: approx-cl100k (offline cl100k estimate) or chars "
    "(SillyTavern's character estimate, ceil(UTF-16 length / 3.35)).",
)
@click.option(
    "--setting",
    "overrides",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override a profile setting, VALUE as JSON (e.g. max_context=4096, recursive=false). Repeatable.",
)
@click.option("--all-turns", is_flag=True, help="Show every turn of the chat, not only the last.")
@click.option("--trace", is_flag=True, help="Also print the request log: why each entry fired or not.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def command(
    books: tuple[str, ...],
    chat_path: str,
    chat_index: int | None,
    platform: str,
    seed: int,
    turn: int | None,
    last: bool,
    generation: str | None,
    show_time: bool,
    tokenizer: str,
    overrides: tuple[str, ...],
    all_turns: bool,
    trace: bool,
    as_json: bool,
) -> None:
    """Simulate lorebook activation: which entries a platform injects for a chat, and why.

    BOOK... are pooled as the platform does; the injected entries are printed in prompt order.
    One book, or the chat, may be - (standard input).

    Earlier turns are simulated first so timed effects (sticky, cooldown) and
    decorator state carry over exactly as in a real chat.
    """
    if last and turn is not None:
        raise click.UsageError("--last and --turn exclude each other")
    started = time.perf_counter()
    if [*books, chat_path].count(STDIO) > 1:
        raise click.UsageError("standard input (-) can be read once: one book or the chat")
    chat = read_chat(chat_path) if chat_index is None else read_chat_at(chat_path, chat_index)
    stdin_book = read_stdin() if STDIO in books else b""
    if generation:
        chat = chat.with_generation(generation)
    if platform == "all":
        if turn is not None or last or overrides or all_turns or show_time or tokenizer != TOKENIZERS[0]:
            raise click.UsageError("--platform all compares the last turn with default settings only")
        apps = app_profile_names()  # ccv3 is the spec, not an app (as the web page)
        compared = side_by_side({p: _load_books(books, p, stdin_book) for p in apps}, chat, seed=seed)
        _print_side_by_side(compared, as_json, trace)
        return
    pooled = _load_books(books, platform, stdin_book)
    read_ms = (time.perf_counter() - started) * 1000
    turns = _turns(chat, turn, last, chat_path)
    settings = profile_settings(platform, overrides)
    timings: dict[str, Any] = {}
    results = simulate(
        pooled,
        chat,
        platform,
        settings=settings,
        seed=seed,
        turns=turns,
        tokenizer=CharsTokenizer() if tokenizer == "chars" else None,
        timings=timings,
    )
    shown = results if all_turns else results[-1:]
    timing = {"read_ms": round(read_ms, 2), "prepare_ms": round(timings["prepare_ms"], 2)}
    timing["scan_ms"] = round(timings["scan_ms"][-1], 2)
    if as_json:
        _print_json(shown, all_turns, trace, timing if show_time else None)
        return
    for result in shown:
        _print_activated(result)
        if trace:
            _print_log(result)
    if show_time:
        click.echo(
            f"time: reading {timing['read_ms']:.1f} ms, index {timing['prepare_ms']:.1f} ms, "
            f"scan of turn {results[-1].turn} {timing['scan_ms']:.1f} ms ({len(results)} scan(s) run)"
        )


def _print_json(shown: list[Result], all_turns: bool, trace: bool, timing: dict[str, Any] | None) -> None:
    """``--json``: one result (or every turn's), the request log only with ``--trace``, timings when given."""
    payload: list[dict[str, Any]] = []
    for result in shown:
        data = result.to_dict()
        if not trace:
            data.pop("log")
        payload.append(data)
    out: Any = payload if all_turns else payload[0]
    if timing is not None:
        out = {"results" if all_turns else "result": out, "timing": timing}
    click.echo(escape_lone_surrogates(json.dumps(out, ensure_ascii=False, indent=2, default=str)))


def _print_side_by_side(compared: SideBySide, as_json: bool, trace: bool) -> None:
    """One row per entry (paired across apps by id, then keys and content), a cell per app: fired or not, why."""
    if as_json:
        data = compared.to_json()
        if not trace:
            for result in data["results"].values():
                result.pop("log", None)
        click.echo(escape_lone_surrogates(json.dumps(data, ensure_ascii=False, indent=2, default=str)))
        return
    apps = compared.platforms
    width = min(max([len(r.title) for r in compared.rows] + [5]), 40)
    click.secho("  " + "entry".ljust(width) + "".join(f"  {p:<24}" for p in apps), bold=True)
    for row in compared.rows:
        cells = []
        for app in apps:
            cell = row.cells.get(app)
            text = "(no such entry)" if cell is None else ("fired" if cell.fired else "-") + f" {cell.reason}"
            cells.append(f"  {text[:24]:<24}")
        mark = "* " if row.differs else "  "
        click.echo(mark + row.title[:width].ljust(width) + "".join(cells))
    differing = sum(row.differs for row in compared.rows)
    turn = next(iter(compared.results.values())).turn if compared.results else 0
    click.echo(f"turn {turn}: {differing} of {len(compared.rows)} entries fire differently across {', '.join(apps)}")


def _load_books(books: tuple[str, ...], platform: str, stdin_book: bytes) -> list[Any]:
    """The books for ``platform``; ``-`` is the book read from standard input (once, for every platform)."""
    return [
        book_from_bytes(stdin_book, STDIO, platform, limits=current_limits())
        if book == STDIO
        else load_book(book, platform)
        for book in books
    ]


def read_chat(path: str) -> Chat:
    """A chat file in any chat format, or standard input for ``-`` (within the file-size limit)."""
    limits = current_limits()
    if path != "-":
        return load_chat(path, limits=limits)
    data = sys.stdin.buffer.read(limits.max_file_bytes + 1)
    if len(data) > limits.max_file_bytes:
        raise LimitExceededError(f"standard input exceeds the limit of {limits.max_file_bytes} bytes", file="<stdin>")
    return chat_from_bytes(data, file="<stdin>", limits=limits)


def read_chat_at(path: str, index: int) -> Chat:
    """Chat ``index`` of a file holding several (``select_chat``; a one-chat file has chat 0 only)."""
    limits = current_limits()
    if path == "-":
        data = sys.stdin.buffer.read(limits.max_file_bytes + 1)
        if len(data) > limits.max_file_bytes:
            raise LimitExceededError(
                f"standard input exceeds the limit of {limits.max_file_bytes} bytes", file="<stdin>"
            )
        name = "<stdin>"
    else:
        data, name = read_limited(path, limits.max_file_bytes), path
    doc = read_bytes(data, filename=name, limits=limits)
    if doc.format in NATIVE_PARSERS and index == 0:
        return chat_from_bytes(data, file=name, limits=limits)  # the engine's own reading of its chat
    picked = select_chat(doc, index)
    assert picked.chat is not None
    return chat_from_log(picked.chat, file=name)


def _turns(chat: Chat, turn: int | None, last: bool, chat_path: str) -> list[int]:
    """The turns to simulate: all, up to ``--turn N``, or only the last (``--last``)."""
    if last:
        return [len(chat.messages)]
    turns = chat.turns()
    if turn is None:
        return turns
    if turn < 0 or turn > len(chat.messages):
        raise InteropError(f"--turn must be between 0 and {len(chat.messages)}", file=chat_path)
    return [t for t in turns if t < turn] + [turn]
