"""Plans (QuickScorer trees, residual walks, constants) and x-walks against the numpy residual,
which equals the full folded model (test_partial) and predict_proba (test_compiled)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from tree_cases import WITH_NAN, blackbox, case, delta_block, encode, frame, numeric

from codegen.outputs import ModelOutput
from codegen.registry import scorer_for
from codegen.trees.kernel import kernel_arrays_forest, run_kernel
from codegen.trees.native_partial import FEW_ROWS_KINDS, NativePartial, children_after_parents
from codegen.trees.partial import bind_x, partial_evaluate
from codegen.trees.plan import BlockRunner
from plaf_grammar import Schema


def _check(forest, native, runner, X, schema, name, rng, trials=6, deltas_per_trial=4):
    """Score random blocks by plans and x-walks in one runner call each; compare with numpy."""
    d = len(schema)
    a = schema.index("a") if "a" in schema else None
    compared = with_nan_rows = 0
    kinds = np.zeros(3, dtype=int)
    for trial in range(trials):
        x = X[rng.integers(len(X))].copy()
        with_nan = name in WITH_NAN and trial % 2 == 1
        if with_nan and trial % 4 == 3:
            x[a] = np.nan  # x itself takes the learned NaN route
        bx = native.bind(x)
        xchild = bind_x(forest, x)
        deltas = [tuple(sorted(rng.choice(d, k, replace=False).tolist())) for k in (1, 2, 3)][:deltas_per_trial]
        deltas.append(tuple(range(d)))
        plans = native.plans(bx, deltas)
        blocks, wants = [], []
        for delta, plan in zip(deltas, plans):
            for c in plan.counts()["constant"], plan.counts()["quickscorer"], plan.counts()["walk"]:
                assert c >= 0
            kinds += [plan.counts()[k] for k in ("constant", "quickscorer", "walk")]
            res = partial_evaluate(forest, xchild, delta)
            for job in (plan, native.xwalk(bx, delta)):
                cols = delta_block(forest, X, delta, rng, int(rng.integers(1, 20)), nan_in=a if with_nan else None)
                blocks.append((job, cols))
                wants.append(res.predict(cols))
        acc, starts, bad = runner.run(blocks)
        probs = acc[:, 0] if forest.divisor is not None else forest.finish(acc)
        for (job, cols), s, no, want in zip(blocks, starts.tolist(), bad.tolist(), wants):
            assert not no, f"{name} {job.delta}: NaN takes the missing side, no block is refused"
            np.testing.assert_array_equal(probs[s : s + len(cols)], want, err_msg=f"{name} {type(job).__name__} {job.delta}")
            compared += 1
            with_nan_rows += int(np.isnan(cols).any())
    return compared, with_nan_rows, kinds


def test_plans_and_xwalks_equal_the_numpy_residual(fitted, forests):
    rng = np.random.default_rng(3)
    total = with_nan = 0
    kinds = np.zeros(3, dtype=int)
    for name, _model, schema, X, _desired in fitted:
        forest = forests[name]
        full = kernel_arrays_forest(forest)
        for leaves in (1, 3, 64):  # 1: every live tree walked; 64: QuickScorer for all of these
            native = NativePartial(forest, full, max_qs_leaves=leaves)
            c, r, k = _check(forest, native, BlockRunner(full), X, schema, name, rng)
            total, with_nan, kinds = total + c, with_nan + r, kinds + k
    assert total > 500 and with_nan > 10
    assert kinds.min() > 100, kinds  # constants, QuickScorer trees and walks all occurred


@pytest.mark.parametrize("lanes", [1, 2])
def test_batched_plans_overflow_and_equal_single_plans(fitted, forests, lanes):
    """More Δ than a batch holds, slots too small for any walked tree: every such plan is rebuilt
    alone (with two lanes, the helper's overflows by the first lane, which has the big slot), and
    each plan scores exactly like the one built on its own."""
    _name, _model, schema, X, _desired = case(fitted, "rf-bare")
    forest = forests["rf-bare"]
    full = kernel_arrays_forest(forest)
    batch = NativePartial(forest, full, max_qs_leaves=2, slot_nodes=1, lanes=lanes)
    single = NativePartial(forest, full, max_qs_leaves=2)
    runner = BlockRunner(full)
    rng = np.random.default_rng(8)
    x = X[4]
    bx, bx1 = batch.bind(x), single.bind(x)
    d = len(schema)
    deltas = [tuple(sorted(rng.choice(d, int(rng.integers(1, d + 1)), replace=False).tolist()))
              for _ in range(batch.batch + 3)]  # fmt: skip
    plans = batch.plans(bx, deltas)
    assert sum(p.counts()["walk"] for p in plans) > 0
    for delta, plan in zip(deltas, plans):
        alone = single.plan(bx1, delta)
        assert plan.counts() == alone.counts()
        cols = delta_block(forest, X, delta, rng, 13)
        (a1, _, _), (a2, _, _) = runner.run([(plan, cols)]), runner.run([(alone, cols)])
        np.testing.assert_array_equal(a1, a2)


def _renumbered(forest, rng):
    """The same forest with its nodes shuffled (children no longer after their parents)."""
    n = len(forest.feature)
    new = rng.permutation(n)  # old node i -> new index new[i]
    inv = np.argsort(new)
    split = forest.feature >= 0

    def child(c):
        out = np.where(split, new[np.maximum(c, 0)], -1)
        return out[inv]

    return dataclasses.replace(
        forest,
        feature=forest.feature[inv], threshold=forest.threshold[inv], cat=forest.cat[inv],
        missing_left=forest.missing_left[inv], value=forest.value[inv],
        left=child(forest.left), right=child(forest.right), roots=new[forest.roots],
    )  # fmt: skip


def test_binding_follows_parents_before_children_in_any_layout(fitted, forests):
    rng = np.random.default_rng(2)
    name, _model, schema, X, _desired = case(fitted, "gb2-pipe")
    forest = _renumbered(forests[name], rng)
    assert not children_after_parents(forest)
    np.testing.assert_array_equal(forest.predict(X[:50]), forests[name].predict(X[:50]))
    full = kernel_arrays_forest(forest)
    native = NativePartial(forest, full)
    assert native.norder > 0
    compared, _, _ = _check(forest, native, BlockRunner(full), X, schema, name, rng, trials=4)
    assert compared >= 4 * 4 * 2


def test_auto_scores_each_tier_exactly(fitted):
    """x-walk for a cold Δ, a plan once it pays (NaN blocks too: the missing side), the full
    kernel for every feature free: each equals predict_proba."""
    _name, model, schema, X, desired = case(fitted, "rf-bare")
    sc = scorer_for(model, schema, desired, engine="auto")
    a = schema.index("a")
    delta = (a, schema.index("g"))
    rows = X[~np.isnan(X[:, a])]
    x = rows[1]
    b = sc.bind(x)
    cols = np.ascontiguousarray(rows[:30][:, list(delta)])
    want = blackbox(model, schema, desired, x, delta, cols)
    for c in sc.c_plan:
        c.seconds = 1e9  # a plan never pays: x-walk
    np.testing.assert_array_equal(b.score_block(delta, cols), want)
    assert sc.stats["blocks_xwalk"] == 1 and sc.stats["plans"] == 0
    for c in sc.c_plan:
        c.seconds = 0.0  # now it always does
    np.testing.assert_array_equal(b.score_block(delta, cols), want)
    assert sc.stats["plans"] == 1 and sc.stats["blocks_plan"] == 1
    nan_cols = cols.copy()
    nan_cols[::3, 0] = np.nan
    everything = np.ascontiguousarray(rows[:7])
    parts = b.score_blocks([(delta, nan_cols), (tuple(range(len(schema))), everything), (delta, cols)])
    np.testing.assert_array_equal(parts[0], blackbox(model, schema, desired, x, delta, nan_cols))
    np.testing.assert_array_equal(parts[1], blackbox(model, schema, desired, x, tuple(range(len(schema))), everything))
    np.testing.assert_array_equal(parts[2], want)
    assert sc.stats["blocks_full_kernel"] == 1 and sc.stats["blocks_plan"] == 3


def test_jit_engine_compiles_only_where_it_pays(fitted):
    """engine="jit" uses auto's tiers: a few blocks never pay for a compile, and scores match."""
    _name, model, schema, X, desired = case(fitted, "gb2-pipe")
    jit = scorer_for(model, schema, desired, engine="jit")
    assert jit.name == "trees-jit"
    b = jit.bind(X[3])
    delta = (0, 3)
    for start in range(0, 60, 20):
        cols = np.ascontiguousarray(X[start : start + 20][:, list(delta)])
        np.testing.assert_array_equal(b.score_block(delta, cols), blackbox(model, schema, desired, X[3], delta, cols))
    assert jit.stats["compiles"] == 0 and jit.stats["background_compiles"] == 0
    assert jit.stats["blocks_plan"] + jit.stats["blocks_xwalk"] == 3


def test_many_columns_and_wide_code_sets():
    """40 features (column mask bits shared above 32) and a 70-category feature split by code
    sets (over 64 codes: such trees are walked, not QuickScored): plans and x-walks stay exact,
    and full rows (no branch-free walker for such a forest) take the branchy walks."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder

    from codegen.trees.fold import read_forest
    from plaf_grammar import Schema

    rng = np.random.default_rng(0)
    n = 600
    X = pd.DataFrame({f"f{i}": np.round(rng.normal(size=n), 1) for i in range(39)})
    cats = [f"c{i}" for i in range(70)]
    X["wide"] = pd.Categorical(rng.choice(cats, n), categories=cats)
    y = ((X["f0"] + X["f35"] + X["f38"] + (X["wide"].cat.codes.to_numpy() % 3 == 0)) > 0.5).astype(int)
    ct = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["wide"])],
                           remainder="passthrough")  # fmt: skip
    model = Pipeline([("ct", ct), ("rf", RandomForestClassifier(n_estimators=12, max_depth=8, random_state=0))])
    model.fit(X, y)
    schema = Schema.from_dataframe(X)
    E = schema.encode(X)
    forest = read_forest(model, schema, 1)
    assert np.any(forest.cat >= 0), "expected code-set splits on the wide feature"
    full = kernel_arrays_forest(forest)
    native = NativePartial(forest, full)
    runner = BlockRunner(full)
    wide = schema.index("wide")
    compared = walked = 0
    for _ in range(12):
        x = E[rng.integers(n)]
        bx = native.bind(x)
        xchild = bind_x(forest, x)
        others = rng.choice([i for i in range(len(schema)) if i != wide], 2, replace=False).tolist()
        for delta in (tuple(sorted([wide, *others])), tuple(sorted([0, 32, 35, 38])), (35,)):
            res = partial_evaluate(forest, xchild, delta)
            plan = native.plan(bx, delta)
            walked += plan.counts()["walk"]
            cols = np.ascontiguousarray(E[rng.integers(0, n, 25)][:, list(delta)])
            for job in (plan, native.xwalk(bx, delta)):
                acc, _, bad = runner.run([(job, cols)])
                assert not bad[0]
                np.testing.assert_array_equal(acc[:, 0], res.predict(cols), err_msg=f"{type(job).__name__} {delta}")
                compared += 1
    assert compared == 12 * 3 * 2 and walked > 0
    assert native.walker is None  # a set over 70 codes: full rows take the branchy walks
    assert native.few_rows_kernel is None  # and small calls the old rule
    rows = np.tile(E[0], (40, 1))
    rows[::2, wide] = E[1::2, wide][:20]
    np.testing.assert_array_equal(native.bind(E[0]).score_rows(rows), run_kernel(full, rows))
    np.testing.assert_array_equal(native.bind(E[0]).score_rows(rows[:5]), run_kernel(full, rows[:5]))
    for walk in (native.walk_rows, native.walk_tree_lanes):  # asked for anyway: said, not run
        with pytest.raises(ValueError, match="no branch-free walker"):
            walk(rows)


def test_walker_on_a_wide_forest():
    """40 numeric columns (the link word's column field past 32): the walker equals the full
    kernel and predict_proba for rows near x and far from it, and its node numbering keeps every
    split's children side by side."""
    from sklearn.ensemble import RandomForestClassifier

    from codegen.trees.fold import read_forest
    from plaf_grammar import Schema

    rng = np.random.default_rng(3)
    n = 500
    X = pd.DataFrame({f"f{i}": np.round(rng.normal(size=n), 1) for i in range(40)})
    y = ((X["f1"] + X["f33"] - X["f39"]) > 0).astype(int)
    model = RandomForestClassifier(n_estimators=10, max_depth=7, random_state=0).fit(X, y)
    schema = Schema.from_dataframe(X)
    E = schema.encode(X)
    forest = read_forest(model, schema, 1)
    full = kernel_arrays_forest(forest)
    native = NativePartial(forest, full)
    assert native.walker is not None
    link = native.walker["nodes"]["link"]
    leaf = (link >> 34) & 1 == 1
    left = link & 0xFFFFFFFF
    assert np.array_equal(left[leaf], np.flatnonzero(leaf))  # a leaf links to itself
    assert np.all(left[~leaf] > np.flatnonzero(~leaf)) and np.all(left[~leaf] + 1 < len(link))
    assert len(np.unique(left[~leaf])) == int((~leaf).sum())  # one pair of children per split
    for _ in range(5):
        x = E[rng.integers(n)]
        rows = np.tile(x, (70, 1))
        for i in range(50):  # 1-3 changed columns
            cs = rng.choice(40, int(rng.integers(1, 4)), replace=False)
            rows[i, cs] = E[rng.integers(n, size=len(cs)), cs]
        rows[50:] = E[rng.integers(n, size=20)]
        got = native.bind(x).walk_rows(rows)
        np.testing.assert_array_equal(got, run_kernel(full, rows))
        np.testing.assert_array_equal(native.walk_rows(rows, x), got)  # from x's path (40 columns)
        same = np.tile(x, (40, 1))  # no column changed: every group starts at x's leaves
        same[33:, 39] = E[rng.integers(n, size=7), 39]
        np.testing.assert_array_equal(native.walk_rows(same, x), run_kernel(full, same))
    with pytest.raises(ValueError, match="the forest reads"):  # never a read past x's end
        native.walk_rows(rows, x[:10])
        np.testing.assert_array_equal(got[:, 0], model.predict_proba(pd.DataFrame(rows, columns=X.columns))[:, 1])


def _every_few_rows_kernel(native, bx, rows, want, name):
    """Small calls (fewer rows than the walker's 32 lanes) of ``rows`` through ``bx.score_rows``
    until each kernel of the few-rows choice has served one: each gives ``want``."""
    few = native.few_rows_kernel
    assert few is not None and set(few.names) == set(FEW_ROWS_KINDS), name
    for i, start in enumerate(range(0, len(rows), 7)):
        chunk = slice(start, start + 1 + i % 7)
        np.testing.assert_array_equal(bx.score_rows(rows[chunk]), want[chunk], err_msg=f"{name} few rows {chunk}")
    assert all(few.measured[k] > 0 for k in FEW_ROWS_KINDS), (name, few.measured)


def test_trees_as_lanes_equal_the_full_kernel():
    """``@walk_tree_lanes`` (each row walks 32 trees at once) equals the full kernel and
    predict_proba on forests of 1, 31, 32, 33 and 70 trees, many of them one leaf (bootstrap
    samples of one class: a lane at its root stays there), rows of the data and rows off it."""
    from codegen.trees.fold import read_forest

    rng = np.random.default_rng(4)
    X = pd.DataFrame({"u": rng.normal(size=9).round(1), "v": rng.integers(0, 5, 9).astype(float)})
    y = np.array([0, 0, 0, 0, 0, 0, 0, 1, 1])
    schema = Schema.from_dataframe(X)
    rows = np.concatenate([schema.encode(X), rng.normal(size=(20, 2)) * 3])
    one_leaf = 0
    for trees in (1, 31, 32, 33, 70):
        model = RandomForestClassifier(n_estimators=trees, random_state=trees).fit(X, y)
        full = kernel_arrays_forest(read_forest(model, schema, 1))
        native = NativePartial(read_forest(model, schema, 1), full)
        one_leaf += int((full.nodes["col"][full.troot] < 0).sum())
        want = run_kernel(full, rows)
        for m in (len(rows), 3, 1):
            np.testing.assert_array_equal(native.walk_tree_lanes(rows[:m]), want[:m], err_msg=f"{trees} trees, {m} rows")
        np.testing.assert_array_equal(want[:, 0], model.predict_proba(pd.DataFrame(rows, columns=X.columns))[:, 1])
    assert one_leaf >= 10
    for bad in (rows[:, :1], rows[0]):  # too narrow; one row not given as a table
        for walk in (native.walk_tree_lanes, native.walk_rows):  # both walkers check rows alike
            with pytest.raises(ValueError, match="the forest reads"):
                walk(bad)
    assert native.walk_tree_lanes(rows[:0]).shape == (0, 1)
    assert native.walk_rows(rows[:0]).shape == (0, 1)


def _rows_near(x, X, forest, rng, n, nan_in=None):
    """Rows that are x with a few random columns changed (threshold values, NaN, any code)."""
    d = len(x)
    rows = np.tile(x, (n, 1))
    for i in range(n):
        delta = tuple(sorted(rng.choice(d, int(rng.integers(0, d + 1)), replace=False).tolist()))
        if delta:
            rows[i, list(delta)] = delta_block(forest, X, delta, rng, 1, nan_in=nan_in if i % 3 == 0 else None)[0]
    return rows


def test_rows_walked_from_x_equal_the_full_kernel(fitted, forests):
    """Full rows scored with x's binding (walking only where a row differs from x) give the full
    kernel's accumulators bit for bit: rows near x, x itself, unrelated data rows, NaN routes;
    the branchy walks at every share, the branch-free walker, and the x-walk on folded masks
    (exact ones, and masks marking more columns than the rows change), a row leaving x's path
    read from the binding or walking on by its own values."""
    rng = np.random.default_rng(11)
    compared = 0
    for name, _model, schema, X, _desired in fitted:
        forest = forests[name]
        full = kernel_arrays_forest(forest)
        native = NativePartial(forest, full)
        a = schema.index("a") if "a" in schema else None
        for trial in range(4):
            x = X[rng.integers(len(X))].copy()
            if name in WITH_NAN and trial == 3:
                x[a] = np.nan
            bx = native.bind(x)
            rows = np.concatenate([_rows_near(x, X, forest, rng, 60, a if name in WITH_NAN else None),
                                   x[None], X[rng.integers(0, len(X), 20)]])  # fmt: skip
            want = run_kernel(full, rows)
            bx.path_masks()  # built: every row within the share is walked from x, however few
            for share in (1.0, 0.125, 0.0):  # every row walked from x, the default split, none
                np.testing.assert_array_equal(bx.score_rows_branchy(rows, share), want, err_msg=f"{name} {share}")
            # the branch-free walker: whole 32-row blocks, a partial one, fewer rows than a block;
            # from x too (each group of 32 starting down x's path to a column one of them changes),
            # on these rows and on runs of rows changing one column each (long shared prefixes)
            runs = np.tile(x, (70, 1))
            for i in range(0, 70, 10):
                j = int(rng.integers(X.shape[1]))
                runs[i : i + 10, j] = X[rng.integers(0, len(X), 10), j]
            want_runs = run_kernel(full, runs)
            for m in (len(rows), 64, 33, 17, 1):
                np.testing.assert_array_equal(bx.walk_rows(rows[:m]), want[:m], err_msg=f"{name} walker {m}")
                np.testing.assert_array_equal(native.walk_rows(rows[:m], x), want[:m], err_msg=f"{name} walker x {m}")
                np.testing.assert_array_equal(native.walk_rows(runs[:m], x), want_runs[:m], err_msg=f"{name} runs {m}")
            np.testing.assert_array_equal(bx.score_rows(rows), want, err_msg=name)
            for m in (len(rows), 15, 1):  # the trees as lanes; and every kernel of small calls
                np.testing.assert_array_equal(native.walk_tree_lanes(rows[:m]), want[:m], err_msg=f"{name} lanes {m}")
            _every_few_rows_kernel(native, bx, rows, want, name)
            folded = bx.folded_masks(rows)
            more = folded | rng.integers(0, 2**31, len(rows)).astype(np.int32)  # covers more columns
            for own in (False, True):  # off x's path: the binding's entries, or the row's own walk
                np.testing.assert_array_equal(bx.folded_walk(rows, folded, own), want, err_msg=f"{name} folded {own}")
                np.testing.assert_array_equal(bx.folded_walk(rows, more, own), want, err_msg=f"{name} wider masks {own}")
            np.testing.assert_array_equal(native.near_rows(bx, rows), want, err_msg=f"{name} near rows")
            compared += len(rows)
        masks = native.bind(X[0]).path_masks()
        assert masks.dtype == np.uint64 and masks.any()
        with pytest.raises(ValueError, match="the forest reads"):  # rows too narrow
            native.bind(X[0]).score_rows(X[:3, : full.width - 1])
    assert compared > 1000


def test_folded_masks_on_a_table_wider_than_32_columns():
    """On 80 columns the folded masks alias (column c and c + 32 share a bit): a row changing
    column c is walked wherever x's path tests c + 32 too, and still reaches the full walk's
    leaves, bit for bit; the masks are each row's differing columns, folded (NaN differs). The
    exact path masks still serve the small calls there."""
    rng = np.random.default_rng(21)
    X = pd.DataFrame(rng.normal(size=(600, 80)), columns=[f"c{j}" for j in range(80)])
    y = (X["c3"] + X["c35"] - X["c67"] + 0.3 * rng.normal(size=600) > 0).astype(int)
    model = RandomForestClassifier(n_estimators=30, max_depth=8, random_state=0).fit(X, y)
    schema = Schema.from_dataframe(X)
    forest = scorer_for(model, schema, 1).forest
    full = kernel_arrays_forest(forest)
    native = NativePartial(forest, full)
    Xe = encode(schema, X)
    x = Xe[5].copy()
    x[40] = np.nan
    bx = native.bind(x)
    rows = np.tile(x, (300, 1))
    for i in range(len(rows)):
        cols = rng.choice(80, int(rng.integers(0, 4)), replace=False)
        rows[i, cols] = Xe[rng.integers(len(Xe)), cols]
    rows[::7, 40] = 1.0  # x's NaN replaced
    rows[::11, 8] = np.nan
    want = run_kernel(full, rows)
    differs = (rows != x) & ~(np.isnan(rows) & np.isnan(x))
    expect = np.zeros(len(rows), dtype=np.int64)
    for c in range(80):
        expect |= np.where(rows[:, c] != x[c], 1 << (c % 32), 0)  # NaN != NaN: x's NaN cell marked
    assert differs.any(axis=1).sum() > 200
    np.testing.assert_array_equal(bx.folded_masks(rows), expect.astype(np.uint32).view(np.int32))
    np.testing.assert_array_equal(bx.folded_walk(rows, bx.folded_masks(rows)), want)
    np.testing.assert_array_equal(native.near_rows(bx, rows), want)
    bx.path_masks()  # past 32 columns the small calls' walk from x reads the exact path masks
    for share in (1.0, 0.125):
        np.testing.assert_array_equal(bx.score_rows_branchy(rows, share), want, err_msg=f"share {share}")
    with pytest.raises(ValueError, match="masks of shape"):  # one mask short: never read past the end
        bx.folded_walk(rows, bx.folded_masks(rows)[:-1])
    with pytest.raises(ValueError, match="masks of shape"):
        bx.path_walk(rows, bx.row_masks(rows)[:, :1])
    narrow = rows[:, : full.width - 1]  # rows too narrow for the forest
    with pytest.raises(ValueError, match=f"the forest reads {full.width} columns"):
        bx.folded_walk(narrow, bx.folded_masks(rows))
    with pytest.raises(ValueError, match=f"the forest reads {full.width} columns"):
        bx.path_walk(narrow, bx.row_masks(rows))
    for masks_of in (bx.folded_masks, bx.row_masks):
        with pytest.raises(ValueError, match=f"the forest reads {full.width} columns"):
            masks_of(narrow)
    with pytest.raises(ValueError, match=f"the forest reads {full.width}"):
        native.near_rows(bx, narrow)


def test_rows_walked_over_their_runs_columns_equal_the_full_kernel(fitted, forests):
    """Rows in runs, each run differing from x at most in the columns it marks (a row keeping
    x's value in some of them too: the marks cover more than the row's differences), walked from
    x over those columns: the full kernel's accumulators bit for bit, at every share; runs that
    do not add up to the rows are refused."""
    rng = np.random.default_rng(12)
    for name, _model, _schema, X, _desired in fitted:
        forest = forests[name]
        full = kernel_arrays_forest(forest)
        native = NativePartial(forest, full)
        x = X[rng.integers(len(X))].copy()
        bx = native.bind(x)
        bx.path_masks()
        d = len(x)
        runs, parts = np.zeros((12, d), dtype=bool), []
        for b, k in enumerate(rng.integers(1, d + 1, 12)):
            delta = tuple(sorted(rng.choice(d, int(k), replace=False).tolist()))
            block = np.tile(x, (15, 1))
            block[:, list(delta)] = delta_block(forest, X, delta, rng, 15)
            block[::4, delta[0]] = x[delta[0]]  # some rows keep x's value in a marked column
            runs[b, list(delta)] = True
            parts.append(block)
        rows = np.concatenate(parts)
        sizes = np.full(12, 15)
        want = run_kernel(full, rows)
        for share in (1.0, 0.125, 0.0):
            got = bx.score_rows_branchy(rows, share, near=(runs, sizes))
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {share}")
        with pytest.raises(ValueError, match="runs of 165 rows"):
            bx.score_rows_branchy(rows, 0.125, near=(runs[:11], sizes[:11]))


@pytest.mark.parametrize("walk_min, exact_width", [(1, 32), (10**9, 32), (10**9, 0)])
@pytest.mark.parametrize("route", ["tiers", "whole"])
def test_full_rows_by_delta_equal_the_blocks_of_their_columns(
    fitted, forests, walk_min, exact_width, route, monkeypatch
):
    """``score_delta_rows`` (the search's full rows, grouped by Δ) gives every row the number
    ``score_block`` gives its Δ's columns, bit for bit, by either route: through the tiers,
    whichever serves each Δ (the walker in one selection or, below its minimum rows, the x-walk
    on each row's changes, or on the union of the Δ where x's binding holds no exact masks;
    plans; the full kernel), or the whole forest from x's binding in one call."""
    import codegen.trees.scorer as tree_scorer
    from codegen.trees.kernel_choice import KernelChoice

    monkeypatch.setattr(tree_scorer, "WALK_MIN_ROWS", walk_min)
    monkeypatch.setattr(tree_scorer, "EXACT_MASK_WIDTH", exact_width)
    rng = np.random.default_rng(7)
    walked = whole = 0
    for name, model, schema, X, desired in fitted:
        forest = forests[name]
        d = len(schema)
        sc = scorer_for(model, schema, desired, engine="auto")
        sc.delta_rows_route = KernelChoice((route,))
        x = X[rng.integers(len(X))].copy()
        deltas = [tuple(sorted(rng.choice(d, k, replace=False).tolist())) for k in (1, 2, 1, 3, 2)]
        deltas.append(tuple(range(d)))
        sizes = [int(s) for s in rng.integers(0, 40, len(deltas))]
        rows = np.repeat(x[None], sum(sizes), axis=0)
        starts = np.cumsum([0, *sizes[:-1]])
        blocks = []
        for delta, a, k in zip(deltas, starts, sizes):
            cols = delta_block(forest, X, delta, rng, k)
            rows[a : a + k, list(delta)] = cols
            blocks.append((delta, cols))
        want = np.concatenate([np.empty(0), *sc.bind(x).score_blocks(blocks)])
        before, whole_before = sc.stats["rows_xwalk"], sc.stats["rows_whole"]
        got = sc.bind(x).score_delta_rows(rows, starts, deltas)
        np.testing.assert_array_equal(got, want, err_msg=name)
        walked += sc.stats["rows_xwalk"] - before
        whole += sc.stats["rows_whole"] - whole_before
        hot = sc.bind(x)
        for c in sc.c_plan:
            c.seconds = 0.0  # plans always pay: the plan tier, then the walker for none
        np.testing.assert_array_equal(
            hot.score_delta_rows(rows, starts, deltas), want, err_msg=name
        )
    if route == "tiers":
        assert (
            walked > 0 and whole == 0
        )  # cold Δ went to the walker (or the x-walk below its minimum)
    else:
        assert whole > 0 and walked == 0


def test_full_rows_by_delta_take_the_route_measured_cheaper(fitted):
    """A bound instance keeps its route for its every call: the scorer tries each route over
    whole instances (the tiers' plans pay over an instance's calls, and its first call costs the
    whole forest more a row than its later ones), then serves the cheaper per row, and a route
    picked to recheck it keeps the instance too; an inexact forest (a forest's P of a set of
    classes) never leaves the tiers, so that its answers never depend on a timing."""
    _name, model, schema, X, desired = case(fitted, "rf-bare")
    sc = scorer_for(model, schema, desired, engine="auto")
    assert sc.exact and sc.delta_rows_route.names == ("tiers", "whole")
    route = sc.delta_rows_route
    route.explore_rows, route.explore_picks, route.recheck = 1, 1, 1000
    rows = np.ascontiguousarray(X[:64])
    starts, deltas = np.array([0]), [tuple(range(len(schema)))]

    def routes(x, calls=3):
        """The route of each of an instance's calls."""
        b, out = sc.bind(x), []
        for _ in range(calls):
            before = sc.stats["rows_whole"]
            b.score_delta_rows(rows, starts, deltas)
            out.append("whole" if sc.stats["rows_whole"] > before else "tiers")
        return out

    assert routes(X[0]) == ["tiers"] * 3  # the tiers measured over an instance
    route.seconds["tiers"] = 1.0  # as if the tiers had cost far more
    assert routes(X[1]) == ["whole"] * 3  # the whole forest measured, then cheaper
    assert route.measured == {"tiers": 3 * 64, "whole": 3 * 64}
    route.seconds = {"tiers": 1e-9, "whole": 1.0}
    assert routes(X[2]) == ["tiers"] * 3
    route.recheck = 1  # every pick rechecks the other route: the whole forest, for the instance
    assert routes(X[3]) == ["whole"] * 3
    assert sc.stats["rows_whole"] == route.measured["whole"] == 6 * 64
    route.seconds = {"tiers": 1.0, "whole": 1e-9}  # the whole forest cheaper: the tiers, rechecked,
    assert routes(X[4]) == ["tiers"] * 3  # keep the instance (their plans pay over its calls)

    Xn, y = numeric(frame()[0]), frame()[1]
    three_schema = Schema.from_dataframe(Xn)
    three = RandomForestClassifier(n_estimators=4, max_depth=4, random_state=0).fit(Xn, y)
    inexact = scorer_for(three, three_schema, ModelOutput("proba", (1, 2)), engine="auto")
    assert not inexact.exact and inexact.delta_rows_route.names == ("tiers",)
    inexact.delta_rows_route.explore_rows = 1
    for x in encode(three_schema, Xn)[:3]:
        inexact.bind(x).score_delta_rows(rows, starts, deltas)
    assert inexact.stats["rows_whole"] == 0


def test_full_rows_by_delta_rescore_the_blocks_a_plan_refuses(fitted):
    """A plan refuses a block holding a categorical value that is no category code; through the
    tiers (every Δ planned, its cells gathered from the full rows) that block's rows go to the
    full kernel and every other row keeps its plan's number: all as ``score_blocks`` gives them."""
    from codegen.trees.kernel_choice import KernelChoice

    for name in ("rf-pipe", "hgb-native-cat"):
        _name, model, schema, X, desired = case(fitted, name)
        sc = scorer_for(model, schema, desired, engine="auto")
        sc.delta_rows_route = KernelChoice(("tiers",))
        assert sc.native is not None and sc.native.walker is not None, name
        cat = next(j for j, f in enumerate(schema.features) if f.categories is not None)
        other = next(j for j in range(len(schema)) if j != cat)
        x = X[0]
        deltas = [(cat,), tuple(sorted((other, cat))), (other,)]
        sizes = [9, 7, 5]
        rows = np.repeat(x[None], sum(sizes), axis=0)
        starts = np.cumsum([0, *sizes[:-1]])
        for delta, a, k in zip(deltas, starts, sizes):
            for j in delta:
                rows[a : a + k, j] = X[1 : k + 1, j]
        rows[starts[1] + 2, cat] = 99.0  # no category code: the second block is refused
        blocks = [(d, rows[a : a + k][:, list(d)]) for d, a, k in zip(deltas, starts, sizes)]
        want = np.concatenate(sc.bind(x).score_blocks(blocks))
        b = sc.bind(x)
        for c in sc.c_plan:
            c.seconds = 0.0  # every Δ gets its plan
        plan_blocks, full_blocks = sc.stats["blocks_plan"], sc.stats["blocks_full_kernel"]
        np.testing.assert_array_equal(b.score_delta_rows(rows, starts, deltas), want, err_msg=name)
        assert sc.stats["blocks_plan"] - plan_blocks == 2, name
        assert sc.stats["blocks_full_kernel"] - full_blocks == 1, name
        full = run_kernel(sc.full, rows)
        np.testing.assert_array_equal(want[starts[1] : starts[2]], b._probabilities(full)[starts[1] : starts[2]])


def test_packed_blocks_must_hold_the_cells_their_jobs_read(fitted, forests):
    """``run_packed`` refuses cells that do not match the blocks' rows times their Δ's width
    before the kernel reads them (it would read past them or leave rows unset)."""
    X = case(fitted, "rf-bare")[3]
    forest = forests["rf-bare"]
    full = kernel_arrays_forest(forest)
    native = NativePartial(forest, full)
    plan = native.plans(native.bind(X[0]), [(0, 2)])[0]
    runner = BlockRunner(full)
    cols = np.ascontiguousarray(X[:5][:, [0, 2]])
    jobs = np.stack([plan.job])
    want, _, _ = runner.run([(plan, cols)])
    got, _, _ = runner.run_packed(jobs.copy(), np.array([5]), cols.ravel())
    np.testing.assert_array_equal(got, want)
    for flat in (cols.ravel()[:-1], np.append(cols.ravel(), 0.0)):
        with pytest.raises(ValueError, match=r"cells given for blocks of 10"):
            runner.run_packed(jobs.copy(), np.array([5]), flat)


def test_full_rows_by_delta_refuse_a_bad_delta(fitted):
    """A Δ that is not strictly increasing feature indices in range is refused by name, as
    ``score_blocks`` refuses it, before anything is scored."""
    _name, model, schema, X, desired = case(fitted, "rf-bare")
    b = scorer_for(model, schema, desired, engine="auto").bind(X[0])
    rows = np.repeat(X[:1], 4, axis=0)
    for bad in [(1, 0), (0, 0), (-1,), (len(schema),)]:
        with pytest.raises(ValueError, match="delta must be strictly increasing"):
            b.score_delta_rows(rows, np.array([0]), [bad])


def test_delta_masks_score_as_their_tuples_on_every_route(fitted):
    """Δ given as masks (``codegen.protocol.DeltaMasks``, as the search hands them) score as
    the tuples they stand for, through the tiers and through the whole forest; their tuples are
    made only where read; masks of another width are refused by name on either route."""
    from codegen.protocol import DeltaMasks

    _name, model, schema, X, desired = case(fitted, "rf-bare")
    rng = np.random.default_rng(2)
    d = len(schema)
    masks = np.zeros((6, d), dtype=bool)
    for i in range(6):
        masks[i, rng.choice(d, size=int(rng.integers(1, 4)), replace=False)] = True
    sizes = rng.integers(1, 5, 6)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rows = np.repeat(X[:1], int(sizes.sum()), axis=0)
    for i in range(6):
        block = slice(starts[i], starts[i] + sizes[i])
        rows[block][:, masks[i]] = X[1 : 1 + sizes[i]][:, masks[i]]
    tuples = [tuple(np.flatnonzero(m).tolist()) for m in masks]
    assert list(DeltaMasks(masks)) == tuples and DeltaMasks(masks)[2] == tuples[2]
    for route in ("tiers", "whole"):
        b = scorer_for(model, schema, desired, engine="auto").bind(X[0])
        b._delta_rows_route = route
        given = DeltaMasks(masks)
        got = b.score_delta_rows(rows, starts, given)
        assert (given._tuples is None) == (route == "whole")
        b._delta_rows_route = route
        np.testing.assert_array_equal(got, b.score_delta_rows(rows, starts, tuples))
        b._delta_rows_route = route
        with pytest.raises(ValueError, match="masks of"):
            b.score_delta_rows(rows, starts, DeltaMasks(masks[:, :-1]))
    with pytest.raises(ValueError, match=r"masks must be \(n, d\)"):
        DeltaMasks(masks[0])
    with pytest.raises(ValueError, match="6 deltas for 5 blocks"):
        b.score_delta_rows(rows, starts[:5], DeltaMasks(masks))


@pytest.mark.parametrize("name", ["rf-bare", "rf-pipe", "gb3-bare", "hgb-native-cat"])
def test_a_plan_one_feature_wider_serves_a_narrower_delta_exactly(fitted, monkeypatch, name):
    """Nested Δ in generations (the wider planned in the same call as the narrower, or in an
    earlier one): the narrower served by the wider plan score what the model scores, bit for bit,
    and what their own plans score (SERVE_WIDER = 0); fewer plans are built; through
    score_blocks too."""
    import codegen.trees.scorer as scorer_module

    _name, model, schema, X, desired = case(fitted, name)
    forest = scorer_for(model, schema, desired, engine="auto").forest
    d = len(schema)
    rng = np.random.default_rng(8)
    x = X[3]
    calls = []  # generations: (Δ, values), nested Δ among them
    for _ in range(4):
        wide = tuple(sorted(rng.choice(d, size=3, replace=False).tolist()))
        gen = [(wide, None), (wide[:2], None), (wide[1:], None), (wide[:1], None)]
        calls.append([(delta, delta_block(forest, X, delta, rng, int(rng.integers(20, 60)))) for delta, _ in gen])

    def run(serve_wider):
        monkeypatch.setattr(scorer_module, "SERVE_WIDER", serve_wider)
        b = scorer_for(model, schema, desired, engine="auto").bind(x)
        b._delta_rows_route = "tiers"
        b.parent.c_xwalk.add(1.0, 1)  # the x-walk priced high: every Δ gets (or is served) a plan
        got = []
        for gen in calls:
            rows = np.concatenate([np.repeat(x[None], len(c), axis=0) for _, c in gen])
            starts = np.cumsum([0] + [len(c) for _, c in gen])[:-1]
            for (delta, c), a in zip(gen, starts):
                rows[a : a + len(c)][:, list(delta)] = c
            b._delta_rows_route = "tiers"
            got.append(b.score_delta_rows(rows, starts, [delta for delta, _ in gen]))
        got.append(np.concatenate(b.score_blocks([(delta, c) for delta, c in calls[0]])))
        return got, b.parent.stats["plans"], sum(st.serving is not None for st in b._states.values())

    served, built, n_served = run(1)
    own, built_own, none_served = run(0)
    assert n_served > 0 and none_served == 0 and built < built_own
    for a, b_ in zip(served, own):
        np.testing.assert_array_equal(a, b_)
    want = np.concatenate([blackbox(model, schema, desired, x, delta, c) for delta, c in calls[0]])
    np.testing.assert_array_equal(served[-1], want)


def test_many_deltas_are_checked_at_once_as_one_by_one():
    """``checked_deltas`` (a generation's new Δ in one pass) accepts what ``checked_delta``
    accepts, a Δ that starts below the one before it included, and refuses the first bad one by
    name, wherever it sits, with ``checked_delta``'s error."""
    from codegen.protocol import checked_delta, checked_deltas

    good = [(3, 4), (0, 1), (), (2,), (0, 5), (5,)]
    assert checked_deltas(good, 6) == [checked_delta(dl, 6) for dl in good]
    with pytest.raises(ValueError, match=r"got \(0\.5,\)"):  # not read as feature 0
        checked_delta((0.5,), 6)
    for bad in [(1, 0), (0, 0), (-1,), (6,), (0.5,), (2, 7)]:
        for at in range(len(good) + 1):
            deltas = [*good[:at], bad, *good[at:]]
            with pytest.raises(ValueError, match=r"strictly increasing feature indices in \[0, 6\), got"):
                checked_deltas(deltas, 6)


@pytest.mark.parametrize(("kwargs", "message"), [({"batch": 0}, "batch must be at least 1"),
                                                 ({"lanes": 3}, "lanes must be 1 or 2")])  # fmt: skip
def test_native_partial_refuses_a_bad_batch_or_lane_count(forests, kwargs, message):
    forest = forests["rf-bare"]
    with pytest.raises(ValueError, match=message):
        NativePartial(forest, kernel_arrays_forest(forest), **kwargs)


def test_a_batch_of_one_plan_builds_the_same_plans(fitted, forests):
    """``batch=1`` (one slot, every Δ its own native call) gives the plans of the default."""
    _name, _model, schema, X, _desired = case(fitted, "rf-bare")
    forest = forests["rf-bare"]
    full = kernel_arrays_forest(forest)
    one, default = NativePartial(forest, full, batch=1), NativePartial(forest, full)
    assert one.batch == 1 and default.batch > 1
    rng = np.random.default_rng(4)
    x = X[2]
    deltas = [tuple(sorted(rng.choice(len(schema), 2, replace=False).tolist())) for _ in range(5)]
    for a, b in zip(one.plans(one.bind(x), deltas), default.plans(default.bind(x), deltas)):
        assert a.counts() == b.counts()
        np.testing.assert_array_equal(a.part("tconst"), b.part("tconst"))
