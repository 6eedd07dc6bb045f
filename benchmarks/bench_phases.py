"""Where a compiled explanation's CPU time goes, phase by phase, beside the black box.

    python benchmarks/bench_phases.py [--n 30] [--blackbox-n 10] [--wide-rows 1000000]
                                      [--batch-n 100] [--models adult-rf,credit-xgb,wide]
                                      [--search numpy,compiled] [--no-readme]

Models: Adult with ``geco.models.default_model`` (one-hot + RandomForest 100 trees, depth 10);
Credit with XGBoost 120 rounds of depth 4 behind ``one_hot_pipeline`` (``n_jobs=1``); the wide
table of ``make_wide.py`` (``--wide-rows`` x 115) with ``bench_wide.py``'s model (RF-50 depth 8
behind an OrdinalEncoder, fitted on at most 200k rows). Each explains its first ``--n`` rows the
model scores undesired (``random_state`` = the row's number, engine "auto", the bundled .plaf or
make_wide's program) after one warm-up explanation, whose cost is reported as the first call.

Per explanation: CPU seconds of the process (``time.process_time``: every thread) and wall
seconds around ``explain``, and the Explainer's own split (``stats["seconds"]``: the generation
loop's phases; ``seconds_seeds``, ``seconds_feasible_space``, ``seconds_certificate``,
``seconds_total``). The split is taken in the main thread's CPU time: for the measured runs the
benchmark points geco's modules' clock (``time.perf_counter``) at ``time.thread_time``, so every
phase geco times is CPU time of the thread that ran it; ``set-up and result`` = total minus the
loop, seeds, feasible space and certificate; ``helper threads`` = process CPU minus the main
thread's (the scorer's background binding and compiles). ``search share`` = 1 - (scoring +
helper threads) / process CPU, summed over the rows: everything but scoring. The black box
(engine "blackbox") explains the first ``--blackbox-n`` of the same rows with the same seeds;
``compiled x`` is its median CPU over the compiled median on those rows. Throughput:
``explain_many`` on ``--batch-n`` undesired Adult rows in this one process (``n_jobs=1``).
Threads are limited to one (threadpoolctl and the usual environment variables). Writes its tables
between the "bench_phases" markers of ``benchmarks/README.md``.

``--search``: the searches measured on the same Explainer and rows, interleaved row by row in
alternating order (the machine's speed drifts within a run): ``numpy`` (the reference,
``native=False``) and ``compiled`` (``native=True``: the search's numba kernels, left out
without numba); their explanations are the same (counted). The black box runs the numpy
search, the fresh-process runs the default one (there: the numpy reference until the kernels
pay), the batch each search in turn on four runs of its rows, the order reversed from run to
run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import types
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from readme_table import avx512, cpu_name, write_block

# one thread for the native libraries imported below (threadpoolctl limits the loaded ones)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).parent))

warnings.filterwarnings("ignore")

README = Path(__file__).with_name("README.md")
BEGIN, END = "<!-- bench_phases tables: begin -->", "<!-- bench_phases tables: end -->"
SETUP_KEYS = ("seconds_seeds", "seconds_feasible_space", "seconds_certificate")
MODELS = ("adult-rf", "credit-xgb", "wide")


# ---------------------------------------------------------------- models shared with bench_treecf
@dataclass
class Workload:
    """A model, its data and rules, and the rows to explain."""

    name: str
    model: Any
    X: pd.DataFrame
    constraints: Any
    desired_class: Any
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))


def undesired_rows(
    model: Any, X: pd.DataFrame, desired_class: Any, n: int, scan: int = 5000
) -> np.ndarray:
    """The first ``n`` rows of ``X`` (within the first ``scan``) the model scores undesired
    (P(desired) <= 0.5)."""
    est = model[-1] if hasattr(model, "steps") else model
    col = list(est.classes_).index(desired_class)
    p = model.predict_proba(X.iloc[:scan])[:, col]
    return np.flatnonzero(p <= 0.5)[:n]


def xgboost_120x4(threads: int = 1) -> Any:
    import xgboost as xgb

    return xgb.XGBClassifier(n_estimators=120, max_depth=4, n_jobs=threads, random_state=0)


def lightgbm_200(threads: int = 1) -> Any:
    import lightgbm as lgb

    return lgb.LGBMClassifier(n_estimators=200, n_jobs=threads, random_state=0, verbose=-1)


def fitted(data: Any, kind: str, dense: bool = False) -> Any:
    """The one-hot pipeline of ``kind`` ("rf100", "rf500", "xgb120x4", "xgb500x6", "lgbm200",
    "lgbm500x6") fitted on ``data``; predictions with one thread. ``dense``: the encoder writes
    dense columns (with sparse ones XGBoost reads an unstored 0 as missing); "rf100" is always
    ``default_model``. Fitted models are cached in geco's cache directory (keyed by the
    libraries' versions)."""
    import pickle

    import sklearn
    from sklearn.ensemble import RandomForestClassifier

    from geco.models import cache_dir, default_model, one_hot_pipeline

    if kind == "rf100":
        return default_model(data.X, data.y, cache=True)
    versions = [sklearn.__version__]
    for lib in ("xgboost", "lightgbm"):
        try:
            versions.append(__import__(lib).__version__)
        except ImportError:
            versions.append("-")
    layout = "dense" if dense else "sparse"
    path = cache_dir() / "bench_phases" / f"{data.name}-{kind}-{layout}-{'-'.join(versions)}.pkl"
    if path.exists():
        try:
            model = pickle.loads(path.read_bytes())
            model[-1].set_params(n_jobs=1)
            return model
        except Exception:
            pass
    if kind == "rf500":
        est = RandomForestClassifier(n_estimators=500, max_depth=10, random_state=0, n_jobs=2)
    elif kind == "xgb120x4":
        est = xgboost_120x4(threads=2)
    elif kind == "xgb500x6":
        import xgboost as xgb

        est = xgb.XGBClassifier(n_estimators=500, max_depth=6, n_jobs=2, random_state=0)
    elif kind == "lgbm200":
        est = lightgbm_200(threads=2)
    elif kind == "lgbm500x6":
        import lightgbm as lgb

        est = lgb.LGBMClassifier(
            n_estimators=500, max_depth=6, num_leaves=63, n_jobs=2, random_state=0, verbose=-1
        )
    else:
        raise ValueError(f"unknown model kind {kind!r}")
    t0 = time.perf_counter()
    model = one_hot_pipeline(data.X, est)
    if dense and len(model.steps) > 1:
        model[0].set_params(sparse_threshold=0.0)
    model.fit(data.X, data.y)
    print(f"[fit] {data.name} {kind}: {time.perf_counter() - t0:.1f} s", flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(model))
    model[-1].set_params(n_jobs=1)
    return model


def workload(name: str, n: int, wide_rows: int) -> Workload:
    from geco.datasets import load_adult, load_credit

    if name == "adult-rf":
        data = load_adult()
        w = Workload(
            "Adult RF-100", fitted(data, "rf100"), data.X, str(data.constraints), data.desired_class
        )
    elif name == "credit-xgb":
        data = load_credit()
        w = Workload(
            "Credit XGBoost 120x4",
            fitted(data, "xgb120x4"),
            data.X,
            str(data.constraints),
            data.desired_class,
        )
    elif name == "wide":
        from bench_wide import model_for
        from make_wide import make_wide

        X, y, plaf = make_wide(wide_rows, 115)
        t0 = time.perf_counter()
        model = model_for(X, y, 50, min(200_000, wide_rows))
        print(f"[fit] wide {wide_rows} x 115 RF-50: {time.perf_counter() - t0:.1f} s", flush=True)
        w = Workload(f"wide {wide_rows:,} x 115 RF-50", model, X, plaf, 1)
        w.rows = undesired_rows(model, X, 1, n, scan=20_000)
        return w
    else:
        raise ValueError(f"unknown model {name!r}; choose from {MODELS}")
    w.rows = undesired_rows(w.model, w.X, w.desired_class, n)
    return w


# ---------------------------------------------------------------- the thread-CPU clock
@contextmanager
def geco_clock_in_thread_cpu() -> Iterator[None]:
    """Point every loaded ``geco`` module's ``time.perf_counter`` at ``time.thread_time`` (the
    calling thread's CPU seconds), so the phases an explanation reports are CPU time; restored
    on exit. Only ``geco`` modules: the compiled engine's own measurements (``codegen``) keep
    the wall clock its policies are tuned on."""
    shim = types.ModuleType("time")
    shim.__dict__.update(time.__dict__)
    shim.perf_counter = time.thread_time
    swapped = []
    for name, mod in list(sys.modules.items()):
        if not (name == "geco" or name.startswith("geco.")) or mod is None:
            continue
        if getattr(mod, "time", None) is time:
            swapped.append((mod, "time", time))
            mod.time = shim
        if getattr(mod, "perf_counter", None) is time.perf_counter:
            swapped.append((mod, "perf_counter", time.perf_counter))
            mod.perf_counter = time.thread_time
    try:
        yield
    finally:
        for mod, attr, value in swapped:
            setattr(mod, attr, value)


def one_thread() -> Any:
    """threadpoolctl's limit of every native thread pool to one thread (a no-op without it)."""
    try:
        from threadpoolctl import threadpool_limits

        return threadpool_limits(1)
    except ImportError:
        from contextlib import nullcontext

        return nullcontext()


# ---------------------------------------------------------------- measuring
def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """(fn(), process CPU seconds, wall seconds)."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - t0


def explain_rows(explainer: Any, w: Workload, rows: np.ndarray, natives: tuple[bool, ...] = (False,)) -> list[dict[str, Any]]:  # fmt: skip
    """Every row explained once (seed = row) per search of ``natives`` (numpy: False, compiled:
    True), the searches interleaved row by row in alternating order (the machine's speed drifts
    over a run), with geco's clock on thread CPU: per search and row the process CPU, wall, loop
    phases, set-up keys and total, and the answer (its CSV text)."""
    outs = [{"cpu": [], "wall": [], "phases": defaultdict(list), "setup": defaultdict(list), "total": [],
             "success": [], "answers": []} for _ in natives]  # fmt: skip
    with geco_clock_in_thread_cpu():
        for i, r in enumerate(rows):
            for k in (range(len(natives)) if i % 2 == 0 else reversed(range(len(natives)))):
                _record(outs[k], *timed(
                    lambda r=r, k=k: explainer.explain(w.X.iloc[[int(r)]], random_state=int(r), native=natives[k])
                ))  # fmt: skip
    return [_arrays(out) for out in outs]


def _record(out: dict[str, Any], res: Any, cpu: float, wall: float) -> None:
    """One explanation's measurements appended to ``out``."""
    out["cpu"].append(cpu)
    out["wall"].append(wall)
    out["success"].append(bool(res.success))
    out["answers"].append(res.counterfactuals.to_csv())
    s = res.stats
    out["total"].append(float(s.get("seconds_total", np.nan)))
    for k in SETUP_KEYS:
        out["setup"][k].append(float(s.get(k, 0.0)))
    seconds = s.get("seconds", {}) if isinstance(s.get("seconds"), dict) else {}
    for k in set(seconds) | set(out["phases"]):
        out["phases"][k].append(float(seconds.get(k, 0.0)))
    n = len(out["cpu"])
    for v in out["phases"].values():  # a phase first seen late counts 0 before
        v[:0] = [0.0] * (n - len(v))


def _arrays(out: dict[str, Any]) -> dict[str, Any]:
    """:func:`explain_rows`'s lists as arrays."""
    for k in ("cpu", "wall", "total"):
        out[k] = np.array(out[k])
    out["phases"] = {k: np.array(v) for k, v in out["phases"].items()}
    out["setup"] = {k: np.array(v) for k, v in out["setup"].items()}
    return out


def split(m: dict[str, Any]) -> dict[str, Any]:
    """Per-row derived parts (arrays, seconds) of :func:`explain_rows`'s measurements."""
    n = len(m["cpu"])
    scoring = m["phases"].get("scoring", np.zeros(n))
    loop = sum(m["phases"].values(), np.zeros(n))
    setup_keys = sum(m["setup"].values(), np.zeros(n))
    return {
        "scoring": scoring,
        "bookkeeping": loop - scoring,
        "setup_rest": m["total"] - loop - setup_keys,
        "helper": m["cpu"] - m["total"],
        "share": 1.0 - (scoring.sum() + (m["cpu"] - m["total"]).sum()) / m["cpu"].sum(),
    }


def measure(w: Workload, bb_n: int, searches: list[str]) -> list[dict[str, Any]]:
    """One result per search of ``searches`` ("numpy", "compiled") on one Explainer and the same
    rows, each after its own warm-up explanation; the black box once, beside each."""
    import geco

    rows = w.rows
    explainer, build_cpu, build_wall = timed(
        lambda: geco.Explainer(
            w.model, w.X, w.constraints, desired_class=w.desired_class, engine="auto"
        )
    )
    first_row = int(rows[0])
    mb = None
    if bb_n > 0:
        bb = geco.Explainer(
            w.model, w.X, w.constraints, desired_class=w.desired_class, engine="blackbox"
        )
        mb = explain_rows(bb, w, rows[:bb_n])[0]
    natives = tuple(search == "compiled" for search in searches)
    firsts = [timed(lambda native=native: explainer.explain(w.X.iloc[[first_row]], random_state=first_row, native=native))
              for native in natives]  # fmt: skip
    results = []
    for search, m, (_, first_cpu, first_wall) in zip(searches, explain_rows(explainer, w, rows, natives), firsts):
        out = {"name": w.name, "search": search, "engine": explainer.engine, "n": len(rows),
               "build": (build_cpu, build_wall), "first": (first_cpu, first_wall), "m": m, "parts": split(m)}  # fmt: skip
        if mb is not None:
            out["bb"] = mb
            out["bb_x_cpu"] = float(np.median(mb["cpu"]) / np.median(m["cpu"][:bb_n]))
            out["bb_x_wall"] = float(np.median(mb["wall"]) / np.median(m["wall"][:bb_n]))
        if results:
            out["same_answers"] = sum(a == b for a, b in zip(results[0]["m"]["answers"], m["answers"]))
        print(f"[{w.name}, {search} search] engine {out['engine']}: CPU median {1e3 * np.median(m['cpu']):.1f} ms, "
              f"search share {out['parts']['share']:.0%}" + (f", compiled {out['bb_x_cpu']:.1f}x the black box (CPU)"
              if "bb" in out else ""), flush=True)  # fmt: skip
        results.append(out)
    return results


def batch_rates(w: Workload, n: int, searches: list[str]) -> list[dict[str, Any]]:
    """Explanations per second of ``explain_many`` in this process over ``n`` undesired rows,
    per search: the rows in four runs, each run explained by every search in turn, the order
    reversed from run to run (the machine's speed drifts over a batch's seconds)."""
    import geco

    explainer = geco.Explainer(w.model, w.X, w.constraints, desired_class=w.desired_class)
    rows = undesired_rows(w.model, w.X, w.desired_class, n, scan=20_000)
    for search in searches:  # warm
        explainer.explain(w.X.iloc[[int(rows[0])]], random_state=0, native=search == "compiled")
    spent = {s: {"cpu": 0.0, "wall": 0.0, "ok": 0} for s in searches}
    for i, run in enumerate(np.array_split(rows, 4)):
        for search in searches if i % 2 == 0 else searches[::-1]:
            res, cpu, wall = timed(
                lambda run=run, search=search: explainer.explain_many(
                    w.X.iloc[run], n_jobs=1, progress=False, random_state=0, native=search == "compiled")
            )  # fmt: skip
            spent[search]["cpu"] += cpu
            spent[search]["wall"] += wall
            spent[search]["ok"] += sum(bool(r.success) for r in res)
    out = []
    for search in searches:
        s = spent[search]
        print(f"[batch] {w.name}, {search} search: {len(rows) / s['wall']:.1f} explanations/s wall, "
              f"{len(rows) / s['cpu']:.1f} per CPU s ({s['ok']}/{len(rows)} found)", flush=True)  # fmt: skip
        out.append({"n": len(rows), "per_wall": len(rows) / s["wall"], "per_cpu": len(rows) / s["cpu"], "ok": s["ok"],
                    "search": search})  # fmt: skip
    return out


# ---------------------------------------------------------------- first call in a fresh process
def first_call_child(model_file: str, rows: list[int]) -> None:
    """(In a fresh interpreter) import geco, build the Adult Explainer on the pickled model and
    explain two rows; print the seconds of each step as JSON."""
    import json
    import pickle

    t0, c0 = time.perf_counter(), time.process_time()
    marks = {}

    def mark(name: str) -> None:
        marks[name] = (time.process_time() - c0, time.perf_counter() - t0)

    import geco
    from geco.datasets import load_adult

    mark("import")
    data = load_adult()
    model = pickle.loads(Path(model_file).read_bytes())
    mark("load")
    explainer = geco.Explainer(
        model, data.X, str(data.constraints), desired_class=data.desired_class
    )
    mark("build")
    for i, r in enumerate(rows):
        explainer.explain(data.X.iloc[[r]], random_state=r)
        mark(f"explain{i}")
    print(json.dumps(marks))


def first_calls(w: Workload) -> list[dict[str, Any]]:
    """Adult RF-100 in two fresh interpreters sharing one empty cache directory (GECO_CACHE_DIR,
    NUMBA_CACHE_DIR; GECO_LLVM_CACHE unset): the first run is a fresh install's (cold), the second
    finds what the first stored (warm). Seconds of each step, CPU and wall."""
    import json
    import pickle
    import subprocess
    import tempfile

    out = []
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as tmp:
        model_file = Path(tmp) / "model.pkl"
        model_file.write_bytes(pickle.dumps(w.model))
        env = {k: v for k, v in os.environ.items() if k != "GECO_LLVM_CACHE"}
        env.update(GECO_CACHE_DIR=cache, NUMBA_CACHE_DIR=str(Path(cache) / "numba"))
        rows = [str(int(r)) for r in w.rows[:2]]
        for run in ("cold", "warm"):
            cmd = [sys.executable, __file__, "--first-call-child", str(model_file), *rows]
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise SystemExit(f"the {run} first-call run failed:\n{proc.stderr[-2000:]}")
            marks = json.loads(proc.stdout.strip().splitlines()[-1])
            out.append({"run": run, **marks})
            print(
                f"[first call] {run}: " + ", ".join(f"{k} {v[1]:.2f} s" for k, v in marks.items()),
                flush=True,
            )
    return out


# ---------------------------------------------------------------- tables
def _ms(a: np.ndarray) -> str:
    return f"{1e3 * float(np.median(a)):.1f}"


def first_call_table(runs: list[dict[str, Any]]) -> str:
    """Each step's own cost (CPU / wall) in the fresh-process runs."""
    steps = [("import", "import geco"), ("load", "data, model (sklearn imported)"), ("build", "Explainer build"),
             ("explain0", "first explanation"), ("explain1", "second explanation")]  # fmt: skip
    lines = ["| fresh process (Adult RF-100) | " + " | ".join(label for _, label in steps) + " |",
             "|---" * (len(steps) + 1) + "|"]  # fmt: skip
    for r in runs:
        cells, prev = [], (0.0, 0.0)
        for key, _ in steps:
            cpu, wall = r[key]
            cells.append(f"{cpu - prev[0]:.2f} / {wall - prev[1]:.2f} s")
            prev = (cpu, wall)
        lines.append(f"| {r['run']} cache | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def label(r: dict[str, Any]) -> str:
    """A result's model and search, as the tables name it."""
    return f"{r['name']}, {r['search']} search"


def tables(results: list[dict[str, Any]], batches: list[dict[str, Any]]) -> str:
    head = (
        "| model | search | engine | rows | CPU ms median / p90 | wall ms median | scoring | loop bookkeeping | seeds "
        "| feasible space | certificate | set-up and result | helper threads | search share "
        "| black box CPU ms (rows) | compiled x (CPU / wall) | Explainer build s | first call ms |\n"
        + "|---" * 18
        + "|"
    )
    lines = [head]
    for r in results:
        m, p = r["m"], r["parts"]
        bb = (f"{_ms(r['bb']['cpu'])} ({len(r['bb']['cpu'])}) | {r['bb_x_cpu']:.1f}x / {r['bb_x_wall']:.1f}x"
              if "bb" in r else "- | -")  # fmt: skip
        lines.append(
            f"| {r['name']} | {r['search']} | {r['engine']} | {r['n']} | {_ms(m['cpu'])} / {1e3 * np.percentile(m['cpu'], 90):.1f} "
            f"| {_ms(m['wall'])} | {_ms(p['scoring'])} | {_ms(p['bookkeeping'])} "
            f"| {_ms(m['setup']['seconds_seeds'])} | {_ms(m['setup']['seconds_feasible_space'])} "
            f"| {_ms(m['setup']['seconds_certificate'])} | {_ms(p['setup_rest'])} | {_ms(p['helper'])} "
            f"| {p['share']:.0%} | {bb} | {r['build'][1]:.1f} | {1e3 * r['first'][0]:.0f} CPU / {1e3 * r['first'][1]:.0f} wall |"
        )
    phases = sorted({k for r in results for k in r["m"]["phases"]},
                    key=lambda k: -max(np.median(r["m"]["phases"].get(k, [0.0])) for r in results))  # fmt: skip
    lines += ["", "| loop phase (main-thread CPU ms, median) | " + " | ".join(label(r) for r in results) + " |",
              "|---" * (len(results) + 1) + "|"]  # fmt: skip
    for k in phases:
        lines.append(
            f"| {k} | "
            + " | ".join(_ms(r["m"]["phases"].get(k, np.zeros(1))) for r in results)
            + " |"
        )
    same = [f"{r['same_answers']}/{r['n']} on {r['name']}" for r in results if "same_answers" in r]
    if same:
        lines += ["", "Explanations identical under both searches (the counterfactual tables, row by row): "
                      + ", ".join(same) + "."]  # fmt: skip
    lines += ["", goals(results, batches)]
    for b in batches:
        lines += ["", f"Batch (`explain_many`, one process, Adult RF-100, {b['n']} undesired rows, seed 0, {b['search']} "
                      f"search): {b['per_wall']:.1f} explanations/s wall, {b['per_cpu']:.1f} per CPU second "
                      f"({b['ok']}/{b['n']} found)."]  # fmt: skip
    return "\n".join(lines)


def goals(results: list[dict[str, Any]], batches: list[dict[str, Any]]) -> str:
    """This run against the goals: the search (everything but scoring) <= 30 % of a compiled
    explanation, the wide table's median <= 150 ms, >= 40 explanations/s in a batch."""
    parts = [
        f"search share <= 30 %: {'met' if r['parts']['share'] <= 0.30 else 'missed'} on {label(r)} "
        f"({r['parts']['share']:.0%})"
        for r in results
    ]
    for r in results:
        if r["name"].startswith("wide 1,000,000"):
            med = 1e3 * float(np.median(r["m"]["cpu"]))
            parts.append(
                f"wide median <= 150 ms ({r['search']} search): {'met' if med <= 150 else 'missed'} ({med:.0f} ms)"
            )
    for b in batches:
        rate = b["per_wall"]
        parts.append(
            f">= 40 explanations/s in a batch ({b['search']} search): {'met' if rate >= 40 else 'missed'} "
            f"({rate:.1f}/s wall, {b['per_cpu']:.1f} per CPU second)"
        )
    return "Goals in this run: " + "; ".join(parts) + "."


def load_line() -> str:
    try:
        return "load average " + " / ".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:
        return "load average unknown"


def cpu_line() -> str:
    """The CPU's model name and whether it has AVX-512."""
    return f"{cpu_name()}, {os.cpu_count()} CPUs, AVX-512 {avx512()}"


def write_readme(body: str) -> None:
    """Replace the text between this script's markers in benchmarks/README.md."""
    write_block(BEGIN, END, body)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=30, help="rows explained per model")
    ap.add_argument(
        "--blackbox-n", type=int, default=10, help="of those, rows the black box explains too"
    )
    ap.add_argument("--wide-blackbox-n", type=int, default=3, help="the same on the wide table")
    ap.add_argument(
        "--wide-rows",
        type=int,
        default=1_000_000,
        help="rows of the wide table (fewer for a quick run)",
    )
    ap.add_argument(
        "--batch-n", type=int, default=100, help="rows of the explain_many batch (0: none)"
    )
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--search", default="numpy,compiled", help="the searches measured: numpy, compiled")
    ap.add_argument("--no-first-call", action="store_true", help="skip the fresh-process runs")
    ap.add_argument("--no-readme", action="store_true")
    ap.add_argument("--first-call-child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.first_call_child:
        first_call_child(args.first_call_child[0], [int(r) for r in args.first_call_child[1:]])
        return
    names = [s for s in args.models.split(",") if s]
    bad = [s for s in names if s not in MODELS]
    if bad or args.n < 1:
        ap.error(f"--models takes {MODELS} (got {bad}); --n must be at least 1")
    searches = [s for s in args.search.split(",") if s]
    if not searches or set(searches) - {"numpy", "compiled"}:
        ap.error(f"--search takes numpy, compiled (got {args.search!r})")
    if "compiled" in searches and importlib.util.find_spec("numba") is None:
        print("numba is not installed: the compiled search is left out (pip install 'geco-cf[native]')", flush=True)
        searches = [s for s in searches if s != "compiled"] or ["numpy"]
    start = f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu_line()}, {load_line()} at the start"
    results, batches, firsts = [], [], []
    with one_thread():
        for name in names:
            w = workload(name, args.n, args.wide_rows)
            results += measure(w, args.wide_blackbox_n if name == "wide" else args.blackbox_n, searches)
            if name == "adult-rf" and args.batch_n > 0:
                batches = batch_rates(w, args.batch_n, searches)
            if name == "adult-rf" and not args.no_first_call:
                firsts = first_calls(w)
            del w
    text = f"Last run: {start}, {load_line()} at the end; one thread.\n\n" + tables(results, batches)
    if firsts:
        text += "\n\n" + first_call_table(firsts)
    print("\n" + text)
    if not args.no_readme:
        write_readme(text)


if __name__ == "__main__":
    main()
