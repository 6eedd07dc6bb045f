"""Which candidates are worth scoring once options are archived (geco.search.reach.Reach)."""

import numpy as np
import pytest

from geco.search.diversity import pick_distinct
from geco.search.population import key_words
from geco.search.reach import Reach

X = np.array([10.0, 10.0, 10.0, 0.0])  # the last feature is categorical (codes)
RANGES = np.array([100.0, 100.0, 100.0, 1.0])
CATEGORICAL = np.array([False, False, False, True])
GAP = 0.1


def rows(*changes):
    """Rows of x with ``changes`` ({feature: value}) applied."""
    out = np.tile(X, (len(changes), 1))
    for r, change in enumerate(changes):
        for f, v in change.items():
            out[r, f] = v
    return out


def words(rows_):
    """Changed-group words, one group per feature."""
    return key_words(rows_ != X)


def reach(distances, options, k, gap=GAP):
    d = np.asarray(distances, dtype=float)
    return Reach.of_options(d, options, words(options), k, 2.0, 3.0, X, gap, RANGES, CATEGORICAL)


def within(r, dist, rows_):
    return r.within(np.asarray(dist, dtype=float), rows_, words(rows_))


def test_unbounded_keeps_every_candidate():
    r = Reach.unbounded(X)
    assert not r.bounded
    assert within(r, [0.0, 1e9, np.inf], rows({0: 50.0}, {1: 0.0}, {3: 2.0})).all()


def test_k_options_bound_every_candidate_at_slack_times_the_kth():
    """Two options asked and archived (0.1 and 0.2): nothing as far as 2 x 0.2 is worth scoring,
    whatever it changes."""
    r = reach([0.1, 0.2], rows({0: 20.0}, {1: 30.0}), k=2)
    assert r.bounded and r.kth == pytest.approx(0.4)
    cands = rows({2: 50.0}, {2: 50.0}, {2: 60.0, 3: 1.0})
    assert within(r, [0.39, 0.4, 0.5], cands).tolist() == [True, False, False]


def test_a_candidate_that_repeats_a_nearer_option_is_bounded_by_it():
    """One option archived (feature 0: 10 -> 20 at 0.1) of k = 5: from 3 x 0.1 on (the repeat
    slack), a candidate that repeats it (changes feature 0 too, within the gap of 20 or farther
    up, plus anything) is out of reach; one that moves feature 0 the other way or leaves it is
    not, however far."""
    r = reach([0.1, np.inf, np.inf, np.inf, np.inf], rows({0: 20.0}), k=5)
    assert r.bounded and r.kth == np.inf
    cands = rows({0: 20.0, 1: 40.0}, {0: 25.0, 1: 40.0}, {0: 60.0, 2: 5.0}, {0: 0.0, 1: 40.0}, {1: 90.0},
                 {0: 20.0, 1: 40.0})  # fmt: skip
    dist = np.array([0.31, 0.4, 0.9, 0.9, 0.9, 0.29])
    assert within(r, dist, cands).tolist() == [False, False, False, True, True, True]


def test_what_reach_rules_out_is_never_picked():
    """Whatever the rows behind them, the picks among options and candidates (best first) are
    the same with and without the candidates reach rules out, where the options all come first
    and every candidate ruled out is farther than the option that rules it out."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = 12
        cand = np.tile(X, (n, 1))
        changed = rng.random((n, 4)) < 0.5
        cand[changed] = rng.choice([0.0, 5.0, 15.0, 20.0, 40.0], size=int(changed.sum()))
        cand[:, 3] = np.where(changed[:, 3], rng.integers(0, 3, n), 0.0)
        dist = np.sort(rng.uniform(0.1, 1.0, n))
        k = int(rng.integers(1, 4))
        order = np.arange(n)
        picks = pick_distinct(cand[order], X, k, GAP, RANGES, CATEGORICAL)
        r = reach(np.pad(dist[picks], (0, k - len(picks)), constant_values=np.inf), cand[picks], k)
        r = Reach(r.kth / 2.0, r.options, r.words, r.bounds / 3.0, X, GAP, RANGES, CATEGORICAL)  # slack 1
        keep = within(r, dist, cand)
        keep[picks] = True  # the options themselves are archived
        again = np.flatnonzero(keep)[pick_distinct(cand[keep], X, k, GAP, RANGES, CATEGORICAL)]
        assert np.array_equal(again, picks)


def test_no_options_and_the_plain_top_k_bound_nothing_but_the_kth():
    assert not reach([np.inf] * 3, rows(), k=3).bounded
    r = reach([0.1, np.inf], rows({0: 20.0}), k=2, gap=0.0)  # nothing repeats in the plain top k
    assert not r.bounded
    r = reach([0.1], rows({0: 20.0}), k=1, gap=0.0)
    assert within(r, [0.19, 0.2], rows({0: 20.0}, {1: 5.0})).tolist() == [True, False]
