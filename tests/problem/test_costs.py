"""Costs in the distance: every way of computing it prices changes alike, a program without
``cost`` keeps the unpriced numbers, and a priced search finds the cost-weighted optimum that
brute force over the feasible values finds."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import geco
from geco.problem.distance import DistanceSpec
from plaf_grammar import FeatureCosts, load

WEIGHTS = [(0.25, 0.25, 0.25, 0.25), (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (0.1, 0.7, 0, 0.2)]


def naive_distance(x, rows, ranges, categorical, weights, up, down):
    """The documented semantics, written out: priced normalised differences, l0 counting costs."""
    raw = np.where(categorical, rows != x, np.abs(rows - x) / ranges)
    cost = np.where(rows > x, up, down)
    priced = raw * cost
    n = len(x)
    w0, w1, w2, w3 = weights
    return (
        w0 * np.where(raw != 0, cost, 0.0).sum(axis=1) / n
        + w1 * priced.sum(axis=1) / n
        + w2 * np.sqrt((priced**2).sum(axis=1) / n)
        + w3 * priced.max(axis=1)
    )


def random_case(rng, d):
    x = rng.integers(0, 5, d).astype(float)
    categorical = rng.random(d) < 0.3
    prices = np.array([0.0, 0.5, 1.0, 2.0, 10.0])
    up = np.where(rng.random(d) < 0.3, 1.0, rng.choice(prices, d))
    down = np.where(categorical | (rng.random(d) < 0.4), up, rng.choice(prices, d))
    costs = FeatureCosts(tuple(f"f{j}" for j in range(d)), tuple(up), tuple(down))
    ranges = rng.random(d) * 3 + 0.5
    rows = np.repeat(x[None], 40, axis=0)
    mask = rng.random(rows.shape) < 0.4
    rows[mask] = rng.integers(0, 5, int(mask.sum()))
    return x, categorical, ranges, costs, rows, mask, up, down


@pytest.mark.parametrize("weights", WEIGHTS)
def test_every_path_prices_alike_and_as_documented(weights):
    rng = np.random.default_rng(7)
    for _ in range(60):
        d = int(rng.integers(1, 10))
        x, categorical, ranges, costs, rows, mask, up, down = random_case(rng, d)
        spec = DistanceSpec(x, ranges, categorical, weights, costs)
        assert spec.priced == (not costs.is_uniform)
        whole = spec(np.arange(d), rows)
        r, _, _, diff = spec.cells(rows, mask)
        np.testing.assert_array_equal(spec.of_cells(r, diff, len(rows)), whole)  # byte for byte
        np.testing.assert_array_equal(spec.combine(spec.per_feature(np.arange(d), rows)), whole)
        np.testing.assert_allclose(whole, naive_distance(x, rows, ranges, categorical, weights, up, down), rtol=1e-12)
        # a column subset of the same rows: x's value elsewhere
        cols = np.flatnonzero(rng.random(d) < 0.6)
        if len(cols):
            full = np.repeat(x[None], len(rows), axis=0)
            full[:, cols] = rows[:, cols]
            np.testing.assert_array_equal(spec(cols, rows[:, cols]), spec(np.arange(d), full))


def test_cost_one_everywhere_is_the_unpriced_distance_exactly():
    rng = np.random.default_rng(3)
    for weights in WEIGHTS:
        x, categorical, ranges, _, rows, mask, _, _ = random_case(rng, 8)
        plain = DistanceSpec(x, ranges, categorical, weights)
        ones = DistanceSpec(x, ranges, categorical, weights, FeatureCosts.uniform(tuple(map(str, range(8)))))
        assert not plain.priced and not ones.priced
        np.testing.assert_array_equal(ones(np.arange(8), rows), plain(np.arange(8), rows))
        r, _, _, diff = ones.cells(rows, mask)
        assert diff.ndim == 1  # the unpriced code path
        np.testing.assert_array_equal(ones.of_cells(r, diff, len(rows)), plain.of_cells(r, diff, len(rows)))


def test_direction_decides_the_price():
    x = np.array([2.0, 2.0])
    spec = DistanceSpec(x, np.array([4.0, 4.0]), np.zeros(2, bool), (0, 1, 0, 0),
                        FeatureCosts(("a", "b"), (3.0, 1.0), (1.0, 0.5)))  # fmt: skip
    rows = np.array([[4.0, 2.0], [0.0, 2.0], [2.0, 4.0], [2.0, 0.0], [2.0, 2.0]])
    np.testing.assert_allclose(spec(np.arange(2), rows), [3 * 0.5 / 2, 0.5 / 2, 0.5 / 2, 0.5 * 0.5 / 2, 0.0])


def test_zero_cost_makes_a_change_free_in_every_norm():
    x = np.array([0.0, 0.0])
    spec = DistanceSpec(x, np.ones(2), np.zeros(2, bool), (0.25, 0.25, 0.25, 0.25),
                        FeatureCosts(("a", "b"), (0.0, 1.0), (0.0, 1.0)))  # fmt: skip
    rows = np.array([[1.0, 0.0], [1.0, 1.0]])
    free, one = spec(np.arange(2), rows)
    assert free == 0.0
    assert one == DistanceSpec(x, np.ones(2), np.zeros(2, bool))(np.array([1]), rows[1:, 1:])[0]


# ------------------------------------------------------------------------------ search vs brute force
VALUES = np.arange(5.0)
FEATURES = ["a", "b", "c", "d"]


class Rule:
    """P(desired) = 0.9 where ``a >= a_min`` or ``b >= b_min`` or ``a <= a_low``, else lower the
    farther from it (a slope the search can climb)."""

    classes_ = np.array([0, 1])

    def __init__(self, a_min=2.0, b_min=3.0, a_low=-1.0):
        self.a_min, self.b_min, self.a_low = a_min, b_min, a_low

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        a, b = X["a"].to_numpy(float), X["b"].to_numpy(float)
        hit = (a >= self.a_min) | (b >= self.b_min) | (a <= self.a_low)
        p = np.where(hit, 0.9, 0.4 - 0.02 * (np.abs(a - 2) + np.abs(b - 2)))
        return np.column_stack([1 - p, p])


@pytest.fixture(scope="module")
def grid() -> pd.DataFrame:
    """Every combination of the values: the feasible values of each feature are all of them."""
    return pd.DataFrame(list(itertools.product(VALUES, repeat=4)), columns=FEATURES)


def brute_force(explainer: geco.Explainer, x: pd.DataFrame) -> tuple[float, np.ndarray]:
    """The true optimum: the least priced distance over every row of the feasible values the
    program admits and the model scores as desired (distances by the documented formula)."""
    program = explainer.program
    problem = explainer.problem(x)
    rows = np.array(list(itertools.product(VALUES, repeat=4)))
    ok = problem.satisfies(rows) & (problem.model_proba(rows) > 0.5)
    c = program.costs
    dist = naive_distance(problem.x, rows[ok], explainer.ranges, explainer.categorical,
                          explainer.config.norm_weights, np.array(c.up), np.array(c.down))  # fmt: skip
    best = np.argmin(dist)
    return float(dist[best]), rows[ok][best]


@pytest.mark.parametrize(
    "plaf, changed",
    [
        ("", {"a"}),  # a -> 2 is the nearest change
        ("cost a 10", {"b"}),  # priced 10x, a moves only if nothing cheaper works: b -> 3
        ("cost a 3\ncost b 2.5", {"a"}),  # both priced: the cheaper by priced distance
        ("cost a 2\ncost b 1.2", {"b"}),
        ("cost up a 10\ncost b 10", {"a"}),  # a's raise is dear, but b's is dearer
        ("cost c, d 0\ncost a 10", {"b"}),  # free features change nothing the model reads
    ],
)
def test_a_priced_feature_changes_only_when_nothing_cheaper_works(grid, plaf, changed):
    explainer = geco.Explainer(Rule(), grid, plaf or None, engine="blackbox", diversity=0)
    x = pd.DataFrame([[0.0, 0.0, 0.0, 0.0]], columns=FEATURES)
    result = explainer.explain(x, random_state=0)
    assert result.success
    best = result.counterfactuals.iloc[0]
    assert {f for f in FEATURES if best[f] != 0.0} == changed
    optimum, row = brute_force(explainer, x)
    assert best["distance"] == pytest.approx(optimum, rel=1e-12)
    np.testing.assert_array_equal(best[FEATURES].to_numpy(float), row)


@pytest.mark.parametrize("plaf, to", [("cost up a 3", 0.0), ("cost down a 3", 4.0), ("", None)])
def test_the_direction_a_feature_moves_in_has_its_own_price(grid, plaf, to):
    model = Rule(a_min=4.0, b_min=9.0, a_low=0.0)  # a must go to 4 or to 0: equally far from 2
    explainer = geco.Explainer(model, grid, plaf or None, engine="blackbox", diversity=0)
    x = pd.DataFrame([[2.0, 2.0, 2.0, 2.0]], columns=FEATURES)
    result = explainer.explain(x, random_state=0)
    optimum, row = brute_force(explainer, x)
    best = result.counterfactuals.iloc[0]
    assert best["distance"] == pytest.approx(optimum, rel=1e-12)
    if to is not None:
        assert best["a"] == to == row[0]


def test_random_prices_reach_the_brute_force_optimum(grid):
    rng = np.random.default_rng(11)
    prices = [0.5, 1, 2, 4, 10]
    x = pd.DataFrame([[1.0, 1.0, 3.0, 0.0]], columns=FEATURES)
    for trial in range(6):
        lines = [f"cost {d} {f} {rng.choice(prices)}" for f in FEATURES for d in ("up", "down")]
        explainer = geco.Explainer(Rule(a_min=3.0, b_min=3.0, a_low=0.0), grid, "\n".join(lines),
                                   engine="blackbox", diversity=0)  # fmt: skip
        result = explainer.explain(x, random_state=trial)
        optimum, _ = brute_force(explainer, x)
        assert result.counterfactuals.iloc[0]["distance"] == pytest.approx(optimum, rel=1e-12), lines


def test_feasible_spaces_are_sorted_by_the_priced_distance(grid):
    explainer = geco.Explainer(Rule(), grid, "cost up a 10\ncost down b 0.5", engine="blackbox")
    problem = explainer.problem(pd.DataFrame([[2.0, 2.0, 0.0, 0.0]], columns=FEATURES))
    assert problem.distance.priced
    for space in problem.spaces:
        assert np.all(np.diff(space.distance) >= 0)
        np.testing.assert_array_equal(space.distance, problem.distance(space.features, space.values))
    a = problem.spaces[0]
    assert list(a.values[:, 0]) == [1.0, 0.0, 3.0, 4.0]  # down costs 1, up costs 10


def test_costs_are_shown_with_the_explanation(grid):
    explainer = geco.Explainer(Rule(), grid, "cost a 10\ncost down b 0.5", engine="blackbox")
    result = explainer.explain(pd.DataFrame([[0.0, 0.0, 0.0, 0.0]], columns=FEATURES), random_state=0)
    assert result.stats["costs"] == {"a": {"up": 10.0, "down": 10.0}, "b": {"up": 1.0, "down": 0.5}}
    assert "  costs: a 10; b up 1, down 0.5" in str(result).splitlines()
    assert result.to_dict()["stats"]["costs"] == result.stats["costs"]
    # the distance column is the priced one
    row = result.counterfactuals[FEATURES].to_numpy(float)
    np.testing.assert_array_equal(result.counterfactuals["distance"], explainer.problem(result.x).distances(row))


def test_without_cost_statements_nothing_about_costs_is_reported(grid):
    explainer = geco.Explainer(Rule(), grid, "cost a 1", engine="blackbox")
    result = explainer.explain(pd.DataFrame([[0.0, 0.0, 0.0, 0.0]], columns=FEATURES), random_state=0)
    assert "costs" not in result.stats
    assert "costs:" not in str(result)
    plain = geco.Explainer(Rule(), grid, None, engine="blackbox")
    again = plain.explain(pd.DataFrame([[0.0, 0.0, 0.0, 0.0]], columns=FEATURES), random_state=0)
    pd.testing.assert_frame_equal(result.counterfactuals, again.counterfactuals)


def test_a_checked_program_keeps_its_costs_in_the_explainer(grid):
    program = load("cost a 10", grid)
    explainer = geco.Explainer(Rule(), grid, program, engine="blackbox", diversity=0)
    result = explainer.explain(pd.DataFrame([[0.0, 0.0, 0.0, 0.0]], columns=FEATURES), random_state=0)
    assert result.counterfactuals.iloc[0]["b"] == 3.0


def test_the_search_minimises_the_priced_distance_scaled_to_its_largest_cost(grid):
    explainer = geco.Explainer(Rule(), grid, "cost up a 10\ncost b 4", engine="blackbox")
    problem = explainer.problem(pd.DataFrame([[2.0, 2.0, 0.0, 0.0]], columns=FEATURES))
    rows = np.array(list(itertools.product(VALUES, repeat=4)))
    priced, searched = problem.distances(rows), problem.distance(np.arange(4), rows)
    np.testing.assert_allclose(searched * 10, priced, rtol=1e-12)
    unpriced = geco.Explainer(Rule(), grid, None, engine="blackbox").problem(problem.frame).distances(rows)
    assert np.all(searched <= unpriced + 1e-15)  # a counterfactual's score stays below 1
    order = np.argsort(priced, kind="stable")
    assert np.all(np.diff(searched[order]) >= -1e-15)
    # costs of at most 1 need no scaling
    cheap = geco.Explainer(Rule(), grid, "cost a 0.5", engine="blackbox").problem(problem.frame)
    assert cheap.distance is cheap.priced
