"""Every "proven none" is true: random small problems (3-6 groups, random PLAF programs, random
small trees, forests, boosters and MLPs), each undesired instance's allowed rows enumerated and
scored by the model's own predict_proba. The bound is never below an allowed row's probability,
most instances without a counterfactual are proven (the benchmark measures the shares), and the
lower bound on a counterfactual's distance is never above the closest one's."""

import numpy as np
import pytest

#: (family, number of random problems); each gives up to 8 undesired instances
PLAN = [("dt", 4), ("rf", 5), ("et", 4), ("gb", 5), ("hgb", 3), ("xgb", 4), ("lgbm", 4), ("mlp", 8)]


@pytest.fixture(scope="module")
def records(bench):
    out = []
    for f, (family, n) in enumerate(PLAN):
        if family in ("xgb", "lgbm") and not bench._has(family):
            continue
        for i in range(n):
            out += bench.check_case(bench.random_case(1000 * f + i, family, n_rows=80), max_instances=8)
    return out


def test_enough_instances_are_checked(records):
    assert len(records) >= 200


def test_no_false_certificate(records):
    false = [r for r in records if r.false_certificate]
    assert not false, false[:3]
    for r in records:
        if r.proven:
            assert not r.exists and r.bound < 0.5
        if r.bound is not None:
            assert r.bound >= r.best


def test_the_distance_floor_is_never_above_the_closest_counterfactual(records):
    assert not [r for r in records if r.false_floor]
    assert any(r.exists and r.floor is not None and r.floor > 0 for r in records)


def test_most_true_nones_are_proven(records):
    trees = [r for r in records if r.family != "mlp" and not r.exists]
    mlps = [r for r in records if r.family == "mlp" and not r.exists]
    assert trees and np.mean([r.proven for r in trees]) >= 0.8
    if mlps:
        assert np.mean([r.proven for r in mlps]) >= 0.6
