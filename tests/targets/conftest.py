"""Data the target tests share: a numeric column of the bundled Adult data predicted from the
others (regression), and an education band predicted as one of five classes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import geco

sys.path.insert(0, str(Path(__file__).parent))

@pytest.fixture(scope="session")
def adult():
    return geco.datasets.load_dataset("adult")


@pytest.fixture(scope="session")
def hours(adult):
    """(X, y): Adult without ``hours_per_week``, and that column as the number to predict."""
    return adult.X.drop(columns=["hours_per_week"]), adult.X["hours_per_week"].astype(float)


@pytest.fixture(scope="session")
def bands(adult):
    """(X, y): Adult without its education columns, and the education band (0..4) as a class."""
    X = adult.X.drop(columns=["education", "education_num"])
    return X, adult.X["education_num"] // 4
