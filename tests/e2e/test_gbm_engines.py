"""XGBoost and LightGBM through the Explainer: the compiled engine finds the black box's
explanation for the same seed and reports the model's own probabilities - bare with pandas
categoricals and inside a one-hot pipeline, binary and multi-class."""

import numpy as np
import pandas as pd
import pytest

import geco
from geco.models import one_hot_pipeline

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")


@pytest.fixture(scope="module")
def adult():
    ds = geco.datasets.load_adult()
    X, y = ds.X.iloc[:2000], ds.y.iloc[:2000].to_numpy()
    # three classes: the label, split further by age
    y3 = y + (X["age"].to_numpy() > 45) * (y == 1)
    return ds, X, y, y3


MODELS = {
    "xgb-bare": lambda X: xgb.XGBClassifier(n_estimators=30, max_depth=4, enable_categorical=True, n_jobs=1),
    "lgb-bare": lambda X: lgb.LGBMClassifier(n_estimators=30, num_leaves=16, verbose=-1, n_jobs=1),
    "xgb-onehot": lambda X: one_hot_pipeline(X, xgb.XGBClassifier(n_estimators=30, max_depth=4, n_jobs=1)),
    "lgb-onehot": lambda X: one_hot_pipeline(X, lgb.LGBMClassifier(n_estimators=30, num_leaves=16, verbose=-1, n_jobs=1)),
}


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("kind", sorted(MODELS))
def test_compiled_gbm_gives_the_black_box_explanation(adult, kind, classes):
    ds, X, y, y3 = adult
    desired = 1 if classes == 2 else 2
    model = MODELS[kind](X).fit(X, y if classes == 2 else y3)
    reference = geco.Explainer(model, X, ds.constraints, desired, engine="blackbox", max_generations=15)
    compiled = geco.Explainer(model, X, ds.constraints, desired, engine="auto", max_generations=15)
    assert compiled.engine.startswith("trees"), compiled.engine_reason
    rows = np.flatnonzero(model.predict_proba(X.iloc[:300])[:, desired] <= 0.5)[:1]
    assert len(rows) == 1
    for r in rows:
        a = reference.explain(X.iloc[[r]], random_state=int(r))
        b = compiled.explain(X.iloc[[r]], random_state=int(r))
        pd.testing.assert_frame_equal(a.counterfactuals, b.counterfactuals)
        assert a.stats["candidates_scored"] == b.stats["candidates_scored"]
        cfs = b.counterfactuals
        own = model.predict_proba(cfs[list(X.columns)])[:, desired]
        np.testing.assert_array_equal(cfs["probability"].to_numpy(), own)
    # IR inspection works on the model
    assert "define void @score" in compiled.ir(X.iloc[[int(rows[0])]], ["age", "hours_per_week"])
