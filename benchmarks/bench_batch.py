"""A day's batch: explanations per second with 1 and 2 local workers and on a 2-worker Dask
LocalCluster, with a cold and a warm compile cache.

    python benchmarks/bench_batch.py [--n 2000] [--trees 500] [--modes one,loky,dask] [--no-readme]

Adult, ``Pipeline(OneHotEncoder, RandomForestClassifier(trees, max_depth=10))`` fitted once and
kept in geco's cache directory; ``--n`` undesired rows drawn with seed 0. Every run is a fresh
interpreter (so "cold" means cold): it loads the model, builds the Explainer (``build s``,
which compiles or loads the tree kernels) and explains the rows with ``explain_many``
(``batch s``, worker start included; ``first s``: until the first result). A cold run gets an
empty compile cache directory, the warm run after it the directory the cold run filled.
``compile %``: seconds spent compiling LLVM modules in every process of the run (parent and
workers) over the run's wall time (build + batch). ``payload``: the pickled Explainer each worker
receives once; ``unpickle s``: its load time in a worker (imports included). The Dask cluster is
started before the timing (``cluster s``), as a user's cluster would be running already.
Writes the table into the "Batches" section of ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from readme_table import write_section

MODES = {"one": "1 process", "loky": "2 local workers (loky)", "dask": "2-worker LocalCluster (Dask)"}


def model_path(trees: int) -> Path:
    """The fitted forest, fitted once and kept in geco's cache directory."""
    import joblib
    from sklearn.ensemble import RandomForestClassifier

    from geco.datasets import load_adult
    from geco.models import cache_dir, one_hot_pipeline

    path = cache_dir() / "bench" / f"adult-rf{trees}-d10.joblib"
    if not path.exists():
        ds = load_adult()
        rf = RandomForestClassifier(n_estimators=trees, max_depth=10, random_state=0, n_jobs=2)
        t0 = time.perf_counter()
        model = one_hot_pipeline(ds.X, rf).fit(ds.X, ds.y)
        model[-1].set_params(n_jobs=1)
        print(f"fitted RF-{trees} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        path.parent.mkdir(parents=True, exist_ok=True)
        joblib.dump(model, path)
    return path


def run(mode: str, model_file: str, n: int, hot_jit: bool = True) -> dict:
    """One measured run in this (fresh) process."""
    import joblib

    import geco
    from codegen.llvm import binding
    from geco.batch import iter_explain, shutdown_pool

    warnings.filterwarnings("ignore")
    load = os.getloadavg()[0]
    ds = geco.datasets.load_adult()
    model = joblib.load(model_file)
    p = model.predict_proba(ds.X)[:, 1]
    undesired = np.flatnonzero(p <= 0.5)
    rows = np.sort(np.random.default_rng(0).choice(undesired, size=min(n, len(undesired)), replace=False))
    X = ds.X.iloc[rows]

    t0 = time.perf_counter()
    explainer = geco.Explainer(model, ds.X, ds.constraints, ds.desired_class)
    build = time.perf_counter() - t0
    parent_build = binding.cache_info()
    if not hot_jit:  # a hot Δ's predicted compile cost: never worth it (travels to the workers)
        explainer.scorer.c_compile_base = float("inf")

    client = cluster = None
    cluster_seconds = 0.0
    if mode == "dask":
        from distributed import Client

        from geco.batch import local_cluster

        t0 = time.perf_counter()
        cluster = local_cluster(2)  # what explain_many starts without a client
        client = Client(cluster)
        cluster_seconds = time.perf_counter() - t0
    n_jobs = 1 if mode == "one" else 2
    backend = "dask" if mode == "dask" else "loky"
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    first = None
    results = []
    for e in iter_explain(explainer, X, n_jobs=n_jobs, backend=backend, progress=False,
                          random_state=0, client=client):  # fmt: skip
        if first is None:
            first = time.perf_counter() - t0
        results.append(e)
    batch = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    shutdown_pool()
    if client is not None:
        client.close()
        cluster.close()

    parent = binding.cache_info()
    workers: dict[int, dict] = {}
    for e in results:
        w = e.stats.get("worker")
        if w is not None:
            workers[w["pid"]] = w  # the last one of each worker: cumulative numbers
    compile_s = parent["compile_seconds"] + sum(w["compile_seconds"] for w in workers.values())
    return {
        "mode": mode,
        "load": load,
        "n": len(results),
        "failed": sum("error" in e.stats for e in results),
        "found": sum(e.success for e in results),
        "build": build,
        "build_compiles": parent_build["compiles"],
        "batch": batch,
        "first": first,
        "cluster": cluster_seconds,
        "compile": compile_s,
        "compiles": parent["compiles"] + sum(w["compiles"] for w in workers.values()),
        # CPU seconds of the busiest process explaining: the batch's time on an idle machine
        "cpu": max((w["cpu_seconds"] for w in workers.values()), default=cpu),
        # per explanation, a worker's start-up (imports, unpickling) left out
        "cpu_per_row": (
            sum(w["cpu_seconds"] - w.get("startup_cpu_seconds", 0.0) for w in workers.values()) / len(results)
            if workers else cpu / len(results)
        ),
        "startup_cpu": max((w.get("startup_cpu_seconds", 0.0) for w in workers.values()), default=0.0),
        "loads": parent["disk_hits"] + parent["preloaded_hits"],
        "workers": len(workers),
        "payload": max((w.get("payload_bytes", 0) for w in workers.values()), default=0),
        "unpickle": max((w.get("unpickle_seconds", 0.0) for w in workers.values()), default=0.0),
        "median": float(np.median([e.stats["seconds_total"] for e in results])),
        "engine": explainer.engine,
        "fingerprint": [json.loads(e.to_json())["counterfactuals"] for e in results[:50]],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="undesired instances (default 2000)")
    ap.add_argument("--trees", type=int, default=500)
    ap.add_argument("--modes", default="one,loky,dask")
    ap.add_argument("--hot-jit", choices=("on", "off"), default="on",
                    help="off: the tree scorer never compiles a hot Δ (isolates the batch's own costs)")  # fmt: skip
    ap.add_argument("--no-readme", action="store_true", help="print the table only")
    ap.add_argument("--save", help="also write every run's numbers to this JSON file")
    ap.add_argument("--join", nargs="+", metavar="JSON",
                    help="no runs: the table of runs saved with --save (a later file's mode replaces an earlier one's)")  # fmt: skip
    ap.add_argument("--run", nargs=4, metavar=("MODE", "MODEL", "N", "HOT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        mode, model_file, n, hot = args.run
        print(json.dumps(run(mode, model_file, int(n), hot == "on")))
        return

    if args.join:
        joined: dict[tuple[str, str], dict] = {}
        for f in args.join:
            for r in json.loads(Path(f).read_text()):
                joined[(r["mode"], r["state"])] = r
        out = [joined[k] for m in MODES for k in ((m, "cold"), (m, "warm")) if k in joined]
        publish(out, [m for m in MODES if any(r["mode"] == m for r in out)], args)
        return
    model_file = model_path(args.trees)
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    out = []
    modes = [m for m in args.modes.split(",") if m]
    for mode in modes:
        if mode not in MODES:
            raise SystemExit(f"unknown mode {mode!r}; modes: {', '.join(MODES)}")
        with tempfile.TemporaryDirectory(prefix="geco-llvm-") as cache:
            for state in ("cold", "warm"):
                proc = subprocess.run(
                    [sys.executable, __file__, "--run", mode, str(model_file), str(args.n), args.hot_jit],
                    env=dict(env, GECO_LLVM_CACHE=cache), capture_output=True, text=True, check=False,
                )  # fmt: skip
                if proc.returncode != 0:
                    raise SystemExit(f"{mode}/{state} failed:\n{proc.stderr}")
                r = json.loads(proc.stdout.splitlines()[-1])
                r["state"] = state
                out.append(r)
                print(f"{mode:>5} {state}: {r['n']} in {r['batch']:.1f} s ({r['n'] / r['batch']:.2f}/s), "
                      f"build {r['build']:.1f} s, compile {r['compile']:.2f} s", file=sys.stderr)  # fmt: skip
    if args.save:
        Path(args.save).write_text(json.dumps(out))
    publish(out, modes, args)


def publish(out: list[dict], modes: list[str], args) -> None:
    """Print the table of the runs ``out`` and write it into the README's "Batches" section."""
    same = all(r["fingerprint"] == out[0]["fingerprint"] for r in out)
    one = {r["state"]: r["n"] / r["batch"] for r in out if r["mode"] == "one"}
    one_cpu = {r["state"]: r["cpu"] for r in out if r["mode"] == "one"}
    lines = [
        "| run | cache | expl/s | speed-up | batch s | first s | build s | compile % | compiles | busiest CPU s | CPU speed-up | payload | unpickle s | load avg |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in out:
        rate = r["n"] / r["batch"]
        base = one.get(r["state"])
        share = 100 * r["compile"] / (r["build"] + r["batch"])
        extra = f" (+{r['cluster']:.1f} s cluster start)" if r["cluster"] else ""
        cpu_up = f"{one_cpu[r['state']] / r['cpu']:.2f}x" if r["state"] in one_cpu else "-"
        payload = f"{r['payload'] / 1e6:.1f} MB" if r["payload"] else "-"  # loky workers only
        unpickle = f"{r['unpickle']:.1f}" if r["payload"] else "-"
        lines.append(
            f"| {MODES[r['mode']]} | {r['state']} | {rate:.2f} | {f'{rate / base:.2f}x' if base else '-'} | "
            f"{r['batch']:.1f}{extra} | {r['first']:.1f} | {r['build']:.1f} | {share:.1f} % | {r['compiles']} | "
            f"{r['cpu']:.1f} | {cpu_up} | "
            f"{payload} | {unpickle} | {r['load']:.1f} |"
        )
    r0 = out[0]
    notes = [
        f"{r0['n']} undesired Adult rows, RF-{args.trees} (engine {r0['engine']}), median "
        f"{r0['median']:.3f} s per explanation in the 1-process run; {r0['found']} with counterfactuals, "
        f"{r0['failed']} failed. The first 50 explanations are identical in every run: {same}.",
        f"load avg: the machine's 1-minute load average when the run started ({os.cpu_count()} cores). "
        "busiest CPU s: CPU seconds of the busiest process explaining (a worker: from its start, "
        "imports and unpickling included); CPU speed-up: the 1-process run's over it, what the "
        "wall-clock speed-up would be with a free core per worker.",
        f"hot-Δ JIT of the tree scorer: {args.hot_jit}.",
    ]
    proj = []
    for r in out:
        if r["mode"] != "one" and r["state"] == "warm" and "one" in modes:
            c1 = next(o["cpu_per_row"] for o in out if o["mode"] == "one" and o["state"] == "warm")
            n = 2000
            proj.append(
                f"{MODES[r['mode']]}: {1e3 * r['cpu_per_row']:.0f} ms CPU per explanation (1 process: "
                f"{1e3 * c1:.0f} ms), "
                + (f"{r['startup_cpu']:.1f} s CPU to start a worker" if r["startup_cpu"]
                   else "a worker's start-up counted in it")
                + "; with a free core per "
                f"worker {n} explanations would take {n * c1:.0f} s on one process and "
                f"{r['startup_cpu'] + n / 2 * r['cpu_per_row']:.0f} s on two: "
                f"{n * c1 / (r['startup_cpu'] + n / 2 * r['cpu_per_row']):.2f}x"
            )
    notes += [f"CPU projection ({p})." for p in proj]
    table = "\n".join(lines) + "\n\n" + "\n".join(f"* {t}" for t in notes)
    print(table)
    if not args.no_readme:
        n = out[0]["n"]
        write_section("Batches", table, f"python benchmarks/bench_batch.py --n {n} --trees {args.trees}")


if __name__ == "__main__":
    main()
