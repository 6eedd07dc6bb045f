"""The MLP reader: the plain network equals predict_proba bit for bit; anything else is refused
with a reason."""

from __future__ import annotations

import numpy as np
import pytest
from mlp_cases import ACTS, NUMERIC, fit, frame, labels, layer_of, mlp
from sklearn.neural_network import MLPClassifier, MLPRegressor

from codegen import UnknownClass, UnsupportedModel
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


def test_unsupported_models_give_a_reason():
    df = frame()
    X = df[NUMERIC]
    schema = Schema.from_dataframe(X)
    with pytest.raises(UnsupportedModel, match="MLPRegressor is not an MLPClassifier"):
        read_mlp(fit(MLPRegressor(hidden_layer_sizes=(3,), max_iter=5), X, X["score"]), 0)
    with pytest.raises(UnsupportedModel, match="not fitted"):
        read_mlp(MLPClassifier((3,)), 0)
    with pytest.raises(UnknownClass, match="desired_class 7 is not one of"):
        layer_of(fit(mlp((3,), "relu"), X, labels(len(X), 2)), schema, 7)
    bare = fit(mlp((3,), "relu"), X, labels(len(X), 2))
    with pytest.raises(UnsupportedModel, match="different columns"):  # a bare MLP sees numbers only
        layer_of(bare, Schema.from_dataframe(df), 1)
