"""Shared test setup: geco's on-disk cache lives in a temporary directory for the session, and
property tests draw the same examples on every run (a suite that gates merges must not pass or
fail by chance; `benchmarks/differential.py` and `HYPOTHESIS_PROFILE=explore` search further)."""

import os

import pytest
from hypothesis import settings

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture(scope="session", autouse=True)
def _geco_cache_dir(tmp_path_factory):
    old = os.environ.get("GECO_CACHE_DIR")
    os.environ["GECO_CACHE_DIR"] = str(tmp_path_factory.mktemp("geco-cache"))
    yield
    if old is None:
        os.environ.pop("GECO_CACHE_DIR", None)
    else:
        os.environ["GECO_CACHE_DIR"] = old
