"""A time budget past the search: the certificate stopped at its deadline keeps a sound (looser)
bound, never blames rules it did not check, and the answer lists what the budget left out."""

from __future__ import annotations

import time

import pandas as pd

import geco
from geco.problem.certificate import certify


def test_a_certificate_stopped_at_its_deadline_is_looser_and_still_sound(people):
    """Branch and bound cut short keeps the largest bound left: never below the full one, so
    proven none is claimed only where the bound itself shows it."""
    X, _, model, bad, _ = people
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
    X, _, model, bad, _ = people
    problem = geco.Explainer(model, X, "fixed income\nfixed hours\n").problem(X.iloc[[bad[0]]])
    assert certify(problem, 0.5).rules == "`fixed income` (<string>:1)"
    cut = certify(problem, 0.5, deadline=time.perf_counter())
    assert cut.proven_none  # the first box alone proves it
    assert cut.rules == "" and "no time to find which rule" in cut.reason
    assert cut.cut == "finding which rule keeps the desired class out of reach"


def test_a_budget_spent_before_the_certificate_still_answers_proven_none_soundly(people):
    X, _, model, bad, _ = people
    explainer = geco.Explainer(model, X, "fixed income, hours")
    e = explainer.explain(X.iloc[[bad[0]]], random_state=0, time_budget=1e-6)
    assert not e.success and e.stats["stop"] == "time_budget"
    assert e.outcome == "proven_none" and e.bound < 0.5  # the first box proves it
    assert "finding which rule keeps the desired class out of reach" in e.stats["budget"]["cuts"]
    assert "the time budget left no time to find which rule" in e.reason


def test_a_found_answer_under_a_spent_budget_lists_the_skipped_bound(people):
    X, _, model, bad, _ = people
    e = geco.Explainer(model, X).explain(X.iloc[[bad[0]]], random_state=0, time_budget=1e-6)
    assert e.success and e.bound is None
    assert "the bound and gap of the answer" in e.stats["budget"]["cuts"]
    assert e.reason.endswith("the answer is the best found so far")


def test_without_a_budget_nothing_is_reserved_or_cut(people):
    X, _, model, bad, _ = people
    e = geco.Explainer(model, X).explain(X.iloc[[bad[0]]], random_state=0)
    assert "budget" not in e.stats and "time budget" not in e.reason
    roomy = geco.Explainer(model, X).explain(X.iloc[[bad[0]]], random_state=0, time_budget=600)
    assert roomy.stats["budget"]["cuts"] == []
    pd.testing.assert_frame_equal(e.counterfactuals, roomy.counterfactuals)
