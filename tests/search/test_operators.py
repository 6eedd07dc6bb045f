"""Unit tests of the search's parts: distance, sampling, feasible space, Δ blocks."""

import math

import numpy as np
import pytest
from reference_sampling import sample_distinct, sample_distinct_from_prefix, sample_from_prefix

from geco.problem.distance import DistanceSpec
from geco.problem.feasible_space import feasible_space, group_domains
from geco.problem.hashing import row_hashes
from geco.search.population import Pool, key_order, key_words, mask_key


def spec(weights=(0.25, 0.25, 0.25, 0.25)):
    x = np.array([1.0, 0.0, 10.0])  # numeric, categorical, numeric
    return DistanceSpec(x, np.array([2.0, 1.0, 50.0]), np.array([False, True, False]), weights)


def test_distance_matches_the_formula():
    s = spec()
    n = 3
    assert s([0, 1, 2], np.array([[1.0, 0.0, 10.0]]))[0] == 0.0
    # flip the categorical: every norm sees 1
    d = s([1], np.array([[3.0]]))[0]
    assert d == pytest.approx(0.25 / n + 0.25 / n + 0.25 * math.sqrt(1 / n) + 0.25)
    # numeric change of 1 with range 2 and +25 with range 50
    d = s([0, 2], np.array([[2.0, 35.0]]))[0]
    diffs = [0.5, 0.5]
    expected = 0.25 * 2 / n + 0.25 * sum(diffs) / n + 0.25 * math.sqrt(sum(v * v for v in diffs) / n) + 0.25 * 0.5
    assert d == pytest.approx(expected)
    l1 = spec((0, 1, 0, 0))
    assert l1([2], np.array([[12.0]]))[0] == pytest.approx(2 / 50 / n)
    with pytest.raises(ValueError):
        spec((1, 2, 3))


def test_sample_distinct_is_distinct_and_weighted():
    rng = np.random.default_rng(0)
    w = np.array([1.0, 1.0, 8.0, 30.0, 60.0])
    idx = sample_distinct(rng, w, 20000, 2)
    assert idx.shape == (20000, 2)
    assert (idx[:, 0] != idx[:, 1]).all()
    freq = np.bincount(idx.ravel(), minlength=5) / idx.size
    assert freq[4] > freq[3] > freq[2] > freq[0]
    assert sample_distinct(rng, w, 3, 10).shape == (3, 5)  # m capped at K


def test_long_tables_draw_with_the_same_law():
    """Above 32 values per wanted sample, draws with replacement skipping repeats replace the
    exponential keys: same law (successive weighted sampling), distinct, within the prefix."""
    from reference_sampling import _distinct_by_keys

    rng = np.random.default_rng(2)
    w = np.r_[200.0, np.arange(1.0, 400.0)]  # one heavy value, a long tail
    fast, exact = sample_distinct(rng, w, 40000, 3), _distinct_by_keys(rng, w, 40000, 3)
    assert all(len(set(r)) == 3 for r in fast[:2000])
    a, b = np.bincount(fast.ravel(), minlength=len(w)), np.bincount(exact.ravel(), minlength=len(w))
    assert abs(a[0] - b[0]) < 4 * np.sqrt(a[0] + b[0])  # the heavy value, drawn as often
    assert np.abs(a - b).max() < 5 * np.sqrt(a + b + 1).max()
    limit = np.repeat([5, 150, 400], 1000)
    idx, valid = sample_distinct_from_prefix(rng, w, limit, 3, np.cumsum(w))
    assert valid[limit > 5].all() and (idx[valid] < np.repeat(limit, 3).reshape(-1, 3)[valid]).all()
    assert all(len(set(r)) == 3 for r in idx[1000:1100])


def test_prefix_sampling_stays_in_prefix():
    rng = np.random.default_rng(1)
    w = np.ones(10)
    limit = np.array([1, 3, 10, 2])
    one = sample_from_prefix(rng, np.cumsum(w), np.repeat(limit, 500))
    assert (one < np.repeat(limit, 500)).all()
    idx, valid = sample_distinct_from_prefix(rng, w, limit, 3)
    assert (idx[valid] < np.repeat(limit, valid.sum(axis=1))).all()
    assert list(valid.sum(axis=1)) == [1, 3, 3, 2]


def test_feasible_space_drops_x_and_applies_filters():
    data = np.array([[1, 5], [1, 5], [2, 6], [3, 7], [3, 7], [3, 7]], dtype=float)
    doms = group_domains([("a",), ("b",)], ["a", "b"], data)
    assert doms[0].counts.tolist() == [2, 1, 3]
    x = np.array([1.0, 5.0])
    s = DistanceSpec(x, np.array([2.0, 2.0]), np.zeros(2, bool))
    spaces = feasible_space(doms, x, [None, lambda c: c["b"] >= 7], s)
    assert sorted(spaces[0].values[:, 0].tolist()) == [2.0, 3.0]
    assert spaces[1].values[:, 0].tolist() == [7.0]
    assert (np.diff(spaces[0].distance) >= 0).all()


def test_pool_sorts_by_delta_key():
    rows = np.array([[1.0, 2, 3], [1, 9, 3], [7, 9, 3], [1, 8, 3], [1, 2, 5]])
    changed = np.array([[0, 0, 0], [0, 1, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1]], dtype=bool)
    words = key_words(changed)
    order = key_order(words)
    pool = Pool(rows, changed, words, row_hashes(rows), *(np.zeros(5),) * 3, np.zeros(5, bool)).take(order)
    starts = pool.starts()
    assert pool.block_keys(starts) == [0, 2, 3, 4]
    assert pool.rows[:, 1].tolist() == [2, 9, 8, 9, 2]  # within a Δ, the order of arrival
    assert starts.tolist() == [0, 1, 3, 4]
    assert mask_key(np.array([True, False, True])) == 5


def test_pool_keys_follow_the_bitmask_beyond_64_groups():
    rng = np.random.default_rng(0)
    changed = rng.random((200, 130)) < 0.02
    changed[:20] = False
    changed[:10, 129] = True  # the highest group decides the order
    order = key_order(key_words(changed))
    ints = [mask_key(c) for c in changed]
    assert [ints[i] for i in order] == sorted(ints)
    assert order.tolist() == sorted(range(200), key=lambda i: ints[i])  # stable
    pool = Pool(np.zeros((200, 1)), changed, key_words(changed), np.zeros(200, np.uint64),
                *(np.zeros(200),) * 3, np.zeros(200, bool)).take(order)  # fmt: skip
    keys = pool.block_keys(pool.starts())
    assert len(keys) == len(set(ints))


def test_distance_from_cells_equals_the_dense_distance_bit_for_bit():
    """The search measures candidates from the cells where they differ from x; results and
    feasible spaces use whole rows: both must give the same number for the same row."""
    rng = np.random.default_rng(1)
    d, n = 40, 3000
    categorical = rng.random(d) < 0.4
    x = np.where(categorical, rng.integers(0, 6, d), rng.random(d).round(1))  # codes are integers
    for weights in [(0.1, 0.3, 0.4, 0.2), (0, 1, 0, 0), (0, 0, 1, 0), (1, 0, 0, 1)]:
        s = DistanceSpec(x, rng.random(d) + 0.5, categorical, weights)
        rows = np.tile(x, (n, 1))
        moved = rng.random((n, d)) < 0.3
        rows[moved] = np.where(categorical, rng.integers(0, 6, (n, d)), rng.random((n, d)).round(1))[moved]
        rows[0] = x  # a row equal to x
        dense = s(np.arange(d), rows)
        r, c, v, diff = s.cells(rows, np.ones((n, d), dtype=bool))
        assert (rows[r, c] == v).all() and len(r) == n * d
        assert np.array_equal(diff == 0, v == x[c]) and (diff[categorical[c]] <= 1).all()
        sparse = s.of_cells(r, diff, n)
        assert np.array_equal(dense, sparse) and dense[0] == 0.0
        assert np.array_equal(s.of_cells(r[diff != 0], diff[diff != 0], n), dense)  # zeros change nothing
        # a mask (the Δ's columns) restricts the cells, and a subset's dense distance agrees
        mask = np.zeros((n, d), dtype=bool)
        mask[:, :7] = True
        r, c, v, diff = s.cells(rows, mask)
        assert c.max() < 7
        assert np.array_equal(s.of_cells(r, diff, n), s(np.arange(7), rows[:, :7]))


def test_cell_hashes_identify_rows_by_their_changed_cells():
    from geco.problem.hashing import cell_hashes

    rng = np.random.default_rng(3)
    d, n = 30, 4000
    x = rng.integers(0, 5, d).astype(float)
    s = DistanceSpec(x, np.ones(d), np.zeros(d, dtype=bool))
    rows = np.tile(x, (n, 1))
    moved = rng.random((n, d)) < 0.1
    rows[moved] = rng.integers(0, 5, moved.sum())
    rows[1] = x
    rows[2, 0] = -0.0 if x[0] == 0.0 else rows[2, 0]
    r, c, v, _ = s.cells(rows, rows != x)
    h = cell_hashes(r, c, v, n)
    assert h[1] == 0
    # equal rows hash equally, distinct rows (almost surely) differently
    _, first, inverse = np.unique(rows + 0.0, axis=0, return_index=True, return_inverse=True)
    assert len(np.unique(h)) == len(first)
    assert np.array_equal(h, h[first][inverse.reshape(-1)])
