"""The x-mask kernel (codegen.trees.xmask): rows made from x, scored by the whole forest's records
by column from x's masks, equal ``run_kernel`` bit for bit - rows changing one column or every
one, chunks of 8 mixing rows of different Δ, NaN (in x too), category codes, values at the
thresholds; a value that is no category code is marked and walked; an explanation served by it
is the one the branchy walk gives."""

from __future__ import annotations

import numpy as np
import pytest
from tree_cases import WITH_NAN, case, interesting_values

from codegen.llvm.trees_abi import TINFO
from codegen.trees.kernel import kernel_arrays_forest, run_kernel
from codegen.trees.native_partial import NativePartial
from codegen.trees.xmask import ColumnRecords, XMaskRunner


def _near_rows(forest, X: np.ndarray, x: np.ndarray, rng, n: int, nan_in: int | None) -> np.ndarray:
    """``n`` rows made from ``x``: runs of rows changing the same 1-3 columns (or every one), of
    1 to 11 rows each, to data values and values at the split thresholds (NaN in ``nan_in``)."""
    d = X.shape[1]
    rows = []
    while sum(len(r) for r in rows) < n:
        k = int(rng.integers(1, 4)) if rng.random() < 0.85 else d
        cols = rng.choice(d, k, replace=False)
        run = np.tile(x, (int(rng.integers(1, 12)), 1))
        for j in cols:
            vals = interesting_values(forest, j, X[:, j])
            run[:, j] = vals[rng.integers(0, len(vals), len(run))]
            if j == nan_in:
                run[::3, j] = np.nan
        rows.append(run)
    return np.ascontiguousarray(np.concatenate(rows)[:n])


def test_xmask_rows_equal_run_kernel(fitted, forests):
    rng = np.random.default_rng(21)
    checked = 0
    for name, _model, schema, X, _desired in fitted:
        full = kernel_arrays_forest(forests[name])
        native = NativePartial(forests[name], full)
        assert native.xmask_forest and "xmask" in native.near_rows_kernel.names, name
        a = schema.index("a") if name in WITH_NAN else None
        for trial in range(4):
            x = X[rng.integers(len(X))].copy()
            if a is not None and trial == 3:
                x[a] = np.nan  # x itself takes the learned missing side
            bx = native.bind(x)
            rows = _near_rows(forests[name], X, x, rng, 83, a)
            want = run_kernel(full, rows)
            for m in (len(rows), 8, 5, 1):  # whole chunks of 8 and a last partial one
                np.testing.assert_array_equal(native.xmask_rows(bx, rows[:m]), want[:m], err_msg=f"{name} {m}")
            far = np.ascontiguousarray(X[rng.integers(0, len(X), 30)])  # data rows: every column may differ
            np.testing.assert_array_equal(native.xmask_rows(bx, far), run_kernel(full, far), err_msg=name)
            same = np.tile(x, (3, 1))  # no column differs: x's leaves alone
            np.testing.assert_array_equal(native.xmask_rows(bx, same), run_kernel(full, same), err_msg=name)
            checked += 1
    assert checked >= 40


def test_numeric_records_run_by_threshold_within_each_column(fitted, forests):
    """What the kernel's early stop relies on: a column's code-set and never-left records first,
    then its numeric ones by threshold, ascending; every record of the whole plan kept once."""
    for name, _model, _schema, X, _desired in fitted:
        native = NativePartial(forests[name], kernel_arrays_forest(forests[name]))
        plan = native.whole_plan(native.bind(X[0]))
        rec = native.column_records(native.bind(X[0]))
        b = rec.buffers
        assert b["colrec"][-1] == plan.part("tinfo")[:, TINFO.count].sum() == len(b["rtest"]), name
        for c in range(rec.d):
            lo, mid, hi = b["colrec"][c], b["colnum"][c], b["colrec"][c + 1]
            assert lo <= mid <= hi, name
            assert np.all(b["rtest"][lo:mid] & 3 != 0) and np.all(b["rtest"][mid:hi] & 3 == 0), name
            thr = b["rpay"][mid:hi].view(np.float64)
            assert np.all(np.diff(thr) >= 0), name


def test_a_value_that_is_no_category_code_is_marked_and_walked(fitted, forests):
    name, _model, schema, X, _desired = case(fitted, "hgb-native-cat")
    full = kernel_arrays_forest(forests[name])
    native = NativePartial(forests[name], full)
    cat = next(j for j, f in enumerate(schema.features) if f.categories is not None)
    n_codes = len(schema.features[cat].categories)
    x = X[3]
    bx = native.bind(x)
    rows = np.tile(x, (20, 1))
    rows[:, cat] = np.arange(20) % n_codes
    rows[[2, 9, 17], cat] = [n_codes, -1.0, 0.5]  # past the last code, negative, not a whole number
    runner = XMaskRunner(native.column_records(bx))
    _acc, bad = runner.run(bx.xmasks(), rows)
    assert np.flatnonzero(bad).tolist() == [2, 9, 17]
    np.testing.assert_array_equal(native.xmask_rows(bx, rows), run_kernel(full, rows))
    # x itself holding such a value: no masks, every row walked
    x_bad = x.copy()
    x_bad[cat] = n_codes + 3
    bx_bad = native.bind(x_bad)
    assert bx_bad.xmasks() is None
    rows_bad = np.tile(x_bad, (4, 1))
    rows_bad[1:, cat] = [0, 1, 2][: len(rows_bad) - 1]
    np.testing.assert_array_equal(native.xmask_rows(bx_bad, rows_bad), run_kernel(full, rows_bad))
    with pytest.raises(ValueError, match="records cover"):  # never a read past x's end
        native.column_records(bx).masks(x[:-1])
    with pytest.raises(ValueError, match="the forest reads"):  # nor past a row's
        native.xmask_rows(bx, np.ascontiguousarray(rows[:, :-1]))


def test_infinite_values_take_the_walks_sides(fitted, forests):
    """+-inf in the changed columns (beyond every threshold, and at a threshold of inf): the
    x-mask kernel and the walker from x give run_kernel's numbers."""
    rng = np.random.default_rng(5)
    for name, _model, schema, X, _desired in fitted:
        full = kernel_arrays_forest(forests[name])
        native = NativePartial(forests[name], full)
        numeric = [j for j, f in enumerate(schema.features) if f.categories is None]
        x = X[rng.integers(len(X))]
        rows = np.tile(x, (24, 1))
        for i, j in enumerate(numeric * 8):
            if i < len(rows):
                rows[i, j] = np.inf if i % 2 else -np.inf
        want, bx = run_kernel(full, rows), native.bind(x)
        np.testing.assert_array_equal(native.xmask_rows(bx, rows), want, err_msg=name)
        if native.walker is not None:
            np.testing.assert_array_equal(native.walk_rows(rows, x), want, err_msg=name)


def test_a_forest_with_a_tree_past_64_leaves_offers_no_xmask(fitted):
    from sklearn.ensemble import RandomForestClassifier

    from codegen.trees.fold import read_forest

    _name, _model, schema, X, _desired = case(fitted, "rf-bare")
    y = (np.nan_to_num(X[:, 0]) > np.nanmedian(X[:, 0])).astype(int) ^ (np.arange(len(X)) % 3 == 0)
    deep = RandomForestClassifier(n_estimators=2, random_state=0).fit(np.nan_to_num(X), y)
    forest = read_forest(deep, schema, 1)
    native = NativePartial(forest, kernel_arrays_forest(forest))
    assert not native.xmask_forest and "xmask" not in native.near_rows_kernel.names
    with pytest.raises(ValueError, match="walked"):
        ColumnRecords(native.plan(native.bind(np.nan_to_num(X[0])), tuple(range(len(schema)))), native.full)


def test_an_explanation_served_by_xmask_is_the_branchy_walks(monkeypatch):
    """Adult with a small XGBoost model (float32 sums): the rows made from x scored by the x-mask
    kernel alone, then by the branchy walk alone; the same explanation."""
    xgb = pytest.importorskip("xgboost")

    import geco
    from geco.datasets import load_adult
    from geco.models import one_hot_pipeline

    data = load_adult()
    X, y = data.X.iloc[:3000], data.y[:3000]
    model = one_hot_pipeline(X, xgb.XGBClassifier(n_estimators=40, max_depth=4, n_jobs=1, random_state=0)).fit(X, y)
    ex = geco.Explainer(model, X, str(data.constraints), desired_class=data.desired_class)
    native = ex.setting.scorer.native
    assert native.xmask_forest
    served: list[str] = []
    run = NativePartial._run
    forced = ["xmask"]

    def only(self, kind, rows, bx=None, from_x=False):  # every kernel for rows made from x is the forced one
        kind = forced[0] if from_x else kind
        served.append(kind)
        return run(self, kind, rows, bx, from_x)

    monkeypatch.setattr(NativePartial, "_run", only)
    undesired = np.flatnonzero(model.predict(X) != data.desired_class)[:3]
    out = {}
    for kernel in ("xmask", "branchy"):
        forced[0] = kernel
        served.clear()
        out[kernel] = [ex.explain(X.iloc[[i]], random_state=int(i), native=False) for i in undesired]
        assert served.count(kernel) >= 3
    for a, b in zip(out["xmask"], out["branchy"]):
        assert a.success and b.success
        assert a.counterfactuals.equals(b.counterfactuals)
