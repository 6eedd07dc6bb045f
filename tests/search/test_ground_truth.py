"""The GeCo paper's ground-truth experiment: a classifier whose optimal counterfactual is known.

Credit data; for a feature set F the classifier says "good" iff ``x_f >= t_f`` for every f in F and
rises smoothly towards that boundary otherwise. Under the l1 distance the unique optimum moves each
f in F exactly to ``t_f`` and changes nothing else. GeCo must recover it for >= 95% of instances.
"""

import numpy as np
import pandas as pd
import pytest

import geco

INTERLEAVED = [
    "MaxBillAmountOverLast6Months", "TotalOverdueCounts", "MostRecentBillAmount", "AgeGroup",
]  # fmt: skip
N_INSTANCES = 20


def threshold(values: pd.Series) -> float:
    """The most frequent value between the 30% and 70% quantile positions of the distinct values
    (1-based positions low = max(2, floor(0.3 m)), high = min(m, ceil(0.7 m)); first max wins)."""
    counts = values.value_counts().sort_index()
    m = len(counts)
    low, high = max(2, int(np.floor(0.3 * m))), min(m, int(np.ceil(0.7 * m)))
    window = counts.iloc[low - 1 : high]
    return float(window.index[int(np.argmax(window.to_numpy()))])


class GroundTruthClassifier:
    """P = 1 if every f in F reaches t_f, else 0.5 - (0.5 * gap + 0.5 * failed) / |F| < 0.5."""

    classes_ = np.array([0, 1])

    def __init__(self, features, thresholds, ranges):
        self.features, self.t, self.r = list(features), np.asarray(thresholds), np.asarray(ranges)

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        v = X[self.features].to_numpy(dtype=float)
        below = v < self.t
        failed = below.sum(axis=1)
        gap = np.where(below, (self.t - v) / self.r, 0.0).sum(axis=1)
        p = np.where(failed == 0, 1.0, 0.5 - (0.5 * gap + 0.5 * failed) / len(self.features))
        return np.column_stack([1 - p, p])


@pytest.fixture(scope="module")
def credit():
    return geco.datasets.load_credit()


@pytest.mark.parametrize("n_features", [1, 2, 3, 4])
def test_recovers_known_optimum(credit, n_features):
    X = credit.X
    feats = INTERLEAVED[:n_features]
    t = np.array([threshold(X[f]) for f in feats])
    r = np.array([float(X[f].max() - X[f].min()) for f in feats])
    clf = GroundTruthClassifier(feats, t, r)
    explainer = geco.Explainer(
        clf, X, "fixed isMale, isMarried", desired_class=1, engine="blackbox",
        norm_weights=(0, 1, 0, 0),
    )  # fmt: skip
    eligible = np.flatnonzero((X[feats].to_numpy() < t).all(axis=1))[:N_INSTANCES]
    assert len(eligible) == N_INSTANCES
    recovered = 0
    for i in eligible:
        x = X.iloc[[i]]
        result = explainer.explain(x, random_state=int(i))
        assert result.success
        best = result.counterfactuals.iloc[0]
        optimum = x.iloc[0].copy()
        optimum[feats] = t
        if all(best[c] == optimum[c] for c in X.columns):
            recovered += 1
            assert best["distance"] == pytest.approx(
                sum(abs(t[j] - x.iloc[0][f]) / explainer.ranges[X.columns.get_loc(f)] for j, f in enumerate(feats))
                / X.shape[1]
            )
    assert recovered / len(eligible) >= 0.95, f"recovered {recovered}/{len(eligible)}"
