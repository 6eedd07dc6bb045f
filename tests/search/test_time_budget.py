"""A time budget per explanation: the search stops at it with the best found so far, says so,
and without one nothing changes."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest
from slow_model import FEATURES, X0, slow_explainer

from geco.search import SearchConfig


@pytest.fixture(scope="module")
def explainer():
    return slow_explainer()


@pytest.mark.parametrize("budget", [0.05, 0.2])
def test_the_search_stops_at_the_budget_with_the_best_so_far(explainer, budget):
    t0 = time.perf_counter()
    result = explainer.explain(X0, random_state=0, time_budget=budget)
    took = time.perf_counter() - t0
    s = result.stats
    assert s["stop"] == "time_budget" and s["time_budget"] == budget
    assert s["generations"] < 60
    per_generation = sum(s["seconds"].values()) / max(1, s["generations"])
    assert took <= 1.2 * budget + 2 * per_generation + 0.05  # + one generation (and the slack of a busy machine)
    assert "time budget" in result.reason
    if result.success:
        assert result.counterfactuals["counterfactual"].iloc[0]


def test_a_larger_budget_runs_longer(explainer):
    short = explainer.explain(X0, random_state=0, time_budget=0.03)
    longer = explainer.explain(X0, random_state=0, time_budget=0.3)
    assert longer.stats["generations"] > short.stats["generations"]


def test_without_a_budget_the_search_runs_as_before(explainer):
    plain = explainer.explain(X0, random_state=0, max_generations=5, min_generations=5, patience=5)
    roomy = explainer.explain(X0, random_state=0, max_generations=5, min_generations=5, patience=5, time_budget=60)
    assert plain.stats["stop"] != "time_budget" and "time_budget" not in plain.stats
    assert roomy.stats["stop"] == plain.stats["stop"] and roomy.stats["time_budget"] == 60
    pd.testing.assert_frame_equal(plain.counterfactuals, roomy.counterfactuals)


def test_the_explainer_and_batches_carry_the_budget():
    ex = slow_explainer(0.002, rows=300, seed=1, time_budget=0.04)
    assert ex.config.time_budget == 0.04
    results = ex.explain_many(pd.concat([X0, X0 + 1]), progress=False, random_state=0)
    assert [r.stats["stop"] for r in results] == ["time_budget", "time_budget"]
    off = ex.explain(X0, random_state=0, time_budget=None, max_generations=3, min_generations=3)
    assert off.stats["stop"] != "time_budget"


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "1", True])
def test_a_bad_budget_is_refused(bad):
    with pytest.raises(ValueError, match="time_budget"):
        SearchConfig(time_budget=bad).validate()


def test_a_spent_budget_still_answers_from_the_initial_population(explainer):
    result = explainer.explain(X0, random_state=0, time_budget=1e-9)
    assert result.stats["stop"] == "time_budget"
    assert result.stats["generations"] == 0
    assert len(result.counterfactuals) > 0


def test_cli_time_budget(capsys, tmp_path):
    from geco.cli import EXIT_BAD_USAGE, main

    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.integers(0, 20, (300, 3)), columns=FEATURES)
    frame["label"] = (frame[FEATURES].sum(axis=1) > 40).astype(int)
    csv = tmp_path / "data.csv"
    frame.to_csv(csv, index=False)
    low = int(np.flatnonzero(frame["label"] == 0)[0])
    code = main(["explain", "--data", str(csv), "--target", "label", "--row", str(low), "--json",
                 "--engine", "blackbox", "--time-budget", "0.001"])  # fmt: skip
    out = capsys.readouterr().out
    assert code in (0, 3)
    assert json.loads(out)["stats"]["stop"] == "time_budget"
    assert main(["explain", "--data", str(csv), "--target", "label", "--row", str(low),
                 "--time-budget", "-1"]) == EXIT_BAD_USAGE  # fmt: skip
    assert "time_budget" in capsys.readouterr().err
