"""The paper's scale: Explainer build and explanations on a 1M x 115 table (``make_wide.py``).

Reports Explainer build time and peak memory (tracemalloc, against the table's own size), then per
engine (compiled ``auto`` vs ``blackbox``) over ``--n`` undesired rows: seconds per explanation
(median / p90 / max), generations, candidates scored, success, features changed and the search's
per-phase split. Writes the table into the "Wide data" section of ``benchmarks/README.md``.

    python benchmarks/bench_wide.py [--rows 1000000] [--columns 115] [--n 50] [--trees 50]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OrdinalEncoder

sys.path.insert(0, str(Path(__file__).parent))
from make_wide import make_wide
from readme_table import write_section

import geco


def model_for(X, y, trees: int, fit_rows: int) -> Pipeline:
    """RF depth 8 behind an OrdinalEncoder for the categorical columns (the paper's setting)."""
    cats = [c for c in X.columns if c.startswith("cat")]
    pre = ColumnTransformer(
        [("ord", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1), cats)],
        remainder="passthrough",
    )
    rf = RandomForestClassifier(trees, max_depth=8, random_state=0, n_jobs=1)
    return Pipeline([("encode", pre), ("model", rf)]).fit(X.iloc[:fit_rows], y.iloc[:fit_rows])


def explain_rows(explainer, X, rows, seeds: int = 1) -> dict:
    """Explain every row with ``seeds`` seeds each (``random_state = row + 1_000_003 * s``, so
    ``seeds=1`` is each row's own number): seconds, sizes, quality and the phase split."""
    times, gens, cands, changed, dists, success = [], [], [], [], [], []
    phases: dict[str, float] = defaultdict(float)
    for r in rows:
        for s in range(seeds):
            t0 = time.perf_counter()
            res = explainer.explain(X.iloc[[r]], random_state=int(r) + 1_000_003 * s)
            times.append(time.perf_counter() - t0)
            gens.append(res.stats.get("generations", 0))
            cands.append(res.stats.get("candidates_scored", 0))
            success.append(res.success)
            if res.success:
                changed.append(int(res.counterfactuals["n_changed"].iloc[0]))
                dists.append(float(res.counterfactuals["distance"].iloc[0]))
            for k, v in res.stats.get("seconds", {}).items():
                phases[k] += v
    t = np.array(times)
    total = sum(phases.values()) or 1.0
    return {
        "times": t, "median": float(np.median(t)), "p90": float(np.quantile(t, 0.9)), "max": float(t.max()),
        "generations": float(np.median(gens)), "candidates": float(np.median(cands)),
        "success": float(np.mean(success)), "changed": float(np.mean(changed)) if changed else float("nan"),
        "distance": float(np.mean(dists)) if dists else float("nan"),
        "phases": ", ".join(f"{k} {v / total:.0%}" for k, v in sorted(phases.items(), key=lambda kv: -kv[1])[:5]),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--columns", type=int, default=115)
    ap.add_argument("--n", type=int, default=50, help="undesired rows explained per engine")
    ap.add_argument("--trees", type=int, default=50)
    ap.add_argument("--fit-rows", type=int, default=200_000)
    ap.add_argument("--engines", default="auto,blackbox")
    ap.add_argument("--seeds", type=int, default=1, help="seeds per row (quality over more runs)")
    ap.add_argument("--no-readme", action="store_true")
    args = ap.parse_args()
    if args.seeds < 1 or args.n < 1:
        ap.error(f"--seeds and --n must be at least 1, got {args.seeds} and {args.n}")

    X, y, plaf = make_wide(args.rows, args.columns)
    table_mb = X.memory_usage(deep=True).sum() / 1e6
    model = model_for(X, y, args.trees, args.fit_rows)
    undesired = np.flatnonzero(model.predict(X.iloc[:20_000]) == 0)[: args.n]

    lines = [
        f"Table: {len(X):,} rows x {X.shape[1]} columns ({table_mb:.0f} MB in pandas); "
        f"RF-{args.trees} depth 8 in an OrdinalEncoder pipeline; {len(undesired)} undesired rows"
        + (f", {args.seeds} seeds each." if args.seeds > 1 else "."),
        "",
    ]
    results = {}
    for engine in args.engines.split(","):
        tracemalloc.start()
        t0 = time.perf_counter()
        explainer = geco.Explainer(model, X, plaf, desired_class=1, engine=engine)
        build = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        res = explain_rows(explainer, X, undesired, args.seeds)
        res.update(build=build, peak_mb=peak / 1e6)
        results[engine] = res
        print(engine, {k: v for k, v in res.items() if k != "times"}, flush=True)
    lines += [
        "| engine | build s | build peak MB (x table) | median s | p90 s | max s | generations | candidates | success | features changed | first distance | top phases |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for engine, r in results.items():
        lines.append(
            f"| {engine} | {r['build']:.1f} | {r['peak_mb']:.0f} ({r['peak_mb'] / table_mb:.1f}x) | "
            f"{r['median']:.2f} | {r['p90']:.2f} | {r['max']:.2f} | {r['generations']:.0f} | "
            f"{r['candidates']:.0f} | {r['success']:.0%} | {r['changed']:.2f} | {r['distance']:.4f} | {r['phases']} |"
        )
    if "auto" in results and "blackbox" in results:
        lines.append("")
        paired = results["blackbox"]["times"] / results["auto"]["times"]  # same row, same seed
        lines.append(
            f"Compiled vs black box: {results['blackbox']['median'] / results['auto']['median']:.1f}x "
            f"(ratio of the medians); per explanation (same row and seed) median "
            f"{np.median(paired):.1f}x, quartiles {np.quantile(paired, 0.25):.1f}-{np.quantile(paired, 0.75):.1f}x"
        )
    text = "\n".join(lines)
    print(text)
    if not args.no_readme:
        write_section("Wide data", text, "python benchmarks/bench_wide.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
