"""The search's compiled kernels (geco.search.kernels) against its numpy reference: CPU ms per
phase of a compiled explanation, both paths on the same rows in one process, interleaved (each
row explained by both, the order alternating), medians over the rows; and the kernels' first-use
cost in fresh processes, with an empty on-disk cache (compile) and with the cache filled (load).

    python benchmarks/bench_native.py [--rows 10] [--repeat 2] [--no-readme]

Models: Adult RF-100 (``geco.models.default_model``) and Credit XGBoost 120x4 (one-hot
pipeline), the bundled .plaf rules. Phase times are CPU seconds (the phase timer is pointed at
``time.process_time`` for this run): the machine's cores are shared. A full run rewrites the
table between the "bench_native" markers of benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from readme_table import avx512, cpu_name

import geco
import geco.search.timing as phase_timing
from geco.datasets import load_dataset
from geco.models import default_model, one_hot_pipeline

README = Path(__file__).with_name("README.md")
BEGIN, END = "<!-- bench_native tables: begin -->", "<!-- bench_native tables: end -->"
PHASES = ("scoring", "crossover", "mutation", "selection", "dedupe", "distance", "blocks", "score", "polish",
          "cascade", "initial", "options", "outcome", "breed")  # fmt: skip


class _CpuClock:
    """What the phase timer reads for this run: CPU time, not wall time."""

    perf_counter = staticmethod(time.process_time)


def _model(name: str, X, y):
    if name == "rf":
        return default_model(X, y)
    import xgboost as xgb

    return one_hot_pipeline(
        X, xgb.XGBClassifier(n_estimators=120, max_depth=4, n_jobs=1, random_state=0)
    ).fit(X, y)


def phases(dataset: str, model_name: str, n_rows: int, repeat: int) -> tuple[dict, dict, int, int]:
    """Per path ("numpy", "native"): phase -> CPU seconds of each explanation; and how many of
    the explanations were identical on both paths, out of how many."""
    ds = load_dataset(dataset)
    model = _model(model_name, ds.X, ds.y)
    explainer = geco.Explainer(model, ds.X, ds.constraints)
    rows = np.flatnonzero(model.predict_proba(ds.X)[:, 1] < 0.5)[:n_rows]
    for native in (False, True):  # warm both paths (kernels loaded or compiled, scorer built)
        explainer.explain(ds.X.iloc[[rows[0]]], random_state=0, native=native)
    acc = {"numpy": defaultdict(list), "native": defaultdict(list)}
    same = 0
    for rep in range(repeat):
        for i, r in enumerate(rows):
            out = {}
            for native in (False, True) if (i + rep) % 2 else (True, False):
                name = "native" if native else "numpy"
                t0 = time.process_time()
                res = explainer.explain(ds.X.iloc[[r]], random_state=int(r), native=native)
                acc[name]["total"].append(time.process_time() - t0)
                seconds = res.stats["seconds"]
                for phase in PHASES:
                    acc[name][phase].append(seconds.get(phase, 0.0))
                search = sum(v for k, v in seconds.items() if k != "scoring")
                acc[name]["search"].append(search)
                out[name] = (res.counterfactuals.to_csv(), res.stats["candidates_scored"])
            same += out["numpy"] == out["native"]
    return acc["numpy"], acc["native"], same, repeat * len(rows)


COLD_SNIPPET = """
import time, warnings, numpy as np
warnings.filterwarnings("ignore")
import geco
from sklearn.ensemble import RandomForestClassifier
from geco.models import one_hot_pipeline
ds = geco.datasets.load_dataset("adult")
model = one_hot_pipeline(ds.X, RandomForestClassifier(20, max_depth=6, random_state=0))
model.fit(ds.X.iloc[:3000], ds.y.iloc[:3000])
ex = geco.Explainer(model, ds.X, ds.constraints)
x = ds.X.iloc[[int(np.flatnonzero(model.predict_proba(ds.X.iloc[:2000])[:, 1] < 0.5)[0])]]
ex.explain(x, random_state=0, native=False)  # the engine and its tree kernels, no numba


def timed():
    t0, w0 = time.process_time(), time.perf_counter()
    ex.explain(x, random_state=0, native=True)
    return time.process_time() - t0, time.perf_counter() - w0


first, then = timed(), timed()  # every kernel an explanation runs, then the same explanation
print(first[0] - then[0], first[1] - then[1])
"""

IMPORT_SNIPPET = """
import time, sys
t0 = time.process_time()
import geco
print(time.process_time() - t0, int("numba" in sys.modules))
"""


def _fresh(snippet: str, cache_dir: str) -> list[float]:
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": cache_dir,
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }
    out = subprocess.run(
        [sys.executable, "-c", snippet], env=env, capture_output=True, text=True, check=True
    )
    return [float(v) for v in out.stdout.split()]


def cold_costs() -> dict[str, float]:
    """Seconds the kernels' first use adds to a fresh process's first compiled explanation (an
    Adult explanation: every kernel the search runs, imported and compiled or loaded; the same
    explanation's own cost taken off): with an empty numba cache (compiling), then with the
    cache that run filled (loading); and what ``import geco`` costs, and whether it imports
    numba."""
    with tempfile.TemporaryDirectory() as cache:
        cold_cpu, cold_wall = _fresh(COLD_SNIPPET, cache)
        warm = [_fresh(COLD_SNIPPET, cache) for _ in range(3)]
        imported = _fresh(IMPORT_SNIPPET, cache)
    return {"cold_cpu": cold_cpu, "cold_wall": cold_wall, "warm_cpu": float(np.median([w[0] for w in warm])),
            "warm_wall": float(np.median([w[1] for w in warm])), "import_geco": imported[0],
            "numba_with_geco": bool(imported[1])}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-readme", action="store_true")
    args = parser.parse_args()
    phase_timing.time = _CpuClock  # the phase timer reads CPU time for this run
    load_start = os.getloadavg()
    cold = cold_costs()
    settings = [("Adult RF-100", "adult", "rf"), ("Credit XGBoost 120x4", "credit", "xgb")]
    lines = []
    for label, dataset, model_name in settings:
        ref, nat, same, total = phases(dataset, model_name, args.rows, args.repeat)
        keys = ["total", "scoring", "search", *[p for p in PHASES if p != "scoring"]]
        cells = []
        for key in keys:
            a, b = 1e3 * np.median(ref[key]), 1e3 * np.median(nat[key])
            cells.append(f"| {label} | {key} | {a:.1f} | {b:.1f} | {a / b:.2f}x |" if b > 0 else
                         f"| {label} | {key} | {a:.1f} | {b:.1f} | - |")  # fmt: skip
        lines.append("\n".join(cells))
        lines.append(f"| {label} | identical explanations | {same} of {total} | | |")
        print("\n".join(lines[-2:]), flush=True)
    load_end = os.getloadavg()
    header = (
        f"Last run: {time.strftime('%Y-%m-%d')}, CPU {cpu_name()} ({os.cpu_count()} cores, AVX-512: "
        f"{avx512()}), Python {sys.version.split()[0]}; `python benchmarks/bench_native.py "
        f"--rows {args.rows} --repeat {args.repeat}`; load average {load_start[0]:.1f} at the start, "
        f"{load_end[0]:.1f} at the end (shared cores: read the ratios, not the milliseconds)."
    )  # fmt: skip
    table = "| setting | phase (CPU ms, median) | numpy | native | ratio |\n| --- | --- | --- | --- | --- |\n"
    table += "\n".join(lines)
    notes = [
        "`search`: every phase but scoring; `dedupe` holds the distances on the native path (one pass).",
        f"First use of the kernels in a fresh process (what they add to its first compiled explanation: every "
        f"kernel a search runs): {cold['cold_cpu']:.1f} s CPU ({cold['cold_wall']:.1f} s wall) with an empty numba "
        f"cache (compiling), {cold['warm_cpu']:.2f} s CPU ({cold['warm_wall']:.2f} s wall) with the cache filled "
        "(import numba and load), once per process; batches and `geco serve` leave the compile to a child "
        "process and go on meanwhile (`bench_first_use.py`).",
        f"`import geco`: {cold['import_geco']:.2f} s CPU; imports numba: {'yes' if cold['numba_with_geco'] else 'no'} "
        "(the kernels are imported where a search starts).",
    ]  # fmt: skip
    body = f"{BEGIN}\n{header}\n\n{table}\n\n" + "\n".join(f"* {n}" for n in notes) + f"\n{END}"
    print(body)
    if not args.no_readme:
        text = README.read_text()
        if BEGIN in text and END in text:
            head, rest = text.split(BEGIN, 1)
            text = head + body + rest.split(END, 1)[1]
        else:
            text = (
                text.rstrip()
                + "\n\n## The search's compiled kernels (bench_native.py)\n\n"
                + INTRO
                + "\n\n"
                + body
                + "\n"
            )
        README.write_text(text)


INTRO = """The generation's bookkeeping (de-duplication and distances in one pass, key words,
selection with its niches, distinct draws' exponential keys, random picks of groups, per-group
distances, crossover and walk-back children) in numba kernels, against the numpy code they
replace, on the same draws: the explanations are identical (counted in the table)."""


if __name__ == "__main__":
    main()
