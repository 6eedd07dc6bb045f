"""StackedSpaces: every group's feasible space in flat arrays. Its draws must follow the laws of
the per-table reference samplers (reference_sampling.py), its lookups must equal a per-group searchsorted, and
the operators built on it must only produce tuples of the changed groups' spaces."""

from functools import cache

import numpy as np
import pytest
from reference_sampling import sample_distinct, sample_distinct_from_prefix, sample_from_prefix

from geco.problem.distance import DistanceSpec
from geco.problem.feasible_space import GroupSpace
from geco.search.operators import (
    Context,
    group_distances,
    grow,
    initial_population,
    mutation,
    selective_mutation,
)
from geco.search.population import Candidates
from geco.search.sampling import SPARSE_RATIO
from geco.search.stacked import StackedSpaces

# ---------------------------------------------------------------------------- the hand-made spaces
# 10 features, 8 groups; f0, f3, f9 categorical. Groups 1 and 5 have two features that are not
# adjacent; groups 0 and 7 have no feasible value.
NAMES = tuple(f"f{i}" for i in range(10))
X = np.array([2.0, 3, 5, 2, 1, 50, 10, 7, 0, 4])
CATEGORICAL = np.array([True, False, False, True, False, False, False, False, False, True])
RANGES = np.array([1.0, 10, 10, 1, 10, 50, 20, 1000, 20, 1])
SPEC = DistanceSpec(X, RANGES, CATEGORICAL)
GROUP_FEATURES = [[0], [1, 4], [2], [3], [5], [6, 8], [7], [9]]
GROUP_OF_FEATURE = np.array([0, 1, 2, 3, 1, 4, 5, 6, 5, 7])
SIZES = [0, 7, 1, 3, 50, 400, 2000, 0]


def _space(index: int, values, weights) -> GroupSpace:
    """A group's space as feasible_space builds it: sorted by distance to X (stable)."""
    features = np.array(GROUP_FEATURES[index], dtype=np.intp)
    weights = np.asarray(weights, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64).reshape(len(weights), len(features))
    assert not np.all(values == X[features], axis=1).any()  # x's own tuple is never feasible
    dist = SPEC(features, values) if len(values) else np.empty(0)
    order = np.argsort(dist, kind="stable")
    w = weights[order]
    return GroupSpace(
        index, tuple(NAMES[f] for f in features), features, values[order], w, np.cumsum(w),
        dist[order],
    )  # fmt: skip


@cache
def _spaces() -> list[GroupSpace]:
    rng = np.random.default_rng(1234)
    # group 1: (f1, f4); some tuples keep one of x's values (3, 1); several distances tie
    g1 = [[3, 2], [3, 0], [4, 1], [2, 1], [5, 3], [1, -1], [4, 4]]
    # group 4: 50 +- k, ties in pairs, one value dominates (1000 against ~500 in total)
    g4 = 50.0 + np.r_[np.arange(1, 26), -np.arange(1, 26)]
    w4 = rng.integers(1, 20, 50)
    w4[7] = 1000
    # group 5: (f6, f8) on a 20 x 20 grid; f6 never equals x's, one tuple dominates so that
    # repeated draws often fall short of distinct values and fall back to exponential keys
    a = 10.0 + np.r_[np.arange(-10, 0), np.arange(1, 11)]
    b = np.arange(-10.0, 10.0)
    g5 = np.stack(np.meshgrid(a, b, indexing="ij"), axis=-1).reshape(-1, 2)
    w5 = rng.integers(1, 10, 400)
    w5[123] = 3000
    # group 6: 2000 values 7 +- k/2, ties in pairs
    g6 = 7.0 + 0.5 * np.r_[np.arange(1, 1001), -np.arange(1, 1001)]
    spaces = [
        _space(0, np.empty((0, 1)), []),
        _space(1, g1, [5, 1, 12, 3, 40, 2, 7]),
        _space(2, [6.0], [4]),
        _space(3, [0.0, 1.0, 3.0], [9, 1, 30]),  # categorical: all three at the same distance
        _space(4, g4, w4),
        _space(5, g5, w5),
        _space(6, g6, rng.integers(1, 50, 2000)),
        _space(7, np.empty((0, 1)), []),
    ]
    assert [len(s) for s in spaces] == SIZES
    return spaces


@cache
def _stacked() -> StackedSpaces:
    return StackedSpaces.of(_spaces())


def _exact_inclusion(w: np.ndarray, m: int) -> np.ndarray:
    """P(index i is among m distinct successive weighted draws), by enumerating the ordered
    draws (m <= 3)."""
    w = np.asarray(w, dtype=np.float64)
    k, total = len(w), w.sum()
    if m == 1:
        return w / total
    i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    p2 = np.where(i != j, w[:, None] / total * w[None, :] / (total - w[:, None]), 0.0)
    if m == 2:
        return p2.sum(axis=1) + p2.sum(axis=0)
    assert m == 3
    left = total - w[:, None, None] - w[None, :, None]
    r = np.arange(k)
    other = (r[None, None, :] != r[:, None, None]) & (r[None, None, :] != r[None, :, None])
    p3 = p2[:, :, None] * np.where(other, w[None, None, :] / np.where(other, left, 1.0), 0.0)
    return p3.sum(axis=(1, 2)) + p3.sum(axis=(0, 2)) + p3.sum(axis=(0, 1))


def _close_counts(a: np.ndarray, b: np.ndarray, sigmas: float = 5.0) -> bool:
    """Two independent samples' per-index counts agree within a few standard errors."""
    return bool(np.all(np.abs(a - b) <= sigmas * np.sqrt(a + b) + 3))


# ---------------------------------------------------------------------------- layout
def test_layout_puts_each_group_in_its_own_slice():
    spaces, st = _spaces(), _stacked()
    assert st.size.tolist() == SIZES
    assert np.all(np.diff(st.cumulative) > 0) and np.all(np.diff(st.rank_key) >= 0)
    for g, s in enumerate(spaces):
        sl = slice(st.start[g], st.start[g] + st.size[g])
        assert np.array_equal(st.weights[sl], s.weights)
        assert np.array_equal(st.cumulative[sl] - st.base[g], s.cumulative)
        f = st.features[st.feature_start[g] : st.feature_start[g] + st.n_features[g]]
        assert np.array_equal(f, s.features)
        vals = st.values[st.value_start[g] : st.value_start[g] + s.values.size]
        assert np.array_equal(vals.reshape(s.values.shape), s.values)


# ---------------------------------------------------------------------------- draw_distinct
def _check_rows(index, valid, lim, m):
    """Shape (pairs, min(m, max L)); per row exactly min(m, L) valid entries, strictly increasing
    (so distinct and sorted), inside [0, L)."""
    assert index.shape == valid.shape == (len(lim), min(m, int(lim.max())))
    n_valid = valid.sum(axis=1)
    assert np.array_equal(n_valid, np.minimum(m, lim))
    row = np.repeat(np.arange(len(lim)), n_valid)
    got = index[valid]
    assert np.all(got >= 0) and np.all(got < lim[row])
    same_row = row[1:] == row[:-1]
    assert np.all(got[1:][same_row] > got[:-1][same_row])


@pytest.mark.parametrize("m", [1, 3, 8])
def test_draw_distinct_rows_are_distinct_sorted_and_inside(m):
    st = _stacked()
    rng = np.random.default_rng(m)
    size = st.size
    group = rng.permutation(np.repeat(np.arange(len(SIZES)), 300))
    # whole groups (empty ones included: no valid entry)
    index, valid = st.draw_distinct(rng, group, m)
    _check_rows(index, valid, size[group], m)
    assert index.shape[1] == m  # some group holds at least m values
    # prefixes: random lengths and those at the paths' boundaries
    full = group[size[group] > 0]
    limit = 1 + (rng.random(len(full)) * size[full]).astype(np.intp)
    edges = np.array([m, m + 1, SPARSE_RATIO * m - 1, SPARSE_RATIO * m])
    big = np.flatnonzero(size >= SPARSE_RATIO * m)
    assert len(big)
    full = np.r_[full, np.repeat(big, len(edges))]
    limit = np.r_[limit, np.tile(edges, len(big))]
    index, valid = st.draw_distinct(rng, full, m, limit)
    _check_rows(index, valid, limit, m)
    # every pair holding fewer than m values: the width is the largest such count
    small = np.array([2, 3, 2])
    index, valid = st.draw_distinct(rng, small, 5)
    _check_rows(index, valid, size[small], 5)
    assert index.shape == (3, 3) and index[valid].tolist() == [0, 0, 1, 2, 0]
    index, valid = st.draw_distinct(rng, np.array([6, 5]), 4, np.array([2, 1]))
    assert index.shape == (2, 2) and valid.tolist() == [[True, True], [True, False]]
    index, valid = st.draw_distinct(rng, np.empty(0, dtype=np.intp), 3)
    assert index.shape == valid.shape == (0, 0)


@pytest.fixture
def spy_keys(monkeypatch):
    """Records the prefix lengths of the pairs drawn by exponential keys."""
    seen = []
    original = StackedSpaces._by_keys

    def by_keys(self, rng, group, lim, m):
        seen.append(np.array(lim))
        return original(self, rng, group, lim, m)

    monkeypatch.setattr(StackedSpaces, "_by_keys", by_keys)
    return seen


# (group, prefix length or None for the whole group); m = 3: >= 96 values -> repeated draws
WHOLE = [(1, None), (2, None), (3, None), (4, None), (5, None), (6, None)]
PREFIX = [(1, 5), (4, 4), (4, 30), (5, 95), (5, 96), (5, 300), (6, 2), (6, 3), (6, 100), (6, 1500)]


@pytest.mark.parametrize("cases", [WHOLE, PREFIX, WHOLE + PREFIX], ids=["whole", "prefix", "mixed"])
def test_draw_distinct_follows_the_reference_law(cases, spy_keys):
    """All cases in one call, interleaved; each case's per-index counts against the per-table
    sampler's on the same table."""
    spaces, st, m, n = _spaces(), _stacked(), 3, 4000
    group = np.tile([g for g, _ in cases], n)
    lim = np.tile([len(spaces[g]) if L is None else L for g, L in cases], n)
    prefix = any(L is not None for _, L in cases)
    index, valid = st.draw_distinct(np.random.default_rng(5), group, m, lim if prefix else None)
    _check_rows(index, valid, lim, m)
    # both draw paths ran: keys for short tables, repeated draws for long ones (whose rows
    # that stay short of m distinct values also end in keys)
    keyed = np.concatenate(spy_keys)
    assert (keyed < SPARSE_RATIO * m).any()
    assert (keyed >= SPARSE_RATIO * m).any()  # group 5's dominant value: some rows fall back
    ref_rng = np.random.default_rng(6)
    for c, (g, L) in enumerate(cases):
        s = spaces[g]
        k = len(s) if L is None else L
        rows = slice(c, None, len(cases))
        got = np.bincount(index[rows][valid[rows]], minlength=k)
        if L is None:
            ref = sample_distinct(ref_rng, s.weights, n, m, s.cumulative)
        else:
            ref_idx, ref_valid = sample_distinct_from_prefix(ref_rng, s.weights, np.full(n, L), m, s.cumulative)
            ref = ref_idx[ref_valid]
        want = np.bincount(ref.ravel(), minlength=k)
        assert len(got) == len(want) == k, (g, L)
        assert got.sum() == want.sum() == n * min(m, k)
        assert _close_counts(got, want), (g, L, np.abs(got - want).max())


class _CountingRng:
    """A Generator that counts the exponential keys it hands out."""

    def __init__(self, seed: int):
        self.rng, self.keys = np.random.default_rng(seed), 0

    def random(self, size):
        return self.rng.random(size)

    def standard_exponential(self, size):
        self.keys += int(np.prod(size))
        return self.rng.standard_exponential(size)


def test_keys_cost_follows_each_pairs_own_prefix():
    spaces = _spaces()
    heavy = np.ones(400)
    heavy[0] = 100_000  # 4 rounds of 6 draws almost never find 3 distinct values
    dominated = GroupSpace(1, spaces[5].names, spaces[5].features, spaces[5].values, heavy,
                           np.cumsum(heavy), spaces[5].distance)  # fmt: skip
    st, m = StackedSpaces.of([spaces[1], dominated]), 3
    group = np.r_[np.zeros(2000, dtype=np.intp), np.ones(200, dtype=np.intp)]
    rng = _CountingRng(0)
    index, valid = st.draw_distinct(rng, group, m)
    _check_rows(index, valid, st.size[group], m)
    assert np.all(index[group == 1][:, 0] == 0)  # the dominant value, in (almost) every row
    # at most every pair of the long group ends in keys, each over its own 400 values
    need = 2000 * 7 + 200 * 400
    assert rng.keys <= need, (rng.keys, need)


@pytest.mark.parametrize(
    ("g", "L", "m"),
    [(1, None, 3), (4, None, 3), (6, 60, 3), (5, None, 2), (6, 1500, 1), (4, None, 1)],
)
def test_draw_distinct_inclusion_frequencies_are_exact(g, L, m):
    """Against the exact inclusion probabilities of successive weighted sampling (keys path,
    repeated draws with fallback, one draw per row)."""
    s, st, n = _spaces()[g], _stacked(), 6000
    k = len(s) if L is None else L
    limit = None if L is None else np.full(n, L)
    index, valid = st.draw_distinct(np.random.default_rng(g * 10 + m), np.full(n, g), m, limit)
    got = np.bincount(index[valid], minlength=k)
    p = _exact_inclusion(s.weights[:k], m)
    assert p.sum() == pytest.approx(m)
    assert np.all(np.abs(got - n * p) <= 5 * np.sqrt(n * p * (1 - p)) + 1), np.abs(got - n * p).max()


# ---------------------------------------------------------------------------- draw
def test_draw_follows_sample_from_prefix():
    spaces, st, n = _spaces(), _stacked(), 5000
    cases = [(1, None), (1, 3), (3, None), (4, None), (4, 9), (5, 40), (5, None), (6, 700)]
    group = np.tile([g for g, _ in cases], n)
    lim = np.tile([len(spaces[g]) if L is None else L for g, L in cases], n)
    rng = np.random.default_rng(11)
    whole = st.draw(rng, group[: len(cases)])  # limit None on a few pairs: inside the group
    assert np.all((whole >= 0) & (whole < st.size[group[: len(cases)]]))
    got_all = st.draw(rng, group, lim)
    assert got_all.shape == (len(group),) and np.all((got_all >= 0) & (got_all < lim))
    ref_rng = np.random.default_rng(12)
    for c, (g, L) in enumerate(cases):
        s = spaces[g]
        k = len(s) if L is None else L
        # the whole group through limit=None, a prefix from the mixed call
        got = st.draw(rng, np.full(n, g)) if L is None else got_all[c :: len(cases)]
        got = np.bincount(got, minlength=k)
        want = np.bincount(sample_from_prefix(ref_rng, s.cumulative, np.full(n, k)), minlength=k)
        assert len(got) == len(want) == k
        assert _close_counts(got, want), (g, L)
        p = s.weights[:k] / s.weights[:k].sum()
        assert np.all(np.abs(got - n * p) <= 5 * np.sqrt(n * p * (1 - p)) + 1), (g, L)


class _Uniforms:
    """Stands in for a Generator: ``random(n)`` returns the given numbers."""

    def __init__(self, u: np.ndarray):
        self.u = u

    def random(self, n):
        assert n == len(self.u)
        return self.u


def test_draw_is_the_inverse_cdf_of_the_groups_own_weights():
    """Draw by draw (not only in law): uniform u lands where it lands in the group's own
    cumulative weights over its prefix, whatever the groups before it weigh."""
    spaces, st = _spaces(), _stacked()
    rng = np.random.default_rng(8)
    group = np.repeat(np.flatnonzero(st.size > 0), 400)
    limit = 1 + (rng.random(len(group)) * st.size[group]).astype(np.intp)
    limit[::7] = st.size[group[::7]]
    u = rng.random(len(group))
    u[::50], u[1::50] = 0.0, np.nextafter(1.0, 0.0)
    want = np.array([
        min(np.searchsorted(spaces[g].cumulative, v * spaces[g].cumulative[L - 1], side="right"), L - 1)
        for g, L, v in zip(group, limit, u)
    ])  # fmt: skip
    assert np.array_equal(st.draw(_Uniforms(u), group, limit), want)
    for g in np.unique(group):  # and as sample_from_prefix draws on the group's table alone
        at = group == g
        ref = sample_from_prefix(_Uniforms(u[at]), spaces[g].cumulative, limit[at])
        assert np.array_equal(want[at], ref)


def test_draw_from_a_single_value():
    st, rng = _stacked(), np.random.default_rng(3)
    assert st.draw(rng, np.full(50, 2)).tolist() == [0] * 50  # a group with one value
    group = np.array([1, 4, 5, 6] * 50)
    assert st.draw(rng, group, np.ones(len(group), dtype=np.intp)).tolist() == [0] * len(group)
    assert st.draw(rng, np.empty(0, dtype=np.intp)).shape == (0,)


# ---------------------------------------------------------------------------- closer
def test_closer_equals_searchsorted_per_group():
    spaces, st = _spaces(), _stacked()
    every = np.unique(np.concatenate([s.distance for s in spaces]))
    queries = np.r_[
        every, (every[1:] + every[:-1]) / 2, np.nextafter(every, 0), np.nextafter(every, np.inf),
        0.0, every[-1] * 2 + 1, np.inf,
    ]  # fmt: skip
    assert len(np.unique(spaces[1].distance)) < len(spaces[1])  # ties inside a group
    group = np.repeat(np.arange(len(spaces)), len(queries))
    dist = np.tile(queries, len(spaces))
    got = st.closer(group, dist)
    want = np.concatenate([np.searchsorted(s.distance, queries, side="left") for s in spaces])
    assert np.array_equal(got, want)
    # in any order, pair by pair
    order = np.random.default_rng(0).permutation(len(group))
    assert np.array_equal(st.closer(group[order], dist[order]), want[order])
    assert got[group == 6].max() == 2000 and got[group == 0].max() == 0


# ---------------------------------------------------------------------------- assign / reset
def test_assign_and_reset_write_exactly_the_groups_features():
    spaces, st = _spaces(), _stacked()
    rng = np.random.default_rng(4)
    rows = rng.random((30, len(X)))
    full = np.flatnonzero(st.size > 0)
    # every row takes several groups (never the same group twice); both multi-feature groups
    who = np.repeat(np.arange(0, 30, 2), 3)
    group = np.concatenate([rng.choice(full, 3, replace=False) for _ in range(15)])
    group[:6] = [1, 5, 6, 5, 1, 4]
    index = (rng.random(len(group)) * st.size[group]).astype(np.intp)
    index[0], index[1] = 6, 399  # the last values of groups 1 and 5
    want = rows.copy()
    for w, g, i in zip(who, group, index):
        want[w, spaces[g].features] = spaces[g].values[i]
    got = rows.copy()
    st.assign(got, who, group, index)
    assert np.array_equal(got, want)
    assert np.array_equal(got[1::2], rows[1::2])  # rows not named: untouched
    back = got.copy()
    st.reset(back, who, group, X)
    want = got.copy()
    for w, g in zip(who, group):
        want[w, spaces[g].features] = X[spaces[g].features]
    assert np.array_equal(back, want)
    # nothing to do
    st.assign(got, np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0, np.intp))
    st.reset(back, np.empty(0, np.intp), np.empty(0, np.intp), X)
    assert np.array_equal(back, want)


# ---------------------------------------------------------------------------- operators
def _context(seed: int) -> Context:
    return Context(X.copy(), NAMES, _spaces(), GROUP_OF_FEATURE, [], [], [], np.random.default_rng(seed))


@cache
def _allowed() -> list[set]:
    return [{tuple(v) for v in s.values} for s in _spaces()]


def _check_children(kids: Candidates, some: bool = True) -> None:
    """Changed groups hold a tuple of their space, the others x's values."""
    assert len(kids) > 0 or not some
    assert kids.rows.shape[1] == len(X) and kids.changed.shape[1] == len(SIZES)
    for g, s in enumerate(_spaces()):
        vals, ch = kids.rows[:, s.features], kids.changed[:, g]
        assert np.all(vals[~ch] == X[s.features]), g
        assert all(tuple(v) in _allowed()[g] for v in vals[ch]), g
    assert not kids.changed[:, [0, 7]].any()  # empty spaces never change


def _parents(ctx: Context) -> Candidates:
    """Parents changing one to four groups, built from the spaces' values."""
    spaces, rows, changed = ctx.spaces, [], []
    for groups, picks in [([1], [6]), ([5], [0]), ([1, 5], [2, 399]), ([4, 6, 3], [49, 1000, 2]),
                          ([1, 2, 4, 5], [0, 0, 10, 200])]:  # fmt: skip
        row, ch = X.copy(), np.zeros(len(SIZES), dtype=bool)
        for g, i in zip(groups, picks):
            row[spaces[g].features] = spaces[g].values[i]
            ch[g] = True
        rows.append(row)
        changed.append(ch)
    return Candidates(np.array(rows), np.array(changed))


def _source(kids: Candidates, parent_row: np.ndarray, parent_changed: np.ndarray) -> np.ndarray:
    """Whether each kid keeps the parent's values on the parent's changed groups."""
    cols = parent_changed[GROUP_OF_FEATURE]
    return np.all(kids.rows[:, cols] == parent_row[cols], axis=1)


@pytest.mark.parametrize("m_init", [3, 10])
def test_initial_population_draws_distinct_tuples_per_group(m_init):
    kids = initial_population(_context(0), m_init)
    _check_children(kids)
    assert np.all(kids.changed.sum(axis=1) == 1)
    for g, s in enumerate(_spaces()):
        mine = kids.rows[kids.changed[:, g]][:, s.features]
        assert len(mine) == min(m_init, len(s)), g
        assert len({tuple(v) for v in mine}) == len(mine), g


def test_mutation_adds_distinct_values_of_one_open_group():
    ctx = _context(1)
    parents = _parents(ctx)
    kids = mutation(ctx, parents, 3)
    _check_children(kids)
    assert np.all(kids.changed.sum(axis=1) >= 2)
    total = 0
    for row, ch in zip(parents.rows, parents.changed):
        alone = mutation(ctx, Candidates(row[None], ch[None]), 3)
        _check_children(alone)
        assert np.all(_source(alone, row, ch)) and np.all(alone.changed[:, ch])
        new = alone.changed & ~ch
        assert np.all(new.sum(axis=1) == 1)
        for g, s in enumerate(ctx.spaces):
            mine = alone.rows[new[:, g]][:, s.features]
            want = 0 if ch[g] else min(3, len(s))
            assert len(mine) == want and len({tuple(v) for v in mine}) == want, g
        # the kids of this parent in the batched call: as many
        from_it = _source(kids, row, ch) & np.all(kids.changed[:, ch], axis=1)
        from_it &= kids.changed.sum(axis=1) == ch.sum() + 1
        assert from_it.sum() == len(alone)
        total += len(alone)
    assert len(kids) == total
    narrow = mutation(ctx, parents, 3, breadth=2)
    _check_children(narrow)
    for row, ch in zip(parents.rows, parents.changed):
        mine = narrow.changed[_source(narrow, row, ch) & (narrow.changed.sum(axis=1) == ch.sum() + 1)]
        assert 1 <= len(np.flatnonzero((mine & ~ch).any(axis=0))) <= 2


def test_selective_mutation_moves_towards_x_inside_the_spaces():
    ctx = _context(2)
    parents = _parents(ctx)
    is_cf = np.array([True, False, True, True, False])
    kids = selective_mutation(ctx, parents, SPEC, 3, is_cf)
    _check_children(kids)
    _check_children(selective_mutation(ctx, parents, SPEC, 3, is_cf, breadth=1))
    # one parent at a time: every kid is at most as far as the parent in every group and
    # strictly closer in one (reverted groups count as distance 0)
    sizes = []
    for row, ch in zip(parents.rows, parents.changed):
        alone = selective_mutation(ctx, Candidates(row[None], ch[None]), SPEC, 3, np.array([True]))
        _check_children(alone, some=False)
        sizes.append(len(alone))
        assert not np.any(alone.changed & ~ch)  # never changes a new group
        before = group_distances(ctx, row[None], ch[None], SPEC)[0]
        after = group_distances(ctx, alone.rows, alone.changed, SPEC)
        assert np.all(after <= before)
        assert np.all((after < before).any(axis=1))
    # parent 1 changes one group to its value closest to x: nothing closer, nothing to revert
    assert sizes[1] == 0 and min(sizes[:1] + sizes[2:]) > 0


@pytest.mark.parametrize("n_new", [2, 10])
def test_grow_changes_n_new_more_groups(n_new):
    ctx = _context(3)
    parents = _parents(ctx)
    kids = grow(ctx, parents, n_new)
    _check_children(kids)
    assert len(kids) == len(parents)  # every parent has an open group
    open_ = ~parents.changed & (np.array(SIZES) > 0)
    assert np.all(kids.changed[parents.changed])
    assert np.array_equal((kids.changed & ~parents.changed).sum(axis=1), np.minimum(n_new, open_.sum(axis=1)))
    for kid, row, ch in zip(kids.rows, parents.rows, parents.changed):
        assert _source(Candidates(kid[None], ch[None]), row, ch)[0]


def _run(seed: int) -> list[Candidates]:
    ctx = _context(seed)
    init = initial_population(ctx, 4)
    parents = Candidates.concat([init.take(np.arange(0, len(init), 3)), _parents(ctx)], len(X), len(SIZES))
    return [
        init, mutation(ctx, parents, 3, breadth=3),
        selective_mutation(ctx, parents, SPEC, 3, np.arange(len(parents)) % 2 == 0, breadth=2),
        grow(ctx, parents, 2),
    ]  # fmt: skip


def test_same_seed_same_children():
    a, b, c = _run(9), _run(9), _run(10)
    for x, y in zip(a, b):
        assert np.array_equal(x.rows, y.rows) and np.array_equal(x.changed, y.changed)
    assert any(x.rows.shape != z.rows.shape or not np.array_equal(x.rows, z.rows) for x, z in zip(a, c))


def test_the_stacked_ranks_are_numpys_unique_and_searchsorted():
    """Each group's distances ascending, ties within and across groups, a group without values:
    the distinct distances and each one's place are what np.unique and np.searchsorted give."""
    from geco.search.stacked import StackedSpaces

    rng = np.random.default_rng(3)
    runs = [np.sort(rng.integers(0, 40, n) / 8.0) for n in (30, 0, 7, 55, 1)]
    distance = np.concatenate(runs)
    ranks = np.unique(distance)
    got = StackedSpaces.ranks_of(distance)
    assert np.array_equal(got[0], ranks) and np.array_equal(got[1], np.searchsorted(ranks, distance))
    assert len(ranks) < len(distance)  # ties met
    empty = StackedSpaces.ranks_of(np.zeros(0))
    assert len(empty[0]) == len(empty[1]) == 0
