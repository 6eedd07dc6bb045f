"""XGBoost and LightGBM through the compiled tiers: partial evaluation, the kernel (full forest and
native residuals), plans and x-walks, the JIT and the numpy tier all equal the library's own
``predict_proba`` bit for bit (assert_array_equal), bare with pandas categoricals, inside a one-hot
pipeline (a sparse matrix for XGBoost: zeros read as missing) and as a ``Booster``; binary and
multi-class; values at the thresholds, their float32 neighbours and NaN. Also the golden IR of a
two-tree XGBoost model, whose margins the IR adds in float32."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tree_cases import frame

from codegen.errors import UnknownClass
from codegen.llvm import binding
from codegen.registry import scorer_for
from codegen.trees.emit import emit_residual
from codegen.trees.fold import accumulate
from codegen.trees.jit import CompiledResidual
from codegen.trees.kernel import kernel_arrays_forest, run_kernel
from codegen.trees.native_partial import NativePartial
from codegen.trees.partial import bind_x, partial_evaluate
from geco.models import one_hot_pipeline
from plaf_grammar import Schema

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")

pytestmark = pytest.mark.filterwarnings("ignore:X does not have valid feature names")


class _BoosterProba:
    """What an sklearn wrapper would return for a Booster: ``[1 - p, p]`` or the class columns."""

    def __init__(self, booster):
        self.booster = booster

    def predict_proba(self, df: pd.DataFrame) -> np.ndarray:
        if isinstance(self.booster, xgb.Booster):
            p = self.booster.predict(xgb.DMatrix(df, enable_categorical=True))
        else:
            p = self.booster.predict(df)
        return np.column_stack([1 - p, p]) if p.ndim == 1 else p


def _sparse(pipeline):
    """The one-hot pipeline with a sparse output (Adult's is sparse; this frame is too narrow)."""
    pipeline[0].set_params(sparse_threshold=1.0)
    return pipeline


@pytest.fixture(scope="module")
def cases():
    """(name, model, reference with predict_proba, schema, encoded X, desired class)."""
    X, y = frame(n=500, seed=3)
    y2 = (y > 0).astype(int)
    schema = Schema.from_dataframe(X)
    E = schema.encode(X)
    xgb_kw = dict(n_estimators=15, max_depth=4, n_jobs=1)
    lgb_kw = dict(n_estimators=15, num_leaves=12, min_child_samples=5, verbose=-1, n_jobs=1)
    out = []
    for yy, desired, k in ((y2, 1, "2"), (y, 2, "3")):
        for name, model in (
            ("xgb-bare", xgb.XGBClassifier(enable_categorical=True, **xgb_kw)),
            ("lgb-bare", lgb.LGBMClassifier(**lgb_kw)),
            ("xgb-onehot", _sparse(one_hot_pipeline(X, xgb.XGBClassifier(**xgb_kw)))),
            ("lgb-onehot", _sparse(one_hot_pipeline(X, lgb.LGBMClassifier(**lgb_kw)))),
        ):
            model.fit(X, yy)
            out.append((f"{name}-{k}", model, model, schema, E, desired))
    booster = xgb.train({"objective": "binary:logistic", "max_depth": 3, "nthread": 1}, xgb.DMatrix(X, y2, enable_categorical=True), 10)
    out.append(("xgb-booster", booster, _BoosterProba(booster), schema, E, 1))
    booster = lgb.train({"objective": "multiclass", "num_class": 3, "verbose": -1, "num_threads": 1},
                        lgb.Dataset(X, y), num_boost_round=8)  # fmt: skip
    out.append(("lgb-booster", booster, _BoosterProba(booster), schema, E, 2))
    return out


def _edge_rows(forest, E: np.ndarray, rng, n: int = 300) -> np.ndarray:
    """Data rows whose numeric cells are often a split threshold (in user space) or a neighbour,
    zeros included; categorical cells any code."""
    Q = E[rng.integers(0, len(E), n)].copy()
    for j, f in enumerate(forest.schema.features):
        if f.categories is not None:
            Q[:, j] = rng.integers(0, len(f.categories), n)
            continue
        t = forest.threshold[(forest.feature == j) & (forest.cat < 0)]
        t = t[np.isfinite(t)]
        vals = np.concatenate([t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf), [0.0, -0.0]])
        pick = rng.random(n) < 0.5
        Q[pick, j] = rng.choice(vals, int(pick.sum()))
    return Q


def _decode(schema, rows: np.ndarray) -> pd.DataFrame:
    """Schema.decode, keeping NaN in numeric columns (the libraries read it as missing)."""
    frame_ = schema.decode(np.nan_to_num(rows, nan=0.0))
    for j, f in enumerate(schema.features):
        if f.categories is None:
            frame_[f.name] = rows[:, j]
    return frame_


def _blackbox(ref, schema, desired, x, delta, cols) -> np.ndarray:
    rows = np.repeat(x[None], len(cols), axis=0)
    rows[:, list(delta)] = cols
    return np.asarray(ref.predict_proba(_decode(schema, rows))[:, desired], dtype=np.float64)


def _steered(model, schema, desired, tier: str):
    """An auto scorer whose cost model always picks ``tier`` ("plan" or "xwalk") for a Δ block."""
    sc = scorer_for(model, schema, desired, "auto")
    if tier == "plan":
        sc.c_xwalk.seconds = 1e9 * sc.c_xwalk.units
    else:
        for rate in sc.c_plan:
            rate.seconds = 1e9 * rate.units
    return sc


def _values(forest, j: int, data: np.ndarray) -> np.ndarray:
    """Candidate values of feature ``j``: category codes, or data values, the folded thresholds,
    their float64 and float32 neighbours, zeros and NaN."""
    f = forest.schema.features[j]
    if f.categories is not None:
        return np.arange(len(f.categories), dtype=float)
    t = forest.threshold[(forest.feature == j) & (forest.cat < 0)]
    t = t[np.isfinite(t)]
    t32 = t.astype(np.float32)
    near = [t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf), t32.astype(float),
            np.nextafter(t32, np.float32(np.inf)).astype(float), np.nextafter(t32, np.float32(-np.inf)).astype(float)]  # fmt: skip
    return np.concatenate([np.unique(np.concatenate([data, *near, [0.0, -0.0]])), [np.nan]])


def test_every_tier_equals_predict_proba(cases):
    rng = np.random.default_rng(0)
    for name, model, ref, schema, E, desired in cases:
        scorers = {eng: scorer_for(model, schema, desired, eng) for eng in ("auto", "jit", "numpy")}
        forest = scorers["auto"].forest
        assert forest.float32_sums == name.startswith("xgb"), name
        # a sparse one-hot output: XGBoost reads the numeric zeros as missing
        assert bool(forest.missing_values) == name.startswith("xgb-onehot"), name
        Q = _edge_rows(forest, E, rng)
        want = _blackbox(ref, schema, desired, Q[0], tuple(range(len(schema))), Q)
        # the whole folded forest: numpy reference and the kernel
        np.testing.assert_array_equal(forest.predict(Q), want, err_msg=name)
        # the kernel tiers see values read as missing as NaN already (the scorer's first step)
        np.testing.assert_array_equal(forest.finish(run_kernel(scorers["auto"].full, forest.read_missing(Q))), want,
                                      err_msg=name)  # fmt: skip
        for delta in ((0,), (2,), (1, 3), (0, 2, 4)):
            x = Q[rng.integers(len(Q))]
            cols = np.ascontiguousarray(Q[:60][:, list(delta)])
            want = _blackbox(ref, schema, desired, x, delta, cols)
            for eng, sc in scorers.items():
                np.testing.assert_array_equal(sc.bind(x).score_block(delta, cols), want, err_msg=f"{name} {eng} {delta}")
            # the residual kernel of the native partial evaluator, whatever auto would pick
            native = scorers["auto"].native
            arrays = native(native.bind(forest.read_missing(x)), delta)
            got = forest.finish(run_kernel(arrays, forest.read_missing(cols, delta)))
            np.testing.assert_array_equal(got, want, err_msg=f"{name} residual kernel {delta}")


def test_plan_and_xwalk_tiers_equal_predict_proba_hypothesis(cases):
    """Plans (QuickScorer trees, walks, constants) and x-walks on random Δ blocks of values at
    the thresholds, their float32 neighbours, zeros and NaN, in x too: bit for bit the library's
    predict_proba, for every case (binary and 3-class, bare, one-hot, Booster)."""
    scorers = {(c[0], t): _steered(c[1], c[3], c[5], t) for c in cases for t in ("plan", "xwalk")}
    seen: set[str] = set()
    nan_rows = [0]

    @st.composite
    def block(draw):
        name, _model, ref, schema, E, desired = cases[draw(st.integers(0, len(cases) - 1))]
        forest = scorers[(name, "plan")].forest
        d = len(schema)
        x = E[draw(st.integers(0, len(E) - 1))].copy()
        pools = [_values(forest, j, E[:, j]) for j in range(d)]
        for j in draw(st.sets(st.integers(0, d - 1), max_size=2)):
            x[j] = pools[j][draw(st.integers(0, len(pools[j]) - 1))]
        delta = tuple(sorted(draw(st.sets(st.integers(0, d - 1), min_size=1, max_size=d - 1))))
        n = draw(st.integers(1, 20))
        cols = np.array([[pools[j][draw(st.integers(0, len(pools[j]) - 1))] for j in delta] for _ in range(n)])
        numeric = [k for k, j in enumerate(delta) if schema.features[j].categories is None]
        if numeric and draw(st.booleans()):  # missing values in a third of the rows
            cols[::3, numeric[draw(st.integers(0, len(numeric) - 1))]] = np.nan
        return name, ref, schema, desired, x, delta, cols

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(block())
    def check(c):
        name, ref, schema, desired, x, delta, cols = c
        want = _blackbox(ref, schema, desired, x, delta, cols)
        for tier in ("plan", "xwalk"):
            sc = scorers[(name, tier)]
            before = sc.stats[f"blocks_{tier}"]
            got = sc.bind(x).score_block(delta, cols)
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {tier} {delta}")
            assert sc.stats[f"blocks_{tier}"] == before + 1, f"{name}: scored by {tier}"
        seen.add(name)
        nan_rows[0] += int(np.isnan(cols).any() or np.isnan(x).any())

    check()
    assert len(seen) >= 8 and nan_rows[0] >= 10, (seen, nan_rows)
    assert all(scorers[(name, "plan")].stats["plans"] > 0 for name in seen)


def test_multiclass_lightgbm_categoricals_through_plans(cases):
    """A 3-class LightGBM with pandas categoricals, plans built at once: every bound instance's
    first block is small (the evaluator's per-class accumulators must fit the runner's first
    scratch; they once wrote past it - run under ``python -X dev``), code-set splits in
    QuickScorer form, and every result equals predict_proba."""
    name, model, ref, schema, E, desired = next(c for c in cases if c[0] == "lgb-bare-3")
    sc = _steered(model, schema, desired, "plan")
    forest = sc.forest
    assert forest.n_outputs == 3 and np.any(forest.cat >= 0), "expected per-class trees and code-set splits"
    rng = np.random.default_rng(4)
    cat_cols = [j for j, f in enumerate(schema.features) if f.categories is not None]
    set_records = 0
    for i in range(120):
        x = E[rng.integers(len(E))]
        b = sc.bind(x)
        delta = (cat_cols[i % len(cat_cols)],) if i % 3 else tuple(sorted({cat_cols[0], int(rng.integers(len(schema)))}))
        cols = np.ascontiguousarray(E[rng.integers(0, len(E), int(rng.integers(1, 9)))][:, list(delta)])
        np.testing.assert_array_equal(b.score_block(delta, cols), _blackbox(ref, schema, desired, x, delta, cols),
                                      err_msg=f"{name} {delta}")  # fmt: skip
        qrec = b._states[delta].plan.part("qrec")
        set_records += int(np.count_nonzero((qrec["test"] & 3) == 1))
    assert sc.stats["blocks_plan"] == 120 and sc.stats["blocks_full_kernel"] == 0
    assert set_records > 0


def test_lightgbm_behind_a_sparse_output_compares_tiny_values_as_they_are(cases):
    """LightGBM's dense row copy reads |v| <= 1e-35 as 0.0, its sparse row copy does not: behind
    a sparse one-hot output such a value is compared with the threshold as it is."""
    tiny = float(np.float32(1e-35))
    for name in ("lgb-onehot-2", "lgb-onehot-3", "lgb-bare-2"):
        _name, model, ref, schema, E, desired = next(c for c in cases if c[0] == name)
        forest = scorer_for(model, schema, desired, "numpy").forest
        a = schema.index("a")
        cols = np.array([[-tiny], [tiny], [0.0], [-0.0], [np.nextafter(-tiny, 0.0)], [-1e-300]])
        for x in E[:20]:
            rows = np.repeat(x[None], len(cols), axis=0)
            rows[:, a] = cols[:, 0]
            np.testing.assert_array_equal(forest.predict(rows), _blackbox(ref, schema, desired, x, (a,), cols), err_msg=name)
        if name != "lgb-bare-2":  # the split that tells the two readings apart
            assert (forest.threshold[forest.feature == a] == -tiny).any(), name


def test_partial_evaluation_equals_the_full_model(cases):
    rng = np.random.default_rng(1)
    for name, model, _ref, schema, E, desired in cases:
        forest = scorer_for(model, schema, desired, "numpy").forest
        native = NativePartial(forest, kernel_arrays_forest(forest))
        for k in (0, 1, 2, 3):
            x = E[rng.integers(len(E))]
            delta = tuple(sorted(rng.choice(len(schema), k, replace=False).tolist()))
            rows = np.repeat(x[None], 80, axis=0)
            rows[:, list(delta)] = E[rng.integers(0, len(E), 80)][:, list(delta)]
            want = forest.predict(rows)
            rows = forest.read_missing(rows)  # what partial evaluation and the kernel read
            x = rows[0]
            cols = np.ascontiguousarray(rows[:, list(delta)])
            res = partial_evaluate(forest, bind_x(forest, x), delta)
            np.testing.assert_array_equal(res.predict(cols), want, err_msg=f"{name} {delta}")
            got = forest.finish(run_kernel(native(native.bind(x), delta), cols))
            np.testing.assert_array_equal(got, want, err_msg=f"{name} native {delta}")
            if k == 0:
                assert res.n_live == 0
            else:
                assert res.n_splits < int(np.count_nonzero(forest.feature >= 0)), name


def test_xgboost_needs_float32_sums(cases):
    """The float32 accumulation is what makes XGBoost exact: summing the same leaves in float64
    changes some probabilities."""
    _name, model, ref, schema, E, desired = next(c for c in cases if c[0] == "xgb-onehot-3")
    forest = scorer_for(model, schema, desired, "numpy").forest
    contrib = forest.value[forest.leaves(E)].T
    want = ref.predict_proba(schema.decode(E))[:, desired]
    np.testing.assert_array_equal(forest.link(accumulate(contrib, forest.output, forest.init, True)), want)
    assert (forest.link(accumulate(contrib, forest.output, forest.init, False)) != want).any()


def test_booster_desired_class_is_a_column_index(cases):
    _name, booster, _ref, schema, _E, _desired = next(c for c in cases if c[0] == "xgb-booster")
    assert scorer_for(booster, schema, 0, "numpy").forest.desired_class == 0
    with pytest.raises(UnknownClass, match="desired_class 'yes' is not one of the model's classes"):
        scorer_for(booster, schema, "yes")


def _two_trees():
    """An XGBoost Booster with two stumps: tree 0 on u, tree 1 on v (loaded from JSON, so the same
    model whatever the installed version trains)."""
    booster = xgb.Booster()
    booster.load_model(bytearray(Path(__file__).with_name("xgb_two_trees.json").read_bytes()))
    X = pd.DataFrame({"u": [0.0, 1.0, 2.0, 3.0], "v": [0.0, 1.0, 0.0, 1.0]})
    return booster, Schema.from_dataframe(X), X


def test_golden_ir_two_tree_xgboost(golden):
    booster, schema, X = _two_trees()
    assert json.loads(bytes(booster.save_raw("json")))["learner"]["gradient_booster"]["model"]["tree_info"] == [0, 0]
    scorer = scorer_for(booster, schema, 1, "jit")
    x = X.to_numpy()[0]
    ir = scorer.ir(x, (0,))  # tree 0 stays live, tree 1 is decided by v
    golden("xgboost_two_trees", ir)
    assert "define internal float @tree_0" in ir and "fadd float" in ir and "fpext float" in ir
    assert binding.compile_ir(ir, 0).address("score")
    cols = np.array([[0.0], [1.5], [np.nextafter(1.5, 0.0)], [2.0], [np.nan]])
    want = _BoosterProba(booster).predict_proba(schema.decode(np.column_stack([cols[:, 0], np.full(5, x[1])])))[:, 1]
    np.testing.assert_array_equal(scorer.bind(x).score_block((0,), cols), want)


def test_emitted_bias_folds_leading_constants_in_float32(cases):
    _name, model, _ref, schema, E, desired = next(c for c in cases if c[0] == "xgb-bare-2")
    forest = scorer_for(model, schema, desired, "numpy").forest
    x = E[5]
    # the Δ whose first live tree comes latest: the longest run of leading constants
    runs = {}
    for j in range(len(schema)):
        res = partial_evaluate(forest, bind_x(forest, x), (j,))
        runs[j] = (int(res.live[0]) if res.n_live else forest.n_trees, res)
    first, res = max(runs.values(), key=lambda r: r[0])
    assert first >= 2, runs
    bias = np.float32(forest.init[0])
    for t in range(first):
        bias = bias + np.float32(res.const[t])
    wide = forest.init[0] + res.const[:first].sum()
    assert float(bias) != wide  # float64 folding would give another bias here
    assert f"bias = {float(bias)!r} " in emit_residual(res)


def test_ir_reads_zero_as_missing_itself(cases):
    """The emitted module turns the values a sparse XGBoost input reads as missing into NaN after
    their load, so it is exact on raw Δ columns (zeros included) without the scorer's mapping."""
    name, model, ref, schema, E, desired = next(c for c in cases if c[0] == "xgb-onehot-2")
    forest = scorer_for(model, schema, desired, "numpy").forest
    regions = {s for s, *_ in forest.missing_values}
    delta = (schema.index("a"), schema.index("b"))
    assert set(delta) <= regions
    x = forest.read_missing(E[7])
    res = partial_evaluate(forest, bind_x(forest, x), delta)
    ir = emit_residual(res)
    assert "is read as missing" in ir and "select i1 %z0, double 0x7FF8000000000000" in ir
    cols = np.array([[0.0, 0.0], [-0.0, 3.0], [0.5, 0.0], [5e-324, -0.0], [-5e-324, 1.0], [np.nan, 2.0]])
    got = CompiledResidual(binding.compile_ir(ir, 0), forest)(cols)
    np.testing.assert_array_equal(got, _blackbox(ref, schema, desired, E[7], delta, cols), err_msg=name)


@pytest.mark.parametrize(
    ("kind", "K", "sigmoid", "divisor"),
    [("xgboost_sigmoid", 1, 1.0, None), ("xgboost_softmax", 3, 1.0, None), ("lightgbm_sigmoid", 1, 1.0, None),
     ("lightgbm_sigmoid", 1, 0.7, 5.0), ("lightgbm_softmax", 4, 1.0, 3.0), ("lightgbm_ova", 3, 0.7, None)],
)  # fmt: skip
def test_compiled_links_equal_the_numpy_links(kind, K, sigmoid, divisor):
    """The compiled links call the C library's expf/exp as the numpy ones do (which equal the
    libraries, see test_gbm_readers): equal on wide margins, saturation and the clamp at 88.7."""
    from codegen.trees.gbm.links import GBMLink
    from codegen.trees.gbm.native_links import native_link

    rng = np.random.default_rng(K)
    raw = np.concatenate([rng.normal(scale=s, size=(3000, K)) for s in (0.5, 5.0, 40.0)])
    raw = np.vstack([raw, np.full((1, K), 88.7), np.full((1, K), -88.7), np.full((1, K), 89.0), np.full((1, K), -1e4)])
    if kind.startswith("xgboost"):
        raw = raw.astype(np.float32).astype(np.float64)  # margins are float32 values
    link = GBMLink(kind, sigmoid, divisor)
    want = link(raw)
    for col in range(want.shape[1]):
        np.testing.assert_array_equal(native_link(link, col, K)(raw), want[:, col], err_msg=f"{kind} {col}")


def test_lightgbm_threshold_at_infinity_in_every_tier():
    """A split that sends every number left of NaN has threshold +inf in LightGBM's model, which
    dump_model writes as 1e300: a value of 1e300 or more must still go left in every tier."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    X.loc[rng.random(300) < 0.3, "b"] = np.nan
    y = (X["b"].isna() ^ (rng.random(300) < 0.2)).astype(int)  # NaN in b decides: NaN-only splits
    model = lgb.LGBMClassifier(n_estimators=6, num_leaves=2, min_child_samples=5, verbose=-1, n_jobs=1,
                               use_missing=True).fit(X, y)  # fmt: skip
    assert any(t["tree_structure"].get("threshold") == 1e300 for t in model.booster_.dump_model()["tree_info"])
    schema = Schema.from_dataframe(X)
    Q = np.array([[a, b] for a in (-1.0, 0.5) for b in (1e300, 1.5e300, np.finfo(float).max, -1e300, 0.3, np.nan)])
    want = model.predict_proba(pd.DataFrame(Q, columns=X.columns))[:, 1]
    for tier in ("numpy", "jit", "auto", "plan", "xwalk"):
        sc = _steered(model, schema, 1, tier) if tier in ("plan", "xwalk") else scorer_for(model, schema, 1, tier)
        np.testing.assert_array_equal(sc.forest.predict(Q), want)
        cols = np.ascontiguousarray(Q[:, 1:])
        for x in Q[[0, 6]]:
            got = sc.bind(x).score_block((1,), cols)
            np.testing.assert_array_equal(got, _blackbox(model, schema, 1, x, (1,), cols), err_msg=tier)


def test_rows_walked_from_x_equal_the_full_kernel(cases):
    """XGBoost (float32 sums), LightGBM (binary, multiclass), boosters: full rows scored with x's
    binding, or from x's masks, equal the full kernel bit for bit, rows near x and edge rows alike."""
    from codegen.trees.kernel import kernel_arrays_forest, run_kernel
    from codegen.trees.native_partial import NativePartial

    rng = np.random.default_rng(5)
    for name, model, _ref, schema, E, desired in cases:
        forest = scorer_for(model, schema, desired, "numpy").forest
        full = kernel_arrays_forest(forest)
        native = NativePartial(forest, full)
        for _ in range(3):
            x = E[rng.integers(len(E))].copy()
            edge = _edge_rows(forest, E, rng, 60)
            near = np.tile(x, (60, 1))
            pick = rng.random(near.shape) < 0.3
            near[pick] = edge[pick]
            rows = np.concatenate([near, edge, x[None]])
            bx, want = native.bind(x), run_kernel(full, rows)
            bx.path_masks()  # built: every row within the share is walked from x, however few
            for share in (1.0, 0.125):  # every row walked from x, the default split
                np.testing.assert_array_equal(bx.score_rows_branchy(rows, share), want, err_msg=f"{name} {share}")
            if native.walker is not None:  # the branch-free walker, whole and partial 32-row blocks
                for m in (len(rows), 40, 16):
                    np.testing.assert_array_equal(bx.walk_rows(rows[:m]), want[:m], err_msg=f"{name} walker {m}")
                    np.testing.assert_array_equal(native.walk_rows(rows[:m], x), want[:m], err_msg=f"{name} walker x {m}")
                for m in (len(rows), 15, 1):  # the trees as lanes (float32 sums, multiclass outputs)
                    np.testing.assert_array_equal(native.walk_tree_lanes(rows[:m]), want[:m], err_msg=f"{name} lanes {m}")
            assert native.xmask_forest, name  # x's masks on the records by column, chunks of 8 and less
            for m in (len(rows), 13, 8, 3):
                np.testing.assert_array_equal(native.xmask_rows(bx, rows[:m]), want[:m], err_msg=f"{name} xmask {m}")
            np.testing.assert_array_equal(bx.score_rows(rows), want, err_msg=name)
