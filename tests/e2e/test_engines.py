"""Compiled engines through the Explainer: same search as the black box, the model's own numbers."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import geco
from geco.models import categorical_columns, one_hot_pipeline
from plaf_grammar import SchemaError


@pytest.fixture(scope="module")
def adult():
    ds = geco.datasets.load_adult()
    return ds, ds.X.iloc[:6000], ds.y.iloc[:6000]


def _mlp(X, y):
    cats = categorical_columns(X)
    nums = [c for c in X.columns if c not in cats]
    pre = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), cats), ("sc", StandardScaler(), nums)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return Pipeline([("pre", pre), ("mlp", MLPClassifier((16,), max_iter=40, random_state=0))]).fit(X, y)


MODELS = {
    "rf": lambda X, y: one_hot_pipeline(X, RandomForestClassifier(20, max_depth=6, random_state=0)).fit(X, y),
    "hgb": lambda X, y: HistGradientBoostingClassifier(
        max_iter=20, categorical_features="from_dtype", random_state=0
    ).fit(X, y),
    "mlp": _mlp,
}


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_compiled_engines_give_the_black_box_explanation(adult, kind):
    ds, X, y = adult
    model = MODELS[kind](X, y)
    reference = geco.Explainer(model, X, ds.constraints, 1, engine="blackbox")
    compiled = geco.Explainer(model, X, ds.constraints, 1, engine="auto")
    assert compiled.engine != "blackbox", compiled.engine_reason
    rows = np.flatnonzero(model.predict_proba(X.iloc[:400])[:, 1] <= 0.5)[:3]
    assert len(rows) == 3
    for r in rows:
        a = reference.explain(X.iloc[[r]], random_state=int(r))
        b = compiled.explain(X.iloc[[r]], random_state=int(r))
        pd.testing.assert_frame_equal(a.counterfactuals, b.counterfactuals)
        cfs = b.counterfactuals
        own = model.predict_proba(cfs[list(X.columns)])[:, 1]
        np.testing.assert_array_equal(cfs["probability"].to_numpy(), own)


def test_ir_inspection(adult):
    _ds, X, y = adult
    model = MODELS["rf"](X, y)
    explainer = geco.Explainer(model, X, None, 1)
    ir = explainer.ir(X.iloc[[3]], delta=["capital_gain", "hours_per_week"])
    assert "define" in ir and "capital_gain" in ir
    opt = explainer.ir(X.iloc[[3]], delta=["capital_gain", "hours_per_week"], optimized=True)
    assert "define" in opt
    with pytest.raises(SchemaError, match=r"unknown feature.*capital_gian"):
        explainer.ir(X.iloc[[3]], delta=["capital_gian"])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_unsupported_model_falls_back_with_a_reason(adult):
    _ds, X, y = adult
    model = one_hot_pipeline(X, KNeighborsClassifier(15)).fit(X, y)
    explainer = geco.Explainer(model, X, None, 1)
    assert explainer.engine == "blackbox" and explainer.engine_reason
    assert "KNeighborsClassifier has no compiled engine" in explainer.engine_reason
    with pytest.raises(geco.UnsupportedModelError, match="engine='jit' cannot compile Pipeline"):
        geco.Explainer(model, X, None, 1, engine="jit")


def test_ir_inspection_mlp(adult):
    _ds, X, y = adult
    explainer = geco.Explainer(MODELS["mlp"](X, y), X, None, 1)
    ir = explainer.ir(X.iloc[[3]], delta=["age", "occupation"])
    assert "define" in ir and "age" in ir and "occupation" in ir
    assert "define" in explainer.ir(X.iloc[[3]], delta=["age"], optimized=True)
