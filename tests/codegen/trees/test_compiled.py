"""End to end: every compiled tier (kernel, native partial evaluation, JIT, auto) equals
``predict_proba`` bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tree_cases import WITH_NAN, blackbox, case, interesting_values

from codegen.llvm import binding
from codegen.registry import scorer_for
from codegen.trees.jit import CompiledResidual
from codegen.trees.kernel import kernel_arrays_forest, kernel_arrays_residual, run_kernel
from codegen.trees.partial import bind_x, partial_evaluate
from codegen.trees.scorer import TreeScorer


def test_kernel_full_and_residual_exact(fitted, forests):
    rng = np.random.default_rng(5)
    for name, _model, schema, X, _desired in fitted:
        forest = forests[name]
        acc = run_kernel(kernel_arrays_forest(forest), X)
        got = acc[:, 0] if forest.divisor is not None else forest.finish(acc)
        np.testing.assert_array_equal(got, forest.predict(X), err_msg=name)
        delta = tuple(sorted(rng.choice(len(schema), 2, replace=False).tolist()))
        res = partial_evaluate(forest, bind_x(forest, X[0]), delta)
        cols = np.ascontiguousarray(X[:, list(delta)])
        acc = run_kernel(kernel_arrays_residual(res), cols)
        got = acc[:, 0] if forest.divisor is not None else forest.finish(acc)
        np.testing.assert_array_equal(got, res.predict(cols), err_msg=name)


@st.composite
def _case(draw, fitted, forests):
    i = draw(st.integers(0, len(fitted) - 1))
    name, model, schema, X, desired = fitted[i]
    forest = forests[name]
    x = X[draw(st.integers(0, len(X) - 1))].copy()
    d = len(schema)
    delta = tuple(sorted(draw(st.sets(st.integers(0, d - 1), min_size=1, max_size=3))))
    n = draw(st.integers(1, 6))
    cols = np.empty((n, len(delta)))
    for k, j in enumerate(delta):
        vals = interesting_values(forest, j, X[:, j])
        cols[:, k] = [vals[draw(st.integers(0, len(vals) - 1))] for _ in range(n)]
    if name in WITH_NAN and draw(st.booleans()):
        x[schema.index("a")] = np.nan  # NaN routing, learned during fit
    return name, model, schema, desired, x, delta, cols


def test_engines_equal_predict_proba_hypothesis(fitted, forests):
    scorers = {(name, eng): TreeScorer(forests[name], eng) for name, *_ in fitted for eng in ("jit", "numpy", "auto")}
    seen = set()

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(_case(fitted, forests))
    def check(c):
        name, model, schema, desired, x, delta, cols = c
        want = blackbox(model, schema, desired, x, delta, cols)
        for eng in ("jit", "numpy", "auto"):
            got = scorers[(name, eng)].bind(x).score_block(delta, cols)
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {eng} {delta}")
        seen.add(name)

    check()
    assert len(seen) >= 5, seen


def test_auto_tiers_switch_and_stay_exact(fitted):
    _name, model, schema, X, desired = case(fitted, "rf-pipe")
    sc = scorer_for(model, schema, desired, engine="auto")
    for c in sc.c_plan:  # plans cost nothing: build one at once
        c.seconds = 0.0
    sc.c_compile_split.seconds = 0.0
    sc.c_compile_base = 0.0  # and a background compile right away
    b = sc.bind(X[0])
    delta = (0, 2)
    cols = np.ascontiguousarray(X[:40][:, list(delta)])
    want = blackbox(model, schema, desired, X[0], delta, cols)
    for _ in range(4):
        np.testing.assert_array_equal(b.score_block(delta, cols), want)
        st_ = b._states[delta]
        if st_.future is not None:
            st_.future.result()
    s = sc.stats
    assert s["plans"] == 1 and s["blocks_plan"] >= 1
    assert s["background_compiles"] == 1 and s["blocks_jit"] >= 1
    parts = b.score_blocks([(delta, cols), ((1,), cols[:, :1])])
    np.testing.assert_array_equal(parts[0], want)
    np.testing.assert_array_equal(parts[1], blackbox(model, schema, desired, X[0], (1,), cols[:, :1]))


def test_disk_cache_roundtrip(fitted, forests, tmp_path, monkeypatch):
    _name, _model, _schema, X, _desired = case(fitted, "gb3-bare")
    forest = forests["gb3-bare"]
    res = partial_evaluate(forest, bind_x(forest, X[0]), (0, 1))
    from codegen.trees.emit import emit_residual

    ir = emit_residual(res)
    monkeypatch.setenv("GECO_LLVM_CACHE", str(tmp_path))
    binding.compile_ir(ir, 0)
    assert len(list(tmp_path.glob("*.gobj"))) == 1
    binding.clear_cache()
    cm = binding.compile_ir(ir, 0)  # from disk
    assert binding.cache_info().get("disk_hits") == 1
    cols = np.ascontiguousarray(X[:30, :2])
    np.testing.assert_array_equal(CompiledResidual(cm, forest, cols.shape[1])(cols), res.predict(cols))
