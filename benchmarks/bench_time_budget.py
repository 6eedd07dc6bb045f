"""A time budget per explanation: how close to it explanations end, and what it costs in quality.

Adult, ``one_hot_pipeline(RandomForestClassifier(100, max_depth=10))`` with adult.plaf, the first
``--n`` undesired rows (``random_state`` = row), each explained once per budget and once without
one (after a first, unmeasured pass over the rows: the compiled engine measures its tiers online
and gets faster on rows it has seen). Per budget: median and p90 wall seconds per explanation, how many runs the budget stopped,
how many ended within 20 % of the budget, and within 20 % plus one generation (the run's mean
seconds per generation), the success rate and the mean distance of the first counterfactual over the rows
every setting found one for.

Writes its table into the "Time budget" section of ``benchmarks/README.md``.

    python benchmarks/bench_time_budget.py [--n 30] [--budgets 0.02,0.05,0.1,0.2,0.5,1]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestClassifier

sys.path.insert(0, str(Path(__file__).parent))
from readme_table import write_section

import geco
from geco.models import one_hot_pipeline


def run(explainer: geco.Explainer, X, rows: list[int], budget: float | None) -> list[dict]:
    """One explanation per row under ``budget``: wall seconds, stop, seconds per generation,
    success and first distance."""
    out = []
    for r in rows:
        t0, c0 = time.perf_counter(), time.process_time()
        res = explainer.explain(X.iloc[[r]], random_state=r, time_budget=budget)
        took, cpu = time.perf_counter() - t0, time.process_time() - c0
        s = res.stats
        gens = max(1, int(s.get("generations", 0)))
        out.append({
            "seconds": took, "cpu": cpu, "stop": s.get("stop"), "per_generation": sum(s.get("seconds", {}).values()) / gens,
            "success": res.success, "distance": float(res.counterfactuals["distance"].iloc[0]) if res.success else np.nan,
        })  # fmt: skip
    return out


def table(results: dict[float | None, list[dict]]) -> str:
    found_by_all = np.all([[r["success"] for r in rs] for rs in results.values()], axis=0)
    lines = [
        "| budget (s) | median s | p90 s | median CPU s | stopped by the budget | within 20 % | within 20 % + one generation | success | mean first distance (rows all found) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for budget, rs in results.items():
        secs = np.array([r["seconds"] for r in rs])
        n = len(rs)
        stopped = sum(r["stop"] == "time_budget" for r in rs)
        if budget is None:
            tight = within = "-"
        else:
            tight = f"{sum(r['seconds'] <= 1.2 * budget for r in rs)} of {n}"
            within = f"{sum(r['seconds'] <= 1.2 * budget + r['per_generation'] for r in rs)} of {n}"
        dist = np.array([r["distance"] for r in rs])[found_by_all]
        lines.append(
            f"| {'none' if budget is None else f'{budget:g}'} | {np.median(secs):.3f} | "
            f"{np.percentile(secs, 90):.3f} | {np.median([r['cpu'] for r in rs]):.3f} | {stopped} of {n} | {tight} | {within} | "
            f"{sum(r['success'] for r in rs)} of {n} | {dist.mean():.4f} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=30, help="undesired Adult rows explained")
    ap.add_argument("--budgets", default="0.02,0.05,0.1,0.2,0.5,1")
    ap.add_argument("--no-readme", action="store_true")
    args = ap.parse_args()
    data = geco.datasets.load_adult()
    X = data.X
    model = one_hot_pipeline(X, RandomForestClassifier(100, max_depth=10, random_state=0)).fit(X, data.y)
    explainer = geco.Explainer(model, X, data.constraints, desired_class=data.desired_class)
    rows = [int(r) for r in np.flatnonzero(model.predict(X.iloc[: 50 * args.n]) != data.desired_class)[: args.n]]
    run(explainer, X, rows, None)  # compile, and let the engine settle on every row's tiers first
    results: dict[float | None, list[dict]] = {}
    for budget in [None] + [float(b) for b in args.budgets.split(",")]:
        results[budget] = run(explainer, X, rows, budget)
        print(budget, f"{np.median([r['seconds'] for r in results[budget]]):.3f}", flush=True)
    text = (
        f"Adult, RF-100 (`max_depth=10`, one-hot pipeline), adult.plaf, the first {len(rows)} undesired "
        f"rows, engine `{explainer.engine}`; wall seconds per `explain` call (the budget counts from "
        "the call's start):\n\n" + table(results) + "\n\nThe search keeps back what shaping the answer "
        "has lately cost (the model's own probabilities of the picks, the frame) and starts a generation "
        "or polishing round only while the last one's cost still fits in what is left (the first "
        "generation: the initial population's cost), so a run ends past the budget only when a step "
        "takes longer than the one before it, or when the work before the first generation (encoding "
        "the instance, the feasible spaces, the seeds, the initial population: 10-20 ms here) is "
        "already more than the budget; then the answer is the best of the initial population. A large "
        "budget stops nothing (the search ends on its own first). "
        f"Load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores."
    )
    print(text)
    if not args.no_readme:
        write_section("Time budget", text, "python benchmarks/bench_time_budget.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
