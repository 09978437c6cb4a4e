"""``interop convert``: files to another format, each with its fidelity report."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from ..chatbook import attach_bound_book, select_chat
from ..conversion import Conversion, convert_document, output_name, strict_reason
from ..document import Document
from ..errors import InteropError
from ..fidelity.render import summary_lines
from ..io import read_limited, write_atomic
from ..jsonio import escape_lone_surrogates
from ..terminal import printable
from . import stdout
from .common import (
    STDIO,
    AliasOption,
    InputPath,
    chat_index_option,
    current_limits,
    format_choice,
    iter_inputs,
    read_document,
    report_error,
)
from .common import debug_enabled as _debug
from .exits import EXIT_CHECK_FAILED, EXIT_INPUT


def load_chats(paths: tuple[str, ...]) -> list[Any]:
    """Chats for ``--behaviour``: chat files in any chat format (``-``: standard input), or every
    ``*.jsonl`` in a folder (sorted)."""
    from .activate_cmd import read_chat  # the activation engine only when --behaviour asks for it

    files: list[str] = []
    for raw in paths:
        path = Path(raw)
        if raw != STDIO and path.is_dir():
            files.extend(str(f) for f in sorted(path.glob("*.jsonl")))
        else:
            files.append(raw)
    return [read_chat(f) for f in files]


behaviour_option = click.option(
    "--behaviour",
    "chats",
    multiple=True,
    type=InputPath(),
    help="Chat file in any chat format (docs/chats.md), '-' for standard input, or a folder of *.jsonl chats "
    "(repeatable): also report entries that fire differently on the target.",
)
seed_option = click.option("--seed", default=0, show_default=True, help="Seed for probability rolls (--behaviour).")


def default_output(source: Path, target: str, out_dir: Path | None = None) -> Path:
    """``<out-dir or .>/<stem>.<target><ext>``; standard input is named ``stdin``."""
    name = "stdin" if str(source) == STDIO else source.name
    return (out_dir or Path.cwd()) / output_name(name, target)


@click.command("convert")
@click.argument("sources", nargs=-1, required=True, type=InputPath())
@click.option("--to", "target", required=True, type=format_choice(), help="Target format.")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Output file, - for standard output (default: ./<name>.<target><ext>; standard output for stdin).",
)
@click.option(
    "--out-dir",
    type=click.Path(file_okay=False),
    help="Folder for the outputs, named <name>.<target><ext> (several inputs; created if missing).",
)
@click.option(
    "--from",
    "source_format",
    cls=AliasOption,
    hidden_aliases=["--format"],
    default=None,
    help="Skip detection and read as this format.",
)
@click.option("--image", type=InputPath(dir_okay=False, allow_dash=False), help="Picture for PNG output.")
@click.option("--compact", is_flag=True, help="Write JSON without indentation.")
@click.option(
    "--no-embed-picture",
    "no_embed_picture",
    is_flag=True,
    help="ccv3: leave the card picture and PNG asset images out (by default: data URLs in assets).",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False),
    help="Also write the fidelity report as JSON (docs/fidelity-report.schema.json); one input only.",
)
@click.option(
    "--strict", is_flag=True, help="Exit 1 when any field is approximated or lost (the output is still written)."
)
@click.option("--details", is_flag=True, help="List every field of the report, not groups.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the conversion line, not the fidelity table.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list: per input its output and fidelity report.")
@chat_index_option("; the output is that chat")
@behaviour_option
@seed_option
def command(
    sources: tuple[str, ...],
    target: str,
    output: str | None,
    out_dir: str | None,
    source_format: str | None,
    image: str | None,
    compact: bool,
    no_embed_picture: bool,
    report_path: str | None,
    strict: bool,
    details: bool,
    quiet: bool,
    as_json: bool,
    chat_index: int | None,
    chats: tuple[str, ...],
    seed: int,
) -> None:
    """Convert SOURCES (files, folders, - for standard input) to another format. Inputs are never modified.

    Every conversion is checked: the output is read back and compared with the
    source, and each source field is reported as kept, translated, stashed,
    approximated or lost (docs/fidelity.md). With --behaviour, the source and the
    output are also run through the activation engine over the given chats and
    each entry that fires differently on the target is an approximated item.

    One input is written to -o FILE (default ./<name>.<target><ext>); several go
    to --out-dir DIR. A file that cannot be read is reported and skipped (exit 3).
    """
    plan = _outputs(sources, target, output, out_dir)
    to_stdout = _check_usage(plan, chats, as_json, report_path)
    # with the converted file on standard output, every message goes to standard error
    say = (lambda line: click.echo(line, err=True)) if to_stdout else click.echo
    image_bytes = read_limited(image, current_limits().max_file_bytes) if image else None
    loaded = load_chats(chats) if chats else None
    options: dict[str, Any] = {"pretty": not compact, "chat_index": chat_index}
    if no_embed_picture:
        options["embed_picture"] = False
    results: list[dict[str, Any]] = []
    failed = lossy = 0
    for source, out in plan:
        try:
            doc, conversion = _convert_one(
                source, out, target, source_format, image, image_bytes, loaded, seed, options
            )
        except InteropError as exc:
            report_error(exc, _debug())
            failed += 1
            if as_json:
                results.append({"source": str(source), "error": str(exc)})
            continue
        report = conversion.report
        shown = STDIO if out is None else str(out)
        for warning in doc.warnings:
            # several inputs: say whose warning it is; one: the line the web page's report view shows too
            where = f"{source}: " if len(plan) > 1 else ""
            click.secho(printable(f"warning: {where}{warning}"), fg="yellow", err=True)
        if as_json:
            results.append(
                {
                    "source": str(source),
                    "format": doc.format,
                    "output": shown,
                    "target": target,
                    "warnings": list(doc.warnings),
                    "report": report.to_json(),
                }
            )
        else:
            say(printable(f"{source} ({doc.format}) -> {shown} ({target})"))
            if not quiet:
                for line in summary_lines(report, verbose=details):
                    say(printable(line))  # entry names and values are card text
        if report_path:
            text = escape_lone_surrogates(json.dumps(report.to_json(), ensure_ascii=False, indent=2)) + "\n"
            inputs = [str(source), *([image] if image else []), *([str(out)] if out else [])]
            write_atomic(Path(report_path), text.encode("utf-8"), inputs=inputs)
        if strict and report.has_losses:
            lossy += 1
            click.secho(printable(f"{source}: {strict_reason(report)}"), fg="red", err=True)
    if as_json:
        click.echo(escape_lone_surrogates(json.dumps(results, ensure_ascii=False, indent=2, default=str)))
    if failed:
        raise SystemExit(EXIT_INPUT)
    if lossy:
        raise SystemExit(EXIT_CHECK_FAILED)


def _check_usage(
    plan: list[tuple[Path, Path | None]], chats: tuple[str, ...], as_json: bool, report_path: str | None
) -> bool:
    """Usage errors of the options together, before any work; True when the output goes to standard output."""
    if STDIO in chats and any(str(source) == STDIO for source, _ in plan):
        raise click.UsageError("standard input (-) can be read once: the source or a --behaviour chat")
    to_stdout = any(out is None for _, out in plan)
    if to_stdout and as_json:
        raise click.UsageError("--json prints to standard output, so the converted file cannot go there too")
    if report_path and len(plan) != 1:
        raise click.UsageError("--report writes one report: use --json for several inputs")
    return to_stdout


def _convert_one(
    source: Path,
    out: Path | None,
    target: str,
    source_format: str | None,
    image: str | None,
    image_bytes: bytes | None,
    chats: list[Any] | None,
    seed: int,
    options: dict[str, Any],
) -> tuple[Document, Conversion]:
    """Read, convert and write one input (``out`` None: standard output)."""
    doc = read_document(source, fmt=source_format)
    if options["chat_index"] is not None:  # chat N of a file holding several
        doc = select_chat(doc, options["chat_index"])
    if str(source) != STDIO:  # a chat's world bound by name, looked for beside the chat file
        bound = attach_bound_book(doc, source, limits=current_limits())
        if bound:
            click.echo(f"note: {printable(bound)}", err=True)
    # the writer's own options (embed_picture)
    writer = {k: v for k, v in options.items() if k not in ("pretty", "chat_index")}
    conversion = convert_document(
        doc, target, image=image_bytes, pretty=options["pretty"], chats=chats, seed=seed, options=writer or None
    )
    if out is None:
        if _stdout_is_terminal() and _looks_binary(conversion.data):
            raise click.UsageError(
                f"{target} output is binary: not written to a terminal (use -o FILE, or redirect standard output)"
            )
        stdout.write_bytes(conversion.data)  # whole, even to an unbuffered stream that writes part
    else:
        write_atomic(out, conversion.data, inputs=[str(source), *([image] if image else [])])
    return doc, conversion


def _stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def _looks_binary(data: bytes) -> bool:
    """PNG, CHARX and .risum bytes would garble a terminal; JSON and YAML would not."""
    head = data[:8192]
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 4  # not just a character cut at the 8 KiB boundary
    return False


def _outputs(
    sources: tuple[str, ...], target: str, output: str | None, out_dir: str | None
) -> list[tuple[Path, Path | None]]:
    """(input, output file or None for standard output) per input; every usage error before any work."""
    files = list(iter_inputs(sources))
    if output is not None and out_dir is not None:
        raise click.UsageError("-o/--output names one file and --out-dir a folder: give one of them")
    if output is not None and len(files) != 1:
        raise click.UsageError(f"-o/--output names one file but there are {len(files)} inputs: use --out-dir DIR")
    if sum(1 for f in files if str(f) == STDIO) > 1:
        raise click.UsageError("standard input (-) can be read once")
    if not files:
        raise click.UsageError("no input files found")
    if output is not None:
        return [(files[0], None if output == STDIO else Path(output))]
    if len(files) == 1 and str(files[0]) == STDIO and out_dir is None:
        return [(files[0], None)]  # `... | interop convert - --to ccv3 > out.json`
    folder = Path(out_dir) if out_dir else None
    plan = [(f, default_output(f, target, folder)) for f in files]
    seen: dict[Path, Path] = {}
    for source, out in plan:
        if out in seen:
            raise click.UsageError(f"{seen[out]} and {source} would both be written to {out}")
        seen[out] = source
    return plan
