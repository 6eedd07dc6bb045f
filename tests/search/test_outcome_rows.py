"""The search's outcome holds its best rows only (``OUTCOME_ROWS``), the rest on demand: every
answer is the one all the rows give, whether the best rows decide it or the answer reads them all
(too few distinct options among them, or a sparse option that may lie beyond them)."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

import geco
import geco.search.loop as loop
from geco.models import one_hot_pipeline


@pytest.fixture(scope="module")
def credit():
    ds = geco.datasets.load_credit()
    X, y = ds.X.iloc[:4000], ds.y.iloc[:4000]
    model = one_hot_pipeline(X, RandomForestClassifier(30, max_depth=8, random_state=0)).fit(X, y)
    explainer = geco.Explainer(model, X, ds.constraints, desired_class=ds.desired_class)
    rows = np.flatnonzero(model.predict_proba(X)[:, 1] < 0.5)[:6]
    return explainer, X, rows


def explain_all(explainer, X, rows, **options):
    return [explainer.explain(X.iloc[[int(r)]], random_state=int(r), **options) for r in rows]


@pytest.mark.parametrize("options", [dict(k=1), dict(k=3), dict(k=5, diversity=0.0), dict(k=2, exact=True)])
def test_the_best_rows_give_the_answer_all_rows_give(credit, monkeypatch, options):
    explainer, X, rows = credit
    everything = explain_all(explainer, X, rows, **options)
    seen = {"whole": 0, "outcomes": 0}
    real_outcome = loop.GeneticSearch.outcome

    def counted(self, *args):
        out = real_outcome(self, *args)
        seen["outcomes"] += 1
        if out.rest is not None:
            rest = out.rest

            def whole():
                seen["whole"] += 1
                return rest()

            out.rest = whole
        return out

    monkeypatch.setattr(loop.GeneticSearch, "outcome", counted)
    monkeypatch.setattr(loop, "OUTCOME_ROWS", 6)  # far fewer than any of these searches keeps
    best_only = explain_all(explainer, X, rows, **options)
    for a, b in zip(everything, best_only):
        assert a.counterfactuals.equals(b.counterfactuals)
        assert (a.outcome, a.bound, a.gap, a.reason) == (b.outcome, b.bound, b.gap, b.reason)
    assert seen["outcomes"] == len(rows)
    if options.get("exact"):
        assert seen["whole"] == len(rows)  # branch and bound reads every row
    elif options["k"] == 5:
        assert seen["whole"] > 0  # five options among six rows: some answers read them all
    elif options["k"] == 1:
        assert seen["whole"] < len(rows)  # some answers are decided by the best rows


def test_an_outcome_within_the_limit_is_whole(credit):
    explainer, X, rows = credit
    problem = explainer.problem(X.iloc[[int(rows[0])]])
    from geco.search import SearchConfig
    from geco.search.start import search

    outcome, _, _ = search(problem, explainer.config, np.random.default_rng(0))
    assert len(outcome.rows) <= loop.OUTCOME_ROWS and outcome.rest is None and outcome.whole() is outcome
    assert isinstance(explainer.config, SearchConfig)


def test_a_sparse_option_beyond_the_best_rows_is_still_found(monkeypatch):
    """The answer trades its last option for a row changing at most three features within
    ``SPARSE_SLACK`` of the first's distance: where such rows may lie beyond the best rows kept,
    it reads them all (eight features move the class together: first options change many)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 10, (1500, 30)), columns=[f"f{i}" for i in range(30)])
    y = (X.iloc[:, :8].sum(axis=1) > 40).astype(int)
    model = RandomForestClassifier(50, max_depth=8, random_state=0).fit(X, y)
    explainer = geco.Explainer(model, X, desired_class=1)
    rows = [0, 1, 4]  # rows of p < 0.3 where the sparse option lies beyond the best three rows
    picked = np.flatnonzero(model.predict_proba(X)[:, 1] < 0.3)[rows]
    everything = explain_all(explainer, X, picked, k=1)
    assert any(cf.n_changed.iloc[0] <= 3 for cf in (e.counterfactuals for e in everything))
    monkeypatch.setattr(loop, "OUTCOME_ROWS", 3)
    for a, b in zip(everything, explain_all(explainer, X, picked, k=1)):
        assert a.counterfactuals.equals(b.counterfactuals)
