"""The MLP engines' distance from ``predict_proba`` stays within :func:`codegen.mlp.bound.error_bound`,
which grows with the scale of the inputs: at inputs near 1e6 whose first-layer terms cancel, the
engines really are ~1e-10 away (far beyond the 1e-12 that holds for scaled inputs), and still
inside the bound."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from mlp_cases import ACTS, CATEGORICAL, NUMERIC, fit, frame, labels, mlp, pipeline
from sklearn.preprocessing import StandardScaler

from codegen.mlp.bound import error_bound
from codegen.registry import scorer_for
from plaf_grammar import Schema

D = 6


def large_scale_network(act: str, hidden: tuple[int, ...], seed: int = 0):
    """Inputs 1e6 + N(0, 1), an unscaled network whose first layer cancels the 1e6 offset (so
    the probabilities are not saturated and rounding in the 1e6-sized terms shows)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"f{i}": 1e6 + rng.normal(0, 1, 400) for i in range(D)})
    m = fit(mlp(hidden, act, seed), X - 1e6, labels(len(X), 2, seed))
    m.coefs_[0] = m.coefs_[0] * 3.0
    m.intercepts_[0] = m.intercepts_[0] - np.full(D, 1e6) @ m.coefs_[0]
    schema = Schema.from_dataframe(X)
    return m, schema, schema.encode(X)


def errors_and_bounds(model, schema, enc, scorer, deltas, instances=3):
    col = list(model.classes_).index(1)
    errs, bounds = [], []
    for i in range(instances):
        bound = scorer.bind(enc[i])
        for delta in deltas:
            rows = np.tile(enc[i], (len(enc), 1))
            rows[:, list(delta)] = enc[:, list(delta)]
            got = bound.score_block(delta, np.ascontiguousarray(rows[:, list(delta)]))
            errs.append(np.abs(got - model.predict_proba(schema.decode(rows))[:, col]))
            bounds.append(error_bound(scorer.layer, rows))
    return np.concatenate(errs), np.concatenate(bounds)


@pytest.mark.parametrize("engine", ["numpy", "jit"])
@pytest.mark.parametrize("hidden", [(8,), (16, 8)])
def test_identity_network_at_input_scale_1e6(engine, hidden):
    model, schema, enc = large_scale_network("identity", hidden)
    scorer = scorer_for(model, schema, 1, engine)
    err, bound = errors_and_bounds(model, schema, enc, scorer, [(0,), (1, 3), tuple(range(D)), ()])
    assert np.all(err <= bound), float(np.max(err / bound))
    assert err.max() > 1e-12  # the scale really costs exactness: a 1e-12 contract would fail here
    assert bound.max() < 1e-7  # and the bound is not vacuous


@pytest.mark.parametrize("act", [a for a in ACTS if a != "identity"])
def test_other_activations_at_input_scale_1e6(act):
    model, schema, enc = large_scale_network(act, (16, 8), seed=1)
    for engine in ("numpy", "jit"):
        err, bound = errors_and_bounds(model, schema, enc, scorer_for(model, schema, 1, engine), [(2,), (0, 4)])
        assert np.all(err <= bound), (engine, float(np.max(err / bound)))


@pytest.mark.parametrize("act", ACTS)
def test_pipelines_with_codes_stay_within_the_bound(act):
    """One-hot tables and scaled numbers: the bound holds, and at this scale it is below the
    1e-12 the other MLP tests demand."""
    X = frame()
    schema = Schema.from_dataframe(X)
    enc = schema.encode(X)
    model = fit(pipeline((12, 6), act, StandardScaler()), X, labels(len(X), 3))
    for engine in ("numpy", "jit"):
        scorer = scorer_for(model, schema, 1, engine)
        deltas = [(schema.index(CATEGORICAL[0]),), (schema.index(NUMERIC[0]), schema.index(CATEGORICAL[1]))]
        err, bound = errors_and_bounds(model, schema, enc, scorer, deltas)
        assert np.all(err <= bound) and bound.max() < 1e-12


def test_bound_is_nan_where_the_engines_are():
    """A value that is not a category code scores NaN in both engines; so is its bound."""
    X = frame()
    schema = Schema.from_dataframe(X)
    enc = schema.encode(X)
    model = fit(pipeline((5,), "relu", StandardScaler()), X, labels(len(X), 2))
    j = schema.index(CATEGORICAL[0])
    bad = np.array([[-1.0], [3.0], [0.5], [np.nan], [1e300]])
    rows = np.tile(enc[0], (len(bad), 1))
    rows[:, j] = bad[:, 0]
    for engine in ("numpy", "jit"):
        scorer = scorer_for(model, schema, 1, engine)
        assert np.isnan(scorer.bind(enc[0]).score_block((j,), bad)).all()
        assert np.isnan(error_bound(scorer.layer, rows)).all()
