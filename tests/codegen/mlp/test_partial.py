"""Partial evaluation of an MLP: x outside Δ folded into the first-layer bias, against the
full pipeline."""

from __future__ import annotations

import numpy as np
import pytest
from mlp_cases import TOL, fit, frame, labels, layer_of, pipeline, rows_around
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from plaf_grammar import Schema


@pytest.mark.parametrize("scaler", [StandardScaler(), MinMaxScaler(), MinMaxScaler(clip=True)])
def test_partial_evaluation_equals_pipeline(scaler):
    df = frame()
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = fit(pipeline((7,), "tanh", scaler), df, labels(len(df), 3))
    layer = layer_of(model, schema, 2)
    assert layer.tables[2].shape == (4, 7) and layer.tables[3].shape == (5, 7)  # color, size + NaN row
    rng = np.random.default_rng(0)
    for delta in [(), (0,), (2,), (1, 3), (0, 1, 2, 3, 4)]:
        x = enc[rng.integers(len(enc))]
        rows = rows_around(x, delta, enc, rng, 9)
        got = layer.plan(x, delta).score(rows[:, list(delta)])
        np.testing.assert_allclose(got, model.predict_proba(schema.decode(rows))[:, 2], rtol=0, atol=TOL)


def test_outside_delta_is_folded_into_the_bias():
    df = frame()
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = fit(pipeline((5,), "relu", StandardScaler()), df, labels(len(df), 2))
    layer = layer_of(model, schema, 1)
    net = layer.mlp
    x = enc[0]
    plan = layer.plan(x, (1,))
    pre = model[:-1].transform(schema.decode(x[None, :]))
    # z1 of x itself equals the folded bias plus x's own Δ term
    np.testing.assert_allclose(plan.z1(x[None, [1]])[0], (pre @ net.weights[0] + net.biases[0])[0], atol=1e-12)
    # and the folded bias alone is z1 without the Δ feature's term
    j = list(model[:-1].get_feature_names_out()).index("sc__score")
    z1 = (pre @ net.weights[0] + net.biases[0])[0]
    np.testing.assert_allclose(plan.bias, z1 - pre[0, j] * net.weights[0][j], atol=1e-12)
