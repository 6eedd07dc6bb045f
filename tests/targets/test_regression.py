"""Regression models: compiled tree engines bit-exact to ``predict``, the MLP engines within their
error bound of it, and every counterfactual's prediction in the desired range by the model's own
``predict``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import (
    ExtraTreesRegressor,
    GradientBoostingRegressor,
    HistGradientBoostingRegressor,
    RandomForestRegressor,
)
from sklearn.neural_network import MLPRegressor
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from target_models import fitted, scaled

import geco
from codegen.outputs import ModelOutput
from codegen.registry import scorer_for

REGRESSORS = {
    "dt": lambda: DecisionTreeRegressor(max_depth=8, random_state=0),
    "rf": lambda: RandomForestRegressor(30, max_depth=8, random_state=0, n_jobs=1),
    "et": lambda: ExtraTreesRegressor(20, max_depth=8, random_state=0, n_jobs=1),
    "gb": lambda: GradientBoostingRegressor(n_estimators=40, random_state=0),
    "hgb": lambda: HistGradientBoostingRegressor(max_iter=40, random_state=0),
    "hgb-poisson": lambda: HistGradientBoostingRegressor(max_iter=40, loss="poisson", random_state=0),
}


def _gbm_regressors():
    out = {}
    try:
        import xgboost

        out["xgb"] = lambda: xgboost.XGBRegressor(n_estimators=30, max_depth=4, n_jobs=1)
    except ImportError:  # pragma: no cover
        pass
    try:
        import lightgbm

        out["lgbm"] = lambda: lightgbm.LGBMRegressor(n_estimators=30, verbose=-1, n_jobs=1)
    except ImportError:  # pragma: no cover
        pass
    return out


ALL = {**REGRESSORS, **_gbm_regressors()}


@pytest.mark.parametrize("engine", ["auto", "numpy"])
@pytest.mark.parametrize("kind", sorted(ALL))
def test_compiled_regressor_is_bit_exact_to_predict(hours, kind, engine):
    X, y = hours
    if kind.startswith(("xgb", "lgbm")):
        X = X.select_dtypes("number")  # their own categoricals are another reader's business
    model = fitted(X, y, ALL[kind]())
    ex = geco.Explainer(model, X, desired_range=(45, 60), engine=engine)
    assert ex.scorer.compiled and ex.scorer.exact
    rows = ex.table.take(slice(0, 2000))
    expected = model.predict(X.iloc[:2000])
    assert np.array_equal(ex.scorer.score_rows(rows), expected)
    bound = ex.scorer.bind(rows[0])
    delta = (0, 2)
    block = bound.score_block(delta, rows[:, list(delta)])
    moved = X.iloc[:2000].copy()
    for j, name in enumerate(X.columns):
        if j not in delta:
            moved[name] = X[name].iloc[0]
    assert np.array_equal(block, model.predict(moved))


def mlp_regressor() -> MLPRegressor:
    return MLPRegressor(hidden_layer_sizes=(16,), max_iter=200, random_state=0)


@pytest.mark.parametrize("engine", ["auto", "numpy", "jit"])
def test_compiled_mlp_regressor_is_within_its_error_bound_of_predict(hours, engine):
    """Scaled numbers and one-hot categories before the MLP: full rows and a Δ block of a bound
    instance within the error bound (and 1e-12) of ``predict``; not claimed exact."""
    X, y = hours
    model = scaled(X, y, mlp_regressor())
    ex = geco.Explainer(model, X, desired_range=(45, 60), engine=engine)
    assert ex.scorer.compiled and not ex.scorer.exact and ex.engine.startswith("mlp-"), ex.engine_reason
    assert ex.scorer.upper_bound(ex.table.take(slice(0, 1))[0], [None] * len(ex.schema)) is None
    rows = ex.table.take(slice(0, 2000))
    expected = model.predict(X.iloc[:2000])
    got = ex.scorer.score_rows(rows)
    bound = ex.scorer.error_bound(rows)
    assert np.all(np.abs(got - expected) <= bound) and np.abs(got - expected).max() <= 1e-12
    assert bound.max() < 1e-10  # absolute, for predictions ~40: ~1e-13 of them
    x = rows[5]
    delta = (0, 3, 6)
    moved = X.iloc[:2000].copy()
    for j, name in enumerate(X.columns):
        if j not in delta:
            moved[name] = X[name].iloc[5]
    block = ex.scorer.bind(x).score_block(delta, np.ascontiguousarray(rows[:, list(delta)]))
    assert np.all(np.abs(block - model.predict(moved)) <= 1e-12)


def test_multi_output_mlp_regressor_is_refused_with_the_reason(hours):
    X, y = hours
    X = X.select_dtypes("number")
    two = scaled(X, pd.DataFrame({"a": y, "b": y * 2}), MLPRegressor(hidden_layer_sizes=(4,), max_iter=20, random_state=0))
    schema = geco.Explainer(scaled(X, y, mlp_regressor()), X, desired_range=(0, 1)).schema
    with pytest.raises(geco.UnsupportedModelError, match="2 outputs; a prediction range needs a single-output regressor"):
        scorer_for(two, schema, ModelOutput("prediction"), "numpy")


@pytest.mark.parametrize("kind", ["rf", "hgb", "mlp", "blackbox-mlp"])
def test_every_counterfactual_is_in_the_range_by_predict(hours, kind):
    X, y = hours
    engine = "auto"
    if kind == "blackbox-mlp":
        X = X.select_dtypes("number")
        model = fitted(X, y, mlp_regressor())
        engine = "blackbox"
    elif kind == "mlp":
        model = scaled(X, y, mlp_regressor())
    else:
        model = fitted(X, y, REGRESSORS[kind]())
    lo, hi = 45.0, 60.0
    ex = geco.Explainer(model, X, desired_range=(lo, hi), k=3, engine=engine)
    assert ex.target.kind == "range"
    assert ex.scorer.compiled == (engine != "blackbox"), ex.engine_reason
    pred = model.predict(X.iloc[:300])
    rows = np.flatnonzero(pred < lo)[:4]
    assert len(rows)
    found = 0
    for r in rows:
        e = ex.explain(X.iloc[[r]], random_state=0)
        assert e.stats["target"] == {"kind": "range", "desired_range": [lo, hi]}
        assert e.desired_class is None
        if not e.success:
            continue
        found += 1
        cf = e.counterfactuals
        own = model.predict(cf[list(X.columns)])
        assert np.all((own >= lo) & (own <= hi))
        assert np.array_equal(cf["probability"].to_numpy(), own)  # the slot carries the prediction
    assert found == len(rows)  # reachable on this data: every row gets one


def test_already_in_range_and_unreachable_range(hours):
    X, y = hours
    model = fitted(X, y, REGRESSORS["rf"]())
    pred = model.predict(X.iloc[:1])[0]
    ex = geco.Explainer(model, X, desired_range=(pred - 1, pred + 1))
    e = ex.explain(X.iloc[[0]])
    assert e.stats["outcome"] == "already desired" and "already meets" in e.reason
    far = geco.Explainer(model, X, desired_range=(1000, 2000), max_generations=5)
    e = far.explain(X.iloc[[0]], random_state=0)
    assert not e.success and "1000 <= prediction <= 2000" in e.reason
    assert len(e.counterfactuals) and not e.counterfactuals["counterfactual"].any()


def test_regressor_without_range_and_classifier_with_range_are_refused(hours, bands):
    X, y = hours
    model = fitted(X, y, REGRESSORS["dt"]())
    with pytest.raises(geco.UnsupportedModelError, match="desired_range"):
        geco.Explainer(model, X)
    assert scorer_for(model, geco.Explainer(model, X, desired_range=(0, 1)).schema, ModelOutput("prediction"))
    with pytest.raises(geco.UnsupportedModelError, match="regressor"):
        scorer_for(model, geco.Explainer(model, X, desired_range=(0, 1)).schema, 1)
    Xb, yb = bands
    clf = fitted(Xb, yb, DecisionTreeClassifier(max_depth=3))
    with pytest.raises(geco.UnsupportedModelError, match="classifier"):
        geco.Explainer(clf, Xb, desired_range=(0, 1))


def test_callable_as_regression_black_box(hours):
    X, y = hours
    X = X.select_dtypes("number")
    model = fitted(X, y, REGRESSORS["dt"]())

    def predict(frame: pd.DataFrame) -> np.ndarray:
        return model.predict(frame)

    ex = geco.Explainer(predict, X, desired_range=(45, np.inf), k=2)
    assert ex.engine == "blackbox"
    r = int(np.flatnonzero(model.predict(X.iloc[:100]) < 45)[0])
    e = ex.explain(X.iloc[[r]], random_state=0)
    assert e.success and np.all(model.predict(e.counterfactuals[list(X.columns)]) >= 45)


def test_open_ranges_and_missing_numbers_are_written_as_standard_json(hours, tmp_path):
    """An open end of a range and a number no explanation had (x's probability where the row
    failed) are null in the JSON, not Python's Infinity/NaN that other parsers refuse; read
    back, they are what they were."""
    import json

    from geco.result import Explanation, read_jsonl, write_jsonl

    X, y = hours
    X, y = X.iloc[:2000], y.iloc[:2000]
    model = fitted(X, y, RandomForestRegressor(20, max_depth=6, random_state=0))
    explainer = geco.Explainer(model, X, desired_range=(45, np.inf), k=1, max_generations=10)
    row = int(np.flatnonzero(model.predict(X) < 40)[0])
    found = explainer.explain(X.iloc[[row]], random_state=0)
    failed = Explanation.empty(X.iloc[[row]], "the row failed", None, stats={"error": "ValueError"})
    assert np.isnan(failed.x_probability)

    def strict(text):
        return json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))

    for e in (found, failed):
        data = strict(e.to_json())
        back = Explanation.from_dict(data)
        assert str(back).splitlines()[0] == str(e).splitlines()[0]
        assert np.isnan(back.x_probability) == np.isnan(e.x_probability)
    assert strict(found.to_json())["stats"]["target"] == {"kind": "range", "desired_range": [45.0, None]}
    write_jsonl([found, failed], tmp_path / "out.jsonl")
    for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines():
        strict(line)
    read, _ = read_jsonl(tmp_path / "out.jsonl")
    assert [str(e) for e in read] == [str(found), str(failed)]
