"""Sets of desired classes (P of the set is the sum of their predict_proba columns), a cutoff
other than 0.5, and margin ranges for binary boosting models."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import (
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.neural_network import MLPClassifier
from target_models import fitted, scaled

import geco


@pytest.fixture(scope="module")
def band_models(bands):
    X, y = bands
    return {
        "rf": fitted(X, y, RandomForestClassifier(30, max_depth=8, random_state=0, n_jobs=1)),
        "hgb": fitted(X, y, HistGradientBoostingClassifier(max_iter=30, random_state=0)),
        "mlp": scaled(X, y, MLPClassifier((16,), max_iter=200, random_state=0)),
    }


@pytest.mark.parametrize("engine", ["auto", "blackbox"])
@pytest.mark.parametrize("kind", ["rf", "hgb", "mlp"])
def test_set_of_classes(bands, band_models, kind, engine):
    X, _ = bands
    model = band_models[kind]
    wanted = [3, 4]
    cols = [list(model.classes_).index(c) for c in wanted]
    ex = geco.Explainer(model, X, desired_class=wanted, engine=engine, k=3)
    assert ex.scorer.compiled == (engine == "auto"), ex.engine_reason
    rows = ex.table.take(slice(0, 1000))
    p_set = model.predict_proba(X.iloc[:1000])[:, cols].sum(axis=1)
    assert np.array_equal(ex.blackbox.predict(rows), p_set)
    engine_p = ex.scorer.score_rows(rows)
    assert np.all(np.abs(engine_p - p_set) <= ex.scorer.error_bound(rows))  # rf: tiny, hgb: 0, mlp: ~1e-14
    targets = np.flatnonzero(p_set < 0.3)[:3]
    for r in targets:
        e = ex.explain(X.iloc[[r]], random_state=0)
        assert e.desired_class == wanted and e.stats["target"]["desired_class"] == wanted
        assert e.success
        own = model.predict_proba(e.counterfactuals[list(X.columns)])[:, cols].sum(axis=1)
        assert np.all(own > 0.5)
        assert np.array_equal(e.counterfactuals["probability"].to_numpy(), own)


def test_threshold_is_the_cutoff_every_counterfactual_passes(adult):
    X, y = adult.X, adult.y
    model = fitted(X, y, RandomForestClassifier(30, max_depth=8, random_state=0, n_jobs=1))
    ex = geco.Explainer(model, X, adult.constraints, threshold=0.7, k=3)
    p = model.predict_proba(X.iloc[:300])[:, 1]
    for r in np.flatnonzero(p < 0.3)[:3]:
        e = ex.explain(X.iloc[[r]], random_state=0)
        assert e.stats["target"] == {"kind": "probability", "desired_class": 1, "threshold": 0.7}
        if e.success:
            assert np.all(model.predict_proba(e.counterfactuals[list(X.columns)])[:, 1] > 0.7)


@pytest.mark.parametrize("kind", ["gb", "hgb", "xgb", "lgbm"])
def test_margin_range(adult, kind):
    X, y = adult.X.select_dtypes("number"), adult.y
    if kind == "gb":
        est = GradientBoostingClassifier(n_estimators=30, random_state=0)
    elif kind == "hgb":
        est = HistGradientBoostingClassifier(max_iter=30, random_state=0)
    elif kind == "xgb":
        xgboost = pytest.importorskip("xgboost")
        est = xgboost.XGBClassifier(n_estimators=30, max_depth=4, n_jobs=1)
    else:
        lightgbm = pytest.importorskip("lightgbm")
        est = lightgbm.LGBMClassifier(n_estimators=30, verbose=-1, n_jobs=1)
    model = fitted(X, y, est)
    final = model[-1]
    if kind == "xgb":
        margin = lambda frame: model.predict(frame, output_margin=True)  # noqa: E731
    elif kind == "lgbm":
        margin = lambda frame: model.predict(frame, raw_score=True)  # noqa: E731
    else:
        margin = model.decision_function
    ex = geco.Explainer(model, X, margin_range=(1.0, np.inf), k=3)
    assert ex.scorer.compiled and ex.scorer.exact, ex.engine_reason
    assert np.array_equal(ex.scorer.score_rows(ex.table.take(slice(0, 500))), margin(X.iloc[:500]))
    m = margin(X.iloc[:300])
    done = 0
    for r in np.flatnonzero(m < -1)[:3]:
        e = ex.explain(X.iloc[[r]], random_state=0)
        assert e.stats["target"] == {"kind": "margin", "margin_range": [1.0, np.inf]}
        if e.success:
            done += 1
            assert np.all(margin(e.counterfactuals[list(X.columns)]) >= 1.0)
    assert done, type(final).__name__


def test_margin_is_refused_where_there_is_none(adult, bands, band_models):
    X, y = adult.X, adult.y
    rf = fitted(X, y, RandomForestClassifier(10, max_depth=4, random_state=0, n_jobs=1))
    with pytest.raises(geco.UnsupportedModelError, match="threshold instead"):
        geco.Explainer(rf, X, margin_range=(0, 1))
    Xb, _ = bands
    with pytest.raises(geco.UnsupportedModelError, match="binary"):
        geco.Explainer(band_models["hgb"], Xb, margin_range=(0, 1))


def test_unknown_class_in_a_set(bands, band_models):
    X, _ = bands
    with pytest.raises(ValueError, match="not among|not one of"):
        geco.Explainer(band_models["rf"], X, desired_class=[3, 9])


@pytest.mark.parametrize("engine", ["numpy", "jit"])
def test_mlp_set_of_classes_on_delta_blocks(bands, band_models, engine):
    """A 5-class MLP's set {0, 2, 4}: Δ blocks of a bound instance within 1e-12 of the column
    sum, with the set's upper bound above every row it covers."""
    X, _ = bands
    model = band_models["mlp"]
    wanted = [0, 2, 4]
    cols = [list(model.classes_).index(c) for c in wanted]
    ex = geco.Explainer(model, X, desired_class=wanted, engine=engine)
    assert ex.engine == f"mlp-{engine}"
    rows = ex.table.take(slice(0, 500))
    x = rows[7]
    delta = (1, 4)
    block = ex.scorer.bind(x).score_block(delta, np.ascontiguousarray(rows[:, list(delta)]))
    moved = np.tile(x, (len(rows), 1))
    moved[:, list(delta)] = rows[:, list(delta)]
    want = model.predict_proba(ex.schema.decode(moved))[:, cols].sum(axis=1)
    assert np.all(np.abs(block - want) <= 1e-12)
    box = [None] * len(x)
    for j in delta:
        box[j] = np.unique(rows[:, j])
    assert ex.scorer.upper_bound(x, box) >= want.max()
