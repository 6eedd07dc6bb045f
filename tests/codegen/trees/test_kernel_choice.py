"""The full-row kernel chosen by measurement (codegen.trees.kernel_choice): each kernel is
measured, the cheaper serves, the other is measured again now and then, and whichever serves,
the numbers are ``run_kernel``'s bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from tree_cases import case

from codegen.trees.kernel import kernel_arrays_forest, run_kernel
from codegen.trees.kernel_choice import OUTLIER, KernelChoice, clipped
from codegen.trees.native_partial import FEW_ROWS_KINDS, NativePartial


def run(choice: KernelChoice, cost: dict[str, float], calls: int, rows: int = 100) -> list[str]:
    """The kernels ``choice`` picks over ``calls`` calls when a row costs ``cost[kernel]``."""
    picked = []
    for _ in range(calls):
        k = choice.pick()
        choice.record(k, cost[k] * rows, rows)
        picked.append(k)
    return picked


def test_each_kernel_is_measured_then_the_cheaper_serves():
    choice = KernelChoice(("walker", "branchy"), explore_rows=300, recheck=10)
    picked = run(choice, {"walker": 2e-6, "branchy": 1e-6}, 100)
    assert picked[:6].count("walker") == 3 and picked[:6].count("branchy") == 3  # 300 rows each
    later = picked[6:]
    assert later.count("branchy") >= 0.85 * len(later) and "walker" in later  # rechecked, rarely
    assert choice.per_row("branchy") == pytest.approx(1e-6) and choice.per_row("walker") == pytest.approx(2e-6)


def test_a_kernel_far_dearer_stops_being_explored_early():
    """Measured on ``settle_rows`` rows at more than ``settle_ratio`` times the other's cost, a
    kernel is not explored to ``explore_rows``: the cheaper serves, the other is only rechecked;
    one merely dearer is explored in full."""
    choice = KernelChoice(("tiers", "whole"), explore_rows=2000, recheck=10, settle_rows=300, settle_ratio=2.0)
    picked = run(choice, {"tiers": 1e-6, "whole": 3e-6}, 60)
    assert picked[:6].count("whole") == 3  # 300 rows, then settled
    rechecks = [i + 1 for i, k in enumerate(picked[6:], start=6) if k == "whole"]
    assert rechecks and all(call % 10 == 0 for call in rechecks)  # from then on the rechecks alone
    near = KernelChoice(("tiers", "whole"), explore_rows=2000, recheck=10, settle_rows=300, settle_ratio=2.0)
    run(near, {"tiers": 1e-6, "whole": 1.5e-6}, 60)
    assert near.measured["whole"] >= 2000


def test_the_choice_follows_a_change_of_costs():
    choice = KernelChoice(("walker", "branchy"), explore_rows=100, recheck=4)
    picked = run(choice, {"walker": 1e-6, "branchy": 3e-6}, 40)
    assert picked[-20:].count("walker") >= 14
    picked = run(choice, {"walker": 5e-6, "branchy": 3e-6}, 80)  # the walker got dearer
    assert picked[-20:].count("branchy") >= 14


def test_one_name_serves_every_call_rechecks_included():
    """A choice of one (an inexact forest's route: the tiers alone) names it at every call,
    the recheck calls too, where a choice of two names the other."""
    choice = KernelChoice(("tiers",), explore_rows=100, recheck=4)
    assert run(choice, {"tiers": 1e-6}, 20) == ["tiers"] * 20


def test_each_kernel_is_picked_explore_picks_times_before_the_cheaper_serves():
    """A choice picked once per instance explores each kernel on ``explore_picks`` picks, in
    turn, even once each has been measured on ``explore_rows`` rows: a first pick priced cold
    (here twice the cost) does not decide it. Without it the cold first price stands until a
    recheck; a kernel settled as far dearer stops being picked early all the same."""

    def priced(choice: KernelChoice, calls: int) -> list[str]:
        picked = []
        for _ in range(calls):
            k = choice.pick()
            cold = choice.picked[k] == 1
            cost = {"tiers": 2e-6, "whole": 1.5e-6}[k] * (2 if cold and k == "whole" else 1)
            choice.record(k, cost * 1000, 1000)
            picked.append(k)
        return picked

    picks = KernelChoice(("tiers", "whole"), explore_rows=1000, recheck=100, settle_ratio=2.0, explore_picks=3)
    picked = priced(picks, 12)
    assert picked[:6].count("tiers") == 3 and picked[:6].count("whole") == 3
    assert picked[6:] == ["whole"] * 6 and picks.picked == {"tiers": 3, "whole": 9}
    once = KernelChoice(("tiers", "whole"), explore_rows=1000, recheck=100, settle_ratio=2.0)
    assert priced(once, 12)[2:] == ["tiers"] * 10  # the cold price stood
    settled = KernelChoice(("tiers", "whole"), explore_rows=1000, recheck=100, settle_rows=500, settle_ratio=2.0,
                           explore_picks=3)  # fmt: skip
    assert run(settled, {"tiers": 1e-6, "whole": 5e-6}, 8, rows=1000)[2:] == ["tiers"] * 6


def test_before_any_call_the_cost_is_unknown():
    choice = KernelChoice(("a", "b"))
    assert choice.per_row("a") == float("inf") and choice.pick() in ("a", "b")


@pytest.mark.parametrize("kernel", ["xwalk", "walker", "branchy", "quickscorer", "xmask"])
def test_near_rows_equal_run_kernel_whichever_kernel_serves(fitted, forests, kernel, monkeypatch):
    """Rows near x and unrelated data rows alike: the same accumulators from every kernel, and
    the kernel that served measured for the rows it scored."""
    monkeypatch.setattr(KernelChoice, "pick", lambda self: kernel)
    rng = np.random.default_rng(3)
    checked = 0
    for name, _model, _schema, X, _desired in fitted:
        full = kernel_arrays_forest(forests[name])
        native = NativePartial(forests[name], full)
        if kernel not in native.near_rows_kernel.names:
            continue
        x = X[rng.integers(len(X))]
        near = np.tile(x, (50, 1))
        for i in range(len(near)):
            cols = rng.choice(X.shape[1], int(rng.integers(1, 3)), replace=False)
            near[i, cols] = X[rng.integers(len(X)), cols]
        rows = np.ascontiguousarray(np.concatenate([near, X[rng.integers(0, len(X), 70)]]))
        want = run_kernel(full, rows)
        bx = native.bind(x)
        np.testing.assert_array_equal(native.near_rows(bx, rows), want, err_msg=name)
        np.testing.assert_array_equal(bx.score_rows(rows, from_x=True), want, err_msg=name)
        near_served = native.walker is not None or native.quickscorer_forest  # score_rows took near_rows too
        assert native.near_rows_kernel.measured[kernel] == (2 if near_served else 1) * len(rows)
        if kernel in native.full_rows_kernel.names:  # rows not said to come from x: the choice for any rows, measured apart
            np.testing.assert_array_equal(native.full_rows(rows), want, err_msg=name)
            np.testing.assert_array_equal(bx.score_rows(rows), want, err_msg=name)
            assert native.full_rows_kernel.measured[kernel] == 2 * len(rows)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("cheaper", ["xwalk", "branchy", None])
def test_without_the_walker_a_small_call_takes_the_cheaper_walk_unrecorded(fitted, forests, cheaper, monkeypatch):
    """``near_rows_few`` on a forest without the walker (a code set wider than 64 codes): the
    x-walk or the branchy walk, whichever near_rows measured cheaper (the x-walk before either
    is measured), run_kernel's numbers either way; the call is not recorded."""
    import codegen.trees.native_partial as native_partial

    name, _model, _schema, X, _desired = case(fitted, "rf-bare")
    full = kernel_arrays_forest(forests[name])
    native = NativePartial(forests[name], full)
    native.few_rows_kernel = None  # as where the forest has no walker
    if cheaper is not None:
        other = "branchy" if cheaper == "xwalk" else "xwalk"
        native.near_rows_kernel.record(cheaper, 1e-6, 1)
        native.near_rows_kernel.record(other, 1e-5, 1)
    served = []
    real = native_partial.run_kernel
    monkeypatch.setattr(native_partial, "run_kernel", lambda *a: served.append("branchy") or real(*a))
    x = X[5]
    rows = np.tile(x, (9, 1))
    rows[::2, 0] = X[:5, 0]
    bx = native.bind(x)
    measured = dict(native.near_rows_kernel.measured)
    np.testing.assert_array_equal(native.near_rows_few(bx, rows), run_kernel(full, rows))
    assert served == (["branchy"] if cheaper == "branchy" else [])
    assert native.near_rows_kernel.measured == measured


@pytest.mark.parametrize("entry", ["near_rows_few", "score_rows"])
def test_a_small_call_takes_the_kernel_measured_cheapest_on_small_calls(fitted, forests, entry):
    """With the walker, calls too small for it: each kernel of the few-rows choice in turn until
    measured (the trees as lanes first), then the one measured cheapest a row on such calls -
    recorded there alone, never in the large calls' choice - run_kernel's numbers every time."""
    name, _model, _schema, X, _desired = case(fitted, "rf-pipe")
    full = kernel_arrays_forest(forests[name])
    native = NativePartial(forests[name], full)
    few, large = native.few_rows_kernel, native.near_rows_kernel
    assert few is not None and few.names == FEW_ROWS_KINDS and few.names[0] == "lanes"
    x = X[5]
    bx = native.bind(x)
    rng = np.random.default_rng(0)

    def call(n: int) -> str:
        rows = np.tile(x, (n, 1))
        cols = rng.integers(0, X.shape[1], n)
        rows[np.arange(n), cols] = X[rng.integers(0, len(X), n), cols]
        before = dict(few.measured)
        got = native.near_rows_few(bx, rows) if entry == "near_rows_few" else bx.score_rows(rows)
        np.testing.assert_array_equal(got, run_kernel(full, rows))
        served = [k for k in few.names if few.measured[k] != before[k]]
        assert len(served) == 1 and few.measured[served[0]] == before[served[0]] + n
        return served[0]

    large_before = dict(large.measured)
    empty = native.near_rows_few(bx, X[:0]) if entry == "near_rows_few" else bx.score_rows(X[:0])
    assert empty.shape == (0, full.K) and not any(few.seconds.values())  # no time priced for no rows
    first = [call(5) for _ in range(3)]
    assert first == list(FEW_ROWS_KINDS)  # the least measured first
    while any(few.measured[k] < few.explore_rows and not few.settled(k) for k in few.names):
        call(15)
    for cheapest in ("branchy", "lanes"):  # the running costs say which one is cheapest a row
        for k in few.names:
            few.seconds[k], few.rows[k] = (1e-6 if k == cheapest else 1e-3), 1.0
        few.calls = 1
        assert call(3) == cheapest
    assert large.measured == large_before


@pytest.mark.parametrize("small", ["near_rows_few", "score_rows", "score_rows_any"])
def test_a_small_call_takes_the_xmask_kernel_where_it_measured_the_cheapest(fitted, forests, small, monkeypatch):
    """Calls too small for the walker: the x-mask kernel once near_rows has measured it the
    cheapest (a walk before), unrecorded, run_kernel's numbers either way - for rows made from x
    and for rows not said to be (an answer's counterfactuals, x itself: a walk from x's binding
    would fill its entries for them, 3-8x the x-mask kernel's cost on a fresh instance)."""
    name, _model, _schema, X, _desired = case(fitted, "gb2-pipe")
    full = kernel_arrays_forest(forests[name])
    native = NativePartial(forests[name], full)
    served = []
    real = NativePartial.xmask_rows
    monkeypatch.setattr(NativePartial, "xmask_rows", lambda self, bx, rows: served.append(len(rows)) or real(self, bx, rows))
    x = X[5]
    rows = np.tile(x, (9, 1))
    rows[::2, 0] = X[:5, 0]
    bx = native.bind(x)

    def call():
        if small == "near_rows_few":
            return native.near_rows_few(bx, rows)
        return bx.score_rows(rows, from_x=small == "score_rows")

    np.testing.assert_array_equal(call(), run_kernel(full, rows))
    assert served == []
    for kind in native.near_rows_kernel.names:
        native.near_rows_kernel.record(kind, 1e-6 if kind == "xmask" else 1e-5, 1)
    measured = dict(native.near_rows_kernel.measured)
    np.testing.assert_array_equal(call(), run_kernel(full, rows))
    assert served == [9] and native.near_rows_kernel.measured == measured


def test_of_three_kernels_each_is_explored_and_rechecked():
    """With three kernels, one settled early as far dearer does not end the exploring of the
    third, and the rechecks take the two dearer ones in turn."""
    choice = KernelChoice(("xwalk", "walker", "branchy"), explore_rows=1000, recheck=5, settle_rows=200,
                          settle_ratio=2.0)  # fmt: skip
    picked = run(choice, {"xwalk": 1e-6, "walker": 5e-6, "branchy": 1.5e-6}, 200)
    explored = picked[:22]  # 100 rows a call: 1000 rows each of two, 200 of the settled one
    assert (explored.count("xwalk"), explored.count("branchy"), explored.count("walker")) == (10, 10, 2)
    late = picked[100:]
    assert late.count("xwalk") >= 0.75 * len(late)
    assert "walker" in late and "branchy" in late


def test_a_pause_inside_one_call_does_not_flip_the_choice():
    """A garbage collection or a page fault inside one call (here 100 ms on 100 rows) counts at
    most OUTLIER times the running cost per row: the cheaper kernel stays the cheaper one, and a
    real rise of the cost still moves the estimate, call by call."""
    choice = KernelChoice(("tiers", "whole"), explore_rows=100, recheck=1000)
    run(choice, {"tiers": 1e-6, "whole": 3e-6}, 10)
    before = choice.per_row("tiers")
    choice.record("tiers", 0.1, 100)
    assert choice.best() == "tiers"
    assert choice.per_row("tiers") <= OUTLIER * before
    for _ in range(20):
        choice.record("tiers", 5e-6 * 100, 100)  # the tiers got 5x dearer for good
    assert choice.best() == "whole"


def test_clipped_counts_a_call_at_most_outlier_times_the_running_cost():
    assert clipped(1.0, 10, 1e-3) == pytest.approx(OUTLIER * 1e-2)
    assert clipped(1e-3, 10, 1e-3) == 1e-3  # within bounds: as measured
    assert clipped(1.0, 10, float("inf")) == 1.0 and clipped(1.0, 10, 0.0) == 1.0  # nothing known yet


def test_the_whole_forest_in_quickscorer_form_is_one_plan_for_every_instance(fitted, forests):
    """A forest whose every tree has at most 64 leaves scores full rows as the plan of every
    column: run_kernel's accumulators bit for bit (NaN, category codes, every model family of
    the cases), the plan built at the first call and reused by every instance (it reads nothing
    of x); a block holding a value that is no category code is refused by the plan and walked."""
    rng = np.random.default_rng(11)
    for name, _model, schema, X, _desired in fitted:
        full = kernel_arrays_forest(forests[name])
        native = NativePartial(forests[name], full)
        assert native.quickscorer_forest, name  # depth <= 4: at most 16 leaves a tree
        assert "quickscorer" in native.near_rows_kernel.names
        plans = []
        for x in X[rng.integers(0, len(X), 3)]:
            bx = native.bind(x)
            rows = np.ascontiguousarray(np.concatenate([np.tile(x, (9, 1)), X[rng.integers(0, len(X), 40)]]))
            rows[:9, rng.integers(X.shape[1])] = X[rng.integers(0, len(X), 9), 0]
            np.testing.assert_array_equal(native.quickscorer_rows(bx, rows), run_kernel(full, rows), err_msg=name)
            plans.append(native.whole_plan(bx))
        assert plans[0] is plans[1] is plans[2]
        assert plans[0].counts()["walk"] == 0 and plans[0].delta == tuple(range(len(schema)))
        # blocks where every row holds x's value in all but a column or two (a search's rows):
        # the splits on the other columns are decided once a block, x's NaN and codes among them
        for x in X[rng.integers(0, len(X), 4)]:
            bx = native.bind(x)
            for j in range(X.shape[1]):
                rows = np.tile(x, (21, 1))
                rows[::2, j] = X[rng.integers(0, len(X), 11), j]
                rows[1::4, (j + 1) % X.shape[1]] = X[rng.integers(0, len(X), 5), (j + 1) % X.shape[1]]
                np.testing.assert_array_equal(native.quickscorer_rows(bx, rows), run_kernel(full, rows), err_msg=name)
            one = np.tile(x, (3, 1))  # every column uniform
            np.testing.assert_array_equal(native.quickscorer_rows(bx, one), run_kernel(full, one), err_msg=name)
        cat = [j for j, f in enumerate(schema.features) if f.categories is not None]
        if cat:  # a code past the last category: the plan refuses the block, the branchy walk scores it
            rows = np.ascontiguousarray(X[:20].copy())
            rows[3, cat[0]] = len(schema.features[cat[0]].categories)
            np.testing.assert_array_equal(native.quickscorer_rows(native.bind(X[0]), rows), run_kernel(full, rows),
                                          err_msg=name)  # fmt: skip


def test_a_forest_with_a_tree_past_64_leaves_has_no_quickscorer_form(fitted):
    """One tree of more than 64 leaves: the whole forest is not offered as a plan (the kernel
    choice leaves it out, asking for it is an error naming why)."""
    from sklearn.tree import DecisionTreeClassifier

    from codegen.trees.fold import read_forest

    _name, _model, schema, X, _desired = case(fitted, "dt-bare")
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, len(X))  # noise: a full-depth tree of one leaf a few rows
    deep = DecisionTreeClassifier(random_state=0).fit(np.nan_to_num(X), y)
    assert deep.get_n_leaves() > 64
    forest = read_forest(deep, schema, 1)
    native = NativePartial(forest, kernel_arrays_forest(forest))
    assert not native.quickscorer_forest and "quickscorer" not in native.near_rows_kernel.names
    with pytest.raises(ValueError, match="more than 64 leaves"):
        native.whole_plan(native.bind(np.nan_to_num(X[0])))


def test_a_large_first_call_measures_every_kernel_on_a_slice_then_serves_the_rest_by_the_cheapest(fitted, forests):
    """A fresh forest's first call of many rows (an Explainer scoring its data): each kernel
    of the choice scores a slice of EXPLORE_SLICE rows, measured, and the rest goes to the one
    measured cheapest; run_kernel's numbers throughout."""
    from codegen.trees.native_partial import EXPLORE_SLICE

    name, _model, _schema, X, _desired = case(fitted, "gb2-bare")
    full = kernel_arrays_forest(forests[name])
    native = NativePartial(forests[name], full)
    names = native.full_rows_kernel.names
    assert "quickscorer" in names and len(names) >= 2
    rng = np.random.default_rng(4)
    rows = np.ascontiguousarray(X[rng.integers(0, len(X), 4 * EXPLORE_SLICE * len(names) + 37)])
    np.testing.assert_array_equal(native.full_rows(rows), run_kernel(full, rows))
    measured = native.full_rows_kernel.measured
    best = native.full_rows_kernel.best()
    assert sum(measured.values()) == len(rows)
    assert measured[best] == len(rows) - (len(names) - 1) * EXPLORE_SLICE
    assert all(measured[k] == EXPLORE_SLICE for k in names if k != best)


class _Clock:
    """A clock that moves only when told (``t``)."""

    t = 0.0

    def perf_counter(self) -> float:
        return self.t


def _plans_on_a_stopped_clock(monkeypatch, module) -> _Clock:
    """``module``'s clock replaced by one that stands still but while a plan is built, which
    "takes" 1000 s: what a timing charges for a build shows as 1000 s."""
    clock = _Clock()
    monkeypatch.setattr(module, "time", clock)
    real_plan = NativePartial.plan

    def slow_plan(self, bx, delta):
        clock.t += 1000.0
        return real_plan(self, bx, delta)

    monkeypatch.setattr(NativePartial, "plan", slow_plan)
    return clock


def test_the_whole_forest_plan_is_built_outside_the_time_its_kernel_is_charged(fitted, forests, monkeypatch):
    """Building the whole forest's plan happens once; its time must not count as the
    QuickScorer kernel's (a clock that only moves while the plan is built: the kernel is
    charged nothing)."""
    import codegen.trees.native_partial as native_partial

    clock = _plans_on_a_stopped_clock(monkeypatch, native_partial)
    monkeypatch.setattr(KernelChoice, "pick", lambda self: "quickscorer")
    name, _model, _schema, X, _desired = case(fitted, "hgb-bare")
    native = NativePartial(forests[name], kernel_arrays_forest(forests[name]))
    x = X[0]
    rows = np.ascontiguousarray(np.tile(x, (40, 1)))
    native.near_rows(native.bind(x), rows)
    assert clock.t == 1000.0 and native.near_rows_kernel.measured["quickscorer"] == 40
    assert native.near_rows_kernel.per_row("quickscorer") == 0.0


def test_x_s_masks_are_made_outside_the_time_the_xmask_kernel_is_charged(fitted, forests, monkeypatch):
    """x's masks for the x-mask kernel are made once an instance; their time must not count as
    the kernel's (whichever call of the instance comes first, a few rows explored or rechecked,
    would carry it all): a clock that only moves while they are made charges the kernel nothing,
    and run_kernel's numbers come out."""
    import codegen.trees.native_partial as native_partial

    clock = _Clock()
    monkeypatch.setattr(native_partial, "time", clock)
    real_masks = native_partial.BoundX.xmasks

    def slow_masks(self):
        if not self._xmasks:
            clock.t += 1000.0
        return real_masks(self)

    monkeypatch.setattr(native_partial.BoundX, "xmasks", slow_masks)
    monkeypatch.setattr(KernelChoice, "pick", lambda self: "xmask")
    name, _model, _schema, X, _desired = case(fitted, "gb2-bare")
    full = kernel_arrays_forest(forests[name])
    native = NativePartial(forests[name], full)
    assert native.xmask_forest
    bx = native.bind(X[0])
    for first in (True, False):
        rows = np.ascontiguousarray(X[:40] if first else X[40:70])
        np.testing.assert_array_equal(native.near_rows(bx, rows), run_kernel(full, rows))
        assert clock.t == 1000.0  # made once, for the instance
    assert native.near_rows_kernel.measured["xmask"] == 70 and native.near_rows_kernel.per_row("xmask") == 0.0


def test_rows_narrower_than_the_forest_are_refused_by_the_quickscorer_kernel(fitted, forests, monkeypatch):
    """Rows with a column fewer than the whole forest's plan reads: a ValueError naming the
    columns from every way in (the plan's rows, full rows, a bound instance's rows), never a
    score read past the rows."""
    monkeypatch.setattr(KernelChoice, "pick", lambda self: "quickscorer")
    name, _model, _schema, X, _desired = case(fitted, "gb2-bare")
    native = NativePartial(forests[name], kernel_arrays_forest(forests[name]))
    narrow = np.ascontiguousarray(X[:20, :-1])
    bx = native.bind(X[0])
    with pytest.raises(ValueError, match="reads 5 columns"):
        native.quickscorer_rows(bx, narrow)
    with pytest.raises(ValueError, match="reads 5 columns"):
        bx.score_rows(narrow)
    with pytest.raises(ValueError, match="reads 5 columns"):
        native.full_rows(narrow)


def test_the_whole_route_is_charged_without_the_forests_one_time_builds(fitted, monkeypatch):
    """A Δ-rows call by the whole-forest route: the forest's whole plan and records by column
    are built once, before the route's clock starts (a clock that only moves while the plan is
    built: the route is charged nothing), so a route's first measurement is not a build's."""
    import codegen.trees.scorer as scorer_module
    from codegen.registry import scorer_for

    clock = _plans_on_a_stopped_clock(monkeypatch, scorer_module)
    _name, model, schema, X, desired = case(fitted, "gb2-bare")
    sc = scorer_for(model, schema, desired, engine="auto")
    assert sc.native.xmask_forest and sc.delta_rows_route.names == ("tiers", "whole")
    sc.delta_rows_route = KernelChoice(("whole",))
    x = X[0]
    rows = np.ascontiguousarray(np.tile(x, (40, 1)))
    rows[:, 0] = X[:40, 0]
    got = sc.bind(x).score_delta_rows(rows, np.array([0]), [(0,)])
    assert clock.t == 1000.0 and sc.native.near_prepared
    assert sc.delta_rows_route.measured["whole"] == 40 and sc.delta_rows_route.per_row("whole") == 0.0
    np.testing.assert_array_equal(got, sc.bind(x).score_block((0,), rows[:, :1]))


def test_the_walker_starts_down_x_s_path_for_rows_made_from_x_alone(fitted, forests, monkeypatch):
    """The walker is given x for rows made from it (near rows) and not for any rows (full
    rows, whose 32 hardly share a column with x): the same numbers either way."""
    seen = []
    real = NativePartial.walk_rows
    monkeypatch.setattr(NativePartial, "walk_rows", lambda self, rows, x=None: seen.append(x is not None) or real(self, rows, x))
    monkeypatch.setattr(KernelChoice, "pick", lambda self: "walker")
    name, _model, _schema, X, _desired = case(fitted, "rf-bare")
    full = kernel_arrays_forest(forests[name])
    native = NativePartial(forests[name], full)
    rows = np.ascontiguousarray(X[:40])
    bx = native.bind(X[0])
    np.testing.assert_array_equal(native.near_rows(bx, rows), run_kernel(full, rows))
    np.testing.assert_array_equal(native.full_rows(rows, bx), run_kernel(full, rows))
    assert seen == [True, False]
