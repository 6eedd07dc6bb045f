"""`geco serve` under load: throughput and latency at 1, 8 and 32 concurrent clients, with 1
and 2 workers, against ``explain_many`` on the same rows; a worker killed mid-load; hostile
requests among good ones; the server's memory over 10^4 requests.

    python benchmarks/bench_serve.py [--seconds 20] [--rf500] [--levels 1,8,32] [--memory 10000]
                                     [--memory-only] [--no-readme]

Adult, ``Pipeline(OneHotEncoder, RandomForestClassifier(100, max_depth=10))`` (``--rf500``: 500
trees too), the Explainer built over the whole data with its PLAF program and saved once. The
load generator (asyncio + httpx, in this process) talks to 127.0.0.1 only: each of ``c``
clients sends one undesired row at a time (``random_state`` 0, rows drawn with seed 0) and
waits for the answer, for ``--seconds`` per level or ``--max-requests`` requests, whichever
ends first. The client shares the machine's cores with the server. Writes its tables between
the "bench_serve" markers of ``benchmarks/README.md``.

The memory run (``--memory`` requests, 0: none; ``--memory-only``: nothing else) starts a fresh
2-worker service on RF-100 and sends each request once, in order, from 4 clients: a distinct
undesired row each (seed derived by the service from the row), one in ten a hostile request
(the kinds of the hostile run), with cheap search knobs (``MEMORY_KNOBS``: the request path,
validation, search and answer are all exercised; the search is short). Every ``--sample-every``
answers it reads the resident memory (RSS, psutil) of the server and each worker, then reports
RSS after the warm-up (``--warmup`` answers), at the end, the least-squares slope per 1,000
requests after the warm-up, and "flat" when the end is within 5 % of the warm-up value and no
worker was replaced (a restarted worker would hide a leak). Its table has markers of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_batch import model_path
from readme_table import avx512, cpu_name

README = Path(__file__).with_name("README.md")
ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- bench_serve tables: begin -->", "<!-- bench_serve tables: end -->"
MEM_BEGIN, MEM_END = "<!-- bench_serve memory: begin -->", "<!-- bench_serve memory: end -->"
HOST = "127.0.0.1"  # loopback only
#: the memory run's search knobs: short searches, so 10^4 requests fit in minutes
MEMORY_KNOBS = {
    "k": 1,
    "q": 20,
    "m_init": 5,
    "min_generations": 1,
    "max_generations": 3,
    "patience": 1,
}
#: growth of the server's RSS from the warm-up to the end below which memory counts as flat
FLAT = 0.05


# ---------------------------------------------------------------------------- the server
@dataclass
class Server:
    process: subprocess.Popen
    url: str
    log: Path

    def worker_pids(self) -> set[int]:
        """The live worker processes (the server itself with one worker)."""
        pid = self.process.pid
        out = set()
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                try:
                    cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
                    state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
                except OSError:
                    continue
                if b"resource_tracker" not in cmdline and state != "Z":
                    out.add(int(child))
        return out or {pid}

    def rss_mb(self) -> float:
        """Resident memory of the server and its workers, MB."""
        total = 0
        for pid in {self.process.pid} | self.worker_pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except OSError:
                pass
        return total / 1024

    def ready_pids(self) -> set[int]:
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return {json.loads(x)["pid"] for x in lines if '"event":"ready"' in x}

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start(explainer: Path, workers: int, tmp: Path, max_body: int, env_changes: dict[str, str | None] | None = None) -> Server:
    """``geco serve`` on a free loopback port, returned once every worker is ready;
    ``env_changes``: environment variables to set for it (None: to unset)."""
    import httpx

    port = free_port()
    log = tmp / f"access-{port}.jsonl"
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    for name, value in (env_changes or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    proc = subprocess.Popen(
        [sys.executable, "-m", "geco", "serve", str(explainer), "--host", HOST, "--port", str(port),
         "--workers", str(workers), "--access-log", str(log), "--max-body", str(max_body)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    server = Server(proc, f"http://{HOST}:{port}", log)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"geco serve exited {proc.returncode}")
        if len(server.ready_pids()) >= workers:
            try:
                if httpx.get(f"{server.url}/ready", timeout=2).status_code == 200:
                    return server
            except httpx.HTTPError:
                pass
        time.sleep(0.2)
    server.stop()
    raise RuntimeError("geco serve did not get ready in 180 s")


# ---------------------------------------------------------------------------- the load
@dataclass
class Load:
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)  # of 2xx answers, s
    refused: list[float] = field(default_factory=list)  # of 4xx answers, s
    errors: int = 0  # transport errors and 5xx
    by_kind: dict[str, dict[int | str, int]] = field(default_factory=dict)  # kind -> status -> n

    def count(self, kind: str, status: int | str) -> None:
        d = self.by_kind.setdefault(kind, {})
        d[status] = d.get(status, 0) + 1

    def quantile(self, q: float, refused: bool = False) -> float:
        """A quantile of the 2xx (or 4xx) answers' latencies, ms."""
        values = self.refused if refused else self.latencies
        return float(np.quantile(values, q)) * 1e3 if values else float("nan")

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0


async def post(c, url: str, kind: str, body: bytes, load: Load) -> None:
    """Send one request and count its answer in ``load``."""
    import httpx

    t = time.perf_counter()
    try:
        r = await c.post(
            f"{url}/explain", content=body, headers={"Content-Type": "application/json"}
        )
    except httpx.HTTPError:
        load.errors += 1
        load.count(kind, "transport error")
        return
    load.count(kind, r.status_code)
    if r.status_code < 300:
        load.latencies.append(time.perf_counter() - t)
    elif r.status_code < 500:
        load.refused.append(time.perf_counter() - t)
    else:
        load.errors += 1


async def run_load(url, bodies, clients, seconds, max_requests, on_tick=None) -> Load:
    """``clients`` closed-loop clients sending ``bodies`` (kind, bytes) in turn."""
    import httpx

    load = Load()
    pick = random.Random(0)  # the bodies in a fixed random order
    sent = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async def client(c: httpx.AsyncClient, i: int) -> None:
        nonlocal sent
        while time.perf_counter() < deadline and sent < max_requests:
            kind, body = bodies[pick.randrange(len(bodies))]
            sent += 1
            await post(c, url, kind, body, load)

    async def ticker() -> None:
        while time.perf_counter() < deadline and sent < max_requests:
            await asyncio.sleep(0.1)
            if on_tick is not None:
                on_tick(time.perf_counter() - t0)

    async with httpx.AsyncClient(limits=limits, timeout=120) as c:
        await asyncio.gather(ticker(), *(client(c, i) for i in range(clients)))
    load.seconds = time.perf_counter() - t0
    return load


def good_bodies(records: list[dict]) -> list[tuple[str, bytes]]:
    return [("good", json.dumps({"rows": r, "random_state": 0}).encode()) for r in records]


def hostile_kinds(r: dict, max_body: int) -> dict[str, bytes]:
    """One hostile body of each kind, made from the record ``r``."""
    return {
        "malformed JSON": b'{"rows": {"age": 39,',
        "NaN": json.dumps({"rows": dict(r, age=float("nan"))}).encode(),
        "unknown column": json.dumps({"rows": dict(r, shoe_size=44)}).encode(),
        "unknown category": json.dumps({"rows": dict(r, workclass="Astronaut")}).encode(),
        "wrong type": json.dumps({"rows": dict(r, age="39")}).encode(),
        "too many rows": json.dumps({"rows": [r] * 101}).encode(),
        "oversized body": b" " * (max_body + 1),
    }


def hostile_bodies(records: list[dict], max_body: int) -> list[tuple[str, bytes]]:
    """Good requests and, among them, one of each hostile kind in turn (half the traffic)."""
    kinds = hostile_kinds(records[0], max_body)
    good = good_bodies(records)
    out: list[tuple[str, bytes]] = []
    for i, item in enumerate(good[: 7 * 20]):
        out.append(item)
        kind = list(kinds)[i % len(kinds)]
        out.append((kind, kinds[kind]))
    return out


# ---------------------------------------------------------------------------- the runs
def prepare(trees: int, tmp: Path, n_rows: int):
    """The saved Explainer and ``n_rows`` undesired rows (records and frame)."""
    import warnings

    import joblib

    import geco

    warnings.filterwarnings("ignore")
    ds = geco.datasets.load_adult()
    model = joblib.load(model_path(trees))
    explainer = geco.Explainer(model, ds.X, ds.constraints, ds.desired_class)
    path = explainer.save(tmp / f"adult-rf{trees}.joblib")
    p = model.predict_proba(ds.X)[:, 1]
    undesired = np.flatnonzero(p <= 0.5)
    rows = np.sort(np.random.default_rng(0).choice(undesired, size=n_rows, replace=False))
    X = ds.X.iloc[rows]
    records = [
        {k: (v.item() if hasattr(v, "item") else v) for k, v in X.iloc[i].items()}
        for i in range(len(X))
    ]
    return path, explainer, X, records


def explain_many_rate(explainer, X, n_jobs: int, seconds: float) -> tuple[float, int]:
    """Rows per second of ``explain_many`` over as many rows as fit in about ``seconds``."""
    from geco.batch import shutdown_pool

    t = time.perf_counter()
    explainer.explain(X.iloc[[0]], random_state=0)
    one = time.perf_counter() - t
    n = int(min(len(X), max(8, seconds / max(one, 1e-3) * n_jobs)))
    t = time.perf_counter()
    explainer.explain_many(X.iloc[:n], n_jobs=n_jobs, progress=False, random_state=0)
    rate = n / (time.perf_counter() - t)
    shutdown_pool()
    return rate, n


def fault_run(server: Server, bodies, seconds, max_requests) -> dict:
    """A worker SIGKILLed a third of the way in: its requests in flight fail, it is replaced."""
    state: dict = {"killed": None, "replaced_after": None}
    before = server.worker_pids()

    def tick(elapsed: float) -> None:
        if state["killed"] is None and elapsed > seconds / 3:
            victim = min(before)
            os.kill(victim, signal.SIGKILL)
            state["killed"] = (victim, time.perf_counter())
        elif state["killed"] is not None and state["replaced_after"] is None:
            victim, t = state["killed"]
            ready = server.ready_pids() - before
            if ready and victim not in server.worker_pids():
                state["replaced_after"] = time.perf_counter() - t

    load = asyncio.run(run_load(server.url, bodies, 8, seconds, max_requests, tick))
    deadline = time.perf_counter() + 120
    while (
        state["replaced_after"] is None
        and state["killed"] is not None
        and time.perf_counter() < deadline
    ):
        tick(seconds)  # the replacement was still loading when the load ended
        time.sleep(0.1)
    after = server.worker_pids()
    return {"load": load, "before": before, "after": after, **state}


# ---------------------------------------------------------------------------- memory
@dataclass
class MemorySample:
    """The resident memory (MB, by pid: the server and its workers) after ``answered`` answers."""

    answered: int
    seconds: float
    rss: dict[int, float]

    @property
    def total(self) -> float:
        return sum(self.rss.values())


def process_rss(server: Server) -> dict[int, float]:
    """Resident memory (MB) of the server process and of each live worker, by pid."""
    import psutil

    out = {}
    for pid in {server.process.pid} | server.worker_pids():
        with contextlib.suppress(psutil.Error):
            out[pid] = psutil.Process(pid).memory_info().rss / 2**20
    return out


def memory_bodies(
    records: list[dict], max_body: int, hostile_every: int = 10
) -> list[tuple[str, bytes]]:
    """One request per record, in order, with ``MEMORY_KNOBS`` and no ``random_state`` (the
    service derives each seed from the row); every ``hostile_every``-th is a hostile one instead,
    the kinds in turn."""
    kinds = list(hostile_kinds(records[0], max_body).items())
    out = []
    for i, r in enumerate(records):
        if i % hostile_every == hostile_every - 1:
            out.append(kinds[(i // hostile_every) % len(kinds)])
        else:
            out.append(("good", json.dumps({"rows": r, **MEMORY_KNOBS}).encode()))
    return out


async def run_memory(
    server: Server, bodies, clients: int, every: int
) -> tuple[Load, list[MemorySample]]:
    """``clients`` closed-loop clients sending each of ``bodies`` once; memory sampled before the
    first request and every ``every`` answers."""
    import httpx

    load = Load()
    t0 = time.perf_counter()
    samples = [MemorySample(0, 0.0, process_rss(server))]
    queue = iter(bodies)  # shared: each body is sent once
    answered = 0

    async def client(c: httpx.AsyncClient) -> None:
        nonlocal answered
        for kind, body in queue:
            await post(c, server.url, kind, body, load)
            answered += 1
            if answered % every == 0:
                sample = MemorySample(answered, time.perf_counter() - t0, process_rss(server))
                samples.append(sample)
                rss = {pid: round(mb, 1) for pid, mb in sample.rss.items()}
                print(
                    f"memory: {answered} answered, {sample.seconds:.0f} s, RSS MB {rss}",
                    file=sys.stderr,
                )

    # a connection per request: the kernel spreads them over the workers (kept-alive ones
    # would stay with the worker that accepted them), and connection set-up and tear-down is
    # part of what must not leak
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=0)
    async with httpx.AsyncClient(limits=limits, timeout=120) as c:
        await asyncio.gather(*(client(c) for _ in range(clients)))
    load.seconds = time.perf_counter() - t0
    if samples[-1].answered != answered:
        samples.append(MemorySample(answered, load.seconds, process_rss(server)))
    return load, samples


@dataclass
class MemoryVerdict:
    """The memory run read off its samples (see the module docstring)."""

    warm: MemorySample  # the first sample at or after the warm-up
    end: MemorySample
    slope: float  # MB per 1,000 requests after the warm-up (least squares over the samples)
    tail_slope: float  # the same over the second half of the run (a leak keeps its slope)
    growth: float  # end / warm - 1, all processes
    worker_growth: dict[int, float]  # the same per process alive throughout
    replaced: bool  # a process of the start was gone at the end, or a new one appeared

    @property
    def flat(self) -> bool:
        """Under FLAT growth in all and in every process, none replaced."""
        return max([self.growth, *self.worker_growth.values()]) < FLAT and not self.replaced


def memory_verdict(samples: list[MemorySample], warmup: int) -> MemoryVerdict:
    after = [s for s in samples if s.answered >= warmup] or samples[-1:]
    warm, end = after[0], samples[-1]
    tail = [s for s in samples if s.answered >= end.answered / 2]
    alive = set(warm.rss) & set(end.rss)
    return MemoryVerdict(
        warm, end, _slope(after), _slope(tail), end.total / warm.total - 1,
        {pid: end.rss[pid] / warm.rss[pid] - 1 for pid in sorted(alive)},
        set(samples[0].rss) != set(end.rss),
    )  # fmt: skip


def _slope(samples: list[MemorySample]) -> float:
    """Least-squares MB of all processes per 1,000 answers (NaN under 3 samples)."""
    if len(samples) < 3:
        return float("nan")
    x = np.array([s.answered for s in samples], dtype=float)
    return float(np.polyfit(x, [s.total for s in samples], 1)[0]) * 1000


def memory_run(args, tmp: Path, max_body: int) -> tuple[str, list[str]]:
    """The memory run: its table (a row per tenth of the run) and its notes."""
    workers, clients = 2, 4
    path, _, _, records = prepare(100, tmp, args.memory)
    bodies = memory_bodies(records, max_body)
    server = start(path, workers, tmp, max_body)
    supervisor = server.process.pid
    try:
        load, samples = asyncio.run(run_memory(server, bodies, clients, args.sample_every))
    finally:
        server.stop()
    v = memory_verdict(samples, args.warmup)
    step = max(1, round(args.memory / 10 / args.sample_every)) * args.sample_every
    shown = [s for s in samples if s.answered % step == 0 or s is v.warm or s is samples[-1]]
    pids = sorted(samples[0].rss, key=lambda pid: (pid != supervisor, pid))
    names = {
        pid: "supervisor" if pid == supervisor else f"worker {i}" for i, pid in enumerate(pids)
    }
    rows = [
        "| requests answered | s | server RSS MB (all processes) | "
        + " | ".join(f"{names[p]} MB" for p in pids) + " | vs warm-up |",
        "| ---: | ---: | ---: | " + " | ".join("---:" for _ in pids) + " | ---: |",
    ]  # fmt: skip
    for s in sorted({id(s): s for s in shown}.values(), key=lambda s: s.answered):
        rel = (
            "-" if s.answered < v.warm.answered else f"{(s.total / v.warm.total - 1) * 100:+.1f} %"
        )
        per = " | ".join(fmt(s.rss.get(p, float("nan"))) for p in pids)
        rows.append(f"| {s.answered:,} | {s.seconds:,.0f} | {fmt(s.total)} | {per} | {rel} |")
    kinds = dict(load.by_kind)
    good = kinds.pop("good", {})
    good_ok = sum(n for st, n in good.items() if isinstance(st, int) and st < 300)
    bad_4xx = sum(
        n for d in kinds.values() for st, n in d.items() if isinstance(st, int) and 400 <= st < 500
    )
    bad_all = sum(n for d in kinds.values() for n in d.values())
    per_worker = ", ".join(f"{names[p]} {g * 100:+.1f} %" for p, g in v.worker_growth.items())
    knobs = ", ".join(f"{k}={x}" for k, x in MEMORY_KNOBS.items())
    notes = [
        f"Memory run: Adult RF-100, {workers} workers, {clients} clients, {len(bodies):,} requests, each "
        f"sent once ({sum(good.values()):,} good - each a distinct undesired row, seed derived from it, "
        f"{knobs} - and {bad_all:,} hostile, the hostile run's kinds in turn); {load.seconds:,.0f} s, "
        f"{fmt(load.throughput, 2)} expl/s, good p50 {fmt(load.quantile(0.5))} ms, p99 "
        f"{fmt(load.quantile(0.99))} ms; {good_ok:,} good answered 2xx, {bad_4xx:,} of {bad_all:,} "
        f"hostile 4xx, {load.errors} errors.",
        f"Server RSS (all processes) {fmt(v.warm.total)} MB after the warm-up ({v.warm.answered:,} "
        f"answers), {fmt(v.end.total)} MB at the end ({v.end.answered:,}): {v.growth * 100:+.1f} % "
        f"({per_worker}); slope {v.slope:+.2f} MB per 1,000 requests (least squares over the "
        f"{sum(s.answered >= v.warm.answered for s in samples)} samples after the warm-up; "
        f"{v.tail_slope:+.2f} over the second half); workers "
        f"replaced: {'yes' if v.replaced else 'none'}. Flat (growth < {FLAT:.0%} after the warm-up in "
        f"all and in each process, no worker replaced): {'yes' if v.flat else 'NO'}.",
    ]  # fmt: skip
    return "\n".join(rows), notes


def fmt(v: float, digits: int = 1) -> str:
    return "-" if v != v else f"{v:,.{digits}f}"


def header(command: str, t_start: float, load_start, what: str) -> str:
    load_end = os.getloadavg()
    return (
        f"Last run: {time.strftime('%Y-%m-%d')}, CPU {cpu_name()} ({os.cpu_count()} cores, AVX-512: "
        f"{avx512()}), Python {sys.version.split()[0]}; `{command}` ({what}, "
        f"{time.perf_counter() - t_start:.0f} s in all); load average {load_start[0]:.1f} at the "
        f"start, {load_end[0]:.1f} at the end (the client shares the cores)."
    )  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--seconds",
        type=float,
        default=20.0,
        help="per load level (default 20; the issue's figure: 60)",
    )
    ap.add_argument("--levels", default="1,8,32", help="concurrent clients (default 1,8,32)")
    ap.add_argument("--rf500", action="store_true", help="RF-500 too")
    ap.add_argument(
        "--max-requests", type=int, default=100_000, help="per load level (default 100000)"
    )
    ap.add_argument(
        "--rows", type=int, default=500, help="distinct undesired rows sent (default 500)"
    )
    ap.add_argument(
        "--memory",
        type=int,
        default=10_000,
        help="requests of the memory run (default 10000; 0: none)",
    )
    ap.add_argument("--memory-only", action="store_true", help="the memory run alone")
    ap.add_argument(
        "--warmup", type=int, default=1000, help="answers before the memory baseline (default 1000)"
    )
    ap.add_argument(
        "--sample-every", type=int, default=250, help="answers between memory samples (default 250)"
    )
    ap.add_argument("--no-readme", action="store_true")
    args = ap.parse_args()
    if args.memory_only and args.memory <= 0:
        ap.error("--memory-only needs --memory > 0")
    if args.memory and not 0 <= args.warmup < args.memory:
        ap.error(f"--warmup must be below --memory ({args.memory}), got {args.warmup}")
    max_body = 1_000_000
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if not args.memory_only:
            body = load_block(args, tmp, max_body)
            print(body)
            if not args.no_readme:
                write_block(BEGIN, END, body)
        if args.memory > 0:
            load_start, t_start = os.getloadavg(), time.perf_counter()
            table, notes = memory_run(args, tmp, max_body)
            command = f"python benchmarks/bench_serve.py --memory-only --memory {args.memory}"
            what = f"{args.memory:,} requests, RSS sampled every {args.sample_every} answers"
            body = (
                f"{MEM_BEGIN}\n{header(command, t_start, load_start, what)}\n\n{table}\n\n"
                + "\n".join(f"* {n}" for n in notes) + f"\n{MEM_END}"
            )  # fmt: skip
            print(body)
            if not args.no_readme:
                write_block(MEM_BEGIN, MEM_END, body)


def load_block(args, tmp: Path, max_body: int) -> str:
    """The load, fault and hostile runs: the README block between BEGIN and END."""
    levels = [int(x) for x in args.levels.split(",")]
    load_start = os.getloadavg()
    t_start = time.perf_counter()
    tables: list[str] = []
    notes: list[str] = []
    for trees in [100, 500] if args.rf500 else [100]:
        path, explainer, X, records = prepare(trees, tmp, args.rows)
        bodies = good_bodies(records)
        name = f"Adult RF-{trees}"
        print(f"{name}: engine {explainer.engine}", file=sys.stderr)
        rows = []
        best = {}
        for workers in (1, 2):
            server = start(path, workers, tmp, max_body)
            mem_before = server.rss_mb()
            for c in levels:
                load = asyncio.run(run_load(server.url, bodies, c, args.seconds, args.max_requests))
                best[(workers, c)] = load.throughput
                rows.append(
                    f"| {name} | {workers} | {c} | {len(load.latencies) + load.errors} | {fmt(load.throughput, 2)} | "
                    f"{fmt(load.quantile(0.5))} | {fmt(load.quantile(0.95))} | {fmt(load.quantile(0.99))} | "
                    f"{load.errors} |"
                )  # fmt: skip
                print(rows[-1], file=sys.stderr)
            mem_after = server.rss_mb()
            notes.append(f"{name}, {workers} worker(s): server processes {mem_before:,.0f} MB resident after "
                         f"start, {mem_after:,.0f} MB after the load.")  # fmt: skip
            if workers == 2:
                fault = fault_run(server, bodies, args.seconds, args.max_requests)
                hostile = asyncio.run(
                    run_load(
                        server.url,
                        hostile_bodies(records, max_body),
                        8,
                        args.seconds,
                        args.max_requests,
                    )
                )
            server.stop()
        many = {n_jobs: explain_many_rate(explainer, X, n_jobs, args.seconds) for n_jobs in (1, 2)}
        for n_jobs, (rate, n) in many.items():
            rows.append(
                f"| {name} | explain_many, n_jobs={n_jobs} | - | {n} | {fmt(rate, 2)} | - | - | - | 0 |"
            )
        tables.append("\n".join(rows))
        top = {w: max(best[(w, c)] for c in levels) for w in (1, 2)}
        notes.append(
            f"{name}: 2 workers / 1 worker at their best level: {top[2] / top[1]:.2f}x; the service "
            f"with 2 workers / explain_many n_jobs=2: {top[2] / many[2][0]:.2f}x; 1 worker / "
            f"explain_many n_jobs=1: {top[1] / many[1][0]:.2f}x."
        )  # fmt: skip
        fl = fault["load"]
        replaced = fault["after"] - fault["before"]
        notes.append(
            f"{name}, fault run (2 workers, 8 clients, {args.seconds:.0f} s, worker {fault['killed'][0]} "
            f"SIGKILLed at {args.seconds / 3:.0f} s): {len(fl.latencies)} answered 2xx, {fl.errors} failed "
            f"(transport errors or 5xx: the killed worker's requests in flight); replaced by "
            f"{sorted(replaced) or 'none'}"
            + (f", serving {fault['replaced_after']:.1f} s after the kill" if fault["replaced_after"] else "")
            + f"; {fmt(fl.throughput, 2)} expl/s over the run."
        )  # fmt: skip
        kinds = hostile.by_kind
        good = kinds.pop("good", {})
        good_ok = sum(n for s, n in good.items() if isinstance(s, int) and s < 300)
        bad_4xx = sum(
            n for d in kinds.values() for s, n in d.items() if isinstance(s, int) and 400 <= s < 500
        )
        bad_all = sum(n for d in kinds.values() for n in d.values())
        detail = ", ".join(
            f"{k} -> {'/'.join(map(str, sorted(d, key=str)))}" for k, d in sorted(kinds.items())
        )
        notes.append(
            f"{name}, hostile run (2 workers, 8 clients, {args.seconds:.0f} s, half the requests hostile): "
            f"{bad_4xx} of {bad_all} hostile answered 4xx ({detail}; p50 {fmt(hostile.quantile(0.5, True))} ms, "
            f"p99 {fmt(hostile.quantile(0.99, True))} ms); {good_ok} of {sum(good.values())} "
            f"good answered 2xx (p50 {fmt(hostile.quantile(0.5))} ms, p99 {fmt(hostile.quantile(0.99))} ms)."
        )  # fmt: skip
    command = "python benchmarks/bench_serve.py" + (
        f" --seconds {args.seconds:g}" if args.seconds != 20 else ""
    )
    command += " --rf500" if args.rf500 else ""
    command += f" --memory {args.memory}" if args.memory != 10_000 else ""
    head = header(command, t_start, load_start, f"{args.seconds:.0f} s per level")
    table = (
        "| model | workers | clients | requests | expl/s | p50 ms | p95 ms | p99 ms | errors |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n" + "\n".join(tables)
    )
    return f"{BEGIN}\n{head}\n\n{table}\n\n" + "\n".join(f"* {n}" for n in notes) + f"\n{END}"


def write_block(begin: str, end: str, body: str) -> None:
    """Replace what lies between the markers ``begin`` and ``end`` (the memory block goes after
    the tables' block when it is new; the section is added with the tables' block when new)."""
    text = README.read_text()
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + body + rest.split(end, 1)[1]
    elif begin == MEM_BEGIN and END in text:
        head, rest = text.split(END, 1)
        text = head + END + "\n\n" + body + rest
    else:
        text = (
            text.rstrip()
            + "\n\n## Decision service (bench_serve.py)\n\n"
            + SECTION_INTRO
            + "\n\n"
            + body
            + "\n"
        )
    README.write_text(text)


SECTION_INTRO = """`geco serve` over HTTP on loopback: closed-loop clients (asyncio + httpx, in the benchmark's
process, so they share the cores with the server) each send one undesired Adult row at a time.
`expl/s`: answered explanations per second; latencies are of 2xx answers, queueing included;
`errors`: transport errors and 5xx. The `explain_many` rows are the library on the same rows in
one process (n_jobs=1) and two (n_jobs=2), no HTTP. Each client keeps its connection alive, as
an HTTP client library does; with 2 workers the service closes the connection after each
explanation so that the clients spread over the workers (without that, clients connecting at
once all stayed on one worker: 8 clients, 15 s, 110 answers from one worker and none from the
other; 105 and 88 with the close).

The memory run sends 10^4 requests, each once, to a fresh 2-worker service (4 clients, a new
connection each, one request in ten hostile, short searches) and reads the resident memory of
the server and of each worker every 250 answers; "flat" means under 5 % growth from the end of
the warm-up (1,000 answers) to the last answer, in all and in each process, no worker replaced."""


if __name__ == "__main__":
    main()
