"""End to end: the numpy and jit engines within 1e-12 of ``predict_proba``; the auto choice; the
memory the kernel reads stays alive while background compiles race the engines."""

from __future__ import annotations

import gc
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mlp_cases import ACTS, NUMERIC, TOL, check_engine, fit, frame, labels, layer_of, mlp, pipeline
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from codegen.mlp.reader import read_mlp
from codegen.mlp.scorer import DeltaArguments, MLPKernel, MLPScorer, jit_candidate
from codegen.registry import scorer_for
from plaf_grammar import Schema


@pytest.mark.parametrize("act", ACTS)
def test_jit_bare_o2(act):
    df = frame()[NUMERIC]
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = fit(mlp((11, 6), act), df, labels(len(df), 2))
    scorer = scorer_for(model, schema, 1, "jit")
    assert scorer.name == "mlp-jit" and scorer.opt_level == 2
    check_engine(model, schema, enc, 1, scorer, np.random.default_rng(1), [(), (0,), (1, 2), (0, 1, 2)], n=21)


def test_auto_engine_decides():
    df = frame()[NUMERIC]
    schema = Schema.from_dataframe(df)
    small = fit(mlp((8,), "relu"), df, labels(len(df), 2))
    s = MLPScorer(layer_of(small, schema, 1), schema, "auto", background=False)
    assert s.name in ("mlp-jit", "mlp-numpy") and s.built_kernel is not None
    assert s.timings["max_abs_difference"] <= TOL
    big = fit(MLPClassifier((300, 300), max_iter=1), df, labels(len(df), 2))
    ok, why = jit_candidate(read_mlp(big, 1))
    assert not ok and "KiB" in why
    b = MLPScorer(layer_of(big, schema, 1), schema, "auto")
    assert b.name == "mlp-numpy" and b.built_kernel is None
    s2 = MLPScorer(layer_of(small, schema, 1), schema, "auto").wait()
    assert s2.built_kernel is not None
    np.testing.assert_allclose(
        s2.bind(schema.encode(df)[0]).score_block((0,), np.array([[30.0], [40.0]])),
        small.predict_proba(df.iloc[[0, 0]].assign(age=[30, 40]))[:, 1],
        atol=TOL,
    )


_DF = frame(150, seed=3)
_SCHEMA = Schema.from_dataframe(_DF)
_ENC = _SCHEMA.encode(_DF)
_NUM_SCHEMA = Schema.from_dataframe(_DF[NUMERIC])
_NUM_ENC = _NUM_SCHEMA.encode(_DF[NUMERIC])

networks = st.tuples(
    st.lists(st.integers(1, 12), min_size=1, max_size=3).map(tuple),
    st.sampled_from(ACTS),
    st.integers(2, 4),  # classes
    st.integers(0, 10_000),  # seed
)
deltas_of = lambda d: st.lists(  # noqa: E731
    st.lists(st.integers(0, d - 1), unique=True).map(lambda x: tuple(sorted(x))), min_size=1, max_size=3
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(net=networks, data=st.data())
def test_hypothesis_bare(net, data):
    hidden, act, n_classes, seed = net
    model = fit(mlp(hidden, act, seed), _DF[NUMERIC], labels(len(_DF), n_classes, seed))
    desired = data.draw(st.sampled_from(list(model.classes_)))
    scorer = MLPScorer(layer_of(model, _NUM_SCHEMA, desired), _NUM_SCHEMA, "jit", opt_level=0)
    deltas = data.draw(deltas_of(3))
    n = data.draw(st.integers(1, 19))
    check_engine(model, _NUM_SCHEMA, _NUM_ENC, desired, scorer, np.random.default_rng(seed), deltas, n)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(net=networks, scaler=st.sampled_from(["standard", "minmax", "minmax-clip"]), data=st.data())
def test_hypothesis_pipeline(net, scaler, data):
    hidden, act, n_classes, seed = net
    sc = {"standard": StandardScaler(), "minmax": MinMaxScaler(), "minmax-clip": MinMaxScaler(clip=True)}[scaler]
    model = fit(pipeline(hidden, act, sc, seed), _DF, labels(len(_DF), n_classes, seed))
    desired = data.draw(st.sampled_from(list(model.classes_)))
    engine = data.draw(st.sampled_from(["jit", "numpy"]))
    scorer = MLPScorer(layer_of(model, _SCHEMA, desired), _SCHEMA, engine, opt_level=0)
    deltas = data.draw(deltas_of(5))
    n = data.draw(st.integers(1, 19))
    check_engine(model, _SCHEMA, _ENC, desired, scorer, np.random.default_rng(seed), deltas, n)


def _churn(until: float) -> int:
    """Allocate, fill with NaN and free arrays of the sizes the kernel's buffers have, so freed
    buffers are reused at once (a dangling address then reads NaN)."""
    n = 0
    while True:
        junk = [np.full(k, np.nan) for k in (3, 8, 16, 24, 32, 48, 64, 96, 256)]
        del junk
        n += 1
        if time.perf_counter() >= until:
            return n


def test_kernel_arguments_own_their_memory():
    """A DeltaArguments alone keeps everything its addresses point into alive: the plan, the
    kernel's owner and every temporary may go, the call still reads the right numbers."""
    df = frame()[NUMERIC]
    schema = Schema.from_dataframe(df)
    model = fit(mlp((16,), "tanh"), df, labels(len(df), 2))
    layer = layer_of(model, schema, 1)
    x = schema.encode(df)[0]
    cols = np.array([[30.0], [50.0], [70.0]])
    want = layer.plan(x, (0,)).score(cols)
    call = DeltaArguments(MLPKernel(layer, 0), layer.plan(x, (0,)))
    scorer = MLPScorer(layer, schema, "numpy")
    staging = scorer.bind(x)._staging
    gc.collect()
    assert _churn(time.perf_counter() + 0.05) > 0
    np.testing.assert_allclose(staging.run(call, cols), want, rtol=0, atol=TOL)


def test_background_races_while_memory_is_reused(monkeypatch):
    """Stress: scorers compiled and raced on a background thread while this thread churns
    memory, and every kernel call in the race first churns too (freed buffers of the kernel's
    sizes are then refilled with NaN before the kernel reads them). Every race must see both
    engines agree and every scorer must score right afterwards."""
    import codegen.mlp.scorer as mlp_scorer_module

    run = mlp_scorer_module._Staging.run

    def churning_run(self, call, columns):
        _churn(time.perf_counter())  # one round: allocate, fill with NaN, free
        return run(self, call, columns)

    monkeypatch.setattr(mlp_scorer_module._Staging, "run", churning_run)
    df = frame()[NUMERIC]
    schema = Schema.from_dataframe(df)
    x = schema.encode(df)[0]
    cols = np.array([[30.0], [50.0]])
    for i in range(12):
        model = fit(mlp((8 + i,), ACTS[i % len(ACTS)], seed=i), df, labels(len(df), 2, seed=i))
        scorer = MLPScorer(layer_of(model, schema, 1), schema, "auto", opt_level=0, background=True)
        assert scorer._thread is not None
        while scorer._thread.is_alive():
            _churn(time.perf_counter() + 0.002)
        scorer.wait()
        assert scorer.built_kernel is not None, scorer.decision
        assert scorer.timings["max_abs_difference"] <= TOL, scorer.decision
        got = scorer.bind(x).score_block((0,), cols)
        np.testing.assert_allclose(got, model.predict_proba(df.iloc[[0, 0]].assign(age=[30, 50]))[:, 1], atol=TOL)


def test_numpy_engine_scores_a_generation_with_one_dense_tail():
    """The numpy engine folds each block's first layer and runs the dense layers once for all
    blocks: the same numbers as block by block (within rounding), and as ``predict_proba``
    within the error bound."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    from codegen.mlp.bound import error_bound
    from geco import Explainer
    from geco.datasets import load_credit
    from geco.models import one_hot_pipeline

    ds = load_credit()
    X, y = ds.X.iloc[:3000], ds.y.iloc[:3000]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = one_hot_pipeline(X, MLPClassifier((32, 32), max_iter=30, random_state=0)).fit(X, y)
    e = Explainer(model, X, engine="numpy")
    x = e.data[0]
    rng = np.random.default_rng(0)
    blocks, rows = [], []
    for k, n in enumerate([3, 17, 1, 40, 8]):
        delta = tuple(sorted(rng.choice(len(x), size=1 + k % 3, replace=False).tolist()))
        full = np.tile(x, (n, 1))
        full[:, delta] = e.data[rng.integers(0, len(e.data), n)][:, delta]
        blocks.append((delta, full[:, delta]))
        rows.append(full)
    bound = e.scorer.bind(x)
    together = np.concatenate(bound.score_blocks(blocks))
    alone = np.concatenate([bound.score_block(d, c) for d, c in blocks])
    rows = np.concatenate(rows)
    tol = error_bound(e.scorer.layer, rows)
    assert len(together) == len(rows) == 69
    assert np.all(np.abs(together - alone) <= 2 * tol)
    assert np.all(np.abs(together - e.blackbox.predict(rows)) <= tol)
    assert len(np.unique(np.round(together, 6))) > 5
