"""Search benchmark (black-box path): seconds per explanation, quality, Δ vs full representation.

For Adult and Credit with a decision tree, a random forest (100 trees, depth 10) and an MLP, explain
the first N instances the model scores undesired, with the data set's example constraints, once with
the Δ-representation and once with full rows (same seeds, same search). Prints median / p90
seconds, success rate, mean features changed, and the population's peak bytes for each
representation.

    python benchmarks/bench_search.py [--n 50] [--datasets adult,credit] [--models dt,rf,mlp]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier

import geco
from geco.models import categorical_columns, default_model, one_hot_pipeline


def make_model(kind: str, X, y):
    if kind == "rf":
        return default_model(X, y)
    if kind == "dt":
        return one_hot_pipeline(X, DecisionTreeClassifier(max_depth=10, random_state=0)).fit(X, y)
    if kind == "mlp":
        cats = categorical_columns(X)
        nums = [c for c in X.columns if c not in cats]
        pre = ColumnTransformer(
            [("onehot", OneHotEncoder(handle_unknown="ignore"), cats), ("scale", StandardScaler(), nums)]
        )
        mlp = MLPClassifier(hidden_layer_sizes=(100,), max_iter=60, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return Pipeline([("encode", pre), ("model", mlp)]).fit(X, y)
    raise ValueError(kind)


def run(explainer, X, rows, representation):
    times, changed, success, peak = [], [], [], []
    for r in rows:
        t0 = time.perf_counter()
        res = explainer.explain(X.iloc[[r]], random_state=int(r), representation=representation)
        times.append(time.perf_counter() - t0)
        success.append(res.success)
        peak.append(res.stats.get("peak_population_bytes", 0))
        if res.success:
            changed.append(int(res.counterfactuals["n_changed"].iloc[0]))
    t = np.array(times)
    return {
        "median": float(np.median(t)),
        "p90": float(np.percentile(t, 90)),
        "success": float(np.mean(success)),
        "features_changed": float(np.mean(changed)) if changed else float("nan"),
        "peak_bytes": float(np.mean(peak)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--datasets", default="adult,credit")
    ap.add_argument("--models", default="dt,rf,mlp")
    args = ap.parse_args()
    print(f"{'data':<7} {'model':<5} {'repr':<6} {'median s':>9} {'p90 s':>7} {'success':>8} "
          f"{'feat.chg':>8} {'peak pop bytes':>15}")  # fmt: skip
    for name in args.datasets.split(","):
        ds = geco.datasets.load_dataset(name)
        for kind in args.models.split(","):
            model = make_model(kind, ds.X, ds.y)
            ex = geco.Explainer(model, ds.X, ds.constraints, ds.desired_class, engine="blackbox")
            p = ex.blackbox.predict(ex.data[:5000])
            rows = np.flatnonzero(p <= 0.5)[: args.n]
            res = {}
            for rep in ("delta", "full"):
                res[rep] = run(ex, ds.X, rows, rep)
                r = res[rep]
                print(f"{name:<7} {kind:<5} {rep:<6} {r['median']:>9.3f} {r['p90']:>7.3f} "
                      f"{r['success']:>8.2f} {r['features_changed']:>8.2f} {r['peak_bytes']:>15,.0f}")  # fmt: skip
            print(f"{'':<7} {'':<5} full/delta: time x{res['full']['median'] / res['delta']['median']:.2f}, "
                  f"peak memory x{res['full']['peak_bytes'] / max(res['delta']['peak_bytes'], 1):.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
