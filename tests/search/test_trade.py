"""Polishing: trade children move one group towards x and another away, the sweep tries every
partner group beside a sparse answer, and polishing never makes an explanation's first
counterfactual farther."""

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

import geco
import geco.search.loop
from geco.problem.distance import DistanceSpec
from geco.problem.feasible_space import feasible_space, group_domains
from geco.search.operators import Context
from geco.search.population import Candidates
from geco.search.trade import (
    MAX_AWAY,
    MAX_KEPT,
    SweepGrid,
    bisect_sweep,
    concentrate,
    regroup,
    single_grid,
    step_in,
    sweep,
    sweep_children_to_score,
    sweep_grid,
    trade,
)


def _context(seed=0):
    rng = np.random.default_rng(0)
    # three numeric one-column groups with values on both sides of x, one categorical
    data = np.column_stack([
        rng.integers(0, 21, 400), rng.integers(0, 21, 400), rng.integers(0, 21, 400), rng.integers(0, 4, 400),
    ]).astype(float)  # fmt: skip
    names = ("a", "b", "c", "k")
    x = np.array([10.0, 10.0, 10.0, 1.0])
    categorical = np.array([False, False, False, True])
    spec = DistanceSpec(x, np.full(4, 20.0), categorical, (0, 1, 0, 0))
    doms = group_domains([(n,) for n in names], list(names), data)
    spaces = feasible_space(doms, x, [None] * 4, spec)
    ctx = Context(x, names, spaces, np.arange(4), [], [], [], np.random.default_rng(seed))
    return ctx, spec


@pytest.mark.parametrize(
    ("parent", "changed"),
    [([17.0, 10, 10, 1], [True, False, False, False]), ([4.0, 13, 10, 1], [True, True, False, False])],
)
def test_trade_moves_one_group_closer_and_another_away(parent, changed):
    ctx, spec = _context()
    parent, changed = np.array(parent), np.array(changed)
    kids = trade(ctx, Candidates(parent[None], changed[None]), spec, per_parent=200)
    assert len(kids) > 100

    def per_feature(row):
        out = np.abs(row - ctx.x) / 20.0
        out[3] = float(row[3] != ctx.x[3])
        return out

    away_count = 0
    for kid, flags in zip(kids.rows, kids.changed):
        diff = np.flatnonzero(kid != parent)
        assert 1 <= len(diff) <= 2  # g and h, nothing else
        assert (flags == (kid != ctx.x)).all()  # changed flags match the values
        now, before = per_feature(kid), per_feature(parent)
        closer = [j for j in diff if now[j] < before[j]]
        away = [j for j in diff if now[j] > before[j]]
        assert len(closer) == 1 and changed[closer[0]]  # a changed group steps towards x
        assert len(away) <= 1
        away_count += len(away)
        for j in closer + away:  # numeric groups that were changed keep to their side of x
            if j < 3 and changed[j] and kid[j] != ctx.x[j]:
                assert np.sign(kid[j] - ctx.x[j]) == np.sign(parent[j] - ctx.x[j])
    assert away_count > 0.8 * len(kids)  # nearly every child also moves another group away


def test_trade_is_seeded():
    a = trade(_context(3)[0], Candidates(np.array([[17.0, 10, 10, 1]]), np.array([[1, 0, 0, 0]], bool)), _context()[1], 50)
    b = trade(_context(3)[0], Candidates(np.array([[17.0, 10, 10, 1]]), np.array([[1, 0, 0, 0]], bool)), _context()[1], 50)
    assert np.array_equal(a.rows, b.rows) and np.array_equal(a.changed, b.changed)


def test_trade_takes_big_steps_away_on_long_columns():
    """On a column of hundreds of values, about half the trades move the other group at most
    MAX_AWAY positions beyond x, the others farther (a group can take over a big change)."""
    rng = np.random.default_rng(1)
    data = np.column_stack([rng.permutation(np.arange(401.0)), rng.permutation(np.arange(401.0))])
    x = np.array([200.0, 200.0])
    spec = DistanceSpec(x, np.full(2, 400.0), np.zeros(2, dtype=bool), (0, 1, 0, 0))
    spaces = feasible_space(group_domains([("a",), ("b",)], ["a", "b"], data), x, [None] * 2, spec)
    ctx = Context(x, ("a", "b"), spaces, np.arange(2), [], [], [], np.random.default_rng(0))
    kids = trade(ctx, Candidates(np.array([[300.0, 200.0]]), np.array([[True, False]])), spec, per_parent=400)
    away = np.abs(kids.rows[kids.changed[:, 1], 1] - 200.0)  # b's values sit one per position a side
    assert len(away) > 300
    assert 0.3 < np.mean(away <= MAX_AWAY) < 0.8 and (away > 50).sum() > 40


def test_concentrate_keeps_a_few_groups_and_moves_them_farther_on_their_side():
    ctx, spec = _context()
    parent = np.array([14.0, 7, 12, 3])
    changed = np.ones(4, dtype=bool)
    kids = concentrate(ctx, Candidates(parent[None], changed[None]), spec, per_parent=300)
    assert len(kids) == 300
    pushed = 0
    for kid, flags in zip(kids.rows, kids.changed):
        assert 1 <= flags.sum() <= MAX_KEPT and flags.sum() < 4
        assert (kid[~flags] == ctx.x[~flags]).all()  # the rest reverted to x
        for j in np.flatnonzero(flags[:3]):  # numeric: the same side, at least as far
            assert np.sign(kid[j] - ctx.x[j]) == np.sign(parent[j] - ctx.x[j])
            assert abs(kid[j] - ctx.x[j]) >= abs(parent[j] - ctx.x[j])
            pushed += abs(kid[j] - ctx.x[j]) > abs(parent[j] - ctx.x[j])
    assert pushed > 100
    one = concentrate(ctx, Candidates(parent[None], np.array([[True, False, False, False]])), spec, 10)
    assert len(one) == 0  # a one-group parent has nothing to concentrate


@pytest.fixture(scope="module")
def credit_explainer():
    ds = geco.datasets.load_credit()
    X, y = ds.X.iloc[:6000], ds.y.iloc[:6000]
    model = RandomForestClassifier(60, max_depth=8, random_state=0, n_jobs=1).fit(X, y)
    # a short search (one generation of patience) leaves the polishing something to do
    explainer = geco.Explainer(
        model, X, ds.constraints, ds.desired_class, norm_weights=(0, 1, 0, 0), min_generations=1, patience=1
    )
    rows = np.flatnonzero(model.predict(X) != ds.desired_class)[:10]
    return X, explainer, rows


def _by_delta(result, columns):
    """Distance of each returned counterfactual, keyed by the set of features it changes."""
    cfs = result.counterfactuals
    x = result.x.iloc[0]
    return {
        tuple(c for c in columns if row[c] != x[c]): row["distance"]
        for _, row in cfs[cfs["counterfactual"].astype(bool)].iterrows()
    }


def test_polishing_never_farther_and_moves_options_nearer(credit_explainer, monkeypatch):
    X, explainer, rows = credit_explainer
    polished = [explainer.explain(X.iloc[[r]], random_state=int(r)) for r in rows]
    monkeypatch.setattr(geco.search.loop, "POLISH_ROUNDS", 0)
    plain = [explainer.explain(X.iloc[[r]], random_state=int(r)) for r in rows]
    nearer = 0
    for a, b in zip(polished, plain):
        assert a.success == b.success
        if not a.success:
            continue
        assert b.stats["polish_rounds"] == 0 and a.stats["polish_rounds"] >= 1
        da, db = a.counterfactuals["distance"].iloc[0], b.counterfactuals["distance"].iloc[0]
        assert da <= db * (1 + 1e-12)  # the first counterfactual is never farther
        pa, pb = _by_delta(a, X.columns), _by_delta(b, X.columns)
        nearer += sum(pa[key] < pb[key] * (1 - 1e-9) for key in pa.keys() & pb.keys())
    assert nearer >= 1  # polishing found a nearer counterfactual of some change


def test_step_in_lands_on_the_next_value_towards_x_on_the_same_side():
    ctx, spec = _context()
    values = {j: np.sort(ctx.spaces[j].values[:, 0]) for j in range(3)}
    parent = np.array([17.0, 4.0, 10.0, 1.0])  # a above x, b below x
    changed = np.array([True, True, False, False])
    kids = step_in(ctx, Candidates(parent[None], changed[None]), spec)
    a_next = values[0][(values[0] > 10) & (values[0] < 17)].max()
    b_next = values[1][(values[1] < 10) & (values[1] > 4)].min()
    expected = {(a_next, 4.0), (17.0, b_next), (a_next, b_next)}  # each alone, then both at once
    assert {(k[0], k[1]) for k in kids.rows} == expected
    assert (kids.rows[:, 2:] == parent[2:]).all()
    # nothing closer on its side: the group goes back to x
    edge = np.array([values[0][values[0] > 10].min(), 10.0, 10.0, 1.0])
    kids = step_in(ctx, Candidates(edge[None], np.array([[True, False, False, False]])), spec)
    assert len(kids) == 0  # the only child is x itself, which changes nothing


def test_sweep_steps_one_group_in_beside_each_partner_on_a_grid():
    """Every child: one changed group of the parent strictly closer to x on its side, and one
    group the parent leaves at x moved to a value of its feasible space; every partner group
    appears, on both sides of x, and the sweep draws nothing at random."""
    ctx, spec = _context()
    parent = np.array([17.0, 10.0, 10.0, 1.0])
    changed = np.array([True, False, False, False])
    kids = sweep(ctx, Candidates(parent[None], changed[None]), spec)
    assert len(kids) > 0
    feasible = {j: set(ctx.spaces[j].values[:, 0]) for j in range(4)}
    partners, sides = set(), set()
    for kid, flags in zip(kids.rows, kids.changed):
        assert (flags == (kid != ctx.x)).all()
        assert 10.0 < kid[0] < 17.0  # stepped in, same side, not back to x
        moved = [j for j in (1, 2, 3) if kid[j] != ctx.x[j]]
        assert len(moved) == 1 and kid[moved[0]] in feasible[moved[0]]
        partners.add(moved[0])
        if moved[0] < 3:
            sides.add((moved[0], np.sign(kid[moved[0]] - ctx.x[moved[0]])))
    assert partners == {1, 2, 3}
    assert sides == {(1, -1.0), (1, 1.0), (2, -1.0), (2, 1.0)}
    again = sweep(_context(seed=5)[0], Candidates(parent[None], changed[None]), spec)
    assert np.array_equal(again.rows, kids.rows)
    # parents changing more than two groups, or none, are left alone
    wide = np.array([[17.0, 4.0, 13.0, 2.0]])
    assert len(sweep(ctx, Candidates(wide, wide != ctx.x), spec)) == 0


def test_the_sweep_finds_the_nearer_pair_beside_two_far_single_changes():
    """Thirty free features; the model wants a >= 18, or b >= 18, or both a and b >= 13 (x = 10
    everywhere, ranges 20): under l1 the pair (0.15 + 0.15) is nearer than either alone (0.4),
    and it is what geco must answer, as brute force does. Neither single change steps towards
    the pair without losing the class, and a random trade step seldom draws b beside a among 29
    groups: without the sweep the search answers a alone for most seeds."""
    rng = np.random.default_rng(0)
    names = [f"f{i}" for i in range(30)]
    X = pd.DataFrame(rng.integers(0, 21, (600, 30)).astype(float), columns=names)

    class PairModel:
        classes_ = np.array([0, 1])

        def predict_proba(self, frame):
            v = frame[names].to_numpy(float)
            good = (v[:, 0] >= 18) | (v[:, 1] >= 18) | ((v[:, 0] >= 13) & (v[:, 1] >= 13))
            return np.column_stack([~good, good]).astype(float)

    weights = (0.0, 1.0, 0.0, 0.0)
    explainer = geco.Explainer(PairModel(), X, engine="blackbox", norm_weights=weights)
    x = pd.DataFrame([[10.0] * 30], columns=names)
    spec = DistanceSpec(x.to_numpy(float)[0], np.full(30, 20.0), np.zeros(30, bool), weights)
    # brute force over single and paired changes on the data's values (0..20)
    vals = np.arange(21.0)
    best_single = min(spec.combine(np.array([[abs(v - 10) / 20]]))[0] for v in vals if v >= 18)
    best_pair = min(spec.combine(np.array([[abs(a - 10) / 20, abs(b - 10) / 20]]))[0]
                    for a in vals if a >= 13 for b in vals if b >= 13)  # fmt: skip
    assert best_pair < best_single
    for seed in range(4):
        first = explainer.explain(x, random_state=seed).counterfactuals.iloc[0]
        assert first["distance"] == pytest.approx(best_pair)
        assert (first["f0"], first["f1"]) == (13.0, 13.0)


def test_the_sweep_grid_gives_the_sweeps_children():
    ctx, spec = _context()
    parent = Candidates(np.array([[17.0, 10.0, 10.0, 1.0]]), np.array([[True, False, False, False]]))
    grid = sweep_grid(ctx, parent, spec)
    kids = grid.children(ctx)
    assert np.array_equal(kids.rows, sweep(ctx, parent, spec).rows)
    assert set(np.unique(grid.side[grid.group == 3])) == {0.0}  # a category has no sides


def test_bisect_sweep_spreads_ranks_inside_each_bracket_below_the_bound():
    """One stepped parent, partner groups 1 and 2 on their upper side: ranks 0, 10, 20 of group 1
    miss, miss, meet (a bracket 10..20); group 2's 0 misses and 1 meets (adjacent ranks: nothing
    between); group 1's lower side has an unknown end (no bracket)."""
    stepped = np.array([[12.0, 10.0, 10.0, 1.0]])
    grid = SweepGrid(None, stepped,  # bisecting reads ranks, not values: no sides needed
                     np.array([[True, False, False, False]]), np.zeros(7, dtype=np.intp),
                     np.array([1, 1, 1, 2, 2, 1, 1]), np.array([1.0, 1, 1, 1, 1, -1, -1]),
                     np.array([0, 10, 20, 0, 1, 0, 5]))  # fmt: skip
    met = np.array([0, 0, 1, 0, 1, -1, 1], dtype=np.int8)
    dist = np.array([0.1, 0.2, 0.3, 0.1, 0.15, 0.1, 0.2])
    nxt, carried = bisect_sweep(grid, met, dist, bound=0.25, points=4)
    assert sorted(carried) == [1, 2]  # the bracket's two ends, carried into the next grid
    fresh = nxt.take(np.arange(len(carried), len(nxt)))
    assert (fresh.group == 1).all() and (fresh.side == 1.0).all()
    assert sorted(fresh.rank) == [12, 14, 16, 18]  # strictly inside 10..20, once each
    # a bound at or below the missing end's distance: every child between is at least as far
    assert len(bisect_sweep(grid, met, dist, bound=0.2, points=4)[0]) == 0
    # a narrow bracket gets every rank inside it, once
    nxt, _ = bisect_sweep(grid.take(np.array([1, 2])), met[[1, 2]], dist[[1, 2]], bound=1.0, points=30)
    assert sorted(nxt.rank[2:]) == list(range(11, 20))


@pytest.mark.parametrize("seed", range(6))
def test_the_sweep_children_left_unscored_change_no_bisection(seed):
    """Children :func:`sweep_children_to_score` leaves out read as unknown (never scored), yet
    the bisection of every round finds the same brackets as with every child's status, under
    the bound given and any bound below it (the best option only gets nearer as the round
    scores)."""
    rng = np.random.default_rng(seed)
    n = 300
    parent, group = rng.integers(0, 3, n), rng.integers(0, 4, n)
    side = rng.choice([-1.0, 0.0, 1.0], n)
    rank = rng.integers(0, 40, n)
    dist = 0.01 * rank + 0.05 * parent + 0.02 * group  # farther with the rank along each line
    met = rng.choice(np.array([-1, 0, 1], dtype=np.int8), n, p=[0.1, 0.5, 0.4])
    grid = SweepGrid(None, np.zeros((3, 4)), np.zeros((3, 4), dtype=bool), parent, group, side, rank)
    bound = float(np.quantile(dist, rng.uniform(0.1, 0.6)))
    needed = sweep_children_to_score(grid, dist, bound)
    assert needed[dist < bound].all() and not needed.all()
    unknown = np.where(needed, met, -1).astype(np.int8)
    for b in (bound, bound * 0.8, float(dist.min())):
        want, want_carried = bisect_sweep(grid, met, dist, b)
        got, got_carried = bisect_sweep(grid, unknown, dist, b)
        assert np.array_equal(got_carried, want_carried)
        for field in ("parent", "group", "side", "rank"):
            assert np.array_equal(getattr(got, field), getattr(want, field))
    # some bracket existed to be kept: the test is not vacuous
    assert len(bisect_sweep(grid, met, dist, bound)[1]) > 0


def test_bisecting_the_sweep_finds_the_pair_between_its_grid_values():
    """The model wants a >= 300, or a >= 150 and b >= 137 (x = 0, values -400..400): the pair
    (150 + 137) is nearer than a alone (300). The sweep steps a in to 150 beside b at its grid
    values (25, 50, 100, 200, ...): b = 100 misses and 200 is farther than a alone, so only
    bisecting between them reaches 137. Without it every seed answers a alone; brute force over
    the pairs agrees with the answer."""
    rng = np.random.default_rng(0)
    names = [f"f{i}" for i in range(30)]
    vals = np.arange(-400.0, 401.0)
    X = pd.DataFrame(np.column_stack([rng.permutation(np.tile(vals, 2)) for _ in names]), columns=names)

    class StepModel:
        classes_ = np.array([0, 1])

        def predict_proba(self, frame):
            v = frame[names].to_numpy(float)
            good = (v[:, 0] >= 300) | ((v[:, 0] >= 150) & (v[:, 1] >= 137))
            return np.column_stack([~good, good]).astype(float)

    weights = (0.0, 1.0, 0.0, 0.0)
    explainer = geco.Explainer(StepModel(), X, engine="blackbox", norm_weights=weights)
    x = pd.DataFrame([[0.0] * 30], columns=names)
    a, b = np.meshgrid(vals, vals)
    good = (a >= 150) & (b >= 137)
    best_pair = float((np.abs(a) + np.abs(b))[good].min())
    assert best_pair == 287.0 < 300.0
    for seed in range(3):
        first = explainer.explain(x, random_state=seed).counterfactuals.iloc[0]
        assert abs(first["f0"]) + abs(first["f1"]) == best_pair
        assert (first["f0"], first["f1"]) == (150.0, 137.0)


def test_single_grid_moves_each_group_alone_to_feasible_values_on_both_sides():
    ctx, spec = _context()
    kids = single_grid(ctx, spec)
    feasible = {j: set(ctx.spaces[j].values[:, 0]) for j in range(4)}
    seen = set()
    for kid, flags in zip(kids.rows, kids.changed):
        moved = np.flatnonzero(kid != ctx.x)
        assert len(moved) == 1 and flags.sum() == 1 and flags[moved[0]]
        j = int(moved[0])
        assert kid[j] in feasible[j]
        seen.add((j, 0.0 if j == 3 else np.sign(kid[j] - ctx.x[j])))
    assert seen == {(0, -1.0), (0, 1.0), (1, -1.0), (1, 1.0), (2, -1.0), (2, 1.0), (3, 0.0)}
    assert len({tuple(r) for r in kids.rows}) == len(kids)  # each value once


def test_regroup_moves_two_or_three_groups_from_x_on_the_sides_that_worked():
    """A parent changing a (up), b (down) and c (up): the children move two or three of the
    groups (those parents change, and the best lone probe's) from x, on the parent's side of x
    for a, b, c, to feasible values, everything else at x; the best probe's group (k, a category
    no parent changes) joins them; nothing is drawn at random; a sparse best parent is left alone."""
    ctx, spec = _context()
    parent = np.array([[17.0, 4.0, 13.0, 1.0]])
    probes = single_grid(ctx, spec)
    prob = np.where(probes.changed[:, 3], 0.4, 0.1)  # k's lone moves score highest
    kids = regroup(ctx, Candidates(parent, parent != ctx.x), spec, (probes.rows, probes.changed, prob))
    assert len(kids) > 0
    feasible = {j: set(ctx.spaces[j].values[:, 0]) for j in range(4)}
    side = {0: 1.0, 1: -1.0, 2: 1.0}
    sizes, groups = set(), set()
    for kid, flags in zip(kids.rows, kids.changed):
        moved = np.flatnonzero(kid != ctx.x)
        assert np.array_equal(np.flatnonzero(flags), moved)
        assert len(moved) in (2, 3)
        sizes.add(len(moved))
        for j in moved.tolist():
            assert kid[j] in feasible[j]
            if j in side:
                assert np.sign(kid[j] - ctx.x[j]) == side[j]
            groups.add(j)
    assert sizes == {2, 3} and groups == {0, 1, 2, 3}
    again = regroup(_context(seed=7)[0], Candidates(parent, parent != ctx.x), spec, (probes.rows, probes.changed, prob))
    assert np.array_equal(again.rows, kids.rows)
    sparse = np.array([[17.0, 4.0, 10.0, 1.0]])
    assert len(regroup(ctx, Candidates(sparse, sparse != ctx.x), spec, (probes.rows, probes.changed, prob))) == 0


def test_a_dense_answer_gives_way_to_the_nearer_sparse_one_brute_force_finds():
    """Breast cancer (30 numeric features, all free), XGBoost: for this row the search's
    answers change f4, f7, f13, f23 and f27 a little and end at three of them (distance 0.136),
    while f4, f13 and f26 together reach the other class at 0.09. The answer must be at most as
    far as brute force over every one, two and three features on a grid of four values a side."""
    from itertools import combinations

    xgboost = pytest.importorskip("xgboost")
    from sklearn.datasets import load_breast_cancer

    bc = load_breast_cancer()
    X = pd.DataFrame(bc.data, columns=[f"f{i}" for i in range(bc.data.shape[1])])
    model = xgboost.XGBClassifier(n_estimators=100, max_depth=4, n_jobs=1, random_state=0).fit(X, bc.target)
    row = 256
    data = X.to_numpy(float)
    xv = data[row]
    d = len(xv)
    spread = np.ptp(data, axis=0)
    spec = DistanceSpec(xv, np.ones(d), np.zeros(d, dtype=bool))
    grid = []
    for j in range(d):
        v = np.unique(data[:, j])
        out = []
        for side in (np.sort(v[v < xv[j]])[::-1], np.sort(v[v > xv[j]])):
            out += [side[max(int(np.ceil(f * len(side))) - 1, 0)] for f in (0.25, 0.5, 0.75, 1.0)] if len(side) else []
        grid.append(np.unique(out))
    brute = np.inf
    for k in (1, 2, 3):
        for cols in combinations(range(d), k):
            c = list(cols)
            mesh = np.stack(np.meshgrid(*(grid[j] for j in c), indexing="ij"), -1).reshape(-1, k)
            dist = spec.combine(np.abs(mesh - xv[c]) / spread[c])
            near = dist < brute
            if near.any():
                rows = np.repeat(xv[None], int(near.sum()), axis=0)
                rows[:, c] = mesh[near]
                hit = model.predict_proba(rows)[:, 1] > 0.5
                if hit.any():
                    brute = min(brute, float(dist[near][hit].min()))
    assert brute < 0.1
    explainer = geco.Explainer(model, X, desired_class=1)
    for seed in (0, 1):
        first = explainer.explain(X.iloc[[row]], random_state=seed).counterfactuals.iloc[0]
        assert first["distance"] <= brute * (1 + 1e-9)
        assert model.predict_proba(first[X.columns].to_frame().T.astype(float))[0, 1] > 0.5


def _scored_pool(rows, met, dist, hashes):
    from geco.search.population import Pool, key_words

    rows = np.asarray(rows, dtype=float)
    changed = np.ones((len(rows), 1), dtype=bool)
    dist = np.asarray(dist, dtype=float)
    score = np.where(met, dist, 1.0 + dist)
    return Pool(rows, changed, key_words(changed), np.asarray(hashes, dtype=np.uint64), np.zeros(len(rows)),
                dist, score, np.zeros(len(rows), dtype=bool))  # fmt: skip


@pytest.mark.parametrize("compiled", [False, True])
def test_row_statuses_read_each_asked_row_from_the_pool_holding_it(compiled):
    """Rows found in either pool take its status and distance; a row in none (repaired or
    dropped by the rules) is unknown; -0.0 and 0.0 are one value; and a hash collision reads as
    unknown, never as another row's status. The same with the values checked in place by the
    compiled kernel."""
    from functools import partial

    from geco.search.compiled import compiled_kernels
    from geco.search.loop import AskedRows
    from geco.search.loop import row_statuses as reference

    kernels = compiled_kernels(True) if compiled else None
    if compiled and kernels is None:
        pytest.skip("numba is not installed")
    row_statuses = partial(reference, kernels=kernels)

    old = _scored_pool([[1.0, 2.0], [3.0, 4.0]], [True, False], [0.1, 0.2], [11, 12])
    new = _scored_pool([[5.0, 0.0]], [True], [0.3], [13])
    asked = np.array([[3.0, 4.0], [9.0, 9.0], [5.0, -0.0], [1.0, 2.0]])
    met, dist = row_statuses(AskedRows(asked, np.array([12, 99, 13, 11], dtype=np.uint64), np.zeros(4)), (old, new))
    assert met.tolist() == [0, -1, 1, 1]
    assert dist.tolist() == [0.2, np.inf, 0.3, 0.1]
    # another row under a pool row's hash (a collision), and a pool holding none
    met, dist = row_statuses(AskedRows(np.array([[9.0, 9.0]]), np.array([13], dtype=np.uint64), np.zeros(1)), (old, new))
    assert met.tolist() == [-1] and dist.tolist() == [np.inf]
    empty = _scored_pool(np.empty((0, 2)), [], [], [])
    met, dist = row_statuses(AskedRows(asked, np.arange(4, dtype=np.uint64), np.zeros(4)), (empty,))
    assert met.tolist() == [-1] * 4


@pytest.mark.parametrize("native", [False, True])
def test_asked_rows_hash_as_the_pool_that_scores_them(native):
    """The hashes and distances of candidates as made equal those ``to_pool`` gives the same
    rows, so a sweep's children are found in the pools that scored them (numpy and compiled)."""
    from test_phases import make_search

    from geco.search.population import Candidates

    search = make_search(native=native)
    assert (search.kernels is not None) == native
    x = search.ctx.x
    rows = np.tile(x, (40, 1))
    changed = np.random.default_rng(2).random((40, len(x))) < 0.3
    rows[changed] += np.arange(1, int(changed.sum()) + 1)
    cands = Candidates(rows, changed)
    asked = search.asked(cands)
    pool = search.to_pool(Candidates(rows.copy(), changed.copy()), search.empty())
    by_hash = dict(zip(pool.hashes.tolist(), zip(map(tuple, pool.rows), pool.dist.tolist())))
    assert len(by_hash) == len(pool) > 20
    for row, h, d in zip(asked.rows, asked.hashes.tolist(), asked.dist.tolist()):
        assert by_hash[h] == (tuple(row), d)
