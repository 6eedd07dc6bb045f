"""A sparse answer is shown among the options when every option is dense and it is nearly as
near (geco.answers.with_sparse_option)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

import geco
from geco.answers import SPARSE_FEATURES, SPARSE_SLACK, with_sparse_option


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 21, (300, 8)).astype(float), columns=[f"f{i}" for i in range(8)])
    y = (X.sum(axis=1) > 80).astype(int)
    explainer = geco.Explainer(LogisticRegression(max_iter=500).fit(X, y), X, desired_class=1)
    return explainer.problem(pd.DataFrame([[10.0] * 8], columns=X.columns))


def _rows(problem, changes):
    rows = np.repeat(problem.x[None, :], len(changes), axis=0)
    for i, ch in enumerate(changes):
        for j, v in ch.items():
            rows[i, j] = v
    order = np.argsort(problem.distances(rows), kind="stable")
    return rows[order]


def test_the_nearest_sparse_row_within_the_slack_takes_the_last_place(problem):
    dense = [{0: 12, 1: 12, 2: 12, 3: 12 + i} for i in range(5)]  # 4 features each
    sparse_far = {4: 10 + 20, 5: 10 + 20}  # 2 features, far
    rows = _rows(problem, [*dense, {4: 13, 5: 13}, sparse_far])
    n_changed = (rows != problem.x).sum(axis=1)
    dist = problem.distances(rows)
    sparse_rows = np.flatnonzero(n_changed <= SPARSE_FEATURES)
    assert dist[sparse_rows].min() <= SPARSE_SLACK * dist[0]  # the case is the one meant
    dense_rows = np.flatnonzero(n_changed > SPARSE_FEATURES)
    sel = dense_rows[:5]
    out = with_sparse_option(problem, rows, sel, 5)
    nearest_sparse = sparse_rows[np.argmin(dist[sparse_rows])]
    assert len(out) == 5 and nearest_sparse in out and sel[-1] not in out
    assert np.all(np.diff(out) > 0)  # best first
    assert list(out[out != nearest_sparse]) == list(sel[:-1])
    # fewer options than k: the sparse one is added, nothing dropped
    short = with_sparse_option(problem, rows, sel[:2], 5)
    assert set(short) == {*sel[:2], nearest_sparse}


def test_options_are_kept_when_one_is_sparse_or_no_sparse_row_is_near(problem):
    rows = _rows(problem, [{0: 12, 1: 12, 2: 12, 3: 12}, {0: 13, 1: 12, 2: 12, 3: 12}, {4: 10 + 20, 5: 10 + 20}])
    n_changed = (rows != problem.x).sum(axis=1)
    dist = problem.distances(rows)
    far = np.flatnonzero(n_changed <= SPARSE_FEATURES)
    assert dist[far].min() > SPARSE_SLACK * dist[0]
    dense = np.flatnonzero(n_changed > SPARSE_FEATURES)
    assert np.array_equal(with_sparse_option(problem, rows, dense, 2), dense)
    assert np.array_equal(with_sparse_option(problem, rows, np.array([0, far[0]]), 2), np.array([0, far[0]]))
    assert len(with_sparse_option(problem, rows, np.empty(0, dtype=np.intp), 2)) == 0
