"""Shared test setup: geco's on-disk cache lives in a temporary directory for the session."""

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _geco_cache_dir(tmp_path_factory):
    old = os.environ.get("GECO_CACHE_DIR")
    os.environ["GECO_CACHE_DIR"] = str(tmp_path_factory.mktemp("geco-cache"))
    yield
    if old is None:
        os.environ.pop("GECO_CACHE_DIR", None)
    else:
        os.environ["GECO_CACHE_DIR"] = old
