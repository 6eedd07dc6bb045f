"""GeCo paper, Fig. 6: where an explanation's time goes, per search phase and configuration.

For Adult and Credit with a random forest of 500 trees and MLPs (100,) and (100, 100), explain
``--n`` undesired instances with GeCo in four configurations: representation "full" or "delta"
(the Δ-representation) x engine "blackbox" (predict_proba) or "auto" (partial evaluation and
compiled code). Reported per configuration: median seconds per explanation and the mean
milliseconds in each phase of ``result.stats["seconds"]``: initial population, scoring (model
calls), selection (ranking, deduplication, distances, blocks), mutation, crossover (with selective
mutation), repair (the action cascade), polish (drawing the polishing children), and other (feasible space, grounding, result). "compile"
is the compiled engine's own count of partial-evaluation and compilation seconds during the
explanations (part of scoring, or on a background thread); "build" is the one-off Explainer
construction (compiles the engine's kernels).

``--datasets wide`` adds the paper's scale: the synthetic table of ``benchmarks/make_wide.py``,
1,000,000 rows x 115 columns (15 numeric, 100 categorical with 2-300 levels; 5,000 x 30 with
``--tiny``) and its own PLAF program, desired class 1. Its models are fitted on the first 100,000
rows: RF-500 depth 8 behind an OrdinalEncoder (as ``benchmarks/bench_wide.py``), the MLPs behind
the one-hot encoder (about 15,000 sparse input columns), trained for 20 epochs of
batches of 1,000.

    python benchmarks/paper/breakdown.py [--n 10] [--datasets adult,credit]
        [--models rf500,mlp100,mlp100x100] [--tiny] [--out DIR]
    python benchmarks/paper/breakdown.py --datasets wide --n 5
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import paper_setup as ps

import geco

#: paper phase -> keys of result.stats["seconds"]; keys not listed count as "other"
PHASES = {
    "initial": ("initial",),
    "scoring": ("scoring",),
    "selection": ("score", "selection", "dedupe", "distance", "blocks"),
    "mutation": ("mutation",),
    "crossover": ("crossover",),
    "repair": ("cascade",),
    "polish": ("polish",),
}
CONFIGS = [("full", "blackbox"), ("delta", "blackbox"), ("full", "auto"), ("delta", "auto")]


def compile_seconds(explainer: geco.Explainer) -> float:
    """Partial-evaluation + compilation seconds the engine has counted so far (0 if it keeps no
    such count)."""
    stats = getattr(explainer.scorer, "stats", None)
    if isinstance(stats, dict):
        return float(stats.get("compile_seconds", 0.0)) + float(stats.get("pe_seconds", 0.0))
    return 0.0


def run_config(explainer, X, rows, representation) -> dict:
    phases = {p: [] for p in [*PHASES, "other", "compile"]}
    totals, unknown = [], set()
    for r in rows:
        before = compile_seconds(explainer)
        res, sec = ps.timed(explainer.explain, X.iloc[[int(r)]], random_state=int(r), representation=representation)
        seconds = dict(res.stats.get("seconds", {}))
        known = 0.0
        for phase, keys in PHASES.items():
            v = sum(seconds.pop(k, 0.0) for k in keys)
            phases[phase].append(v)
            known += v
        unknown |= set(seconds)
        phases["other"].append(max(sec - known, 0.0))
        phases["compile"].append(compile_seconds(explainer) - before)
        totals.append(sec)
    return {
        "n": len(rows), "seconds_median": ps.percentile(totals, 50), "seconds_mean": ps.mean(totals),
        "ms_per_phase": {p: 1000 * ps.mean(v) for p, v in phases.items()},
        "unlisted_phase_keys": sorted(unknown),
    }  # fmt: skip


def run_setting(dataset, model_name, args) -> list[dict]:
    ds = ps.load_data(dataset, args.tiny)
    model = ps.fitted_model(dataset, model_name, args.tiny)
    rows = ps.undesired_rows(model, ds, args.n)
    out = []
    explainers = {}
    for engine in ("blackbox", "auto"):
        t0 = time.perf_counter()
        explainers[engine] = geco.Explainer(model, ds.X, ds.constraints, ds.desired_class, engine=engine)
        explainers[engine + "_build"] = time.perf_counter() - t0
    for representation, engine in CONFIGS:
        ex = explainers[engine]
        res = run_config(ex, ds.X, rows, representation)
        res.update(dataset=dataset, model=model_name, representation=representation, engine=engine,
                   engine_used=ex.engine, build_seconds=explainers[engine + "_build"])  # fmt: skip
        out.append(res)
    return out


def table_rows(results):
    rows = []
    for r in results:
        ms = r["ms_per_phase"]
        rows.append([r["dataset"], r["model"], r["representation"], r["engine_used"],
                     ps.fmt(1000 * r["seconds_median"], ".0f"), ps.fmt(1000 * r["seconds_mean"], ".0f"),
                     *[ps.fmt(ms[p], ".1f") for p in [*PHASES, "other", "compile"]],
                     ps.fmt(r["build_seconds"], ".2f")])  # fmt: skip
    return rows


HEADERS = ["data", "model", "repr", "engine", "median ms", "mean ms", *[f"{p} ms" for p in PHASES],
           "other ms", "compile ms", "build s"]  # fmt: skip


def plot(results):
    def draw(plt):
        fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(results)), 4.8))
        labels = [f"{r['dataset']} {r['model']}\n{r['representation']}/{r['engine']}" for r in results]
        bottom = np.zeros(len(results))
        for p in [*PHASES, "other"]:
            v = np.array([r["ms_per_phase"][p] for r in results])
            ax.bar(range(len(results)), v, bottom=bottom, label=p)
            bottom += v
        ax.set_xticks(range(len(results)), labels, rotation=70, fontsize=7)
        ax.set_ylabel("mean ms per explanation")
        ax.legend(fontsize=8)
        ax.set_title("Time per search phase (paper Fig. 6)")
        return fig

    return draw


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ps.common_arguments(ap, n=10, datasets="adult,credit", models="rf500,mlp100,mlp100x100")
    args = ap.parse_args(argv)
    results = [r for dataset, model_name in ps.settings(args) for r in run_setting(dataset, model_name, args)]
    return ps.publish("breakdown", HEADERS, table_rows(results), plot(results), args.out,
                      ps.command_line("breakdown", argv), phases={p: list(k) for p, k in PHASES.items()},
                      results=results)  # fmt: skip


if __name__ == "__main__":
    main()
