"""The search's outcome holds its best rows only (``OUTCOME_ROWS``), more on demand: every
answer is the one all the rows give, whether the best rows decide it or the answer reads more of
them (too few distinct options among them, or a sparse option that may lie beyond them)."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

import geco
import geco.search.loop as loop
from geco.models import one_hot_pipeline
from geco.search.config import SearchOutcome


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


def counting_reads(monkeypatch):
    """Which outcomes an answer read more rows of ("more") and every row of ("whole"), each
    outcome once however many times it was widened; and how many outcomes searches made. Keyed
    by the id of the outcome's rows left out, which are kept (a freed one's id could be reused)."""
    seen = {"more": {}, "whole": {}, "outcomes": 0}
    real_outcome, widened, whole = loop.GeneticSearch.outcome, SearchOutcome.widened, SearchOutcome.whole

    def counted_outcome(self, *args):
        seen["outcomes"] += 1
        return real_outcome(self, *args)

    def counted_widened(self, m):
        out = widened(self, m)
        if self.rest is not None:
            seen["more"][id(self.rest)] = self.rest
            if out.rest is None:
                seen["whole"][id(self.rest)] = self.rest
        return out

    def counted_whole(self):
        if self.rest is not None:
            seen["more"][id(self.rest)] = seen["whole"][id(self.rest)] = self.rest
        return whole(self)

    monkeypatch.setattr(loop.GeneticSearch, "outcome", counted_outcome)
    monkeypatch.setattr(SearchOutcome, "widened", counted_widened)
    monkeypatch.setattr(SearchOutcome, "whole", counted_whole)
    return seen


@pytest.mark.parametrize("options", [dict(k=1), dict(k=3), dict(k=5, diversity=0.0), dict(k=2, exact=True)])
def test_the_best_rows_give_the_answer_all_rows_give(credit, monkeypatch, options):
    explainer, X, rows = credit
    everything = explain_all(explainer, X, rows, **options)
    seen = counting_reads(monkeypatch)
    monkeypatch.setattr(loop, "OUTCOME_ROWS", 6)  # far fewer than any of these searches keeps
    best_only = explain_all(explainer, X, rows, **options)
    for a, b in zip(everything, best_only):
        assert a.counterfactuals.equals(b.counterfactuals)
        assert (a.outcome, a.bound, a.gap, a.reason) == (b.outcome, b.bound, b.gap, b.reason)
    assert seen["outcomes"] == len(rows)
    if options.get("exact"):
        assert len(seen["whole"]) == len(rows)  # branch and bound reads every row
    elif options["k"] == 5:
        assert len(seen["more"]) > 0  # five options among six rows: some answers read more
    elif options["k"] == 1:
        assert len(seen["more"]) < len(rows)  # some answers are decided by the best rows


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
    it reads those (eight features move the class together: first options change many)."""
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
    seen = counting_reads(monkeypatch)
    monkeypatch.setattr(loop, "OUTCOME_ROWS", 3)
    for a, b in zip(everything, explain_all(explainer, X, picked, k=1)):
        assert a.counterfactuals.equals(b.counterfactuals)
    # each answer read the rows a sparse option may be taken from, not every row (on wide data
    # every row whole is most of the memory an explanation takes)
    assert len(seen["more"]) == len(picked) and not seen["whole"]
