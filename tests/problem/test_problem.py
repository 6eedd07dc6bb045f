"""The per-instance problem object: what explain, the baselines and the diagnosis all start from."""

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

import geco
import plaf_grammar
from geco.baselines import WIT
from geco.batch import failed_explanation
from geco.models import one_hot_pipeline


@pytest.fixture(scope="module")
def adult():
    ds = geco.datasets.load_adult()
    X, y = ds.X.iloc[:6000], ds.y.iloc[:6000]
    model = one_hot_pipeline(X, RandomForestClassifier(20, max_depth=6, random_state=0, n_jobs=1)).fit(X, y)
    explainer = geco.Explainer(model, X, ds.constraints, ds.desired_class)
    col = list(model.classes_).index(ds.desired_class)
    p = model.predict_proba(X.iloc[:400])[:, col]
    return ds, X, model, explainer, col, np.flatnonzero(p <= 0.5), np.flatnonzero(p > 0.5)


def test_problem_holds_x_its_rules_and_its_feasible_values(adult):
    _, X, model, explainer, col, bad, _ = adult
    x = X.iloc[[int(bad[0])]]
    problem = explainer.problem(x)
    np.testing.assert_array_equal(problem.x, explainer.schema.encode(x)[0])
    assert problem.probability == pytest.approx(model.predict_proba(x)[0, col], abs=0)
    for space, domain in zip(problem.spaces, explainer.domains):
        own = problem.x[space.features]
        assert not np.any(np.all(space.values == own, axis=1)), "x's own tuple is never a move"
        assert np.all(np.diff(space.distance) >= 0), "values sorted by distance"
        # every feasible tuple occurs in the data, with its count as weight
        for v, w in zip(space.values[:20], space.weights[:20]):
            hit = np.all(domain.values == v, axis=1)
            assert hit.sum() == 1 and domain.counts[hit][0] == w
    # satisfies() agrees with the independent reference evaluator on rows near and far from x
    rows = np.vstack([explainer.data[:40], np.repeat(problem.x[None], 5, axis=0)])
    rows[40:, explainer.schema.index("age")] += np.arange(-2, 3)
    frames = explainer.schema.decode(rows)
    expected = [plaf_grammar.holds(explainer.program, problem.frame, frames.iloc[[i]]) for i in range(len(rows))]
    np.testing.assert_array_equal(problem.satisfies(rows), expected)
    assert problem.satisfies(problem.x[None])[0], "x itself satisfies the rules on x"


def test_problem_scores_with_the_models_own_numbers(adult):
    _, X, model, explainer, col, bad, _ = adult
    problem = explainer.problem(X.iloc[[int(bad[1])]])
    rows = explainer.data[:300]
    own = model.predict_proba(explainer.schema.decode(rows))[:, col]
    np.testing.assert_array_equal(problem.model_proba(rows), own)
    assert explainer.scorer.compiled and explainer.scorer.exact
    np.testing.assert_array_equal(problem.score_rows(rows), own)
    d = problem.distances(rows)
    assert d.shape == (300,) and np.all(d >= 0)
    assert problem.distances(problem.x[None])[0] == 0


def test_explain_and_a_baseline_share_the_problem(adult):
    ds, X, model, explainer, _, bad, _ = adult
    x = X.iloc[[int(bad[2])]]
    result = explainer.explain(x, random_state=0)
    problem = explainer.problem(x)
    cf = explainer.schema.encode(result.counterfactuals[list(X.columns)])
    np.testing.assert_array_equal(result.counterfactuals["distance"], problem.distances(cf))
    assert problem.satisfies(cf).all()
    wit = WIT(model, X, ds.constraints, ds.desired_class).explain(x, random_state=0)
    wit_rows = explainer.schema.encode(wit.counterfactuals[list(X.columns)])
    np.testing.assert_array_equal(wit.counterfactuals["distance"], problem.distances(wit_rows))


def test_every_empty_answer_has_the_same_table(adult):
    _, X, _, explainer, _, bad, good = adult
    already = explainer.explain(X.iloc[[int(good[0])]])
    failed = failed_explanation(explainer, X.iloc[[int(bad[0])]], ValueError("boom"))
    found = explainer.explain(X.iloc[[int(bad[0])]], random_state=1)
    assert not already.success and "already classified" in already.reason
    assert not failed.success and "boom" in failed.reason
    for empty in (already, failed):
        assert len(empty.counterfactuals) == 0
        pd.testing.assert_series_equal(empty.counterfactuals.dtypes, found.counterfactuals.dtypes)
    assert found.counterfactuals["counterfactual"].dtype == bool
