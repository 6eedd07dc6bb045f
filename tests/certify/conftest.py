"""The benchmark's random problems and enumeration (benchmarks/bench_certify.py), so the tests and
the benchmark check the same thing; and ``people``, the small problem the outcome and deadline
tests prove things on."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_certify.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_certify", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def bench():
    return _bench()


@pytest.fixture(autouse=True)
def one_thread():
    """One OpenMP/BLAS thread: HistGradientBoosting's predict_proba spins its thread pool per call,
    which costs seconds on a busy machine for these tiny inputs."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def people():
    """(X, y, model, bad rows, good rows): three integer columns, a depth-5 tree desired where
    income + hours > 100 - small enough to prove none under a few rules."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(20, 65, 400), "income": rng.integers(0, 100, 400),
                      "hours": rng.integers(10, 60, 400)})  # fmt: skip
    y = (X["income"] + X["hours"] > 100).astype(int)
    model = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    bad = np.flatnonzero(model.predict(X) == 0)
    good = np.flatnonzero(model.predict(X) == 1)
    return X, y, model, bad, good
