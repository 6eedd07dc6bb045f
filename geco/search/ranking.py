"""The few smallest of many values in stable sorted order, without sorting them all."""

from __future__ import annotations

import numpy as np

__all__ = ["nearest"]


def nearest(values: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` smallest of ``values`` in stable sorted order: what
    ``np.argsort(values, kind="stable")[:count]`` gives, without sorting everything."""
    if len(values) <= count:
        return np.argsort(values, kind="stable")
    bound = np.partition(values, count - 1)[count - 1]
    within = np.flatnonzero(values <= bound)  # ties at the bound included, in index order
    return within[np.argsort(values[within], kind="stable")][:count]
