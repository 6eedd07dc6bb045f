"""The benchmark's random problems and enumeration (benchmarks/bench_certify.py), so the tests and
the benchmark check the same thing."""

import importlib.util
import sys
from pathlib import Path

import pytest

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
