"""x's binding filled on first use: the entries the kernels fill equal the eager binding's, every
kernel that reads them scores as the whole forest does, bindings reusing a pooled array never
read a stale entry (the epochs coming round included), and two threads building plans for one
binding agree with one."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from tree_cases import WITH_NAN, case, delta_block, frame, numeric

from codegen.errors import UnsupportedModel
from codegen.llvm.trees_abi import XHEAD, XSTEP
from codegen.registry import scorer_for
from codegen.trees.fold import read_forest
from codegen.trees.kernel import kernel_arrays_forest, run_kernel
from codegen.trees.native_partial import NativePartial, tree_shape, xstep_columns
from codegen.trees.partial import bind_x, partial_evaluate
from codegen.trees.plan import BlockRunner
from plaf_grammar import Schema


@pytest.fixture(scope="module")
def deep():
    """A forest of unbounded depth (paths longer than a fill's 16-entry pass), NaN routing
    learned on feature 'a', its encoded data."""
    X, y = frame(n=1500, seed=4)
    Xn = numeric(X)
    rng = np.random.default_rng(2)
    Xn.loc[rng.random(len(Xn)) < 0.1, "a"] = np.nan
    noisy = np.where(rng.random(len(y)) < 0.25, 1 - (y > 0), y > 0).astype(int)
    model = RandomForestClassifier(n_estimators=12, random_state=0).fit(Xn, noisy)
    schema = Schema.from_dataframe(Xn)
    forest = read_forest(model, schema, 1)
    return forest, Xn.to_numpy(dtype=float)


def _entries(native, x):
    """Every entry of x's binding, filled eagerly on a binding of its own."""
    return native.bind(x).bind_all().copy()


def _current(bx) -> np.ndarray:
    """Which nodes' entries a binding holds for its own x (its epoch)."""
    xs = bx.buffers["xstep"]
    epoch = bx.buffers["block"][:3].view(np.int64).reshape(-1)[XHEAD.epoch]
    return ((xs[:, XSTEP.col].view(np.uint32) >> 16) == epoch) & (xstep_columns(xs) >= 0)


def _near_rows(x, X, rng, n):
    rows = np.repeat(x[None], n, axis=0)
    for i in range(n):
        cols = rng.choice(len(x), int(rng.integers(1, 3)), replace=False)
        rows[i, cols] = X[rng.integers(len(X)), cols]
    return rows


def test_runs_of_one_mask_start_where_x_path_is_left(deep):
    """The folded walk lets the rows after the first of a run with one mask start where the
    first left x's path: runs of rows changing the same columns (a Δ block's rows), runs of one
    row, a mask repeated after another, a run of rows equal to x and one of the widest mask all
    score as the whole forest does, bit for bit, in any order of the runs."""
    forest, X = deep
    full = kernel_arrays_forest(forest)
    native = NativePartial(forest, full)
    rng = np.random.default_rng(11)
    d = len(forest.schema)
    for _trial in range(6):
        x = X[rng.integers(len(X))].copy()
        bx = native.bind(x)
        runs = []
        for size in (7, 1, 12, 3, 1, 9):
            cols = rng.choice(d, int(rng.integers(1, 3)), replace=False)
            rows = np.repeat(x[None], size, axis=0)
            rows[:, cols] = X[rng.integers(len(X), size=size)][:, cols]
            runs.append((rows, np.full(size, sum(1 << (int(c) & 31) for c in cols), dtype=np.int32)))
        runs.append(runs[0])  # a mask met before, after others
        runs.append((np.repeat(x[None], 4, axis=0), np.zeros(4, dtype=np.int32)))  # x itself
        wide = X[rng.integers(len(X), size=5)]
        runs.append((wide, np.full(5, -1, dtype=np.int32)))  # every column may differ
        for order in (range(len(runs)), rng.permutation(len(runs))):
            rows = np.concatenate([runs[i][0] for i in order])
            masks = np.concatenate([runs[i][1] for i in order])
            for own in (False, True):
                np.testing.assert_array_equal(bx.folded_walk(rows, masks, own), run_kernel(full, rows), err_msg=str(own))


def test_entries_filled_on_first_use_equal_the_eager_binding(deep):
    """Plans, x-walk jobs and the folded walk fill the entries they read: each filled entry is
    the eager binding's, part of the forest stays unfilled, and every score is the whole
    forest's, bit for bit - instance after instance on the same pooled arrays."""
    forest, X = deep
    full = kernel_arrays_forest(forest)
    _sizes, depth = tree_shape(forest)
    assert depth > 17  # a fill recurses past its 16-entry pass
    native, eager = NativePartial(forest, full), NativePartial(forest, full)
    runner = BlockRunner(full)
    rng = np.random.default_rng(5)
    d = len(forest.schema)
    partial = 0
    for _trial in range(8):
        x = X[rng.integers(len(X))].copy()
        bx = native.bind(x)
        deltas = [tuple(sorted(rng.choice(d, k, replace=False).tolist())) for k in (1, 2, 1, 3)]
        xchild = bind_x(forest, x)
        blocks, wants = [], []
        for delta, plan in zip(deltas, native.plans(bx, deltas)):
            res = partial_evaluate(forest, xchild, delta)
            for job in (plan, native.xwalk(bx, delta)):
                cols = delta_block(forest, X, delta, rng, 9)
                blocks.append((job, cols))
                wants.append(res.predict(cols))
        acc, starts, _bad = runner.run(blocks)
        for (job, cols), s, want in zip(blocks, starts.tolist(), wants):
            np.testing.assert_array_equal(acc[s : s + len(cols), 0], want, err_msg=f"{type(job).__name__} {job.delta}")
        rows = _near_rows(x, X, rng, 40)
        np.testing.assert_array_equal(bx.folded_walk(rows, bx.folded_masks(rows)), run_kernel(full, rows))
        filled = _current(bx)
        want_entries = _entries(eager, x)
        got = bx.buffers["xstep"]
        for f in ("child", "leaf", "mask"):
            np.testing.assert_array_equal(got[filled, getattr(XSTEP, f)], want_entries[filled, getattr(XSTEP, f)], err_msg=f)
        split = forest.feature >= 0
        partial += int(filled.sum() < split.sum())
        assert filled.any()
        del bx
    assert partial == 8  # a search fills part of the forest, not all of it


def test_a_pooled_array_never_serves_another_instance_stale_entries(deep):
    """An instance bound on the array another one filled reads none of its entries, also when
    the epochs come round and the new epoch is the one those entries were filled under."""
    forest, X = deep
    full = kernel_arrays_forest(forest)
    native = NativePartial(forest, full)
    rng = np.random.default_rng(9)
    x1, x2 = X[3].copy(), X[4].copy()
    assert (x1 != x2).any()
    rows = _near_rows(x2, X, rng, 60)
    want = run_kernel(full, rows)
    for wrap in (False, True):
        bx = native.bind(x1)
        epoch = int(bx.buffers["block"][:3].view(np.int64).reshape(-1)[XHEAD.epoch])
        bx.folded_walk(_near_rows(x1, X, rng, 60), bx.folded_masks(_near_rows(x1, X, rng, 60)))  # fills for x1
        bx.bind_all()  # every entry x1's
        block = bx.buffers["block"]
        del bx
        if wrap:  # the next binding's epoch comes round to x1's
            block[:3].view(np.int64).reshape(-1)[XHEAD.epoch] = 0xFFFF
            block[3:, XSTEP.col] = (block[3:, XSTEP.col] & 0xFFFF) | (1 << 16)
            block[3:][xstep_columns(block[3:]) < 0, XSTEP.col] = 0xFFFF
            assert epoch >= 1
        bx2 = native.bind(x2)
        assert bx2.buffers["block"] is block  # the pooled array
        np.testing.assert_array_equal(bx2.folded_walk(rows, bx2.folded_masks(rows)), want, err_msg=f"wrap={wrap}")
        np.testing.assert_array_equal(bx2.xchild, bind_x(forest, x2))
        del bx2


def test_two_threads_building_plans_for_one_binding_agree_with_one(deep):
    """A helper thread fills entries beside the first lane: the plans equal one lane's."""
    forest, X = deep
    full = kernel_arrays_forest(forest)
    one, two = NativePartial(forest, full), NativePartial(forest, full, lanes=2, batch=1)
    runner = BlockRunner(full)
    rng = np.random.default_rng(13)
    d = len(forest.schema)
    for _ in range(6):
        x = X[rng.integers(len(X))].copy()
        deltas = [tuple(sorted(rng.choice(d, k, replace=False).tolist())) for k in (1, 2, 3, 1, 2, 2, 3, 1)]
        b1, b2 = one.bind(x), two.bind(x)
        for delta, p1, p2 in zip(deltas, one.plans(b1, deltas), two.plans(b2, deltas)):
            cols = delta_block(forest, X, delta, rng, 12)
            a1, _, _ = runner.run([(p1, cols)])
            a2, _, _ = runner.run([(p2, cols)])
            np.testing.assert_array_equal(a1, a2, err_msg=str(delta))


def test_nan_instances_fill_their_learned_route(fitted, forests):
    """An instance with NaN fills its entries down the side the model sends NaN."""
    name, _model, _schema, X, _desired = case(fitted, "rf-bare")
    assert name in WITH_NAN
    forest = forests[name]
    full = kernel_arrays_forest(forest)
    native = NativePartial(forest, full)
    a = forest.schema.index("a")
    x = X[0].copy()
    x[a] = np.nan
    bx = native.bind(x)
    plans = native.plans(bx, [(a,), (0, a)])
    for delta, plan in zip([(a,), (0, a)], plans):
        cols = delta_block(forest, X, delta, np.random.default_rng(1), 15, nan_in=a)
        acc, _, _ = BlockRunner(full).run([(plan, cols)])
        np.testing.assert_array_equal(acc[:, 0], partial_evaluate(forest, bind_x(forest, x), delta).predict(cols))


def test_a_forest_wider_than_the_bindings_is_refused_by_name(fitted, monkeypatch):
    import codegen.trees.scorer as tree_scorer

    _name, model, schema, _X, desired = case(fitted, "rf-bare")
    monkeypatch.setattr(tree_scorer, "MAX_COLUMNS", 2)
    with pytest.raises(UnsupportedModel, match=r"5 columns: the compiled tree kernels read at most 2"):
        scorer_for(model, schema, desired, engine="auto")
    assert scorer_for(model, schema, desired, engine="numpy").engine == "numpy"


def test_an_instance_or_rows_too_narrow_for_the_forest_are_refused_by_name(deep, recwarn):
    """Native code reads x's columns and the rows' cells: a shorter x, an x of two dimensions,
    or rows narrower than the forest are refused before any is read, and a refused binding
    returns no array to the pool (nothing said at its collection)."""
    import gc

    forest, X = deep
    native = NativePartial(forest, kernel_arrays_forest(forest))
    d = len(forest.schema)
    for x in (X[0][: d - 1], X[:2]):
        with pytest.raises(ValueError, match=f"the forest reads {d} columns"):
            native.bind(x)
    gc.collect()
    assert native._xsteps == [] and not [w for w in recwarn if "Exception ignored" in str(w.message)]
    bx = native.bind(X[0])
    with pytest.raises(ValueError, match=f"the forest reads {d} columns"):
        native.near_rows_few(bx, X[:3, : d - 1])
