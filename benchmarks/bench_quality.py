"""Search quality benchmark: does the search find a counterfactual wherever one exists, how close,
how varied, how fast - and how fast does it say so when none exists.

Data sets (``--datasets``):

* ``adult``, ``credit``: the bundled data with their example PLAF programs;
* ``adult-frozen``: Adult with extra rules that freeze almost everything (most instances have no
  counterfactual: measures how fast and how honestly the search gives up);
* ``cancer``: sklearn's breast cancer data, 30 free continuous columns, no rules;
* ``synth30``: ``make_classification``, 30 free continuous columns (30 informative), no rules;
* ``digits``: sklearn's digits, 64 columns, 10 classes (desired class 3), no rules.

Models (``--models``): ``rf`` (100 trees, depth 10), ``hgb`` (100 iterations), ``gb`` (100 trees),
``mlp`` (one hidden layer of 50), each behind a one-hot encoder (and a scaler for the MLP) where
the data has categorical columns. For each setting the first ``--n`` rows the model does not
score as desired are explained (seed = row index).

Per setting: ``exists`` = instances for which the data holds a row the model scores as desired
that satisfies every rule for that instance (a counterfactual provably exists); ``found`` =
successes among those (and overall); features changed by the first counterfactual and on average
over the k returned; distinct Δ among the k; distance of the first; seconds (median, max, and max
when nothing was found); generations (median, max); rule violations of the returned
counterfactuals checked with ``plaf_grammar.holds``. Seconds are wall-clock (what a user waits)
and CPU time of the process (less sensitive to other work on a shared machine).

    python benchmarks/bench_quality.py [--n 5] [--datasets ...] [--models ...] [--markdown out.md]

Only the public API is used, so the same script measures older versions of the search.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.ensemble import (
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import geco
import plaf_grammar
from geco.models import categorical_columns

TRAIN_ROWS = 4000
FROZEN_RULES = """
fixed workclass, occupation, capital_gain, capital_loss, education, education_num
cf.hours_per_week <= x.hours_per_week
cf.age <= x.age + 1
"""


def load(name: str) -> tuple[pd.DataFrame, np.ndarray, object, object]:
    """(X, y, desired class, constraints) of a benchmark data set."""
    if name in ("adult", "credit"):
        ds = geco.datasets.load_dataset(name)
        return ds.X, ds.y.to_numpy(), ds.desired_class, ds.constraints
    if name == "adult-frozen":
        ds = geco.datasets.load_dataset("adult")
        return ds.X, ds.y.to_numpy(), ds.desired_class, ds.constraints.read_text() + FROZEN_RULES
    if name == "cancer":
        d = load_breast_cancer()
        X = pd.DataFrame(d.data, columns=[c.replace(" ", "_") for c in d.feature_names])
        return X, d.target, 1, None
    if name == "synth30":
        X, y = make_classification(
            4000, 30, n_informative=30, n_redundant=0, class_sep=0.5, random_state=0
        )
        return pd.DataFrame(X, columns=[f"f{i}" for i in range(30)]), y, 1, None
    if name == "digits":
        d = load_digits()
        return pd.DataFrame(d.data.astype(float), columns=[f"px{i}" for i in range(64)]), d.target, 3, None
    raise ValueError(f"unknown data set {name!r}")


def make_model(kind: str, X: pd.DataFrame, y: np.ndarray):
    cats = categorical_columns(X)
    nums = [c for c in X.columns if c not in cats]
    if kind == "rf":
        est, scale = RandomForestClassifier(100, max_depth=10, random_state=0, n_jobs=1), False
    elif kind == "hgb":
        est, scale = HistGradientBoostingClassifier(max_iter=100, random_state=0), False
    elif kind == "gb":
        est, scale = GradientBoostingClassifier(n_estimators=100, random_state=0), False
    elif kind == "mlp":
        est, scale = MLPClassifier((50,), max_iter=300, random_state=0), True
    else:
        raise ValueError(f"unknown model {kind!r}")
    steps = [("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), cats)] if cats else []
    steps.append(("num", StandardScaler() if scale else "passthrough", nums))
    pre = ColumnTransformer(steps, verbose_feature_names_out=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return Pipeline([("encode", pre), ("model", est)]).fit(X.iloc[:TRAIN_ROWS], y[:TRAIN_ROWS])


def feasible_desired_exists(explainer, p_data: np.ndarray, x: pd.DataFrame, threshold: float) -> bool:
    """Whether some data row the model scores as desired satisfies every rule for ``x``."""
    desired = p_data > threshold
    if not desired.any():
        return False
    ground = explainer.program.ground(x.iloc[0])
    cols = dict(zip(explainer.schema.names, explainer.data[desired].T))
    return bool(np.asarray(ground.check(cols), dtype=bool).any())


def run_setting(name: str, kind: str, n: int, k: int) -> dict:
    X, y, desired, constraints = load(name)
    model = make_model(kind, X, y)
    explainer = geco.Explainer(model, X, constraints, desired, k=k)
    p_data = explainer.blackbox.predict(explainer.data)
    rows = np.flatnonzero(p_data <= 0.5)[:n]
    out = {"data": name, "model": kind, "engine": explainer.engine, "n": len(rows)}
    exists, found, first_changed, mean_changed, distinct, dist, secs, gens, violations = ([] for _ in range(9))
    cpu = []
    secs_failed = []
    for r in rows:
        x = X.iloc[[r]]
        t0, c0 = time.perf_counter(), time.process_time()
        res = explainer.explain(x, random_state=int(r))
        t = time.perf_counter() - t0
        secs.append(t)
        cpu.append(time.process_time() - c0)
        gens.append(res.stats.get("generations", 0))
        exists.append(feasible_desired_exists(explainer, p_data, x, 0.5))
        found.append(bool(res.success))
        if not res.success:
            secs_failed.append(t)
            continue
        cfs = res.counterfactuals[res.counterfactuals["counterfactual"].astype(bool)]
        first_changed.append(int(cfs["n_changed"].iloc[0]))
        mean_changed.append(float(cfs["n_changed"].mean()))
        dist.append(float(cfs["distance"].iloc[0]))
        feats = list(X.columns)
        xrow = x.iloc[0][feats]
        deltas = {tuple(f for f in feats if row[f] != xrow[f]) for _, row in cfs.iterrows()}
        distinct.append(len(deltas))
        xd = xrow.to_dict()
        violations.append(
            sum(not plaf_grammar.holds(explainer.program, xd, row[feats].to_dict()) for _, row in cfs.iterrows())
        )
    exists, found = np.array(exists), np.array(found)
    out.update(
        exists=int(exists.sum()),
        found_where_exists=int((found & exists).sum()),
        found=int(found.sum()),
        first_changed=float(np.mean(first_changed)) if first_changed else float("nan"),
        mean_changed=float(np.mean(mean_changed)) if mean_changed else float("nan"),
        distinct=float(np.mean(distinct)) if distinct else float("nan"),
        distance=float(np.mean(dist)) if dist else float("nan"),
        median_s=float(np.median(secs)) if secs else float("nan"),
        max_s=float(np.max(secs)) if secs else float("nan"),
        max_failed_s=float(np.max(secs_failed)) if secs_failed else float("nan"),
        median_cpu=float(np.median(cpu)) if cpu else float("nan"),
        max_cpu=float(np.max(cpu)) if cpu else float("nan"),
        median_gen=float(np.median(gens)) if gens else float("nan"),
        max_gen=int(np.max(gens)) if gens else 0,
        violations=int(sum(violations)),
    )
    return out


HEADER = (
    "| data | model | engine | n | exists | found where exists | found | chg first | chg mean k "
    "| distinct Δ in k | distance first | median s | max s | max s not found | median cpu s "
    "| max cpu s | gen median | gen max | violations |"
)


def row_markdown(r: dict) -> str:
    def f(v, fmt):
        return "-" if isinstance(v, float) and np.isnan(v) else format(v, fmt)

    return (
        f"| {r['data']} | {r['model']} | {r['engine']} | {r['n']} | {r['exists']} | "
        f"{r['found_where_exists']}/{r['exists']} | {r['found']}/{r['n']} | {f(r['first_changed'], '.1f')} | "
        f"{f(r['mean_changed'], '.1f')} | {f(r['distinct'], '.1f')} | {f(r['distance'], '.4f')} | "
        f"{f(r['median_s'], '.2f')} | {f(r['max_s'], '.2f')} | {f(r['max_failed_s'], '.2f')} | "
        f"{f(r['median_cpu'], '.2f')} | {f(r['max_cpu'], '.2f')} | "
        f"{f(r['median_gen'], '.0f')} | {r['max_gen']} | {r['violations']} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5, help="instances per setting (default 5)")
    ap.add_argument("--k", type=int, default=5, help="counterfactuals per explanation (default 5)")
    ap.add_argument("--datasets", default="adult,credit,adult-frozen,cancer,synth30,digits")
    ap.add_argument("--models", default="rf,hgb,gb,mlp")
    ap.add_argument("--markdown", help="also write the table to this file")
    args = ap.parse_args()
    sep = "|" + "---|" * (HEADER.count("|") - 1)
    lines = [HEADER, sep]
    print(HEADER, sep, sep="\n", flush=True)
    for name in args.datasets.split(","):
        for kind in args.models.split(","):
            line = row_markdown(run_setting(name, kind, args.n, args.k))
            lines.append(line)
            print(line, flush=True)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
