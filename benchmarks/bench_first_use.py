"""A fresh install's first use of the compiled search: how long `geco serve` takes to get ready
and when its requests run the compiled search, with numba's cache empty.

Two starts of one worker over the same saved Explainer (Adult, the default RF-100 model and the
bundled rules), each with an empty ``NUMBA_CACHE_DIR``: the compile in the foreground
(``GECO_SEARCH_NATIVE=1``: the worker compiles the kernels before it is ready, as every start
did before the background compile) and the default (a child process compiles them while the
worker serves with the numpy search). One client on 127.0.0.1 sends undesired rows one at a
time for ``--seconds`` from the start; the table gives when the worker got ready, when its
answers began to come from the compiled search, and the median latency before and after. A
third line times the child alone (``python -m geco.search.warm_kernels`` with an empty cache):
the compile's CPU, which the background start still spends, on another core. Last, a CLI batch
of ``--batch-rows`` undesired Adult rows on an empty cache (the batch finds the compiled search
pays, a child compiles it, the batch switches when it is done), then again on the cache it
filled: the slowest row says whether any row waited for a compile. And ``--loop-rows`` single
``explain`` calls in a loop in one fresh process on an empty cache: the searches earn the
kernels (rent or buy) after ~95 s of numpy searches, a child compiles them meanwhile, and the
slowest call says whether one waited for it.

    python benchmarks/bench_first_use.py [--seconds 45] [--batch-rows 2500] [--loop-rows 4000] [--no-readme]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_serve import start  # noqa: E402
from readme_table import write_section  # noqa: E402


def serve_run(explainer: Path, records: list[dict], seconds: float, foreground: bool, tmp: Path) -> dict:
    """One worker started with an empty numba cache, one client for ``seconds``."""
    import httpx

    cache = str(Path(tempfile.mkdtemp(dir=tmp)))
    t0 = time.perf_counter()
    server = start(explainer, 1, tmp, 1_000_000, {"NUMBA_CACHE_DIR": cache, "GECO_SEARCH_NATIVE": "1" if foreground else None})
    ready = time.perf_counter() - t0
    answers = []
    try:
        with httpx.Client(timeout=120) as client:
            i = 0
            while time.perf_counter() - t0 < seconds:
                t = time.perf_counter()
                out = client.post(f"{server.url}/explain", json={"rows": records[i % len(records)], "random_state": i})
                out.raise_for_status()
                by_kernels = bool(out.json().get("stats", {}).get("compiled_search"))
                answers.append((t - t0, time.perf_counter() - t, by_kernels))
                i += 1
    finally:
        server.stop()
    compiled = [a for a in answers if a[2]]
    numpy_search = [a for a in answers if not a[2]]
    return {
        "ready": ready,
        "compiled_from": compiled[0][0] if compiled else None,
        "before_ms": 1e3 * float(np.median([a[1] for a in numpy_search])) if numpy_search else None,
        "after_ms": 1e3 * float(np.median([a[1] for a in compiled[1:]])) if len(compiled) > 1 else None,
        "requests": len(answers),
    }


def child_alone(tmp: Path) -> tuple[float, float]:
    """CPU and wall seconds of ``python -m geco.search.warm_kernels`` with an empty cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": tempfile.mkdtemp(dir=tmp)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "geco.search.warm_kernels"], env=env, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), wall


def default_search_env(cache: Path) -> dict[str, str]:
    """This process's environment with ``cache`` as numba's cache and the search left to its
    default (no ``GECO_SEARCH_NATIVE``)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("GECO_SEARCH_NATIVE", None)
    return env


def switch_summary(seconds: list[float], compiled: list[bool], wall: float) -> dict:
    """Explanations in order (``seconds`` each, whether the ``compiled`` search ran each): their
    count, ``wall``, the first the compiled search ran (None: none), the slowest and where it
    sits, and the median before and after the first compiled one (None where there is none)."""
    seconds = np.asarray(seconds, dtype=float)
    first = next((i for i, c in enumerate(compiled) if c), None)
    before = seconds[:first] if first is not None else seconds
    after = seconds[first + 1 :] if first is not None else seconds[:0]
    return {
        "rows": len(seconds), "wall": wall, "first": first, "slowest": float(seconds.max()),
        "slowest_at": int(seconds.argmax()),
        "before_ms": 1e3 * float(np.median(before)) if len(before) else None,
        "after_ms": 1e3 * float(np.median(after)) if len(after) else None,
    }  # fmt: skip


def batch_run(rows: int, tmp: Path, cache: Path) -> dict:
    """``geco explain --dataset adult --all-undesired --limit rows`` with ``cache`` as numba's
    cache: wall seconds, the first row the compiled search ran, the slowest row, and the median
    row before and after that one."""
    out = tmp / f"batch-{cache.name}.jsonl"
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "geco", "explain", "--dataset", "adult", "--all-undesired", "--limit",
                           str(rows), "--out", str(out)], env=default_search_env(cache), capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the batch failed: {done.stderr.strip()}")
    wall = time.perf_counter() - t0
    stats = [json.loads(line).get("stats", {}) for line in out.read_text().splitlines()]
    stats = [s for s in stats if "seconds_total" in s]
    return switch_summary([s["seconds_total"] for s in stats], [bool(s.get("compiled_search")) for s in stats], wall)


LOOP = """
import json, sys, time, warnings
import numpy as np
import geco
from geco.models import default_model
warnings.simplefilter("ignore")
n = int(sys.argv[1])
data = geco.datasets.load_adult()
model = default_model(data.X, data.y, cache=True)
explainer = geco.Explainer(model, data.X, constraints=data.constraints, desired_class=1)
undesired = np.flatnonzero(model.predict_proba(data.X)[:, 1] <= 0.5)
rows = [int(undesired[i % len(undesired)]) for i in range(n)]
seconds, compiled = [], []
t0 = time.perf_counter()
for i, r in enumerate(rows):
    t = time.perf_counter()
    e = explainer.explain(data.X.iloc[[r]], random_state=i)
    seconds.append(time.perf_counter() - t)
    compiled.append(bool(e.stats.get("compiled_search")))
print(json.dumps({"wall": time.perf_counter() - t0, "seconds": seconds, "compiled": compiled}))
"""


def loop_run(rows: int, cache: Path) -> dict:
    """``rows`` single ``explain`` calls in one fresh process (Adult, default model) with
    ``cache`` as numba's cache: wall seconds, the first call the compiled search ran, the
    slowest call, the median call before and after that one."""
    done = subprocess.run([sys.executable, "-c", LOOP, str(rows)], env=default_search_env(cache), capture_output=True,
                          text=True)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the loop failed: {done.stderr.strip()}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return switch_summary(out["seconds"], out["compiled"], out["wall"])


def _s(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=45.0, help="how long the client sends requests from each start")
    ap.add_argument("--batch-rows", type=int, default=2500, help="rows of the CLI batch run on an empty cache (0: none)")
    ap.add_argument("--loop-rows", type=int, default=4000,
                    help="single explain calls in one process on an empty cache (0: none)")
    ap.add_argument("--no-readme", action="store_true", help="print the table only")
    args = ap.parse_args()
    if args.seconds <= 0 or args.batch_rows < 0 or args.loop_rows < 0:
        ap.error(f"--seconds must be above 0 and --batch-rows, --loop-rows at least 0, got {args.seconds:g}, "
                 f"{args.batch_rows} and {args.loop_rows}")  # fmt: skip
    warnings.simplefilter("ignore")
    import geco
    from geco.models import default_model

    data = geco.datasets.load_adult()
    model = default_model(data.X, data.y, cache=True)
    explainer = geco.Explainer(model, data.X, constraints=data.constraints, desired_class=1)
    undesired = np.flatnonzero(model.predict_proba(data.X.iloc[:4000])[:, 1] <= 0.5)[:200]
    records = [json.loads(data.X.iloc[[int(r)]].to_json(orient="records"))[0] for r in undesired]
    with tempfile.TemporaryDirectory(prefix="geco-first-use-") as t:
        tmp = Path(t)
        path = tmp / "adult.joblib"
        explainer.save(path)
        runs = {
            "compile before ready (GECO_SEARCH_NATIVE=1)": serve_run(path, records, args.seconds, True, tmp),
            "compile in a child process (default)": serve_run(path, records, args.seconds, False, tmp),
        }
        cpu, wall = child_alone(tmp)
        batches = {}
        if args.batch_rows:
            empty = Path(tempfile.mkdtemp(dir=tmp))
            batches["numba's cache empty"] = batch_run(args.batch_rows, tmp, empty)
            batches["numba's cache filled (the run above)"] = batch_run(args.batch_rows, tmp, empty)
        loop = loop_run(args.loop_rows, Path(tempfile.mkdtemp(dir=tmp))) if args.loop_rows else None
    lines = [
        "| start, numba's cache empty | ready after s | compiled answers from s | numpy search ms (median) | compiled ms (median) | requests |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in runs.items():
        lines.append(f"| {name} | {_s(r['ready'])} | {_s(r['compiled_from'])} | {_s(r['before_ms'])} | {_s(r['after_ms'])} | {r['requests']} |")
    table = "\n".join(lines)
    note = (f"The child alone (`python -m geco.search.warm_kernels`, empty cache, nothing else running): {cpu:.1f} s CPU, "
            f"{wall:.1f} s wall.")  # fmt: skip
    if batches:
        rows = [
            "| CLI batch (`geco explain --dataset adult --all-undesired`) | rows | wall s | first compiled row | slowest row s "
            "| numpy search ms (median) | compiled ms (median) |",
            "|---|---|---|---|---|---|---|",
        ]
        for name, b in batches.items():
            rows.append(f"| {name} | {b['rows']} | {b['wall']:.1f} | {'-' if b['first'] is None else b['first']} | "
                        f"{b['slowest']:.2f} | {_s(b['before_ms'])} | {_s(b['after_ms'])} |")  # fmt: skip
        note += "\n\n" + "\n".join(rows)
    if loop is not None:
        note += (
            "\n\n| single `explain` calls in a loop, one process | calls | wall s | first compiled call | slowest call s (at) "
            "| numpy search ms (median) | compiled ms (median) |\n|---|---|---|---|---|---|---|\n"
            f"| numba's cache empty | {loop['rows']} | {loop['wall']:.1f} | {'-' if loop['first'] is None else loop['first']} | "
            f"{loop['slowest']:.2f} ({loop['slowest_at']}) | {_s(loop['before_ms'])} | {_s(loop['after_ms'])} |"
        )  # fmt: skip
    print(table + "\n\n" + note)
    if args.no_readme:
        return
    body = (
        "One `geco serve` worker (Adult, default RF-100 model, bundled rules), one client on 127.0.0.1 sending "
        f"undesired rows one at a time for {args.seconds:g} s from the start; seconds from the start.\n\n" + table + "\n\n" + note
    )
    command = (f"python benchmarks/bench_first_use.py --seconds {args.seconds:g} --batch-rows {args.batch_rows} "
               f"--loop-rows {args.loop_rows}")  # fmt: skip
    write_section("First use on a fresh install", body, command)


if __name__ == "__main__":
    main()
