"""The MLP reader: the plain network equals predict_proba (a set's column sum, a regressor's
predict) bit for bit; anything else is refused with a reason."""

from __future__ import annotations

import numpy as np
import pytest
from mlp_cases import ACTS, NUMERIC, fit, frame, labels, layer_of, mlp
from sklearn.neural_network import MLPClassifier, MLPRegressor

from codegen import ModelOutput, UnknownClass, UnsupportedModel
from codegen.mlp.inputs import output_columns
from codegen.mlp.reader import read_mlp
from plaf_grammar import Schema


@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_reader_forward_equals_predict_proba(act, n_classes):
    X = frame()[NUMERIC].to_numpy(dtype=float)
    y = labels(len(X), n_classes)
    m = fit(mlp((6, 4), act), X, y)
    for c in range(n_classes):
        net = read_mlp(m, c)
        assert net.layer_sizes == (3, 6, 4, 1 if n_classes == 2 else n_classes)
        np.testing.assert_array_equal(net.forward(X), m.predict_proba(X)[:, c])


@pytest.mark.parametrize("act", ACTS)
def test_reader_forward_equals_regressor_predict(act):
    X = frame()[NUMERIC].to_numpy(dtype=float)
    y = X @ np.array([0.5, 2.0, -0.25]) + 40.0
    m = fit(MLPRegressor(hidden_layer_sizes=(6, 4), activation=act, max_iter=30, random_state=0), X, y)
    net = read_mlp(m)
    assert net.output == "identity" and net.columns == (0,) and net.layer_sizes == (3, 6, 4, 1)
    np.testing.assert_array_equal(net.forward(X), m.predict(X))
    assert output_columns(m, ModelOutput("prediction")) == (0,)


@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize(("n_classes", "cols"), [(3, (1, 2)), (3, (2, 0)), (3, (0, 1, 2)), (2, (0, 1)), (2, (1, 0))])
def test_reader_forward_equals_a_set_of_columns(act, n_classes, cols):
    X = frame()[NUMERIC].to_numpy(dtype=float)
    m = fit(mlp((6,), act), X, labels(len(X), n_classes))
    net = read_mlp(m, cols)
    assert net.columns == cols
    np.testing.assert_array_equal(net.forward(X), m.predict_proba(X)[:, list(cols)].sum(axis=1))
    assert output_columns(m, ModelOutput("proba", tuple(m.classes_[list(cols)]))) == cols


def test_unsupported_models_give_a_reason():
    df = frame()
    X = df[NUMERIC]
    schema = Schema.from_dataframe(X)
    with pytest.raises(UnsupportedModel, match="LinearRegression is not an MLPClassifier or MLPRegressor"):
        from sklearn.linear_model import LinearRegression

        read_mlp(LinearRegression().fit(X, X["score"]))
    two = fit(MLPRegressor(hidden_layer_sizes=(3,), max_iter=5), X, np.c_[X["score"], X["age"]])
    with pytest.raises(UnsupportedModel, match="2 outputs; a prediction range needs a single-output regressor"):
        read_mlp(two)
    poisson = fit(MLPRegressor(loss="poisson", hidden_layer_sizes=(3,), max_iter=5), X, X["age"])
    with pytest.raises(UnsupportedModel, match="MLPRegressor output activation 'exp' is not supported"):
        read_mlp(poisson)
    with pytest.raises(UnsupportedModel, match="MLPRegressor is not fitted"):
        read_mlp(MLPRegressor())
    reg = fit(MLPRegressor(hidden_layer_sizes=(3,), max_iter=5), X, X["score"])
    with pytest.raises(UnsupportedModel, match="regressor: give desired_range"):
        output_columns(reg, 1)
    clf = fit(mlp((3,), "relu"), X, labels(len(X), 3))
    with pytest.raises(UnsupportedModel, match="classifier: give desired_class"):
        output_columns(clf, ModelOutput("prediction"))
    with pytest.raises(UnsupportedModel, match="no raw margin"):
        output_columns(clf, ModelOutput("margin"))
    with pytest.raises(UnknownClass, match="not among the model's classes"):
        output_columns(clf, ModelOutput("proba", (1, 7)))
    with pytest.raises(UnsupportedModel, match="repeat"):
        read_mlp(clf, (1, 1))
    with pytest.raises(UnsupportedModel, match="not fitted"):
        read_mlp(MLPClassifier((3,)), 0)
    with pytest.raises(UnknownClass, match="desired_class 7 is not one of"):
        layer_of(fit(mlp((3,), "relu"), X, labels(len(X), 2)), schema, 7)
    bare = fit(mlp((3,), "relu"), X, labels(len(X), 2))
    with pytest.raises(UnsupportedModel, match="different columns"):  # a bare MLP sees numbers only
        layer_of(bare, Schema.from_dataframe(df), 1)


def test_a_network_pickled_with_one_column_still_loads():
    """An MLP pickled when it held one ``column`` (a saved Explainer) unpickles as that column."""
    import pickle

    from codegen.mlp.reader import MLP

    X = frame()[NUMERIC].to_numpy(dtype=float)
    m = fit(mlp((5,), "tanh"), X, labels(len(X), 3))
    net = read_mlp(m, 2)
    state = dict(net.__dict__)
    state["column"] = state.pop("columns")[0]  # the field as it was
    old = MLP.__new__(MLP)
    old.__setstate__(state)  # what pickle does with that state
    assert old.columns == (2,) and old.column == 2
    np.testing.assert_array_equal(old.forward(X), m.predict_proba(X)[:, 2])
    assert pickle.loads(pickle.dumps(net)).columns == (2,)
