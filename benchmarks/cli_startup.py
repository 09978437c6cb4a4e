"""`interop --help` start-up time: main against this tree, in one run (issue 21: target < 0.3 s).

Times ``interop --help`` (and ``interop convert --help``) as fresh processes,
alternating the two trees run by run so that the shared machine's load falls on
both alike, and prints the median and the best wall time of each and PASS/FAIL
for the median of this tree against the target. The wall time is what a user
waits for; CPU time (user+sys of the child) is printed too, as it is less
sensitive to other sessions' load on this 2-core machine.

The trees are put first on ``PYTHONPATH``; both are started through the same
``-c`` line, since main has no ``python -m interop`` yet.

Run: ``python benchmarks/cli_startup.py [--main /work/main] [--runs 15]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_S = 0.3
HERE = Path(__file__).resolve().parents[1]
LAUNCH = "import sys; sys.argv[0] = 'interop'; from interop.cli import main; main()"


def one_run(tree: Path, args: list[str]) -> tuple[float, float]:
    """(wall seconds, child CPU seconds) of one ``interop ARGS`` process started from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # -P: no current folder on sys.path, which would otherwise put this tree before PYTHONPATH's
    subprocess.run([sys.executable, "-P", "-c", LAUNCH, *args], env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--main", type=Path, default=Path("/work/main"), help="Checkout of main to compare with.")
    parser.add_argument("--runs", type=int, default=15, help="Processes per tree and command.")
    opts = parser.parse_args()
    trees = {"main": opts.main.resolve(), "now": HERE}
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}, {opts.runs} runs each")
    verdict = 0
    for args in (["--help"], ["convert", "--help"]):
        for tree in trees.values():  # warm the page cache and write .pyc files; not timed
            one_run(tree, args)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for _ in range(opts.runs):
            for name, tree in trees.items():
                times[name].append(one_run(tree, args))
        for name, runs in times.items():
            walls = [w for w, _ in runs]
            cpus = [c for _, c in runs]
            median = statistics.median(walls)
            line = (
                f"interop {' '.join(args):<16} {name:<5} wall median {median * 1000:6.0f} ms, "
                f"best {min(walls) * 1000:6.0f} ms; CPU median {statistics.median(cpus) * 1000:6.0f} ms"
            )
            if name == "now" and args == ["--help"]:
                ok = median < TARGET_S
                verdict |= 0 if ok else 1
                line += f"  {'PASS' if ok else 'FAIL'} (< {TARGET_S * 1000:.0f} ms)"
            print(line)
    return verdict


if __name__ == "__main__":
    sys.exit(main())
