"""A model fitted again after its Explainer was built is refused, by name, before any search:
the Explainer's compiled copy and the data's scores are the old model's, so it would explain the
model as it was. Models used as they are (scored, re-parametrised without fitting, saved and
loaded with their Explainer) pass."""

import copy
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import (
    HistGradientBoostingClassifier,
    RandomForestClassifier,
    VotingClassifier,
)
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier

import geco
from geco.models import one_hot_pipeline


def loans(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 70, n),
        "income": rng.normal(50, 15, n).round(1),
        "debt": rng.integers(0, 30, n),
        "city": pd.Categorical(rng.choice(["a", "b", "c"], n)),
    })  # fmt: skip
    y = ((X.income - X.debt + (X.city == "a") * 5 + rng.normal(0, 5, n)) > 30).astype(int).to_numpy()
    return X, y


def make_models(X):
    models = {
        "rf": one_hot_pipeline(X, RandomForestClassifier(20, max_depth=5, random_state=0)),
        "hgb": HistGradientBoostingClassifier(max_iter=30, random_state=0, categorical_features="from_dtype"),
        "mlp": one_hot_pipeline(X, MLPClassifier((8,), max_iter=300, random_state=0)),
        "logistic": one_hot_pipeline(X, LogisticRegression(max_iter=500)),
        "voting": one_hot_pipeline(X, VotingClassifier(
            [("rf", RandomForestClassifier(10, random_state=0)), ("lr", LogisticRegression(max_iter=500))], voting="soft")),
    }  # fmt: skip
    try:
        import xgboost

        models["xgboost"] = xgboost.XGBClassifier(n_estimators=20, max_depth=3, enable_categorical=True, tree_method="hist")
    except ImportError:
        pass
    try:
        import lightgbm

        models["lightgbm"] = lightgbm.LGBMClassifier(n_estimators=20, verbose=-1)
    except ImportError:
        pass
    return models


X, Y = loans()
MODELS = sorted(make_models(X))


def fitted(kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an MLP's convergence warning
        return make_models(X)[kind].fit(X, Y)


def undesired(model):
    return int(np.flatnonzero(model.predict_proba(X)[:, 1] < 0.5)[0])


@pytest.mark.parametrize("kind", MODELS)
def test_a_model_fitted_again_is_refused_by_every_entry_point(kind):
    model = fitted(kind)
    explainer = geco.Explainer(model, X, "increasing age", desired_class=1)
    row = X.iloc[[undesired(model)]]
    assert explainer.explain(row, random_state=0, k=1).success
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, 1 - Y)  # the opposite labels: the old answers are wrong for this model
    calls = {
        "explain": lambda: explainer.explain(row, random_state=0, k=1),
        "explain_many": lambda: explainer.explain_many(X.iloc[:2], random_state=0),
        "problem": lambda: explainer.problem(row),
    }
    if explainer.scorer.compiled:
        calls["ir"] = lambda: explainer.ir(row, ["age"])
    for name, call in calls.items():
        with pytest.raises(geco.ModelChangedError, match=r"changed after this Explainer was built.*fitted attribute '") as err:
            call()
        assert "Build a new Explainer" in str(err.value), name
    # a new Explainer explains the model as it is now, by its own predict_proba
    fresh = geco.Explainer(model, X, "increasing age", desired_class=1)
    result = fresh.explain(X.iloc[[undesired(model)]], random_state=0, k=2)
    cf = result.counterfactuals
    features = cf[list(X.columns)].astype(X.dtypes.to_dict())
    assert result.success and np.allclose(model.predict_proba(features)[:, 1], cf.probability.to_numpy(), atol=1e-6)


@pytest.mark.parametrize("kind", MODELS)
def test_a_model_used_as_it_is_passes(kind, tmp_path):
    model = fitted(kind)
    explainer = geco.Explainer(model, X, "increasing age", desired_class=1)
    row = X.iloc[[undesired(model)]]
    first = explainer.explain(row, random_state=0, k=2)
    model.predict_proba(X.iloc[:5])
    model.predict(X.iloc[:5])
    if "n_jobs" in model.get_params():
        model.set_params(n_jobs=1)  # a parameter set without fitting changes no fitted attribute
    explainer.explain_many(X.iloc[:2], random_state=0)
    assert explainer.fitted_state.changed(model) is None
    assert explainer.explain(row, random_state=0, k=2).counterfactuals.equals(first.counterfactuals)
    loaded = geco.load(explainer.save(tmp_path / "e.joblib"))
    assert loaded.explain(row, random_state=0, k=2).counterfactuals.equals(first.counterfactuals)


def test_warm_starts_and_partial_fits_are_changes():
    """Growing a forest appends to its list of trees in place; partial_fit updates an MLP's
    weights in place, but its step counter moves."""
    forest = one_hot_pipeline(X, RandomForestClassifier(10, max_depth=4, random_state=0, warm_start=True)).fit(X, Y)
    explainer = geco.Explainer(forest, X, desired_class=1)
    forest.set_params(model__n_estimators=15)
    assert explainer.fitted_state.changed(forest) is None  # a parameter only
    forest[-1].fit(forest[:-1].transform(X), Y)  # the forest alone grows by 5 trees
    assert len(forest[-1].estimators_) == 15
    assert explainer.fitted_state.changed(forest).startswith("steps[1].")

    net = one_hot_pipeline(X, MLPClassifier((8,), max_iter=50, random_state=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net.fit(X, Y)
    explainer = geco.Explainer(net, X, desired_class=1)
    mlp = net[-1]
    mlp.partial_fit(net[:-1].transform(X), Y)
    with pytest.raises(geco.ModelChangedError, match=r"'steps\[1\]\.\w+_'"):
        explainer.explain(X.iloc[[undesired(net)]], random_state=0)


def test_a_pipeline_step_replaced_is_a_change():
    model = fitted("rf")
    explainer = geco.Explainer(model, X, desired_class=1)
    other = copy.deepcopy(model[-1])
    model.steps[-1] = (model.steps[-1][0], other)
    with pytest.raises(geco.ModelChangedError, match=r"'steps\[1\]'"):
        explainer.explain(X.iloc[[undesired(model)]], random_state=0)


def test_a_model_given_as_a_function_has_nothing_to_compare():
    model = fitted("logistic")

    def predict_proba(frame):
        return model.predict_proba(frame)

    explainer = geco.Explainer(predict_proba, X, desired_class=1)
    assert explainer.fitted_state.entries == []
    assert explainer.explain(X.iloc[[undesired(model)]], random_state=0, k=1).success


class Fitted:
    """An estimator-like object with hand-set fitted attributes."""

    def get_params(self, deep=True):
        return {}


def test_the_fingerprint_compares_objects_by_identity_and_length_and_numbers_by_value():
    from geco.fitted_state import FittedState

    model = Fitted()
    model.trees_, model.n_iter_, model.loss_, model.step = [1, 2], 3, float("nan"), 0.1
    state = FittedState(model)
    assert state.changed(model) is None  # NaN is as it was
    model.step = 0.2  # a parameter, not a fitted attribute
    assert state.changed(model) is None
    model.trees_.append(3)
    assert state.changed(model) == "trees_"
    model.trees_.pop()
    model.n_iter_ = 4
    assert state.changed(model) == "n_iter_"
    model.n_iter_ = 3
    model.trees_ = [1, 2]  # equal, but another list
    assert state.changed(model) == "trees_"
    del model.trees_
    assert state.changed(model) == "trees_"
