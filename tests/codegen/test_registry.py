"""The engine registry: dispatch by model class, one reason for an unsupported model, engine names,
a new family in one registration, and the protocol every engine implements."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import ExtraTreeClassifier

import codegen
import geco
from codegen import (
    COMPILED_ENGINES,
    ENGINES,
    BlackBoxScorer,
    InstanceScorer,
    ModelScorer,
    UnsupportedModel,
)
from codegen.mlp.scorer import MLPScorer
from codegen.registry import factory_for, model_key, register, scorer_for, supported_models
from codegen.trees.scorer import TreeScorer
from plaf_grammar import Schema


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=80), "b": rng.integers(0, 5, 80).astype(float)})
    y = (X["a"] + 0.3 * X["b"] > 1).astype(int).to_numpy()
    return X, y, Schema.from_dataframe(X)


def test_engine_names_are_defined_once():
    assert ENGINES == ("auto", "jit", "numpy", "blackbox") == (*COMPILED_ENGINES, BlackBoxScorer.name)
    assert geco.ENGINES is codegen.ENGINES is ENGINES
    assert geco.BlackBoxScorer is BlackBoxScorer


def test_one_exception_class():
    assert geco.UnsupportedModelError is UnsupportedModel
    assert issubclass(UnsupportedModel, TypeError)  # `except TypeError` keeps catching it
    assert UnsupportedModel("why").reason == "why"


@pytest.mark.parametrize(
    ("estimator", "scorer_type"),
    [
        (RandomForestClassifier(3, max_depth=3, random_state=0), TreeScorer),
        (ExtraTreeClassifier(random_state=0), TreeScorer),  # served as a DecisionTreeClassifier
        (MLPClassifier((4,), max_iter=50, random_state=0), MLPScorer),
    ],
)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_dispatch_by_final_estimator(data, estimator, scorer_type):
    X, y, schema = data
    for model in (estimator, Pipeline([("id", "passthrough"), ("m", estimator)])):
        model.fit(X, y)
        for engine in COMPILED_ENGINES:
            scorer = scorer_for(model, schema, 1, engine)
            assert type(scorer) is scorer_type
            assert isinstance(scorer, ModelScorer) and isinstance(scorer.bind(schema.encode(X)[0]), InstanceScorer)
            got = scorer.bind(schema.encode(X)[0]).score_blocks([((0,), X[["a"]].to_numpy()[:5])])[0]
            want = model.predict_proba(X.iloc[:5].assign(b=X["b"].iloc[0]))[:, 1]
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_unsupported_model_names_it_and_what_is_supported(data):
    X, y, schema = data
    model = Pipeline([("ct", ColumnTransformer([("oh", OneHotEncoder(), ["b"])], remainder="passthrough")),
                      ("knn", KNeighborsClassifier())]).fit(X, y)  # fmt: skip
    with pytest.raises(UnsupportedModel) as e:
        scorer_for(model, schema, 1)
    assert e.value.reason.startswith("KNeighborsClassifier has no compiled engine; supported: ")
    for key in ("sklearn.RandomForestClassifier", "sklearn.HistGradientBoostingClassifier", "sklearn.MLPClassifier"):
        assert key in e.value.reason
    with pytest.raises(ValueError, match="engine must be one of"):
        scorer_for(model, schema, 1, "blackbox")


def test_mlps_declare_a_set_of_classes_and_a_prediction(data):
    """MLPClassifier scores a set of classes, MLPRegressor its prediction; neither a margin."""
    import warnings

    from sklearn.neural_network import MLPRegressor

    from codegen import ModelOutput

    X, y, schema = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = MLPClassifier((4,), max_iter=50, random_state=0).fit(X, y)
        reg = MLPRegressor(hidden_layer_sizes=(4,), max_iter=50, random_state=0).fit(X, X["a"])
    assert "sklearn.MLPRegressor" in supported_models()
    assert isinstance(scorer_for(clf, schema, ModelOutput("proba", (0, 1)), "numpy"), MLPScorer)
    assert isinstance(scorer_for(reg, schema, ModelOutput("prediction"), "numpy"), MLPScorer)
    with pytest.raises(UnsupportedModel, match="scores one class's probability, not the raw margin"):
        scorer_for(clf, schema, ModelOutput("margin"))
    with pytest.raises(UnsupportedModel, match="scores one class's probability, not the prediction"):
        scorer_for(clf, schema, ModelOutput("prediction"))


def test_keys_need_no_import():
    assert model_key(RandomForestClassifier) == "sklearn.RandomForestClassifier"
    for key in ("xgboost.XGBClassifier", "xgboost.Booster", "lightgbm.LGBMClassifier", "lightgbm.Booster"):
        assert key in supported_models()
    with pytest.raises(ValueError, match="<package>.<ClassName>"):
        register("XGBClassifier", lambda mi, desired, engine: None)
    # registering the boosting libraries imports neither of them
    code = (
        "import sys\nimport codegen.registry\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('xgboost', 'lightgbm'))\nassert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_new_family_plugs_in_with_one_registration(data, monkeypatch):
    _X, _y, schema = data

    class Thresholds:  # stands in for a family from another package
        classes_ = np.array([0, 1])

        def fit(self, X, y):
            return self

    calls = []

    def factory(model_input, desired_class, engine):
        calls.append((type(model_input.estimator), desired_class, engine, len(model_input.columns)))
        return BlackBoxScorer(lambda frame: np.ones(len(frame)), model_input.schema, desired_class)

    monkeypatch.setattr("codegen.registry._FACTORIES", dict(codegen.registry._FACTORIES))
    monkeypatch.setattr("codegen.registry._INPUT_READERS", dict(codegen.registry._INPUT_READERS))
    with pytest.raises(UnsupportedModel, match="Thresholds has no compiled engine"):
        factory_for(Thresholds())
    register(f"{Thresholds.__module__.split('.')[0]}.Thresholds", factory)
    scorer = scorer_for(Thresholds(), schema, 1, "jit")
    assert calls == [(Thresholds, 1, "jit", 2)]
    assert isinstance(scorer, ModelScorer)


def test_readers_do_not_load_llvm_or_geco():
    code = (
        "import sys\n"
        "import codegen, codegen.pipeline, codegen.trees.reader, codegen.trees.fold, codegen.trees.partial,"
        " codegen.trees.emit, codegen.mlp.reader, codegen.mlp.inputs, codegen.mlp.partial, codegen.mlp.emit,"
        " codegen.llvm.sources, codegen.llvm.buffers, codegen.trees.gbm.xgboost_reader, codegen.trees.gbm.lightgbm_reader,"
        " codegen.trees.gbm.input, codegen.trees.gbm.split_tests, codegen.trees.gbm.links\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('llvmlite', 'geco', 'xgboost', 'lightgbm'))\n"
        "assert not bad, bad\n"
        "import codegen.registry\n"
        "assert 'llvmlite' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_blackbox_has_no_ir(data):
    X, y, schema = data
    model = KNeighborsClassifier().fit(X, y)
    bb = BlackBoxScorer(model, schema, 1)
    with pytest.raises(UnsupportedModel, match="black-box engine has no LLVM IR"):
        bb.ir(schema.encode(X)[0], (0,))
    explainer = geco.Explainer(model, X, None, 1)
    assert explainer.engine == "blackbox" and "KNeighborsClassifier has no compiled engine" in explainer.engine_reason
    with pytest.raises(UnsupportedModel, match="no LLVM IR: this Explainer scores KNeighborsClassifier with the black box"):
        explainer.ir(X.iloc[[0]], ["a"])
    with pytest.raises(UnsupportedModel, match="engine='jit' cannot compile KNeighborsClassifier"):
        geco.Explainer(model, X, None, 1, engine="jit")
