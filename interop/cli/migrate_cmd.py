"""``interop migrate``: a folder of mixed cards and lorebooks -> catalog + converted outputs."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import click

from ..catalog.database import open_catalog
from ..catalog.pipeline import FileOutcome
from ..catalog.run import RunSummary, migrate
from ..formats.registry import get_format, writable_formats
from . import EXIT_CHECK_FAILED, EXIT_USAGE
from .common import NOT_CARD_SUFFIXES, db_option, iter_inputs


def parse_targets(raw: str) -> tuple[str, ...]:
    """``ccv3,sillytavern-world`` -> canonical format names (aliases accepted), each once, in order."""
    names: list[str] = []
    writable = {f.name for f in writable_formats()}
    for part in (p.strip() for p in raw.split(",")):
        if not part:
            continue
        try:
            name = get_format(part).name
        except KeyError:
            name = part
        if name not in writable:
            raise click.BadParameter(
                f"{part!r} is not a writable format (choose from {', '.join(sorted(writable))})", param_hint="--to"
            )
        if name not in names:
            names.append(name)
    if not names:
        raise click.BadParameter("no target format given", param_hint="--to")
    return tuple(names)


def count_ignored(sources: tuple[str, ...]) -> int:
    """Files a folder walk leaves out as documentation or tooling (README.md, make_samples.py, ...)."""
    ignored = 0
    for raw in sources:
        if Path(raw).is_dir():
            for _root, dirs, names in os.walk(raw):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                ignored += sum(
                    1 for n in names if not n.startswith(".") and Path(n).suffix.lower() in NOT_CARD_SUFFIXES
                )
    return ignored


def print_summary(summary: RunSummary) -> None:
    data = summary.to_json()
    files = data["files"]
    click.echo(
        f"files      {files['seen']} seen: {files['imported']} imported, {files['duplicate']} duplicate, "
        f"{files['unchanged']} unchanged, {files['ignored']} ignored, {files['failed']} failed"
    )
    click.echo(
        f"items      {data['cards']} cards ({data['embedded_lorebooks']} with a lorebook), "
        f"{data['lorebooks']} lorebooks, {data['entries']} entries"
    )
    if data["formats"]:
        click.echo("formats    " + ", ".join(f"{k} {v}" for k, v in data["formats"].items()))
    if data["targets"]:
        header = f"{'target':<22}{'written':>8}{'skipped':>8}{'failed':>8}"
        if summary.fidelity:
            header += "".join(f"{f:>13}" for f in ("kept", "translated", "stashed", "approximated", "lost"))
        click.echo()
        click.echo(header)
        for name, t in data["targets"].items():
            line = f"{name:<22}{t['written']:>8}{t['skipped']:>8}{t['failed']:>8}"
            if t["fates"] is not None:
                line += "".join(f"{n:>13}" for n in t["fates"].values())
            click.echo(line)
            for reason, count in t["skip_reasons"].items():
                click.echo(f"  skipped {count}: {reason}")
        if not summary.fidelity:
            click.echo("(fidelity report not available in this installation: fates not recorded)")
    if data["failures"]:
        click.echo()
        click.echo(f"failures ({len(data['failures'])}):")
        for failure in data["failures"]:
            click.echo(f"  {failure['file']}: {failure['reason']}")
    t = data["timings_ms"]
    click.echo()
    click.echo(
        f"time       {data['wall_s']:.2f} s, {data['files_per_s']:.1f} files/s (ms spent: "
        + ", ".join(f"{k} {v:.0f}" for k, v in t.items())
        + ")"
    )


@click.command("migrate")
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--to", "to", required=True, metavar="TARGET[,TARGET]", help="Target format(s), comma-separated.")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), help="Output folder.")
@db_option
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(1, 64), help="Worker processes.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--compact", is_flag=True, help="Write JSON outputs without indentation.")
@click.option("--strict", is_flag=True, help="Exit 1 if any file or conversion failed.")
def command(
    sources: tuple[str, ...], to: str, out: str, db: str | None, jobs: int, as_json: bool, compact: bool, strict: bool
) -> None:
    """Import every card and lorebook under SOURCES into the catalog and convert each to every TARGET.

    Folders are walked recursively. Documentation and scripts (*.md, *.txt,
    *.py, *.tsv, ...) are skipped quietly; any other file no format
    recognises is recorded as failed with the reason, and the run goes on.
    Outputs are named <title>-<sha256 prefix><ext> under OUT/<target>/. A run
    that is interrupted can simply be started again: finished files are not
    redone and nothing is duplicated.
    """
    targets = parse_targets(to)
    out_dir = Path(out).resolve()
    files = list(iter_inputs(sources))
    for source in sources:
        if out_dir == Path(source).resolve() or Path(source).resolve() in out_dir.parents:
            click.echo(
                "interop: error: --out must not be inside a source folder (outputs would be read back)", err=True
            )
            sys.exit(EXIT_USAGE)
    catalog = open_catalog(db)
    try:
        with click.progressbar(
            length=len(files), label="migrating", file=sys.stderr, show_pos=True, item_show_func=lambda s: s
        ) as bar:
            started = time.perf_counter()

            def progress(outcome: FileOutcome, summary: RunSummary) -> None:
                rate = summary.files["seen"] / max(1e-9, time.perf_counter() - started)
                bar.update(
                    1,
                    f"{summary.files['imported']} imported, {summary.files['failed']} failed, {rate:.0f} files/s",
                )

            summary = migrate(catalog, files, targets, out_dir, jobs=jobs, pretty=not compact, progress=progress)
        ignored = count_ignored(sources)
        summary.files["ignored"] += ignored
        summary.files["seen"] += ignored
    finally:
        catalog.dispose()
    if as_json:
        click.echo(json.dumps(summary.to_json(), ensure_ascii=False, indent=2))
    else:
        print_summary(summary)
    if strict and (summary.files["failed"] or any(t.failed for t in summary.targets.values())):
        sys.exit(EXIT_CHECK_FAILED)
