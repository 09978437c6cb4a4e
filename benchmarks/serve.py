"""Load benchmark of ``interop serve``: concurrent conversions, and a stream of hostile uploads.

    python benchmarks/serve.py                        # 32 clients, 2 workers, 10 s per phase
    python benchmarks/serve.py --clients 8 --clients 32 --duration 5 --hostile 1000

1. In-process baseline: ``read_bytes`` + ``convert_document`` (write + fidelity
   report, exactly what ``POST /convert`` runs) on the typical requests, in as
   many processes as the server has workers, for ``--duration`` seconds: the
   conversion rate those cores reach without HTTP.
2. Starts ``interop serve --workers 2`` on a free loopback port and runs N
   concurrent async httpx clients (closed loop: each sends its next request
   when the answer arrives, each with its own connection) posting the
   typical requests for ``--duration`` seconds after a warm-up; prints
   throughput (per second, and per CPU second the server spent), p50/p90/p99
   latency and the peak resident memory of the server (master + workers,
   sampled from /proc). The same load is then sent by minimal asyncio-stream
   clients: httpx spends about as much CPU per request as the server does,
   and client and server share the same two cores, so this second run shows
   what the server itself sustains.
3. Sends ``--hostile`` hostile uploads in a row (zip bomb, zip-slip, truncated
   PNG, 5,000-deep JSON, garbage, oversized body, wrong target) and checks each
   got its 4xx, that the server still answers, and its memory before and after.

Typical request: a CCv3/CCv2 JSON card of 3-5 KB with a 3-entry lorebook (the
project corpus's Ilse cards, ``corpus/cards``; peers.md's typical card is
~5.7 KB with 5 entries) converted to one of ccv2, sillytavern-card,
risu-lorebook and agnai-card, with the fidelity report (``Accept:
application/json``, so the report travels in the same answer).

Targets (PASS/FAIL): p99 < 50 ms at 32 concurrent clients; throughput >= 70 %
of the in-process rate on the same cores; after the hostile uploads the server
answers and its memory grew by < 20 MB. The clients run on the same machine
(and so on the same cores) as the server: their CPU time is printed too.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import multiprocessing
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
TYPICAL_FILES = ["ilse_v3.json", "ilse_v2_st_mirror.json"]
TARGETS = ["ccv2", "sillytavern-card", "risu-lorebook", "agnai-card"]
P99_TARGET_MS = 50.0
RATIO_TARGET = 0.70
MEMORY_GROWTH_MB = 20.0


def typical_requests() -> list[tuple[str, bytes, str]]:
    cards = REPO / "corpus" / "cards"
    return [(name, (cards / name).read_bytes(), target) for name in TYPICAL_FILES for target in TARGETS]


# --- 1. in-process baseline -------------------------------------------------------------------------


def _convert_for(duration: float, out: Any) -> None:
    """Convert for ``duration`` seconds; report (conversions, wall seconds, CPU seconds)."""
    from interop.api import read_bytes
    from interop.conversion import convert_document

    requests = typical_requests()
    for name, data, target in requests:  # warm caches (mapping tables, regexes)
        convert_document(read_bytes(data, filename=name), target)
    done, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < duration:
        name, data, target = requests[done % len(requests)]
        result = convert_document(read_bytes(data, filename=name), target)
        json.dumps(result.report.to_json())
        done += 1
    out.put((done, time.perf_counter() - start, time.process_time() - cpu))


def in_process_rate(processes: int, duration: float) -> tuple[float, float]:
    """(conversions per second of wall time, summed over the processes; conversions per CPU second)."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    workers = [ctx.Process(target=_convert_for, args=(duration, queue)) for _ in range(processes)]
    for w in workers:
        w.start()
    runs = [queue.get() for _ in workers]
    for w in workers:
        w.join()
    return sum(n / wall for n, wall, _cpu in runs), sum(n for n, _w, _c in runs) / sum(c for _n, _w, c in runs)


# --- server and memory --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def tree_pids(root: int) -> list[int]:
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    todo.extend(int(c) for c in handle.read().split())
        except OSError:
            continue
    return pids


def cpu_seconds(root: int) -> float:
    """User + system CPU time of the server's processes so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in tree_pids(root):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / ticks


def rss_mb(root: int) -> float:
    """Resident memory of the server: master and worker processes."""
    total = 0
    for pid in tree_pids(root):
        try:
            with open(f"/proc/{pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def start_server(workers: int, tmp: Path, max_upload_mb: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable, "-c", "from interop.cli import main; main()", "serve",
            "--port", str(port), "--workers", str(workers), "--max-upload-mb", str(max_upload_mb),
            "--db", f"sqlite:///{tmp / 'catalog.sqlite'}",
        ],
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/api/v1/formats", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start")


# --- 2. load ------------------------------------------------------------------------------------------


Encoded = tuple[str, bytes, dict[str, str]]


def encoded_requests() -> list[Encoded]:
    """Each typical request as multipart bytes, encoded once: the clients measure the server, not the encoder."""
    out = []
    for name, data, target in typical_requests():
        request = httpx.Request("POST", "http://x/", files={"file": (name, data)})
        body = request.read()
        headers = {"content-type": request.headers["content-type"], "accept": "application/json"}
        out.append((f"/api/v1/convert?to={target}", body, headers))
    return out


async def _client(http: httpx.AsyncClient, requests: list[Encoded], offset: int, stop: float, out: list[float]) -> int:
    errors, n = 0, offset
    while time.perf_counter() < stop:
        url, body, headers = requests[n % len(requests)]
        n += 1
        start = time.perf_counter()
        response = await http.post(url, content=body, headers=headers)
        out.append(time.perf_counter() - start)
        errors += response.status_code != 200
    return errors


async def _httpx_client(
    base: str, requests: list[Encoded], offset: int, times: tuple[float, float], out: list[float]
) -> int:
    """One client: its own httpx.AsyncClient (one connection), warm-up then measured requests."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        await _client(http, requests, offset, times[0], [])
        return await _client(http, requests, offset, times[1], out)


async def _raw_client(
    base: str, requests: list[Encoded], offset: int, times: tuple[float, float], out: list[float]
) -> int:
    """The same requests over a bare asyncio stream (keep-alive HTTP/1.1): a client that costs almost nothing."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    errors, n = 0, offset
    try:
        for stop, sink in ((times[0], []), (times[1], out)):
            while time.perf_counter() < stop:
                url, body, headers = requests[n % len(requests)]
                n += 1
                head = f"POST {url} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {len(body)}\r\n"
                head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
                start = time.perf_counter()
                writer.write(head.encode() + body)
                status = await reader.readline()
                length = 0
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                await reader.readexactly(length)
                sink.append(time.perf_counter() - start)
                errors += sink is out and b" 200 " not in status
    finally:
        writer.close()
    return errors


async def load(
    base: str, clients: int, duration: float, warmup: float, server_cpu: Any, raw: bool = False
) -> tuple[list[float], float, int, float]:
    """Warm up, then measure: (latencies, seconds, errors, server CPU seconds spent in the measured part).

    Every client warms up until the same instant, then all measure for ``duration``."""
    requests = encoded_requests()
    client = _raw_client if raw else _httpx_client
    latencies: list[float] = []
    cpu_at_start: list[float] = []

    async def mark() -> None:
        await asyncio.sleep(max(0.0, warm_end - time.perf_counter()))
        cpu_at_start.append(server_cpu())

    warm_end = time.perf_counter() + warmup
    times = (warm_end, warm_end + duration)
    results = await asyncio.gather(mark(), *(client(base, requests, i, times, latencies) for i in range(clients)))
    elapsed = time.perf_counter() - warm_end
    return latencies, elapsed, sum(results[1:]), server_cpu() - cpu_at_start[0]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# --- 3. hostile uploads -------------------------------------------------------------------------------


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


def hostile_requests(max_upload_mb: int) -> list[tuple[str, str, bytes, int]]:
    card = (REPO / "corpus" / "cards" / "ilse_v3.json").read_bytes()
    png = _png_card()
    return [
        ("zip bomb", "convert?to=ccv3", _zip({"card.json": card, "assets/z.bin": b"\0" * (64 << 20)}), 413),
        ("zip-slip", "convert?to=ccv3", _zip({"card.json": card, "../../x.sh": b"x"}), 400),
        ("truncated png", "inspect", png[: len(png) // 2], 400),
        ("deep json", "validate", b"[" * 5000 + b"]" * 5000, 413),
        ("garbage", "inspect", os.urandom(4096), 400),
        ("oversized", "inspect", b" " * ((max_upload_mb << 20) + 1), 413),
        ("wrong target", "convert?to=docx", card, 400),
        ("truncated json", "roundtrip?via=ccv2", card[: len(card) // 3], 400),
    ]


def _png_card() -> bytes:
    from interop.api import read_bytes, write

    return write(read_bytes((REPO / "corpus" / "cards" / "ilse_v3.json").read_bytes()), "png")


def hostile(base: str, root: int, count: int, max_upload_mb: int) -> tuple[float, float, int, bool]:
    kinds = hostile_requests(max_upload_mb)
    wrong = 0
    with httpx.Client(base_url=base, timeout=60) as http:
        for i in range(50):  # warm-up: first-use allocations are not growth
            _name, endpoint, data, _status = kinds[i % len(kinds)]
            http.post(f"/api/v1/{endpoint}", files={"file": ("x", data)})
        before = rss_mb(root)
        for i in range(count):
            _name, endpoint, data, status = kinds[i % len(kinds)]
            response = http.post(f"/api/v1/{endpoint}", files={"file": ("x", data)})
            wrong += response.status_code != status or "error" not in response.json()
        after = rss_mb(root)
        alive = http.get("/api/v1/formats").status_code == 200
    return before, after, wrong, alive


async def measured(
    base: str, root: int, clients: int, duration: float, warmup: float, raw: bool
) -> tuple[list[float], float, int, float, float]:
    """The load run, with the server's resident memory sampled every 100 ms meanwhile.

    Returns (latencies, seconds, errors, server CPU seconds, peak server MB)."""
    done = asyncio.Event()

    async def sample() -> float:
        top = 0.0
        while not done.is_set():
            top = max(top, rss_mb(root))
            await asyncio.sleep(0.1)
        return top

    sampler = asyncio.create_task(sample())
    latencies, elapsed, errors, cpu = await load(base, clients, duration, warmup, lambda: cpu_seconds(root), raw)
    done.set()
    return latencies, elapsed, errors, cpu, await sampler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, action="append", help="Concurrent clients (repeatable; default 32).")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--duration", type=float, default=10.0, help="Seconds per measured phase.")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--hostile", type=int, default=1000)
    parser.add_argument("--max-upload-mb", type=int, default=8)
    args = parser.parse_args()
    clients = args.clients or [32]
    print(f"machine: {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f} (shared machine: timings are noisy)")

    rate, rate_cpu = in_process_rate(args.workers, args.duration)
    print(
        f"in-process: {rate:.0f} conversions/s in {args.workers} processes, {rate_cpu:.0f} per CPU second "
        "(read + convert + fidelity report as JSON)"
    )

    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start_server(args.workers, Path(tmp), args.max_upload_mb)
        root = proc.pid
        try:
            peak = rss_mb(root)
            print(f"server: {args.workers} workers, {peak:.0f} MB resident at start")
            head = ("req/s", "vs in-proc", "req/CPU s", "vs in-proc", "p50 ms", "p90 ms", "p99 ms")
            print(
                f"\n{'client':>7} {'clients':>8} "
                + " ".join(f"{h:>10}" for h in head)
                + f"{'errors':>7} {'peak MB':>8} {'client CPU s':>13}"
            )
            verdicts: list[tuple[bool, float, float, float]] = []
            for raw in (False, True):
                for n in clients:
                    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
                    latencies, elapsed, errors, server_cpu, top = asyncio.run(
                        measured(base, root, n, args.duration, args.warmup, raw)
                    )
                    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
                    client_cpu = sum(getattr(cpu_after, f) - getattr(cpu_before, f) for f in ("ru_utime", "ru_stime"))
                    throughput = len(latencies) / elapsed
                    p50, p90, p99 = (percentile(latencies, q) * 1000 for q in (0.5, 0.9, 0.99))
                    per_cpu = len(latencies) / server_cpu if server_cpu else 0.0
                    print(
                        f"{'raw' if raw else 'httpx':>7} {n:>8} {throughput:>10.0f} {throughput / rate:>10.0%} "
                        f"{per_cpu:>10.0f} {per_cpu / rate_cpu:>10.0%} "
                        f"{p50:>10.1f} {p90:>10.1f} {p99:>10.1f}{errors:>7} {top:>8.0f} {client_cpu:>13.1f}"
                    )
                    failed |= errors > 0
                    if n == 32:
                        verdicts.append((raw, p99, throughput, per_cpu))
            for raw, p99, throughput, per_cpu in verdicts:
                who = "minimal asyncio clients (information)" if raw else "httpx clients (the target)"
                ok_p99, ok_ratio = p99 < P99_TARGET_MS, throughput >= RATIO_TARGET * rate
                print(f"{who}:")
                print(f"  p99 < {P99_TARGET_MS:.0f} ms at 32 clients: {'PASS' if ok_p99 else 'FAIL'} ({p99:.1f} ms)")
                print(
                    f"  throughput >= {RATIO_TARGET:.0%} of in-process: {'PASS' if ok_ratio else 'FAIL'} "
                    f"({throughput:.0f} vs {rate:.0f}/s = {throughput / rate:.0%}; per server CPU second "
                    f"{per_cpu:.0f} vs {rate_cpu:.0f} = {per_cpu / rate_cpu:.0%})"
                )
                if not raw:
                    failed |= not (ok_p99 and ok_ratio)

            if args.hostile:
                before, after, wrong, alive = hostile(base, root, args.hostile, args.max_upload_mb)
                growth = after - before
                ok = alive and not wrong and growth < MEMORY_GROWTH_MB
                print(
                    f"\nhostile: {args.hostile} uploads (zip bomb, zip-slip, truncated PNG/JSON, deep JSON, garbage, "
                    f"oversized, wrong target): {wrong} unexpected answers; server answering: {alive}; "
                    f"memory {before:.0f} MB -> {after:.0f} MB ({growth:+.1f} MB): {'PASS' if ok else 'FAIL'}"
                )
                failed |= not ok
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
