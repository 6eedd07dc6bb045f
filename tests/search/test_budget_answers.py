"""How a time budget is held in the search: a generation starts only while the last one's cost
still fits, the answer's cost is kept back, and the answer names what the budget left out (the
certificate's side: tests/certify/test_deadline.py)."""

from __future__ import annotations

import pytest
from slow_model import X0, slow_explainer

import geco
from geco.search.timing import RecentSeconds


@pytest.fixture(scope="module")
def slow():
    return slow_explainer(0.03)


def test_a_generation_that_would_not_fit_is_not_started(slow):
    """Each generation costs at least one 30 ms model call, so a 0.2 s budget stops the search
    after a few; the generation left out is named, with less time left than it was predicted to
    take."""
    result = slow.explain(X0, random_state=0, time_budget=0.2)
    s = result.stats
    assert s["stop"] == "time_budget"
    cuts = s["budget"]["cuts"]
    assert cuts and cuts[0].startswith(f"generation {s['generations'] + 1} (")
    assert "ms left" in cuts[0] and "ms predicted" in cuts[0]
    assert "left out: generation" in result.reason
    # the cut is made before the budget: what was left was less than what was predicted (both
    # printed to 0.1 ms, so they may print equal)
    left, predicted = (float(part.split()[0]) for part in cuts[0].split("(")[1].rstrip(")").split(", "))
    assert left <= predicted


def test_the_answer_reserve_follows_what_answers_cost():
    explainer = slow_explainer(0.03)  # one that has timed no answer yet
    before = explainer.answer_seconds.estimate()
    assert before == geco.explainer.ANSWER_RESERVE  # nothing timed yet
    explainer.explain(X0, random_state=1, time_budget=0.1)
    s = explainer.explain(X0, random_state=2, time_budget=0.1).stats
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
