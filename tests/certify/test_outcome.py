"""``Explanation.outcome`` / ``bound`` / ``gap``: defaults for existing callers, carried by
to_dict/from_dict and JSONL; ``explain`` proves none with the bound and the rule that makes it
so; the black box has no bound and says so; ``geco explain`` exits 4 for proven none."""

import json

import joblib
import numpy as np
import pandas as pd
import pytest

import geco
from geco.cli import EXIT_NOT_FOUND, EXIT_OK, EXIT_PROVEN_NONE, main
from geco.problem.certificate import certify, format_bound
from geco.result import OUTCOMES, Explanation, read_jsonl, write_jsonl


def test_defaults_follow_success():
    x = pd.DataFrame({"a": [1]})
    assert Explanation.empty(x, "why", 1).outcome == "not_found"
    e = Explanation.empty(x, "why", 1)
    assert e.bound is None and e.gap is None
    with pytest.raises(ValueError, match="outcome must be one of"):
        Explanation(x, e.counterfactuals, False, "", 1, 0.1, outcome="maybe")
    assert OUTCOMES == ("found", "proven_none", "not_found")


def test_proven_none_names_the_bound_and_the_rule(people):
    X, _, model, bad, _ = people
    e = geco.Explainer(model, X, "fixed income, hours").explain(X.iloc[[bad[0]]], random_state=0)
    assert e.outcome == "proven_none" and not e.success
    assert e.bound is not None and e.bound < 0.5
    assert "the highest probability any allowed change reaches is at most" in e.reason
    assert "`fixed income, hours` (<string>:1) makes it so" in e.reason
    assert "none of the" in e.reason  # the search's own reason follows
    assert e.stats["certificate_calls"] >= 1
    assert str(e).startswith("No counterfactual for desired class 1 (instance p = ") and "proven: none exists" in str(e)


def test_found_carries_a_bound_above_its_counterfactuals_and_a_gap(people):
    X, _, model, bad, _ = people
    e = geco.Explainer(model, X).explain(X.iloc[[bad[0]]], random_state=0)
    assert e.outcome == "found" and e.bound >= e.counterfactuals["probability"].max()
    assert e.gap is not None and 0 <= e.gap <= e.counterfactuals["distance"].iloc[0]
    assert Explanation.from_dict(json.loads(e.to_json())).gap == e.gap


def test_an_answers_bounds_are_the_two_bounds_computed_apart(people):
    """answer_bounds (one set of boxes for both) gives what bound_rows with one engine call and
    distance_lower_bound give on their own, and counts both calls."""
    from geco.problem.certificate import answer_bounds, bound_rows, distance_lower_bound

    X, _, model, bad, _ = people
    explainer = geco.Explainer(model, X, "fixed income")
    for r in bad[:4]:
        problem = explainer.problem(X.iloc[[r]])
        bound, calls, floor = answer_bounds(problem, 0.5)
        assert (bound, calls - 1) == bound_rows(problem, 0.5, budget=1)
        assert floor == distance_lower_bound(problem, 0.5) and floor is not None


def test_a_counterfactual_inside_the_floors_box_spares_its_engine_call(people):
    """A witness (a counterfactual changing only the closest group, or only the required ones)
    proves that box reaches the threshold: the floor is what the engine call gives, one call
    fewer; a witness changing another group too proves nothing and the call is made."""
    from geco.problem.certificate import answer_bounds

    X, _, model, bad, _ = people
    explainer = geco.Explainer(model, X, "fixed income")
    spared = 0
    for r in bad[:6]:
        problem = explainer.problem(X.iloc[[r]])
        bound, calls, floor = answer_bounds(problem, 0.5)
        closest = np.array([s.distance[0] if len(s) else np.inf for s in problem.spaces])
        free = problem.required if problem.required.any() else closest == closest.min()
        inside = np.zeros((1, len(free)), dtype=bool)
        inside[0, np.flatnonzero(free)[0]] = True
        outside = inside.copy()
        outside[0, np.flatnonzero(~free)[0]] = True
        # a witness is one only where the box reaches the threshold: there the floor is the same
        if floor == float(closest[free].max()) * problem.reported_distance.search_scale() * (1 - 1e-12):
            assert answer_bounds(problem, 0.5, inside) == (bound, calls - 1, floor)
            spared += 1
        assert answer_bounds(problem, 0.5, outside) == (bound, calls, floor)
    assert spared > 0


def test_black_box_has_no_bound_and_says_so(people):
    X, _, model, bad, _ = people
    e = geco.Explainer(model, X, "fixed income, hours", engine="blackbox").explain(X.iloc[[bad[0]]], random_state=0)
    assert e.outcome == "not_found" and e.bound is None
    assert "no bound: the black-box engine cannot bound the model" in e.reason


def test_already_desired_and_empty_spaces(people):
    X, _, model, bad, good = people
    explainer = geco.Explainer(model, X, "fixed age, income, hours")
    assert explainer.explain(X.iloc[[good[0]]]).outcome == "not_found"
    e = explainer.explain(X.iloc[[bad[0]]])
    assert e.outcome == "proven_none" and e.bound >= e.x_probability


def test_round_trip_through_dict_and_jsonl(people, tmp_path):
    X, _, model, bad, _ = people
    explainer = geco.Explainer(model, X, "fixed income, hours")
    results = [explainer.explain(X.iloc[[r]], random_state=0) for r in bad[:2]]
    d = results[0].to_dict()
    assert d["outcome"] == "proven_none" and d["bound"] == results[0].bound and d["gap"] is None
    back = Explanation.from_dict(json.loads(results[0].to_json()))
    assert (back.outcome, back.bound, back.gap) == (results[0].outcome, results[0].bound, None)
    old = {k: v for k, v in d.items() if k not in ("outcome", "bound", "gap")}  # written before
    assert Explanation.from_dict(old).outcome == "not_found"
    write_jsonl(results, tmp_path / "r.jsonl")
    again, _ = read_jsonl(tmp_path / "r.jsonl")
    assert [e.outcome for e in again] == [e.outcome for e in results]


def test_the_rule_that_alone_keeps_the_class_out_of_reach_is_named(people):
    X, _, model, bad, _ = people
    explainer = geco.Explainer(model, X, "fixed income\nfixed hours\n")
    cert = certify(explainer.problem(X.iloc[[bad[0]]]), 0.5)
    assert cert.proven_none and cert.rules == "`fixed income` (<string>:1)"
    assert "`fixed income` (<string>:1) makes it so" in cert.reason


def test_two_rules_blocking_the_same_change_are_not_blamed_alone(people):
    X, _, model, bad, _ = people
    explainer = geco.Explainer(model, X, "fixed income, hours\ncf.income <= x.income\ncf.hours <= x.hours\n")
    cert = certify(explainer.problem(X.iloc[[bad[0]]]), 0.5)
    assert cert.proven_none and cert.rules == ""
    assert "no single rule makes it so" in cert.reason


def test_format_bound_stays_an_upper_bound_below_the_threshold():
    assert format_bound(0.4321, 0.5) == "0.44"
    assert format_bound(0.4996, 0.5) == "0.4996"
    assert float(format_bound(0.49999991, 0.5)) < 0.5


def test_cli_exits_4_for_proven_none_and_3_without_a_bound(people, tmp_path, capsys):
    X, y, model, bad, _ = people
    frame = X.assign(label=y)
    frame.to_csv(tmp_path / "p.csv", index=False)
    joblib.dump(model, tmp_path / "m.joblib")
    (tmp_path / "frozen.plaf").write_text("fixed income, hours\n")
    base = ["explain", "--data", str(tmp_path / "p.csv"), "--target", "label", "--model", str(tmp_path / "m.joblib"),
            "--row", str(bad[0]), "--constraints", str(tmp_path / "frozen.plaf")]  # fmt: skip
    assert main([*base, "--json"]) == EXIT_PROVEN_NONE == 4
    assert json.loads(capsys.readouterr().out)["outcome"] == "proven_none"
    assert main([*base, "--engine", "blackbox"]) == EXIT_NOT_FOUND == 3
    capsys.readouterr()
    assert main(base[:-2]) == EXIT_OK


def test_a_spent_time_budget_skips_the_found_answers_bound(people):
    """The bound and gap of a found answer only inform: a search stopped by its time budget
    answers without them, the same search without a budget carries them."""
    X, _, model, bad, _ = people
    explainer = geco.Explainer(model, X)
    e = explainer.explain(X.iloc[[bad[0]]], random_state=0, time_budget=1e-6)
    assert e.stats["stop"] == "time_budget" and e.outcome == "found"
    assert e.bound is None and e.gap is None and e.stats["certificate_calls"] == 0
    full = explainer.explain(X.iloc[[bad[0]]], random_state=0)
    assert full.bound is not None and full.gap is not None


def test_distinct_columns_are_each_columns_unique_values():
    """The engine's box per feature (every group's tuples' columns deduplicated in one sort)
    holds exactly np.unique of each column, in order, for arrays of any width and length."""
    from geco.problem.certificate import distinct_columns

    rng = np.random.default_rng(3)
    arrays = [rng.integers(0, 6, (int(rng.integers(0, 40)), int(rng.integers(1, 4)))).astype(float) for _ in range(25)]
    arrays[3][:, 0] = -0.0
    arrays.append(np.empty((0, 2)))
    got = distinct_columns(arrays)
    assert [len(g) for g in got] == [a.shape[1] for a in arrays]
    for a, cols in zip(arrays, got):
        for k, c in enumerate(cols):
            np.testing.assert_array_equal(c, np.unique(a[:, k]))
    assert distinct_columns([]) == []


def test_the_distance_floor_is_in_the_units_answers_report(people):
    """With costs above 1 the search minimises the priced distance divided by its largest cost;
    the floor an answer's gap is measured from is in the priced units the answer reports: the
    priced distance of the closest single-group change, or of the second closest where the
    closest cannot flip the class alone - never the search's smaller number."""
    from geco.problem.certificate import distance_lower_bound

    X, _, model, bad, _ = people
    explainer = geco.Explainer(model, X, "cost income 4\ncost up hours 2")
    checked = 0
    for r in bad[:6]:
        problem = explainer.problem(X.iloc[[r]])
        assert problem.reported_distance.search_scale() == 4.0
        floor = distance_lower_bound(problem, 0.5)
        singles = []
        for space, domain in zip(problem.spaces, problem.setting.domains):
            if len(space):
                row = problem.x.copy()
                row[domain.features] = space.values[0]
                singles.append(float(problem.distances(row[None])[0]))
        singles.sort()
        assert any(floor == pytest.approx(s, rel=1e-9) for s in singles[:2]), (floor, singles)
        e = explainer.explain(X.iloc[[r]], random_state=0)
        if e.success:
            first = float(e.counterfactuals["distance"].iloc[0])
            assert floor <= first and e.gap == pytest.approx(max(0.0, first - floor))
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("dataset", ["adult", "credit"])
def test_the_spaces_say_the_boxes_distinct_values_as_the_sort_does(dataset):
    """The distinct values a box takes from the feasible spaces (one-feature groups: the
    domain's values the space marks, x's own among them) are exactly what distinct_columns
    sorts out of the tuples, for x from the data, x holding a value the data lacks and x
    breaking a rule of its group; the answer's bounds are the same either way."""
    from geco.datasets import load_adult, load_credit
    from geco.models import default_model
    from geco.problem.certificate import (
        allowed_tuples,
        answer_bounds,
        bound_rows,
        distinct_columns,
        space_columns,
    )

    data = load_adult() if dataset == "adult" else load_credit()
    model = default_model(data.X, data.y, cache=True)
    explainer = geco.Explainer(model, data.X, str(data.constraints), desired_class=data.desired_class)
    frames = [data.X.iloc[[i]] for i in (0, 7, 11)]
    for c in data.X.columns:  # a value within the data's range that no row holds
        if pd.api.types.is_integer_dtype(data.X[c]):
            gaps = np.setdiff1d(np.arange(data.X[c].min(), data.X[c].max()), data.X[c].unique())
            if len(gaps):
                unseen = data.X.iloc[[3]].copy()
                unseen[c] = gaps[0]
                frames.append(unseen)
                break
    if dataset == "adult":  # more than the 80 hours the rules allow: x breaks its group's rule
        broken = data.X.iloc[[5]].copy()
        broken["hours_per_week"] = 90
        frames.append(broken)
    assert len(frames) == (5 if dataset == "adult" else 4)
    remembered = 0
    for frame in frames:
        problem = explainer.problem(frame)
        tuples = allowed_tuples(problem)
        for said, cols in zip(space_columns(problem), distinct_columns(tuples)):
            if said is not None:
                remembered += 1
                assert len(said) == len(cols)
                for a, b in zip(said, cols):
                    np.testing.assert_array_equal(a, b)
        assert answer_bounds(problem, 0.5)[0] == bound_rows(problem, 0.5, budget=1)[0]
    assert remembered > 0
