"""Differential test of the compiled engines against the model's own ``predict_proba``.

Random models of every supported family (DecisionTree, RandomForest, ExtraTrees,
GradientBoosting, HistGradientBoosting with and without native categoricals, XGBoost and LightGBM
(bare with pandas categoricals), MLP, LogisticRegression; ``linreg`` - LinearRegression, Ridge,
Lasso, ElasticNet, their ``predict`` - when named), bare and in
pipelines (OneHotEncoder, OrdinalEncoder, StandardScaler, MinMaxScaler), scored on random
instances ``x`` and Δ blocks whose values are data values, the folded split thresholds and their
float64 / float32 neighbours, huge magnitudes and NaN, through every engine tier: ``numpy``,
``jit``, ``auto``, and for trees the full-forest kernel and the native partial evaluator forced
on every block.

* trees: every tier bit-identical to ``predict_proba``;
* MLP and the linear models (networks without a hidden layer): within
  :func:`codegen.mlp.bound.error_bound` of it; besides one class's probability,
  ``mlp-reg`` (an MLPRegressor's ``predict``) and ``mlp-set`` (a set of classes,
  ``predict_proba[:, cols].sum(1)``), drawn only when named (not in the seed rotation);
* a row ``predict_proba`` refuses (values beyond float32 for sklearn's trees, a scaler
  overflowing) is not compared - the Explainer refuses those up front;
* values that are no category code (negative, too large, fractional, NaN) cannot be decoded for
  ``predict_proba``: there every tree tier must agree with the numpy reference
  (:meth:`codegen.trees.fold.Forest.predict`: such a code goes right) and every MLP tier must
  return NaN - and nothing may crash.

At scale, each model's batch runs in a subprocess, so a crash (segfault) is counted, not fatal::

    python benchmarks/differential.py --models 120 --rows 10000 [--seed 0] [--jobs 2]

prints models, candidate rows, rows refused by the model, mismatches and crashes, and exits 1 on
any mismatch or crash. ``tests/codegen/test_differential.py`` runs the same checks on a few
hypothesis-drawn models in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from codegen.outputs import ModelOutput  # noqa: E402
from plaf_grammar import Schema  # noqa: E402

FAMILIES = ("dt", "rf", "et", "gb", "hgb", "hgb-cat", "xgb", "lgb", "mlp", "lr")
#: MLP outputs beyond one class's probability: a regressor's prediction, a set of classes; and
#: the linear regressors' prediction
MLP_OUTPUTS = ("mlp-reg", "mlp-set", "linreg")
#: families whose bare model reads pandas categoricals itself
NATIVE_CATEGORICALS = ("hgb-cat", "xgb", "lgb")
PIPELINES = ("bare", "onehot", "ordinal", "standard", "minmax", "imputed", "selected")
TREE_TIERS = ("numpy", "jit", "auto", "plan", "xwalk", "full")
MLP_TIERS = ("numpy", "jit", "auto")
#: magnitudes every numeric feature is also tried at (float32's largest finite value included)
HUGE = (1e15, -1e15, 1e30, -3.4028234663852886e38, 3.4028234663852886e38, 1e300)


# ------------------------------------------------------------------------------ random models


@dataclass
class Case:
    """A fitted model, its data (encoded) and what it takes."""

    name: str
    model: Any
    schema: Schema
    data: np.ndarray
    desired: Any
    family: str
    nan_ok: bool  # the model takes NaN in numeric features
    info: dict = field(default_factory=dict)


def random_frame(rng: np.random.Generator, n: int, n_num: int, n_cat: int) -> pd.DataFrame:
    """Numeric columns of random scale (1e-3 .. 1e6, some integer-valued, few distinct values so
    thresholds fall between repeated values) and categorical / ordinal columns."""
    cols: dict[str, Any] = {}
    for i in range(n_num):
        scale = 10.0 ** rng.uniform(-3, 6)
        levels = rng.normal(0, scale, int(rng.integers(3, 40)))
        if rng.random() < 0.4:
            levels = np.round(levels)
        cols[f"n{i}"] = rng.choice(levels, n) + rng.choice([0.0, 1e6], p=[0.9, 0.1])
    for i in range(n_cat):
        k = int(rng.integers(2, 7))
        cats = [f"c{i}_{j}" for j in range(k)]
        cols[f"c{i}"] = pd.Categorical(rng.choice(cats, n), categories=cats, ordered=bool(rng.random() < 0.4))
    return pd.DataFrame(cols)


def _labels(rng: np.random.Generator, X: pd.DataFrame, n_classes: int) -> np.ndarray:
    """Labels from a random function of the features (so trees split on many of them)."""
    score = np.zeros(len(X))
    for c in X.columns:
        v = X[c].cat.codes.to_numpy(float) if isinstance(X[c].dtype, pd.CategoricalDtype) else X[c].to_numpy(float)
        r = np.argsort(np.argsort(v, kind="stable"), kind="stable") / len(v)  # rank: scale-free
        score += rng.normal() * r + (rng.normal() * (r > rng.random()))
    cuts = np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])
    y = np.searchsorted(cuts, score + rng.normal(0, 0.05, len(X)))
    y[: n_classes] = np.arange(n_classes)  # every class present
    return y


def _estimator(family: str, rng: np.random.Generator):
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        HistGradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.neural_network import MLPClassifier, MLPRegressor
    from sklearn.tree import DecisionTreeClassifier

    seed = int(rng.integers(1 << 31))
    depth = int(rng.integers(2, 9))
    n = int(rng.integers(2, 12))
    if family == "dt":
        return DecisionTreeClassifier(max_depth=depth, random_state=seed)
    if family == "rf":
        return RandomForestClassifier(n_estimators=n, max_depth=depth, max_features=float(rng.uniform(0.3, 1)), random_state=seed)
    if family == "et":
        return ExtraTreesClassifier(n_estimators=n, max_depth=depth, random_state=seed)
    if family == "gb":
        return GradientBoostingClassifier(n_estimators=n, max_depth=min(depth, 4), random_state=seed)
    if family in ("hgb", "hgb-cat"):
        return HistGradientBoostingClassifier(
            max_iter=n, max_depth=depth, min_samples_leaf=int(rng.integers(1, 10)), random_state=seed,
            categorical_features="from_dtype" if family == "hgb-cat" else None,
        )  # fmt: skip
    if family == "xgb":
        import xgboost as xgb

        return xgb.XGBClassifier(n_estimators=n, max_depth=min(depth, 6), enable_categorical=True, n_jobs=1,
                                 max_cat_to_onehot=int(rng.integers(1, 5)), random_state=seed)  # fmt: skip
    if family == "lgb":
        import lightgbm as lgb

        return lgb.LGBMClassifier(n_estimators=n, num_leaves=int(rng.integers(3, 32)), min_child_samples=int(rng.integers(2, 10)),
                                  min_data_per_group=2, cat_smooth=1.0, verbose=-1, n_jobs=1, random_state=seed)  # fmt: skip
    if family == "lr":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=float(10 ** rng.uniform(-2, 2)), max_iter=int(rng.integers(20, 300)))
    if family == "linreg":
        from sklearn.linear_model import ElasticNet, Lasso, LinearRegression, Ridge

        alpha = float(10 ** rng.uniform(-3, 1))
        return [LinearRegression(), Ridge(alpha), Lasso(alpha), ElasticNet(alpha)][int(rng.integers(4))]
    hidden = tuple(int(rng.integers(2, 24)) for _ in range(int(rng.integers(1, 4))))
    act = str(rng.choice(["identity", "relu", "tanh", "logistic"]))
    if family == "mlp-reg":
        return MLPRegressor(hidden_layer_sizes=hidden, activation=act, max_iter=int(rng.integers(5, 60)), random_state=seed)
    return MLPClassifier(hidden, activation=act, max_iter=int(rng.integers(5, 60)), random_state=seed)


def is_mlp(case: Case) -> bool:
    """Whether the MLP engines serve the case (an MLP or a linear model)."""
    return case.family.startswith("mlp") or case.family in ("lr", "linreg")


def _pipeline(kind: str, X: pd.DataFrame, est, rng: np.random.Generator):
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, OrdinalEncoder, StandardScaler

    cats = [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]
    nums = [c for c in X.columns if c not in cats]
    encoder = (
        OneHotEncoder(handle_unknown="ignore", sparse_output=False, drop=None if rng.random() < 0.7 else "first")
        if kind == "onehot" or (kind != "ordinal" and rng.random() < 0.5)
        else OrdinalEncoder()
    )
    scaler = {"standard": StandardScaler(), "minmax": MinMaxScaler(clip=bool(rng.random() < 0.3))}.get(kind)
    if scaler is None:
        scaler = [StandardScaler(), MinMaxScaler(), "passthrough"][int(rng.integers(3))]
    if kind == "imputed":  # what users put before them for missing values (rows here hold none)
        from sklearn.impute import SimpleImputer

        encoder = Pipeline([("i", SimpleImputer(strategy="most_frequent")), ("e", encoder)])
        scaler = Pipeline([("i", SimpleImputer(strategy="median")), ("s", scaler)])
    parts = []
    if cats:
        parts.append(("cat", encoder, cats))
    if nums:
        parts.append(("num", scaler, nums))
    if kind == "selected":  # feature selection between the encoding and the model
        from sklearn.base import is_regressor
        from sklearn.feature_selection import (
            SelectKBest,
            VarianceThreshold,
            f_classif,
            f_regression,
        )

        keep = SelectKBest(f_regression if is_regressor(est) else f_classif, k=int(rng.integers(1, len(X.columns) + 1)))
        return Pipeline([("ct", ColumnTransformer(parts)), ("v", VarianceThreshold()), ("k", keep), ("m", est)])
    return Pipeline([("ct", ColumnTransformer(parts)), ("m", est)])


def make_case(seed: int, family: str | None = None, pipeline: str | None = None, n: int = 240) -> Case:
    """A random fitted model; ``family`` / ``pipeline`` drawn from the seed when not given."""
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(seed)
    family = family or FAMILIES[seed % len(FAMILIES)]
    if pipeline is None:
        pipeline = "bare" if family == "hgb-cat" else str(rng.choice(PIPELINES))
    native_cats = family in NATIVE_CATEGORICALS
    n_num = int(rng.integers(1, 5))
    n_cat = int(rng.integers(0 if pipeline == "bare" and not native_cats else 1, 3))
    X = random_frame(rng, n, n_num, n_cat)
    if pipeline == "bare" and not native_cats:
        X = X.assign(**{c: X[c].cat.codes.astype(float) for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)})
    nan_ok = family in ("dt", "rf", "et", "hgb", "hgb-cat", "xgb", "lgb") and pipeline == "bare"
    if nan_ok and rng.random() < 0.5:  # learned NaN routing on one column
        X.loc[rng.random(n) < 0.15, X.columns[0]] = np.nan
    n_classes = int(rng.choice([2, 3, 3, 4])) if family == "mlp-set" else int(rng.choice([2, 2, 3]))
    y = _labels(rng, X.fillna(0), n_classes)
    if family in ("mlp-reg", "linreg"):  # a number of size ~40 to predict
        y = 40.0 + 5.0 * _labels(rng, X.fillna(0), 12) + rng.normal(0, 1, len(X))
    est = _estimator(family, rng)
    model = est if pipeline == "bare" else _pipeline(pipeline, X, est, rng)
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    desired: Any = int(rng.integers(n_classes))
    if family in ("mlp-reg", "linreg"):
        desired = ModelOutput("prediction")
    elif family == "mlp-set":
        size = int(rng.integers(2, n_classes + 1))
        desired = ModelOutput("proba", tuple(int(c) for c in rng.choice(n_classes, size, replace=False)))
    schema = Schema.from_dataframe(X)
    data = _encode(schema, X)
    return Case(f"{family}-{pipeline}-{seed}", model, schema, data, desired, family, nan_ok)


def _encode(schema: Schema, X: pd.DataFrame) -> np.ndarray:
    """Schema encoding that keeps NaN (Schema.encode refuses it; the engines route it)."""
    out = np.empty((len(X), len(schema)))
    for j, f in enumerate(schema.features):
        col = X[f.name]
        out[:, j] = col.cat.codes if f.categories is not None else col.to_numpy(dtype=float)
    return out


# ------------------------------------------------------------------------------ candidate values


def numeric_values(case: Case, j: int, forest=None) -> np.ndarray:
    """Data values of numeric feature ``j``, the folded thresholds on it and their float64 and
    float32 neighbours, and huge magnitudes."""
    col = case.data[:, j]
    vals = [col[~np.isnan(col)], np.asarray(HUGE)]
    if forest is not None:
        t = forest.threshold[(forest.feature == j) & (forest.cat < 0)]
        t = t[np.isfinite(t)]
        t32 = t.astype(np.float32)
        vals += [t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf), t32.astype(float),
                 np.nextafter(t32, np.float32(np.inf)).astype(float),
                 np.nextafter(t32, np.float32(-np.inf)).astype(float)]  # fmt: skip
    return np.unique(np.concatenate(vals))


def draw_block(case: Case, rng: np.random.Generator, n: int, forest=None, invalid_codes: bool = False):
    """(x, Δ, columns): a random instance and Δ, ``n`` rows of candidate values for Δ."""
    d = len(case.schema)
    x = case.data[int(rng.integers(len(case.data)))].copy()
    pools = []
    for j, f in enumerate(case.schema.features):
        if f.categories is not None:
            pool = np.arange(len(f.categories), dtype=float)
            if invalid_codes:
                pool = np.concatenate([pool, [-1.0, len(f.categories), 0.5, 1e300, -1e300, np.nan]])
        else:
            pool = numeric_values(case, j, forest)
            if case.nan_ok:
                pool = np.append(pool, np.nan)
        pools.append(pool)
    for j in range(d):  # x itself may hold threshold-adjacent or huge values
        if rng.random() < 0.3:
            x[j] = pools[j][int(rng.integers(len(pools[j])))]
    k = int(rng.integers(0, d + 1))
    delta = tuple(sorted(int(j) for j in rng.choice(d, k, replace=False)))
    cols = np.empty((n, len(delta)))
    for c, j in enumerate(delta):
        cols[:, c] = pools[j][rng.integers(len(pools[j]), size=n)]
    return x, delta, cols


def full_rows(x: np.ndarray, delta: tuple[int, ...], cols: np.ndarray) -> np.ndarray:
    rows = np.tile(x, (len(cols), 1))
    if delta:
        rows[:, list(delta)] = cols
    return rows


def valid_codes(case: Case, rows: np.ndarray) -> np.ndarray:
    """Rows whose categorical values are all category codes."""
    ok = np.ones(len(rows), dtype=bool)
    for j, f in enumerate(case.schema.features):
        if f.categories is not None:
            v = rows[:, j]
            with np.errstate(invalid="ignore"):
                ok &= (v >= 0) & (v < len(f.categories)) & (v == np.floor(v))
    return ok


def reference(case: Case, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(predict_proba's P(desired) per row - a set's column sum, a regressor's ``predict`` -,
    which rows the model took); refused rows are NaN.

    A model refuses values (sklearn's trees: beyond float32), so every distinct value of the
    block is first asked alone, in a data row (one call, results cached per model); rows holding
    a refused value are left out, the rest asked in one call. A call that still raises is split
    in halves until the refused rows are found."""
    known: dict[tuple[int, float], bool] = case.info.setdefault("accepted", {})
    output = case.desired if isinstance(case.desired, ModelOutput) else ModelOutput("proba", (case.desired,))
    cols = [list(case.model.classes_).index(c) for c in output.classes]

    def ask(part: np.ndarray) -> np.ndarray | None:
        try:
            with warnings.catch_warnings(), threadpool_limits(1):
                warnings.simplefilter("ignore")
                frame = _decode(case.schema, part)
                if output.kind == "prediction":
                    return np.asarray(case.model.predict(frame), dtype=np.float64)
                return case.model.predict_proba(frame)[:, cols].sum(axis=1)
        except ValueError:
            return None

    def solve(part: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = ask(part)
        if p is not None:
            return p, np.ones(len(part), dtype=bool)
        if len(part) == 1:
            return np.full(1, np.nan), np.zeros(1, dtype=bool)
        h = len(part) // 2
        (p1, ok1), (p2, ok2) = solve(part[:h]), solve(part[h:])
        return np.concatenate([p1, p2]), np.concatenate([ok1, ok2])

    new = sorted({(j, float(v)) for j in range(rows.shape[1]) for v in np.unique(rows[:, j])
                  if (j, float(v)) not in known and not np.isnan(v)})  # fmt: skip
    if new:
        probes = np.repeat(case.data[:1], len(new), axis=0)
        for r, (j, v) in enumerate(new):
            probes[r, j] = v
        _, took = solve(probes)
        known.update(zip(new, took.tolist()))
    usable = np.ones(len(rows), dtype=bool)
    for j in range(rows.shape[1]):
        bad = [v for (jj, v), ok in known.items() if jj == j and not ok]
        if bad:
            usable &= ~np.isin(rows[:, j], bad)
    out = np.full(len(rows), np.nan)
    ok = np.zeros(len(rows), dtype=bool)
    if usable.any():
        out[usable], ok[usable] = solve(rows[usable])
    return out, ok


def _decode(schema: Schema, rows: np.ndarray) -> pd.DataFrame:
    """Schema.decode, keeping NaN in numeric columns."""
    frame = schema.decode(np.nan_to_num(rows, nan=0.0))
    for j, f in enumerate(schema.features):
        if f.categories is None:
            frame[f.name] = rows[:, j]
    return frame


# ------------------------------------------------------------------------------ engines


def tree_tiers(case: Case) -> dict[str, Any]:
    from codegen.registry import scorer_for

    tiers = {t: scorer_for(case.model, case.schema, case.desired, "auto" if t in ("plan", "xwalk", "full") else t) for t in TREE_TIERS}
    if hasattr(tiers["plan"], "c_xwalk"):  # steer the auto scorer's cost model to one tier
        tiers["plan"].c_xwalk.seconds = 1e9 * tiers["plan"].c_xwalk.units
        for rate in tiers["xwalk"].c_plan:
            rate.seconds = 1e9 * rate.units
    return tiers


def score_tree_tier(tier: str, scorer, x: np.ndarray, delta: tuple[int, ...], cols: np.ndarray) -> list[np.ndarray]:
    """One tier on one block; ``plan`` / ``xwalk`` are the auto scorer steered to that native
    path (see :func:`tree_tiers`), ``full`` the full-forest kernel on materialised rows; ``auto``
    scores the block twice (cold, then with the Δ warm)."""
    from codegen.trees.kernel import run_kernel

    bound = scorer.bind(x)
    f = scorer.forest
    if tier == "full":
        acc = run_kernel(scorer.full, full_rows(x, delta, cols))
    else:
        return [bound.score_block(delta, cols) for _ in range(1 if tier in ("numpy", "jit") else 2)]
    return [acc[:, 0] if f.divisor is not None else f.finish(acc)]


def hot_delta(case: Case, scorer, rng: np.random.Generator, n: int = 100, seconds: float = 10.0) -> tuple[int, int, bool]:
    """The auto tier on one (x, Δ) scored over and over, until its background compile has
    finished and the compiled residual scores (a thread compiles while the kernel runs):
    (rows checked, mismatches, whether the compiled residual took over)."""
    forest = scorer.forest
    for _ in range(20):  # a Δ with splits left (a constant residual is never compiled)
        x, delta, cols = draw_block(case, rng, n, forest)
        if delta and len(delta) < len(x) and bound_splits(scorer, x, delta):
            break
    else:
        return 0, 0, False
    rows = full_rows(x, delta, cols)
    ref, took = reference(case, rows)
    # partially evaluate and compile at once (small forests would otherwise never pay for it)
    scorer.c_compile_base = 0.0
    scorer.c_compile_split.seconds = 1e-12 * scorer.c_compile_split.units
    scorer.c_xwalk.seconds = 1e9 * scorer.c_xwalk.units  # plans, whose hot Δ get compiled
    bound = scorer.bind(x)
    checked = bad = 0
    start = scorer.stats["blocks_jit"]
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        got = bound.score_block(delta, cols)
        bad += int(np.count_nonzero(took & (got != ref)))
        checked += n
        if scorer.stats["blocks_jit"] > start + 2:
            break
        time.sleep(0.002)  # let the compiling thread run
    return checked, bad, scorer.stats["blocks_jit"] > start


def bound_splits(scorer, x: np.ndarray, delta: tuple[int, ...]) -> int:
    return int(scorer.bind(x).plan(delta).n_splits)


def mlp_tiers(case: Case) -> dict[str, Any]:
    from codegen.registry import scorer_for

    return {t: scorer_for(case.model, case.schema, case.desired, t) for t in MLP_TIERS}


@dataclass
class Tally:
    rows: int = 0
    hot_rows: int = 0  # the same rows scored again and again while a background compile runs
    hot_compiled: bool = False
    refused: int = 0
    invalid_rows: int = 0
    mismatches: Counter = field(default_factory=Counter)
    examples: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"rows": self.rows, "hot_rows": self.hot_rows, "hot_compiled": self.hot_compiled,
                "refused": self.refused, "invalid_rows": self.invalid_rows,
                "mismatches": dict(self.mismatches), "examples": self.examples[:3]}  # fmt: skip


def check_block(case: Case, tiers: dict[str, Any], x, delta, cols, tally: Tally) -> None:
    """Score one block through every tier and compare (module docstring); updates ``tally``."""
    from codegen.mlp.bound import error_bound

    rows = full_rows(x, delta, cols)
    valid = valid_codes(case, rows)
    ref = np.full(len(rows), np.nan)
    took = np.zeros(len(rows), dtype=bool)
    if valid.any():
        ref[valid], took[valid] = reference(case, rows[valid])
    tally.rows += len(rows)
    tally.refused += int(np.count_nonzero(valid & ~took))
    tally.invalid_rows += int(np.count_nonzero(~valid))
    mlp = is_mlp(case)
    if mlp:
        bound = error_bound(tiers["numpy"].layer, rows)
        ref_invalid = np.full(len(rows), np.nan)
    else:
        ref_invalid = tiers["numpy"].forest.predict(rows)
    for tier, scorer in tiers.items():
        results = (
            [np.asarray(scorer.bind(x).score_block(delta, cols))]
            if mlp
            else score_tree_tier(tier, scorer, x, delta, cols)
        )
        bad = np.zeros(len(rows), dtype=bool)
        for got in results:
            if mlp:
                bad |= took & ~(np.abs(got - ref) <= bound)
                bad |= ~valid & ~np.isnan(got)
            else:
                bad |= took & (got != ref)
                bad |= ~valid & ~((got == ref_invalid) | (np.isnan(got) & np.isnan(ref_invalid)))
        if bad.any():
            i = int(np.argmax(bad))
            tally.mismatches[tier] += int(np.count_nonzero(bad))
            tally.examples.append({
                "model": case.name, "tier": tier, "x": x.tolist(), "delta": list(delta),
                "values": cols[i].tolist(), "got": float(got[i]),
                "want": float(ref[i]) if valid[i] else float(ref_invalid[i]),
            })  # fmt: skip


def run_model(seed: int, rows: int, block: int = 250, invalid_share: float = 0.1) -> dict:
    """Every check on one random model: about ``rows`` candidate rows in blocks of ``block``."""
    case = make_case(seed)
    rng = np.random.default_rng(seed + 1_000_003)
    tiers = mlp_tiers(case) if is_mlp(case) else tree_tiers(case)
    forest = None if is_mlp(case) else tiers["numpy"].forest
    tally = Tally()
    if forest is not None:  # the background compile of a hot Δ, racing the kernel
        checked, bad, tally.hot_compiled = hot_delta(case, tiers["auto"], rng)
        tally.hot_rows += checked
        if bad:
            tally.mismatches["auto-hot"] += bad
    while tally.rows < rows:
        n = min(block, rows - tally.rows)
        x, delta, cols = draw_block(case, rng, n, forest, invalid_codes=rng.random() < invalid_share)
        check_block(case, tiers, x, delta, cols, tally)
    return {"model": case.name, "family": case.family, **tally.as_dict()}


# ------------------------------------------------------------------------------ at scale


def _worker(args: argparse.Namespace) -> None:
    print(json.dumps(run_model(args.worker, args.rows, args.block)), flush=True)


def _spawn(seed: int, args: argparse.Namespace) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONFAULTHANDLER="1", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")  # fmt: skip
    cmd = [sys.executable, __file__, "--worker", str(seed), "--rows", str(args.rows), "--block", str(args.block)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=120)
    ap.add_argument("--rows", type=int, default=10_000, help="candidate rows per model")
    ap.add_argument("--block", type=int, default=250, help="rows per Δ block")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2, help="models checked in parallel (one process each)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per model")
    ap.add_argument("--log", default=None, help="append each model's result (a JSON line) to this file")
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker is not None:
        _worker(args)
        return 0
    t0 = time.perf_counter()
    seeds = [args.seed * 100_000 + i for i in range(args.models)]
    totals = Counter()
    per_family: Counter = Counter()
    mismatches: Counter = Counter()
    crashes: list[str] = []
    examples: list = []
    running: list[tuple[int, subprocess.Popen, float]] = []
    pending = list(seeds)
    while pending or running:
        while pending and len(running) < args.jobs:
            s = pending.pop(0)
            running.append((s, _spawn(s, args), time.perf_counter()))
        time.sleep(0.05)
        for item in list(running):
            s, proc, started = item
            if proc.poll() is None and time.perf_counter() - started < args.timeout:
                continue
            if proc.poll() is None:
                proc.kill()
            out, err = proc.communicate()
            running.remove(item)
            line = out.strip().splitlines()[-1] if out.strip() else ""
            if proc.returncode != 0 or not line.startswith("{"):
                how = f"signal {signal.Signals(-proc.returncode).name}" if proc.returncode < 0 else f"exit {proc.returncode}"
                last = err.strip().splitlines()[-1] if err.strip() else ""
                crashes.append(f"seed {s}: {how}: {last}")
                if args.log:
                    with open(args.log, "a") as fh:
                        fh.write(json.dumps({"seed": s, "crash": crashes[-1]}) + "\n")
                continue
            r = json.loads(line)
            if args.log:
                with open(args.log, "a") as fh:
                    fh.write(line + "\n")
            totals.update(models=1, rows=r["rows"], hot_rows=r["hot_rows"], refused=r["refused"],
                          invalid_rows=r["invalid_rows"], hot_compiled=int(r["hot_compiled"]))
            per_family[r["family"]] += 1
            mismatches.update(r["mismatches"])
            examples += r["examples"]
    seconds = time.perf_counter() - t0
    print(f"models {totals['models']} ({', '.join(f'{k} {v}' for k, v in sorted(per_family.items()))})")
    print(f"candidate rows {totals['rows']} (refused by the model {totals['refused']}, "
          f"invalid category codes {totals['invalid_rows']}), each through every tier")  # fmt: skip
    print(f"hot-Δ rows {totals['hot_rows']} (rescored while a background compile ran; the compiled "
          f"residual took over in {totals['hot_compiled']} of {sum(v for k, v in per_family.items() if k not in ('mlp', 'lr'))} tree models)")
    print(f"mismatches {sum(mismatches.values())} {dict(mismatches) if mismatches else ''}".rstrip())
    print(f"crashes {len(crashes)}")
    for c in crashes[:5]:
        print("  " + c)
    for e in examples[:5]:
        print("  mismatch: " + json.dumps(e))
    print(f"seconds {seconds:.0f}")
    return 1 if crashes or mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
