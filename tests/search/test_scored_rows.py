"""The rows a compiled search has scored (geco.search.scored_rows): the table against a dict, and
a search that scores no row twice yet explains as the numpy search does."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from sum_problem import NO_REQUIRED, SumScorer, X, make_search

from geco.search import loop, run_search
from geco.search.compiled import load_kernels
from geco.search.scored_rows import ScoredRows


def test_the_table_holds_what_a_dict_holds():
    """Hashes that share their low bits (multiples of 2^40), 0, repeats with new numbers, and
    enough of them to double the table twice."""
    rng = np.random.default_rng(5)
    table, want = ScoredRows(load_kernels(), capacity=16), {}
    pool = np.concatenate([rng.integers(0, 2**63, 300, dtype=np.uint64), np.arange(40, dtype=np.uint64) << np.uint64(40),
                           np.zeros(1, dtype=np.uint64)])  # fmt: skip
    for _ in range(12):
        hashes = np.unique(rng.choice(pool, size=60))
        probs = rng.random(len(hashes))
        known, got = table.find(hashes)
        assert known.tolist() == [int(h) in want for h in hashes]
        assert np.array_equal(got[known], [want[int(h)] for h in hashes[known]])
        assert np.isnan(got[~known]).all()
        table.add(hashes, probs)
        want.update(zip(hashes.tolist(), probs.tolist()))
        assert len(table) == len(want) and 2 * len(table) <= len(table.keys)
    assert len(table.keys) >= 256


class CountingScorer(SumScorer):
    """SumScorer that remembers every full row it scored."""

    def __init__(self, x):
        super().__init__(x)
        self.rows: list[tuple[float, ...]] = []

    def score_block(self, delta, columns):
        rows = np.tile(self.x, (len(columns), 1))
        rows[:, list(delta)] = columns
        self.rows += [tuple(r) for r in rows.tolist()]
        return super().score_block(delta, columns)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_compiled_search_scores_no_row_twice_and_finds_the_same(seed, monkeypatch):
    monkeypatch.setattr(loop, "REUSE_MIN_ROW_SECONDS", 0.0)  # this scorer is fast
    outcomes, scorers = {}, {}
    for native in (False, True):
        search = make_search(seed, native=native, k=3)
        scorers[native] = CountingScorer(X)
        outcomes[native] = run_search(search.ctx, scorers[native], search.dist_spec, search.config, NO_REQUIRED)
        if native:
            assert search.scored is not None
    reference, compiled = outcomes[False], outcomes[True]
    for field in ("rows", "prob", "dist", "score", "generations", "candidates_scored"):
        assert np.array_equal(np.asarray(getattr(reference, field)), np.asarray(getattr(compiled, field))), field
    once, again = scorers[True].rows, scorers[False].rows
    assert len(set(once)) == len(once)  # none scored twice
    assert len(set(again)) < len(again)  # the numpy search scores some rows again
    assert set(once) == set(again)


def test_an_engine_faster_than_the_reuse_threshold_keeps_no_rows(monkeypatch):
    """Priced on the first scoring below REUSE_MIN_ROW_SECONDS a row, the search keeps no
    scored rows (the engine scores the repeats again, as the numpy search does) and finds the
    same."""
    monkeypatch.setattr(loop, "REUSE_MIN_ROW_SECONDS", float("inf"))
    search = make_search(0, native=True, k=3)
    scorer = CountingScorer(X)
    compiled = run_search(search.ctx, scorer, search.dist_spec, search.config, NO_REQUIRED)
    reference = make_search(0, native=False, k=3)
    want = run_search(reference.ctx, SumScorer(X), reference.dist_spec, reference.config, NO_REQUIRED)
    assert compiled.rows_reused == 0 and len(set(scorer.rows)) < len(scorer.rows)
    assert np.array_equal(compiled.rows, want.rows) and np.array_equal(compiled.prob, want.prob)
