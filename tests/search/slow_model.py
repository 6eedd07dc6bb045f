"""A black box that takes a set time per call and is desired only far from x, and an Explainer
over it that runs every generation it is allowed: what the time-budget tests measure against."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

import geco

FEATURES = ["a", "b", "c"]
#: the instance every such test explains
X0 = pd.DataFrame([[0.0, 0.0, 0.0]], columns=FEATURES)


class SlowModel:
    """Sleeps ``pause`` seconds per ``predict_proba`` call; P(1) grows with the sum of a, b, c."""

    classes_ = np.array([0, 1])

    def __init__(self, pause: float = 0.004):
        self.pause = pause

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        time.sleep(self.pause)
        s = X[FEATURES].to_numpy(float).sum(axis=1)
        p = np.clip(0.2 + s / 100.0, 0.0, 0.95)
        return np.column_stack([1 - p, p])


def slow_data(rows: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.integers(0, 20, (rows, 3)).astype(float), columns=FEATURES)


def slow_explainer(pause: float = 0.004, rows: int = 400, seed: int = 0, **options) -> geco.Explainer:
    """A black-box Explainer over :class:`SlowModel` with 60 generations and a patience of 60."""
    return geco.Explainer(SlowModel(pause), slow_data(rows, seed), None, engine="blackbox", min_generations=60,
                          max_generations=60, patience=60, **options)  # fmt: skip
