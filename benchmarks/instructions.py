"""Instructions per migrated file, counted by valgrind (callgrind): issue 19's figures where CPU time is noise.

    python benchmarks/instructions.py                          # this tree
    python benchmarks/instructions.py --baseline /path/to/other/tree --files 40

On a shared VM the CPU time of one run swings by up to half between runs (the
neighbours share the caches and the cores' clocks), and a machine can be twice
as fast per instruction as another. Instruction counts do not move: they compare
two trees exactly, and turn a change into "x M instructions fewer per file".
What they leave out is the kernel (file creation, page cache), which
``benchmarks/migrate.py`` measures in CPU time.

Two measurements per tree, on the typical cards of ``benchmarks/migrate.py``:

1. The whole ``interop migrate --to ccv3,lorebook_v3`` process on SQLite, over one
   file and over ``--files`` files, bytecode cached as an installed interop has it:
   the fixed cost (start-up, imports, catalog) and the steady cost per file. The
   catalog's batches are cut every 100 files only (``MIGRATE_BY_COUNT``), as in a real
   run: valgrind's slowness would otherwise trip the 0.5 s limit after every file or two.
2. The phases of a file in one process (``phase_workload.py``), warmed up on 20
   files: each phase's cost is the difference between runs that stop after it
   (read, catalog rows, conversion to both targets, fidelity report, report JSON);
   the report's share of a conversion is report / (convert + report), as in
   ``benchmarks/migrate.py``.

Needs valgrind (``apt-get install valgrind``). About 2-4 minutes per tree on two cores.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
TARGETS = "ccv3,lorebook_v3"
PHASES = ("none", "read", "record", "convert", "report", "json")
WARM_UP = 20  # phase_workload.py's warm-up files (every phase)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=40, help="typical files of the whole-process run (default 40)")
    parser.add_argument("--phase-files", type=int, default=100, help="typical files of the phase runs (default 100)")
    parser.add_argument("--baseline", type=Path, help="another source tree to count the same way")
    parser.add_argument("--workdir", type=Path, help="keep the generated cards and counts here")
    return parser.parse_args()


def env_for(tree: Path, work: Path) -> dict[str, str]:
    """Run ``tree``'s interop from bytecode compiled once (under ``work``), as an installed copy does."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache" / str(abs(hash(str(tree)))))
    return env


def counted(cmd: list[str], env: dict[str, str], cwd: Path) -> int:
    """Instructions ``cmd`` executed under callgrind (all threads of the process)."""
    result = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"Collected : (\d+)", result.stderr)
    if found is None:
        raise SystemExit(f"callgrind gave no count for {' '.join(cmd)}:\n{result.stderr[-2000:]}")
    return int(found.group(1))


# ``interop migrate`` with the catalog's batches cut by count only. A run commits every 100 files
# or every 0.5 s; under valgrind a file takes ~0.3 s, so the time limit would commit every file or
# two and charge each file ~0.9 M of SQLite commit work that a real run (100 files in < 0.5 s) shares.
MIGRATE_BY_COUNT = """
import sys
from interop.catalog import recorder
init = recorder.BatchRecorder.__init__
def by_count(self, *args, **kwargs):
    kwargs["max_seconds"] = 1e9
    init(self, *args, **kwargs)
recorder.BatchRecorder.__init__ = by_count
from interop.cli import main
sys.argv = ["interop", *sys.argv[1:]]
main()
"""


def migrate_cmd(folder: Path, run: Path) -> list[str]:
    shutil.rmtree(run, ignore_errors=True)
    run.mkdir(parents=True)
    return [
        sys.executable, "-c", MIGRATE_BY_COUNT, "migrate", str(folder), "--to", TARGETS,
        "--out-dir", str(run / "out"), "--db", f"sqlite:///{run / 'catalog.sqlite'}",
    ]  # fmt: skip


def whole_process(tree: Path, work: Path, one: Path, many: Path, n: int) -> tuple[float, float]:
    """(fixed M, steady M per file) of ``interop migrate``: the 1-file run, and the n-file run's excess per file."""
    env = env_for(tree, work)
    run = work / "run"
    subprocess.run(migrate_cmd(one, run), env=env, cwd=work, capture_output=True, check=True)  # compile bytecode
    fixed = counted(migrate_cmd(one, run), env, work)
    total = counted(migrate_cmd(many, run), env, work)
    return fixed / 1e6, (total - fixed) / (n - 1) / 1e6


def phases(tree: Path, work: Path, folder: Path, n: int) -> dict[str, float]:
    """M instructions per file of each phase (the difference between runs stopping after it and before it)."""
    env = env_for(tree, work)
    script = [sys.executable, str(HERE / "phase_workload.py"), str(folder), TARGETS]
    subprocess.run([*script, "json"], env=env, cwd=work, capture_output=True, check=True)  # compile bytecode
    with ThreadPoolExecutor(2) as pool:
        counts = dict(zip(PHASES, pool.map(lambda p: counted([*script, p], env, work), PHASES), strict=True))
    return {p: (counts[p] - counts[PHASES[i - 1]]) / (n - WARM_UP) / 1e6 for i, p in enumerate(PHASES) if i}


def report_share(split: dict[str, float]) -> float:
    report = split["report"] + split["json"]
    return 100 * report / (report + split["convert"])


def measure(tree: Path, work: Path, cards: dict[str, Path], args: argparse.Namespace) -> dict[str, float]:
    fixed, steady = whole_process(tree, work, cards["one"], cards["many"], args.files)
    split = phases(tree, work, cards["phases"], args.phase_files)
    return {"fixed": fixed, "steady": steady, **split, "share": report_share(split)}


def main() -> int:
    args = parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)")
        return 2
    if args.files < 2 or args.phase_files <= WARM_UP:
        print(f"--files must be >= 2 and --phase-files > {WARM_UP}")
        return 2
    sys.path.insert(0, str(HERE))
    from migrate import generate_typical

    work = args.workdir or Path(tempfile.mkdtemp(prefix="interop-instructions-"))
    cards = {"one": work / "typical-1", "many": work / f"typical-{args.files}", "phases": work / "typical-phases"}
    for key, n in (("one", 1), ("many", args.files), ("phases", args.phase_files)):
        shutil.rmtree(cards[key], ignore_errors=True)
        generate_typical(cards[key], n)
    trees = {"this tree": ROOT}
    if args.baseline is not None:
        trees = {"baseline": args.baseline.resolve(), **trees}
    try:
        results = {name: measure(tree, work, cards, args) for name, tree in trees.items()}
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    rows = [
        ("fixed cost (1-file run), M", "fixed", "{:,.0f}"),
        ("steady state, M per file", "steady", "{:.2f}"),
        ("  read, M per file", "read", "{:.3f}"),
        ("  catalog rows", "record", "{:.3f}"),
        ("  conversion (2 targets)", "convert", "{:.3f}"),
        ("  fidelity report", "report", "{:.3f}"),
        ("  report JSON", "json", "{:.3f}"),
        ("report share of a conversion, %", "share", "{:.0f}"),
    ]
    print(f"typical cards, interop migrate --to {TARGETS}, SQLite, instructions (valgrind callgrind)")
    print(f"{'':<34}" + "".join(f"{name:>14}" for name in results) + ("      change" if len(results) == 2 else ""))
    for label, key, fmt in rows:
        values = [r[key] for r in results.values()]
        line = f"{label:<34}" + "".join(f"{fmt.format(v):>14}" for v in values)
        if len(values) == 2 and key != "share" and values[0]:
            line += f"  {100 * (values[1] - values[0]) / values[0]:+9.1f} %"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
