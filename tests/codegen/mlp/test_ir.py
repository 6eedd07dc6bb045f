"""The MLP kernel's IR: golden text for a tiny network with fixed weights, and what a user
inspecting it must find (Δ's features, their scalers, the folded bias, vector FMAs)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from mlp_cases import fit, frame, labels, pipeline
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

from codegen.llvm.binding import emit_assembly
from codegen.registry import scorer_for
from plaf_grammar import Schema


def _tiny():
    """2 inputs -> 3 relu units -> 1 logistic output, with fixed weights."""
    X = pd.DataFrame({"p": [0.0, 1.0, 2.0, 3.0], "q": [1.0, 0.0, 1.0, 0.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = MLPClassifier((3,), activation="relu", max_iter=1, random_state=0).fit(X, [0, 1, 0, 1])
    m.coefs_ = [np.array([[0.5, -1.0, 0.25], [2.0, 0.75, -0.5]]), np.array([[1.0], [-2.0], [0.5]])]
    m.intercepts_ = [np.array([0.125, -0.25, 1.0]), np.array([0.375])]
    return m, Schema.from_dataframe(X)


def test_golden_ir_tiny_mlp(golden):
    model, schema = _tiny()
    scorer = scorer_for(model, schema, 1, "numpy")
    x = np.array([1.0, 1.0])
    text = scorer.ir(x, (0,))
    golden("mlp_tiny", text)
    # the folded bias in the header: b1 + q's contribution (q = 1) = [2.125, 0.5, 0.5]
    assert "; folded bias = [2.125, 0.5, 0.5]" in text
    x_p = np.array([[2.0]])
    z = np.maximum(x_p @ model.coefs_[0][:1] + np.array([2.125, 0.5, 0.5]), 0) @ model.coefs_[1] + 0.375
    want = 1 / (1 + np.exp(-z[:, 0]))
    np.testing.assert_allclose(scorer.bind(x).score_block((0,), x_p), want, rtol=0, atol=1e-15)


def test_ir_names_features_and_folded_bias():
    df = frame()
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = fit(pipeline((9, 5), "relu", StandardScaler()), df, labels(len(df), 2))
    scorer = scorer_for(model, schema, 1, "numpy")
    delta = (schema.index("age"), schema.index("color"))
    text = scorer.ir(enc[0], delta)
    assert "define void @mlp_score(" in text
    assert "; Delta = (age, color)" in text and "folded into the layer-1 bias" in text
    assert "color: category code -> row of a 3 x 9 table" in text
    assert "age: u = (v - " in text and "fmuladd.v8f64" in text
    opt = scorer.ir(enc[0], delta, optimized=True)
    assert "<8 x double>" in opt and "@mlp_score" in opt and opt != text
    asm = emit_assembly(text, 2)  # the header lines are IR comments
    assert "vfmadd" in asm  # vector FMAs (zmm registers on an AVX-512 host)


def _tiny_regressor():
    """2 inputs -> 3 relu units -> 1 identity output, with the weights of :func:`_tiny`."""
    from sklearn.neural_network import MLPRegressor

    X = pd.DataFrame({"p": [0.0, 1.0, 2.0, 3.0], "q": [1.0, 0.0, 1.0, 0.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = MLPRegressor(hidden_layer_sizes=(3,), activation="relu", max_iter=1, random_state=0).fit(X, [0.0, 1.0, 0.0, 1.0])
    m.coefs_ = [np.array([[0.5, -1.0, 0.25], [2.0, 0.75, -0.5]]), np.array([[1.0], [-2.0], [0.5]])]
    m.intercepts_ = [np.array([0.125, -0.25, 1.0]), np.array([0.375])]
    return m, Schema.from_dataframe(X)


def test_golden_ir_tiny_regressor(golden):
    """The identity output unit: the prediction is stored as the last layer computes it."""
    from codegen import ModelOutput

    model, schema = _tiny_regressor()
    scorer = scorer_for(model, schema, ModelOutput("prediction"), "numpy")
    x = np.array([1.0, 1.0])
    text = scorer.ir(x, (0,))
    golden("mlp_tiny_regressor", text)
    assert "output identity, scoring the prediction;" in text
    assert "; identity output: the prediction is the output unit itself" in text
    assert "@llvm.exp.f64(" not in text.split("identity output: the prediction is")[1]
    x_p = np.array([[2.0], [-3.0]])
    z = np.maximum(x_p @ model.coefs_[0][:1] + np.array([2.125, 0.5, 0.5]), 0) @ model.coefs_[1] + 0.375
    jit = scorer_for(model, schema, ModelOutput("prediction"), "jit")
    for s in (scorer, jit):
        np.testing.assert_allclose(s.bind(x).score_block((0,), x_p), z[:, 0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(jit.bind(x).score_block((0,), x_p), model.predict(pd.DataFrame({"p": [2.0, -3.0], "q": 1.0})), rtol=0, atol=1e-15)


def test_ir_of_a_set_of_classes_sums_its_columns():
    from codegen import ModelOutput

    df = frame()
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = fit(pipeline((9,), "tanh", StandardScaler()), df, labels(len(df), 3))
    text = scorer_for(model, schema, ModelOutput("proba", (2, 0)), "numpy").ir(enc[0], (0,))
    assert "desired columns 2, 0 (probabilities summed)" in text
    assert "P(class columns 2, 0) summed in that order" in text
    assert "%pset" in text
    binary = fit(pipeline((5,), "relu", StandardScaler()), df, labels(len(df), 2))
    text = scorer_for(binary, schema, ModelOutput("proba", (0, 1)), "numpy").ir(enc[0], (0,))
    assert "columns 0, 1 of (1 - p1, p1) summed" in text
