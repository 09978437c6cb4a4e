"""``interop migrate``: a folder of mixed cards and lorebooks -> catalog + converted outputs."""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..catalog.migrate_run import RunSummary
from ..catalog.runlog import recorded_migrate
from ..errors import CatalogError
from ..jsonio import escape_lone_surrogates
from ..mappings import FATES, fate_label
from ..platform.registry import get_format, writable_formats
from ..terminal import printable_tree
from . import startup_done
from .catalog_open import open_named
from .common import NOT_CARD_SUFFIXES, AliasOption, InputPath, current_limits, db_option, iter_inputs
from .exits import EXIT_CHECK_FAILED, EXIT_INPUT, EXIT_USAGE
from .progress import Progress

if TYPE_CHECKING:
    from ..catalog.database import Catalog
    from ..catalog.distributed import RunStatus
    from ..catalog.pipeline import FileOutcome

# ``..catalog.distributed`` (the --broker runs and --status) is imported by the functions that use it:
# a run without a broker, the benchmarked case (issue 19), never loads it nor the ORM models it queries.
DEFAULT_QUEUE = "interop.migrate"
"""``catalog.distributed.DEFAULT_QUEUE``, repeated for the option's default (tests/cli check they agree)."""


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
    data = printable_tree(summary.to_json())  # file names and reasons carry card text
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
            header += "".join(f"{fate_label(f):>15}" for f in FATES)
        click.echo()
        click.echo(header)
        for name, t in data["targets"].items():
            line = f"{name:<22}{t['written']:>8}{t['skipped']:>8}{t['failed']:>8}"
            if t["fates"] is not None:
                line += "".join(f"{t['fates'].get(f, 0):>15}" for f in FATES)
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
@click.argument("sources", nargs=-1, type=InputPath(allow_dash=False))
@click.option("--to", "to", metavar="TARGET[,TARGET]", help="Target format(s), comma-separated.")
@click.option(
    "--out-dir",
    "out",
    cls=AliasOption,
    hidden_aliases=["--out"],
    type=click.Path(file_okay=False),
    help="Output folder (created if missing).",
)
@db_option
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(1, 64), help="Worker processes.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--compact", is_flag=True, help="Write JSON outputs without indentation.")
@click.option(
    "--no-embed-picture",
    "no_embed_picture",
    is_flag=True,
    help="ccv3: leave card pictures and PNG asset images out (by default: data URLs in assets). Not with --broker.",
)
@click.option("--strict", is_flag=True, help="Exit 1 if any file or conversion failed.")
@click.option(
    "--broker",
    envvar="INTEROP_BROKER",
    metavar="URL",
    help="Enqueue the files for `interop worker`s through this Celery broker (pyamqp://user@host:5672/vhost "
    "or redis://host:6379/N) instead of converting them here.",
)
@click.option(
    "--batch-size",
    default=50,
    show_default=True,
    type=click.IntRange(1, 10_000),
    help="Files per task with --broker.",
)
@click.option("--queue", default=DEFAULT_QUEUE, show_default=True, help="Broker queue, with --broker.")
@click.option("--detach", is_flag=True, help="With --broker: print the run id and return at once.")
@click.option(
    "--resend-after",
    default=900.0,
    show_default=True,
    type=click.FloatRange(1),
    metavar="SECONDS",
    help="With --broker: when no batch has committed for this long, send the missing batches again "
    "(a broker that crashed can lose a task in delivery).",
)
@click.option("--status", "status_of", metavar="RUN", help="Report on a --broker run (progress and summary).")
@click.option("--resend", is_flag=True, help="With --status RUN and --broker: send the run's missing batches again.")
def command(
    sources: tuple[str, ...],
    to: str | None,
    out: str | None,
    db: str | None,
    jobs: int,
    as_json: bool,
    compact: bool,
    no_embed_picture: bool,
    strict: bool,
    broker: str | None,
    batch_size: int,
    queue: str,
    detach: bool,
    resend_after: float,
    status_of: str | None,
    resend: bool,
) -> None:
    """Import every card and lorebook under SOURCES into the catalog and convert each to every TARGET.

    Folders are walked recursively. Documentation and scripts (*.md, *.txt,
    *.py, *.tsv, ...) are skipped quietly; any other file no format
    recognises is recorded as failed with the reason, and the run goes on.
    Outputs are named <title>-<sha256 prefix><ext> under OUT/<target>/. A run
    that is interrupted can simply be started again: finished files are not
    redone and nothing is duplicated.

    With --broker the files are sent in batches to `interop worker` processes
    (any number, on any machines that see SOURCES and OUT at the same paths and
    use the same --db); this command shows their progress from the catalog and
    prints the same summary. --status RUN reports on such a run later.
    """
    if status_of is not None:
        startup_done()  # the usual garbage collection from here on, as for a run
        if resend:
            if not broker:
                raise click.UsageError("--resend needs --broker")
            _resend(db, broker, queue, status_of)
        _report_status(db, status_of, as_json, strict)
        return
    to, out = _check_run_options(sources, to, out, broker, jobs, detach, batch_size, queue, resend_after, resend)
    if no_embed_picture and broker:
        raise click.UsageError("--no-embed-picture is for runs without --broker (workers write pictures)")
    options = {"embed_picture": False} if no_embed_picture else {}
    targets = parse_targets(to)
    out_dir = Path(out).resolve()
    files = list(iter_inputs(sources))
    _refuse_out_inside_a_source(sources, out_dir)
    catalog = open_named(db)
    startup_done()
    try:
        if broker:
            from ..catalog.distributed import make_app

            app = make_app(broker, db=catalog.url, queue=queue)
            run_id = _submit(app, catalog, broker, files, sources, targets, out_dir, not compact, batch_size)
            if detach:
                click.echo(json.dumps({"run": run_id}) if as_json else run_id)
                return
            status, summary = _follow(app, catalog, run_id, resend_after)
        else:
            status = None
            summary = _embedded(catalog, files, targets, out_dir, jobs, compact, options)
            ignored = count_ignored(sources)
            summary.files["ignored"] += ignored
            summary.files["seen"] += ignored
    finally:
        catalog.dispose()
    _print(summary, status, as_json, strict)


def _check_run_options(
    sources: tuple[str, ...],
    to: str | None,
    out: str | None,
    broker: str | None,
    jobs: int,
    detach: bool,
    batch_size: int,
    queue: str,
    resend_after: float,
    resend: bool,
) -> tuple[str, str]:
    """Usage errors of a run (not --status): what is required, and the options that go with --broker
    only. Returns --to and --out-dir, both given."""
    if resend:
        raise click.UsageError("--resend goes with --status RUN")
    if not sources or not to or not out:
        raise click.UsageError("SOURCES, --to and --out-dir are required (or --status RUN)")
    if (detach or batch_size != 50 or queue != DEFAULT_QUEUE or resend_after != 900.0) and not broker:
        raise click.UsageError("--detach, --batch-size, --queue and --resend-after go with --broker")
    if broker and jobs != 1:
        raise click.UsageError("--jobs is for runs without --broker: start more `interop worker`s instead")
    return to, out


def _refuse_out_inside_a_source(sources: tuple[str, ...], out_dir: Path) -> None:
    for source in sources:
        if out_dir == Path(source).resolve() or Path(source).resolve() in out_dir.parents:
            click.echo(
                "interop: error: --out-dir must not be inside a source folder (outputs would be read back)", err=True
            )
            sys.exit(EXIT_USAGE)


def _embedded(
    catalog: Catalog,
    files: list[Path],
    targets: tuple[str, ...],
    out_dir: Path,
    jobs: int,
    compact: bool,
    options: dict[str, Any],
) -> RunSummary:
    bar = Progress(len(files))
    done = 0

    def progress(outcome: FileOutcome, summary: RunSummary) -> None:
        nonlocal done
        done += 1
        bar.update(done, f"{summary.files['imported']} imported, {summary.files['failed']} failed")

    try:
        # Recorded in the catalog's runs, so the web page's "Recent migrations" lists it too (issue 21).
        summary = recorded_migrate(
            catalog,
            files,
            targets,
            out_dir,
            run_id=uuid.uuid4().hex,
            jobs=jobs,
            pretty=not compact,
            progress=progress,
            limits=current_limits(),
            options=options,
        )
    except KeyboardInterrupt:
        # what is committed stays; the rerun skips it (docs/catalog.md, resumable runs)
        if bar.tty:
            click.echo(err=True)
        click.echo(
            f"interop: interrupted after {done} of {len(files)} files: rerun the same command to resume", err=True
        )
        raise SystemExit(130) from None
    bar.finish()
    if summary.stale_temp_files:
        click.echo(
            f"interop: removed {len(summary.stale_temp_files)} temporary file(s) an interrupted run left in {out_dir}",
            err=True,
        )
    return summary


def _submit(
    app: Any,
    catalog: Catalog,
    broker: str,
    files: list[Path],
    sources: tuple[str, ...],
    targets: tuple[str, ...],
    out_dir: Path,
    pretty: bool,
    batch_size: int,
) -> str:
    from kombu.exceptions import OperationalError as BrokerError

    from ..catalog.distributed import submit

    try:
        return submit(
            app,
            catalog,
            files,
            sources=sources,
            targets=targets,
            out_dir=out_dir,
            pretty=pretty,
            batch_size=batch_size,
            ignored=count_ignored(sources),
        )
    except BrokerError as exc:
        raise CatalogError(f"cannot reach the broker {_safe_broker(broker)}: {exc}") from None


def _safe_broker(url: str) -> str:
    from kombu.utils.url import maybe_sanitize_url

    return str(maybe_sanitize_url(url))


def _follow(app: Any, catalog: Catalog, run_id: str, resend_after: float) -> tuple[RunStatus, RunSummary]:
    """One progress bar over the whole run, read from the catalog (the workers' committed batches)."""
    from ..catalog.distributed import resend_missing, run_status, run_summary

    status = run_status(catalog, run_id)
    click.echo(f"run {run_id}: {status.total_files} files queued (interop migrate --status {run_id})", err=True)
    bar = Progress(status.total_files)
    try:
        last_change = time.monotonic()
        while not status.finished:
            time.sleep(0.25)
            before = status.batches
            status = run_status(catalog, run_id)
            if status.batches != before:
                last_change = time.monotonic()
            elif time.monotonic() - last_change > resend_after:
                sent = resend_missing(app, catalog, run_id)
                click.echo(
                    f"\ninterop: no batch committed for {resend_after:.0f} s: sent {sent} missing batches again",
                    err=True,
                )
                last_change = time.monotonic()
            bar.update(status.done_files, f"{status.batches}/{status.batch_count} batches")
        bar.finish()
    except KeyboardInterrupt:
        click.echo(f"interop: stopped following; the workers go on: interop migrate --status {run_id}", err=True)
        raise SystemExit(130) from None
    return run_summary(catalog, run_id)


def _resend(db: str | None, broker: str, queue: str, run_id: str) -> None:
    from ..catalog.distributed import make_app, resend_missing

    catalog = open_named(db, create=False)
    try:
        sent = resend_missing(make_app(broker, db=catalog.url, queue=queue), catalog, run_id)
    finally:
        catalog.dispose()
    click.echo(f"run {run_id}: sent {sent} uncommitted batches again", err=True)


def _report_status(db: str | None, run_id: str, as_json: bool, strict: bool) -> None:
    from ..catalog.distributed import run_summary

    catalog = open_named(db, create=False)
    try:
        status, summary = run_summary(catalog, run_id)
    finally:
        catalog.dispose()
    if not as_json:
        click.echo(
            f"run        {status.id}: {status.state}, {status.done_files} of {status.total_files} files "
            f"({status.batches}/{status.batch_count} batches), started {status.created_at:%Y-%m-%d %H:%M:%S} UTC"
        )
    _print(summary, status, as_json, strict)


def _print(summary: RunSummary, status: RunStatus | None, as_json: bool, strict: bool) -> None:
    if as_json:
        data = summary.to_json()
        if status is not None:
            data["run"] = status.to_json()
        click.echo(escape_lone_surrogates(json.dumps(data, ensure_ascii=False, indent=2)))
    else:
        print_summary(summary)
    if summary.nothing_done:
        click.echo(f"interop: error: nothing was migrated: all {len(summary.failures)} attempts failed", err=True)
        sys.exit(EXIT_INPUT)
    if strict and (summary.files["failed"] or any(t.failed for t in summary.targets.values())):
        sys.exit(EXIT_CHECK_FAILED)
