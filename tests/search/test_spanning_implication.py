"""An implication whose consequence spans two groups acts like a cross-group rule: the search
repairs candidates breaking it by the tie repair (or drops and counts them), and every answer
satisfies it by the reference evaluator."""

import numpy as np
import pandas as pd
import pytest

import geco
import plaf_grammar
from geco.search.operators import action_cascade, initial_population
from geco.search.start import context

RULE = (
    "if cf.season_points > x.season_points "
    "then cf.career_total >= x.career_total + cf.season_points"
)
NAMES = ["season_points", "career_total", "age"]


def _proba(frame: pd.DataFrame) -> np.ndarray:
    """Desired once a player scores 30 points in the season; the total does not matter."""
    p = np.where(frame["season_points"].to_numpy() >= 30, 0.8, 0.2)
    return np.column_stack([1 - p, p])


@pytest.fixture(scope="module")
def players():
    """Season points and career totals drawn independently, x far below the threshold."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame(
        {
            "season_points": rng.integers(0, 51, 2000),
            "career_total": rng.integers(0, 301, 2000),
            "age": rng.integers(18, 40, 2000),
        }
    )
    x = pd.DataFrame([[10, 100, 25]], columns=NAMES)
    return X, x


def test_the_rule_is_accepted_and_placed_as_a_candidate_level_rule(players):
    X, x = players
    checked = plaf_grammar.load(RULE, X)
    assert not checked.analysis.implications  # not in the cascade
    grounded = checked.ground(x.iloc[0])
    assert len(grounded.cross_rules) == 1 and not grounded.implications


def test_the_rule_matters_and_every_answer_satisfies_it(players):
    X, x = players
    free = geco.Explainer(_proba, X).explain(x, k=5, random_state=0)
    assert free.success and (free.counterfactuals["career_total"] < 130).any()  # breaks it
    explainer = geco.Explainer(_proba, X, RULE)
    for seed in range(3):
        result = explainer.explain(x, k=5, random_state=seed)
        assert result.success, result.reason
        cfs = result.counterfactuals
        best = cfs.iloc[0]
        assert (best["season_points"], best["career_total"], best["age"]) == (30, 130, 25)
        for _, row in cfs.iterrows():
            cf = {n: row[n] for n in NAMES}
            assert plaf_grammar.holds(explainer.program, x.iloc[0].to_dict(), cf)
            assert cf["career_total"] >= 100 + cf["season_points"]


def test_the_cascade_repairs_by_redrawing_the_other_group(players):
    """Raising the season alone breaks the rule: the tie repair redraws the career total."""
    X, x = players
    problem = geco.Explainer(_proba, X, RULE).problem(x)
    ctx = context(problem, np.random.default_rng(0))
    assert [list(t.groups) for t in ctx.ties] == [[0, 1]]
    cands = action_cascade(ctx, initial_population(ctx, 20))
    assert problem.satisfies(cands.rows).all()
    raised = cands.rows[:, 0] > 10
    assert raised.any() and cands.changed[raised, 1].all()


def test_candidates_no_value_repairs_are_dropped_and_counted():
    """Career totals in the data never exceed 120: a season above 20 cannot be repaired."""
    rng = np.random.default_rng(5)
    X = pd.DataFrame(
        {
            "season_points": rng.integers(0, 51, 500),
            "career_total": rng.integers(0, 121, 500),
            "age": rng.integers(18, 40, 500),
        }
    )
    x = pd.DataFrame([[10, 100, 25]], columns=NAMES)
    problem = geco.Explainer(_proba, X, RULE).problem(x)
    ctx = context(problem, np.random.default_rng(0))
    cands = action_cascade(ctx, initial_population(ctx, 30))
    assert problem.satisfies(cands.rows).all()
    assert ctx.rejected.get(("cross", 0), 0) > 0
    assert (cands.rows[:, 0] <= 20).all()
