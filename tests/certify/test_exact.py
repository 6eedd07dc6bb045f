"""Exact mode (``explain(exact=True)``, :mod:`geco.search.exact`) against exhaustive enumeration:
on small random problems its first counterfactual is at the closest allowed counterfactual's
distance with gap 0.0, it proves "none" exactly when the enumeration finds none, every answer
satisfies the program, and a node budget too small to finish leaves a valid best with gap > 0."""

import warnings

import numpy as np
import pytest

import geco
from geco.search.exact import ExactBudget, exact_search


def _explainer(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return geco.Explainer(case.model, case.X, case.program, desired_class=1, engine="auto")


def _undesired(explainer, case, n):
    p = explainer.setting.model_proba(explainer.table.take(slice(None)))
    return [int(r) for r in np.flatnonzero(p <= 0.5)[:n]]


def _encoded(explainer, result):
    return explainer.schema.encode(result.counterfactuals[list(explainer.schema.names)].iloc[:1])


@pytest.mark.parametrize("seed", range(24))
def test_exact_equals_enumeration(bench, seed):
    case = bench.random_case(1000 + seed)
    explainer = _explainer(case)
    checked = 0
    for row in _undesired(explainer, case, 3):
        x = case.X.iloc[[row]]
        problem = explainer.problem(x)
        rows = bench.enumerate_allowed(problem)
        if rows is None:
            continue
        p = problem.model_proba(rows) if len(rows) else np.empty(0)
        result = explainer.explain(x, random_state=0, exact=True, k=2)
        checked += 1
        if (p > 0.5).any():
            optimum = float(problem.distances(rows[p > 0.5]).min())
            assert result.outcome == "found"
            assert result.gap == 0.0
            assert result.counterfactuals["distance"].iloc[0] == pytest.approx(
                optimum, rel=1e-9, abs=1e-12
            )
            first = _encoded(explainer, result)
            assert problem.satisfies(first).all()
            assert (problem.model_proba(first) > 0.5).all()
        else:
            assert result.outcome == "proven_none"
            assert result.bound is not None and result.bound >= p.max(initial=0.0)
    assert checked or seed % 5  # most cases have an enumerable instance


def test_exact_search_without_incumbent_finds_the_optimum(bench):
    """Branch and bound alone (no heuristic incumbent) reaches the enumeration's optimum."""
    hits = 0
    for seed in range(40):
        case = bench.random_case(2000 + seed)
        explainer = _explainer(case)
        for row in _undesired(explainer, case, 2):
            problem = explainer.problem(case.X.iloc[[row]])
            rows = bench.enumerate_allowed(problem)
            if rows is None or not len(rows):
                continue
            p = problem.model_proba(rows)
            found = exact_search(problem, explainer.target, 0.5)
            assert found.proven and found.stop == "optimal"
            if (p > 0.5).any():
                hits += 1
                optimum = problem.distance(np.arange(len(problem.x)), rows[p > 0.5]).min()
                assert found.distance == pytest.approx(optimum, rel=1e-9, abs=1e-12)
                assert problem.satisfies(found.row[None]).all()
            else:
                assert found.row is None and found.reach >= p.max()
    assert hits >= 10


def test_node_budget_leaves_a_valid_best_and_a_gap(bench):
    """One node of budget: the root only (no set of groups enumerated): a heuristic incumbent
    is kept with gap > 0, the counterfactual still valid."""
    seen = 0
    for seed in range(60):
        if seen >= 4:
            break
        case = bench.random_case(3000 + seed)
        explainer = _explainer(case)
        for row in _undesired(explainer, case, 2):
            x = case.X.iloc[[row]]
            full = explainer.explain(x, random_state=0, exact=True)
            if full.outcome != "found" or full.stats["exact"]["nodes"] < 3:
                continue
            cut = explainer.explain(x, random_state=0, exact=ExactBudget(nodes=1))
            if cut.outcome != "found":
                continue
            seen += 1
            assert cut.stats["exact"]["stop"] == "nodes"
            assert cut.gap is not None and 0.0 < cut.gap <= 1.0
            assert "node budget" in cut.reason
            first = _encoded(explainer, cut)
            problem = explainer.problem(x)
            assert problem.satisfies(first).all() and (problem.model_proba(first) > 0.5).all()
            assert (
                cut.counterfactuals["distance"].iloc[0]
                >= full.counterfactuals["distance"].iloc[0] - 1e-12
            )
            # the gap is honest: the optimum lies within it
            lo = cut.counterfactuals["distance"].iloc[0] * (1 - cut.gap)
            assert full.counterfactuals["distance"].iloc[0] >= lo - 1e-12
    assert seen >= 3


def test_bad_exact_argument():
    data = geco.datasets.load_credit()
    from sklearn.tree import DecisionTreeClassifier

    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(data.X, data.y)
    explainer = geco.Explainer(model, data.X, data.constraints)
    with pytest.raises(TypeError, match="exact must be"):
        explainer.explain(data.X.iloc[[0]], exact="yes")
    with pytest.raises(ValueError, match="ExactBudget.nodes"):
        ExactBudget(nodes=0)


def test_time_budget_leaves_a_valid_best_and_a_gap(bench):
    """No time at all: the search's best is kept, valid, with an honest gap > 0."""
    seen = 0
    for seed in range(60):
        if seen >= 4:
            break
        case = bench.random_case(3000 + seed)
        explainer = _explainer(case)
        for row in _undesired(explainer, case, 2):
            x = case.X.iloc[[row]]
            full = explainer.explain(x, random_state=0, exact=True)
            if full.outcome != "found" or full.stats["exact"]["nodes"] < 3:
                continue
            cut = explainer.explain(x, random_state=0, exact=ExactBudget(seconds=1e-9))
            if cut.outcome != "found":
                continue
            seen += 1
            assert cut.stats["exact"]["stop"] == "time" and "time budget" in cut.reason
            assert cut.gap is not None and 0.0 < cut.gap <= 1.0
            first = _encoded(explainer, cut)
            problem = explainer.problem(x)
            assert problem.satisfies(first).all() and (problem.model_proba(first) > 0.5).all()
            lo = cut.counterfactuals["distance"].iloc[0] * (1 - cut.gap)
            assert full.counterfactuals["distance"].iloc[0] >= lo - 1e-12
    assert seen >= 3
