"""``choose_engine``: the engine that scores a model under each requested engine, the model's own
reference, why "auto" fell back, and the one-line description the user is shown."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import geco
from codegen import ENGINES, BlackBoxScorer, EngineChoice, ModelScorer, UnsupportedModel
from codegen.registry import choose_engine
from plaf_grammar import Schema

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
    pytest.mark.filterwarnings("ignore:The `probability` parameter was deprecated:FutureWarning"),
]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=120), "b": rng.integers(0, 6, 120).astype(float)})
    y = (X["a"] + 0.3 * X["b"] > 1).astype(int).to_numpy()
    return X, y, Schema.from_dataframe(X)


@pytest.fixture(scope="module")
def models(data):
    X, y, _ = data
    return {
        "rf": RandomForestClassifier(4, max_depth=3, random_state=0).fit(X, y),
        "mlp": Pipeline([("sc", StandardScaler()), ("m", MLPClassifier((4,), max_iter=100, random_state=0))]).fit(X, y),
        "knn": KNeighborsClassifier().fit(X, y),
        "svc": Pipeline([("sc", StandardScaler()), ("m", SVC(probability=True, random_state=0))]).fit(X, y),
    }


def test_a_compiled_engine_scores_what_it_serves(data, models):
    _, _, schema = data
    choice = choose_engine(models["rf"], schema, 1, "auto")
    assert isinstance(choice, EngineChoice)
    assert choice.scorer.compiled and choice.scorer.name == "trees-auto"
    assert isinstance(choice.reference, BlackBoxScorer) and choice.reference.model is models["rf"]
    assert choice.fallback_reason == ""
    assert choice.description == "compiled engine 'trees-auto': the codegen layer compiles RandomForestClassifier"
    with pytest.raises(dataclasses.FrozenInstanceError):
        choice.description = "changed"  # type: ignore[misc]
    mlp = choose_engine(models["mlp"], schema, 1, "numpy")
    assert mlp.scorer.name == "mlp-numpy"
    assert mlp.description == "compiled engine 'mlp-numpy': the codegen layer compiles Pipeline(MLPClassifier)"


@pytest.mark.parametrize("name", ["knn", "svc"])
def test_auto_falls_back_to_the_black_box_with_the_reason(data, models, name):
    _, _, schema = data
    model = models[name]
    estimator = "KNeighborsClassifier" if name == "knn" else "SVC"
    label = estimator if name == "knn" else "Pipeline(SVC)"
    choice = choose_engine(model, schema, 1)
    assert choice.scorer is choice.reference and not choice.scorer.compiled
    assert choice.fallback_reason.startswith(f"{estimator} has no compiled engine; supported: ")
    assert choice.description == (
        f"black box (predict_proba): no compiled engine for {label} ({choice.fallback_reason})"
    )
    for engine in ("jit", "numpy"):
        with pytest.raises(UnsupportedModel) as e:
            choose_engine(model, schema, 1, engine)
        assert e.value.reason == f"engine={engine!r} cannot compile {type(model).__name__}: {choice.fallback_reason}"


def test_blackbox_on_request_and_bad_names(data, models):
    _, _, schema = data
    choice = choose_engine(models["rf"], schema, 1, "blackbox")
    assert choice.scorer is choice.reference and isinstance(choice.scorer, ModelScorer)
    assert choice.fallback_reason == ""
    assert choice.description == "black box (predict_proba): engine='blackbox' was requested"
    with pytest.raises(ValueError, match=r"engine must be one of .*'blackbox'\), got 'bogus'"):
        choose_engine(models["rf"], schema, 1, "bogus")
    with pytest.raises(UnsupportedModel, match="has no predict_proba and is not callable"):
        choose_engine(object(), schema, 1)


def test_a_callable_model_falls_back(data):
    X, _, schema = data
    choice = choose_engine(lambda frame: np.full(len(frame), 0.5), schema, 1)
    assert choice.scorer is choice.reference and choice.fallback_reason
    np.testing.assert_array_equal(choice.scorer.score_rows(schema.encode(X)[:3]), [0.5, 0.5, 0.5])


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["rf", "mlp", "knn"])
def test_the_description_is_what_the_explainer_shows(data, models, name, engine):
    X, _, schema = data
    model = models[name]
    try:
        choice = choose_engine(model, schema, 1, engine)
    except UnsupportedModel as exc:
        with pytest.raises(UnsupportedModel) as raised:
            geco.Explainer(model, X, None, 1, engine=engine)
        assert raised.value.reason == exc.reason
        return
    explainer = geco.Explainer(model, X, None, 1, engine=engine)
    assert explainer.engine_reason == choice.description
    assert explainer.engine == choice.scorer.name
