"""Groups tied by a cross-group rule move together: a three-group answer, two of its groups tied
by ``abs(cf.a - cf.b) <= eps``, is found at the brute-force optimum for every random_state, and
the operators' repairs keep the tie."""

import numpy as np
import pandas as pd
import pytest

import geco
import plaf_grammar
from geco.problem.distance import DistanceSpec
from geco.search.operators import action_cascade, initial_population
from geco.search.start import context

RULE = "abs(cf.a - cf.b) <= 0.011"
GRID = np.round(np.arange(0, 1.0001, 0.02), 2)


def _proba(frame: pd.DataFrame) -> np.ndarray:
    """Desired only when a, b and c all pass their step; each step alone shows in p."""
    a, b, c = (frame[n].to_numpy() for n in "abc")
    p = 0.1 + 0.2 * (a >= 0.7) + 0.2 * (b >= 0.7) + 0.2 * (c >= 0.6)
    return np.column_stack([1 - p, p])


@pytest.fixture(scope="module")
def tied():
    """Independent columns on a 0.02 grid; no data row is desired and satisfies the tie (the
    seeds cannot hand the answer over)."""
    rng = np.random.default_rng(7)
    X = pd.DataFrame(rng.choice(GRID, size=(3000, 5)), columns=list("abcde"))
    desired_and_tied = (X.a >= 0.7) & (X.b >= 0.7) & (X.c >= 0.6) & ((X.a - X.b).abs() <= 0.011)
    X = X[~desired_and_tied].reset_index(drop=True)
    x = pd.DataFrame([[0.3, 0.3, 0.3, 0.5, 0.5]], columns=list("abcde"))
    return X, x


def _brute_force(X: pd.DataFrame, x: pd.DataFrame) -> float:
    """The nearest counterfactual over every (a, b, c) of the data's values that keeps the tie (d
    and e, which the model ignores, stay at x)."""
    xv = x.to_numpy(dtype=float)[0]
    ranges = np.ptp(X.to_numpy(dtype=float), axis=0)
    spec = DistanceSpec(xv, ranges, np.zeros(5, dtype=bool))
    a, b, c = (g.ravel() for g in np.meshgrid(*(np.unique(X[n]) for n in "abc"), indexing="ij"))
    rows = pd.DataFrame(np.tile(xv, (len(a), 1)), columns=list("abcde"))
    rows["a"], rows["b"], rows["c"] = a, b, c
    ok = (np.abs(a - b) <= 0.011) & (_proba(rows)[:, 1] > 0.5)
    return float(spec(np.arange(5), rows.to_numpy()[ok]).min())


@pytest.mark.parametrize("random_state", range(5))
def test_tied_groups_reach_the_brute_force_optimum(tied, random_state):
    X, x = tied
    optimum = _brute_force(X, x)
    result = geco.Explainer(_proba, X, RULE).explain(x, random_state=random_state)
    assert result.success, result.reason
    best = result.counterfactuals.iloc[0]
    assert abs(best["a"] - best["b"]) <= 0.011
    assert best["distance"] == pytest.approx(optimum, rel=1e-9)


def test_moving_one_tied_group_redraws_its_partner(tied):
    """Each group changed alone: a or b alone breaks the rule, so its partner is redrawn to a
    value that keeps it (before, the cascade dropped every such candidate)."""
    X, x = tied
    explainer = geco.Explainer(_proba, X, RULE)
    problem = explainer.problem(x)
    ctx = context(problem, np.random.default_rng(0))
    assert [list(t.groups) for t in ctx.ties] == [[0, 1]]
    cands = action_cascade(ctx, initial_population(ctx, 20))
    assert problem.satisfies(cands.rows).all()
    assert ctx.rejected.get(("cross", 0), 0) == 0
    for g, partner in ((0, 1), (1, 0)):
        moved = cands.changed[:, g]
        assert moved.sum() >= 20 and cands.changed[moved, partner].all()  # never one without the other
    for row in cands.rows[:5]:
        cf = dict(zip("abcde", row))
        assert plaf_grammar.holds(explainer.program, x.iloc[0].to_dict(), cf)


def test_a_search_that_finds_nothing_claims_no_more_than_it_tried(tied):
    """A model the search does not flip within its budget: the reason says none was found within
    the budget, not that none exists."""
    X, x = tied

    def capped(frame):
        p = 0.1 + 0.3 * (frame["a"].to_numpy() >= 0.9)
        return np.column_stack([1 - p, p])

    result = geco.Explainer(capped, X, RULE).explain(x, random_state=0, max_generations=5)
    assert not result.success
    assert result.reason.startswith("none found within the search's budget: no candidate it tried within")
    assert "never" not in result.reason
