"""Exact mode on bundled data (Adult, Credit) against the benchmark's brute force over every row
changing one or two groups (benchmarks/bench_exact.py): limited to those rows it reaches the
same distance with gap 0 only when nothing is left beyond them, and unlimited it is never
farther, with gap 0.0."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

import geco
from geco.models import one_hot_pipeline
from geco.search.exact import ExactBudget

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_exact.py"


@pytest.fixture(scope="module")
def brute_force():
    spec = importlib.util.spec_from_file_location("bench_exact", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.brute_force


@pytest.mark.parametrize("name", ["adult", "credit"])
def test_exact_against_brute_force(name, brute_force):
    data = geco.datasets.load_dataset(name)
    X, y = data.X.iloc[:3000], data.y.iloc[:3000]
    model = one_hot_pipeline(X, RandomForestClassifier(20, max_depth=6, random_state=0)).fit(X, y)
    explainer = geco.Explainer(
        model, X, constraints=data.constraints, desired_class=data.desired_class
    )
    col = list(model.classes_).index(data.desired_class)
    rows = np.flatnonzero(model.predict_proba(X)[:, col] <= 0.5)[:3]
    for r in rows:
        x = X.iloc[[int(r)]]
        problem = explainer.problem(x)
        optimum = brute_force(problem)
        two = explainer.explain(x, random_state=0, k=1, exact=ExactBudget(max_groups=2))
        full = explainer.explain(x, random_state=0, k=1, exact=True)
        if np.isfinite(optimum):
            assert two.counterfactuals["distance"].iloc[0] == pytest.approx(optimum, rel=1e-9)
            assert full.gap == 0.0
            assert full.counterfactuals["distance"].iloc[0] <= optimum * (1 + 1e-9)
            first = explainer.schema.encode(
                full.counterfactuals[list(explainer.schema.names)].iloc[:1]
            )
            assert problem.satisfies(first).all() and (problem.model_proba(first) > 0.5).all()
        else:
            assert not two.success or two.gap > 0.0  # a farther answer changes 3+ groups
