"""Sparse answers on wide numeric data with every feature free: geco's first counterfactual
against brute force over the feasible space.

Data (sklearn only): ``load_digits`` (64 features, digit >= 5), ``load_breast_cancer`` (30) and
``make_classification`` (50 features, 10 informative). Models: random forest, MLP, logistic
regression, and XGBoost / LightGBM when installed. Per undesired row (``--seeds`` random states
each), geco's first answer (features changed, distance) is compared with the best answer changing
1, 2 or 3 features found by brute force over the data's values per feature (every value for one
feature; up to ``--grid`` values per feature, evenly spaced in the column's sorted distinct
values, for pairs; ``--triples`` random triples on that grid), under GeCo's distance.

Columns: "sparse within", the share of runs where such a sparse answer exists within ``--slack``
times geco's distance; "sparse nearer", where it is nearer than geco's answer; "sparse offered",
of the runs with such an answer, where one of geco's k options changes at most 3 features and is
as near as brute force's best sparse answer; "best sparse / geco", the mean ratio of the best
sparse distance to geco's (where a sparse answer exists); "candidates", scored per explanation.
Writes the table between the "bench_sparsity" markers of the "Sparsity" section of
``benchmarks/README.md`` (the tables of earlier versions of the search stay above them).

    python benchmarks/bench_sparsity.py [--n 10] [--seeds 3] [--grid 12] [--triples 60000] [--slack 1.25]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).parent))
from readme_table import machine, write_block

import geco
from geco.problem.distance import DistanceSpec

SECTION = "Sparsity"


def datasets() -> dict[str, tuple[pd.DataFrame, np.ndarray]]:
    """The three wide numeric tables, as DataFrames with a binary label."""
    out = {}
    digits = load_digits()
    out["digits"] = (pd.DataFrame(digits.data, columns=[f"px{i}" for i in range(64)]), (digits.target >= 5).astype(int))
    bc = load_breast_cancer()
    out["breast_cancer"] = (pd.DataFrame(bc.data, columns=[f"f{i}" for i in range(bc.data.shape[1])]), bc.target)
    X, y = make_classification(3000, 50, n_informative=10, n_redundant=5, random_state=0)
    out["synthetic50"] = (pd.DataFrame(np.round(X, 3), columns=[f"s{i}" for i in range(50)]), y)
    return out


def models() -> dict[str, object]:
    """Fresh estimators of each family (the optional ones when installed)."""
    out = {
        "rf": RandomForestClassifier(100, max_depth=8, random_state=0, n_jobs=1),
        "mlp": Pipeline([("scale", StandardScaler()), ("m", MLPClassifier((32,), max_iter=500, random_state=0))]),
        "logreg": Pipeline([("scale", StandardScaler()), ("m", LogisticRegression(max_iter=2000))]),
    }
    try:
        from xgboost import XGBClassifier

        out["xgb"] = XGBClassifier(n_estimators=100, max_depth=4, n_jobs=1, random_state=0)
    except ImportError:
        pass
    try:
        from lightgbm import LGBMClassifier

        out["lgbm"] = LGBMClassifier(n_estimators=100, num_leaves=15, n_jobs=1, random_state=0, verbose=-1)
    except ImportError:
        pass
    return out


def best_sparse(model, X: pd.DataFrame, x: np.ndarray, spec: DistanceSpec, grid: int, triples: int,
                rng: np.random.Generator, threshold: float = 0.5) -> tuple[float, int]:  # fmt: skip
    """The smallest distance of a counterfactual changing 1, 2 or (sampled) 3 features, and its
    number of features (inf, 0 when none is found)."""
    data = X.to_numpy(dtype=np.float64)
    d = data.shape[1]
    values = [np.unique(data[:, j]) for j in range(d)]
    values = [v[v != x[j]] for j, v in enumerate(values)]
    coarse = [v[np.unique(np.linspace(0, len(v) - 1, min(grid, len(v))).round().astype(int))] if len(v) else v
              for v in values]  # fmt: skip
    ranges = np.where(np.ptp(data, axis=0) > 0, np.ptp(data, axis=0), 1.0)
    best, size = np.inf, 0

    def score(cols: np.ndarray, vals: np.ndarray) -> None:
        nonlocal best, size
        if len(cols) == 0:
            return
        k = cols.shape[1]
        diff = np.abs(vals - x[cols]) / ranges[cols]
        dist = spec.combine(diff)
        order = np.argsort(dist)
        dist_s, cols_s, vals_s = dist[order], cols[order], vals[order]
        keep = dist_s < best
        if not keep.any():
            return
        for lo in range(0, int(keep.sum()), 50_000):
            sl = slice(lo, min(lo + 50_000, int(keep.sum())))
            rows = np.repeat(x[None, :], sl.stop - sl.start, axis=0)
            np.put_along_axis(rows, cols_s[sl], vals_s[sl], axis=1)
            p = model.predict_proba(pd.DataFrame(rows, columns=X.columns))[:, 1]
            hit = np.flatnonzero(p > threshold)
            if len(hit):
                if dist_s[sl][hit[0]] < best:
                    best, size = float(dist_s[sl][hit[0]]), k
                return

    one_c = np.concatenate([np.full(len(v), j) for j, v in enumerate(values)])[:, None]
    score(one_c, np.concatenate(values)[:, None])
    i, j = np.triu_indices(d, 1)
    pc, pv = [], []
    for a, b in zip(i, j):
        va, vb = np.meshgrid(coarse[a], coarse[b], indexing="ij")
        pc.append(np.tile([a, b], (va.size, 1)))
        pv.append(np.stack([va.ravel(), vb.ravel()], axis=1))
    score(np.concatenate(pc), np.concatenate(pv))
    cols = np.sort(np.stack([rng.choice(d, 3, replace=False) for _ in range(triples)]), axis=1)
    sizes = np.array([len(c) for c in coarse])
    ok = (sizes[cols] > 0).all(axis=1)
    cols = cols[ok]
    pick = (rng.random(cols.shape) * sizes[cols]).astype(int)
    vals = np.array([[coarse[c][p] for c, p in zip(cr, pr)] for cr, pr in zip(cols, pick)])
    score(cols, vals)
    return best, size


def run(n: int, seeds: int, grid: int, triples: int, slack: float, only: set[str] | None,
        cache: dict[str, float]) -> list[dict]:  # fmt: skip
    """One table row per (data, model): ``n`` undesired rows, ``seeds`` explanations each;
    ``cache`` keeps the brute-force results across runs."""
    rows_out = []
    for dname, (X, y) in datasets().items():
        for mname, model in models().items():
            if only and f"{dname}/{mname}" not in only and dname not in only and mname not in only:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(X, y)
            explainer = geco.Explainer(model, X, desired_class=1)
            pred = model.predict_proba(X)[:, 1]
            undesired = np.flatnonzero(pred < 0.5)
            rng = np.random.default_rng(0)
            picked = rng.choice(undesired, min(n, len(undesired)), replace=False)
            changed, dists, ratios, ok, better, offered, secs, distinct, found = [], [], [], [], [], [], [], [], 0
            scored: list[int] = []
            for r in picked:
                x = X.iloc[[r]]
                xv = x.to_numpy(dtype=np.float64)[0]
                key = f"{dname}/{mname}/{r}/{grid}/{triples}"
                if key not in cache:
                    spec = DistanceSpec(xv, np.ones(len(xv)), np.zeros(len(xv), dtype=bool))
                    cache[key] = best_sparse(model, X, xv, spec, grid, triples, np.random.default_rng(int(r)))[0]
                best = cache[key]
                for s in range(seeds):
                    t0 = time.perf_counter()
                    res = explainer.explain(x, random_state=int(r) + 1_000_003 * s)
                    secs.append(time.perf_counter() - t0)
                    scored.append(res.stats.get("candidates_scored", 0))
                    if not res.success:
                        continue
                    found += 1
                    cf = res.counterfactuals
                    changed.append(int(cf["n_changed"].iloc[0]))
                    dist = float(cf["distance"].iloc[0])
                    dists.append(dist)
                    distinct.append(len(cf))
                    ok.append(best <= slack * dist)
                    if ok[-1]:  # among the options: a sparse one as near as brute force's
                        sparse = cf["distance"][cf["n_changed"] <= 3]
                        offered.append(bool(len(sparse)) and float(sparse.min()) <= best * (1 + 1e-6))
                    better.append(best < dist * (1 - 1e-9))
                    if np.isfinite(best):
                        ratios.append(best / dist)
            rows_out.append(dict(
                setting=f"{dname} / {mname}", engine=explainer.engine, rows=len(picked) * seeds, found=found,
                changed=np.mean(changed) if changed else np.nan, dist=np.mean(dists) if dists else np.nan,
                sparse_ok=np.mean(ok) if ok else np.nan, better=np.mean(better) if better else np.nan,
                offered=np.mean(offered) if offered else np.nan, ratio=np.mean(ratios) if ratios else np.nan,
                options=np.mean(distinct) if distinct else np.nan, seconds=float(np.median(secs)),
                candidates=float(np.mean(scored)),
            ))  # fmt: skip
            print(rows_out[-1], flush=True)
    return rows_out


def table(rows: list[dict], slack: float) -> str:
    head = (f"| data / model | engine | rows | found | features changed | distance | sparse (<= 3) within "
            f"{slack}x | sparse nearer | sparse offered | best sparse / geco | options | candidates | s / explanation |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")  # fmt: skip
    lines = [
        f"| {r['setting']} | {r['engine']} | {r['rows']} | {r['found']} | {r['changed']:.2f} | {r['dist']:.4f} | "
        f"{100 * r['sparse_ok']:.0f} % | {100 * r['better']:.0f} % | {100 * r['offered']:.0f} % | {r['ratio']:.2f} | {r['options']:.1f} | {r['candidates']:.0f} | {r['seconds']:.2f} |"
        for r in rows
    ]
    return "\n".join([head, *lines])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--seeds", type=int, default=3, help="explanations per row (random_state row + 1_000_003 * s)")
    ap.add_argument("--cache", default="", help="a JSON file keeping the brute-force results between runs")
    ap.add_argument("--grid", type=int, default=12)
    ap.add_argument("--triples", type=int, default=60_000)
    ap.add_argument("--slack", type=float, default=1.25)
    ap.add_argument("--only", default="", help="comma-separated data, model or data/model names")
    ap.add_argument("--label", default="", help="a heading for this table inside the section")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(","))) or None
    cache_path = Path(args.cache) if args.cache else None
    cache = json.loads(cache_path.read_text()) if cache_path and cache_path.exists() else {}
    rows = run(args.n, args.seeds, args.grid, args.triples, args.slack, only, cache)
    if cache_path:
        cache_path.write_text(json.dumps(cache))
    body = table(rows, args.slack)
    print(body)
    if not args.no_write and only is None:
        cmd = f"python benchmarks/bench_sparsity.py --n {args.n} --seeds {args.seeds} --grid {args.grid} --triples {args.triples}"
        head = f"Last run: `{cmd}` ({machine()})" + (f"; {args.label}" if args.label else "")
        write_block("<!-- bench_sparsity: begin -->", "<!-- bench_sparsity: end -->", f"{head}\n\n{body}", SECTION)


if __name__ == "__main__":
    main()
