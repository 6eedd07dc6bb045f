"""How a time budget is held: a generation starts only while the last one's cost still fits, the
answer's cost is kept back, the certificate stops at the deadline without claiming more than it
ran, and every answer says what the budget left out."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

import geco
from geco.problem.certificate import certify
from geco.search.timing import RecentSeconds

FEATURES = ["a", "b", "c"]


class PausingModel:
    """A black box that sleeps ``pause`` seconds per call and is desired only far from x."""

    classes_ = np.array([0, 1])

    def __init__(self, pause: float):
        self.pause = pause

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        time.sleep(self.pause)
        s = X[FEATURES].to_numpy(float).sum(axis=1)
        p = np.clip(0.2 + s / 100.0, 0.0, 0.95)
        return np.column_stack([1 - p, p])


@pytest.fixture(scope="module")
def slow():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 20, (400, 3)).astype(float), columns=FEATURES)
    explainer = geco.Explainer(PausingModel(0.03), X, None, engine="blackbox", min_generations=60,
                               max_generations=60, patience=60)  # fmt: skip
    return explainer, pd.DataFrame([[0.0, 0.0, 0.0]], columns=FEATURES)


def test_a_generation_that_would_not_fit_is_not_started(slow):
    """Each generation costs at least one 30 ms model call, so a 0.2 s budget stops the search
    after a few; the generation left out is named, with less time left than it was predicted to
    take."""
    explainer, x = slow
    result = explainer.explain(x, random_state=0, time_budget=0.2)
    s = result.stats
    assert s["stop"] == "time_budget"
    cuts = s["budget"]["cuts"]
    assert cuts and cuts[0].startswith(f"generation {s['generations'] + 1} (")
    assert "ms left" in cuts[0] and "ms predicted" in cuts[0]
    assert "left out: generation" in result.reason
    # the cut is made before the budget: what was left was less than what was predicted
    left, predicted = (float(part.split()[0]) for part in cuts[0].split("(")[1].rstrip(")").split(", "))
    assert left < predicted


def test_the_answer_reserve_follows_what_answers_cost(slow):
    _, x = slow
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 20, (400, 3)).astype(float), columns=FEATURES)
    explainer = geco.Explainer(PausingModel(0.03), X, None, engine="blackbox", min_generations=60,
                               max_generations=60, patience=60)  # fmt: skip
    before = explainer.answer_seconds.estimate()
    assert before == geco.explainer.ANSWER_RESERVE  # nothing timed yet
    explainer.explain(x, random_state=1, time_budget=0.1)
    s = explainer.explain(x, random_state=2, time_budget=0.1).stats
    assert s["budget"]["seconds"] == 0.1
    # answers call the model (30 ms each) for the picks' own probabilities: the reserve grows
    assert s["budget"]["answer_reserve"] > before
    assert explainer.answer_seconds.recent and min(explainer.answer_seconds.recent) >= 0.03


def test_recent_seconds_is_half_again_the_recent_median():
    r = RecentSeconds(0.004, keep=3)
    assert r.estimate() == 0.004
    for s in (0.010, 0.001, 0.002, 0.003):
        r.add(s)
    assert r.estimate() == pytest.approx(1.5 * 0.002)  # the last three: 0.001, 0.002, 0.003


@pytest.fixture(scope="module")
def people():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(20, 65, 400), "income": rng.integers(0, 100, 400),
                      "hours": rng.integers(10, 60, 400)})  # fmt: skip
    y = (X["income"] + X["hours"] > 100).astype(int)
    model = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    return X, model, np.flatnonzero(model.predict(X) == 0)


def test_a_certificate_stopped_at_its_deadline_is_looser_and_still_sound(people):
    """Branch and bound cut short keeps the largest bound left: never below the full one, so
    proven none is claimed only where the bound itself shows it."""
    X, model, bad = people
    cuts = set()
    for plaf in ("cf.income <= x.income", "fixed income\ncf.hours <= x.hours + 3", ""):
        explainer = geco.Explainer(model, X, plaf)
        for r in bad[:5]:
            problem = explainer.problem(X.iloc[[r]])
            full = certify(problem, 0.5)
            cut = certify(problem, 0.5, deadline=time.perf_counter())
            assert cut.bound >= full.bound - 1e-12
            assert cut.proven_none == (cut.bound < 0.5)
            if cut.proven_none:
                assert full.proven_none
            assert cut.calls <= full.calls
            cuts.add(cut.cut.split(" after ")[0])
    # both kinds of cut were met: a branch and bound stopped, a proof whose rules were not blamed
    assert cuts == {"the certificate's branch and bound", "finding which rule keeps the desired class out of reach"}


def test_a_proof_found_at_the_deadline_does_not_blame_rules_it_did_not_check(people):
    X, model, bad = people
    problem = geco.Explainer(model, X, "fixed income\nfixed hours\n").problem(X.iloc[[bad[0]]])
    assert certify(problem, 0.5).rules == "`fixed income` (<string>:1)"
    cut = certify(problem, 0.5, deadline=time.perf_counter())
    assert cut.proven_none  # the first box alone proves it
    assert cut.rules == "" and "no time to find which rule" in cut.reason
    assert cut.cut == "finding which rule keeps the desired class out of reach"


def test_a_budget_spent_before_the_certificate_still_answers_proven_none_soundly(people):
    X, model, bad = people
    explainer = geco.Explainer(model, X, "fixed income, hours")
    e = explainer.explain(X.iloc[[bad[0]]], random_state=0, time_budget=1e-6)
    assert not e.success and e.stats["stop"] == "time_budget"
    assert e.outcome == "proven_none" and e.bound < 0.5  # the first box proves it
    assert "finding which rule keeps the desired class out of reach" in e.stats["budget"]["cuts"]
    assert "the time budget left no time to find which rule" in e.reason


def test_a_found_answer_under_a_spent_budget_lists_the_skipped_bound(people):
    X, model, bad = people
    e = geco.Explainer(model, X).explain(X.iloc[[bad[0]]], random_state=0, time_budget=1e-6)
    assert e.success and e.bound is None
    assert "the bound and gap of the answer" in e.stats["budget"]["cuts"]
    assert e.reason.endswith("the answer is the best found so far")


def test_without_a_budget_nothing_is_reserved_or_cut(people):
    X, model, bad = people
    e = geco.Explainer(model, X).explain(X.iloc[[bad[0]]], random_state=0)
    assert "budget" not in e.stats and "time budget" not in e.reason
    roomy = geco.Explainer(model, X).explain(X.iloc[[bad[0]]], random_state=0, time_budget=600)
    assert roomy.stats["budget"]["cuts"] == []
    pd.testing.assert_frame_equal(e.counterfactuals, roomy.counterfactuals)
