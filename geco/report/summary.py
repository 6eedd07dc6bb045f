"""Batch statistics for a report: outcomes, timings and which features the counterfactuals change.

Rows fall in four kinds (:mod:`geco.report.outcomes`): found, not found, already desired and
error. The success rate is over the rows that needed explaining (found or not found); timings
are over the rows a search ran for.

Pure numpy/pandas (no plotting), so the numbers can be checked and reused on their own."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from geco.report.outcomes import DESIRED, ERROR, FOUND, NOT_FOUND, outcome_of
from geco.result import Explanation

__all__ = [
    "BatchSummary",
    "InstanceView",
    "NumericChange",
    "instance_view",
    "is_numeric_feature",
    "summarise",
]


@dataclass
class NumericChange:
    """How counterfactuals move one numeric feature, over those that change it."""

    feature: str
    n: int
    n_up: int
    n_down: int
    median_change: float  # signed: to - from
    median_abs_change: float


@dataclass
class BatchSummary:
    """What the overview of a report shows. Counts are over instances unless named otherwise:
    ``best_counts[f]`` = instances whose best counterfactual changes ``f``, ``any_counts[f]`` =
    instances with at least one counterfactual changing ``f``. ``not_found`` and ``errors``
    list (row label, reason); ``desired`` the row labels already desired."""

    n: int
    n_found: int
    n_not_found: int
    n_desired: int
    n_error: int
    features: list[str]
    numeric: dict[str, bool]
    seconds: np.ndarray
    best_counts: dict[str, int]
    any_counts: dict[str, int]
    n_changed_best: np.ndarray
    distance_best: np.ndarray
    n_counterfactuals: int
    numeric_changes: list[NumericChange]
    transitions: dict[str, list[tuple[Any, Any, int]]]
    not_found: list[tuple[Any, str]]
    errors: list[tuple[Any, str]]
    desired: list[Any]
    engines: Counter = field(default_factory=Counter)

    @property
    def n_needed(self) -> int:
        """Rows that needed explaining: a counterfactual found or not (not already desired, no
        error) - the success rate's denominator."""
        return self.n_found + self.n_not_found

    def seconds_quantile(self, q: float) -> float:
        return float(np.quantile(self.seconds, q)) if len(self.seconds) else float("nan")


def is_numeric_feature(series: pd.Series) -> bool:
    """Numbers that can move up or down (bool and categorical columns are not)."""
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)


@dataclass
class InstanceView:
    """One explanation as plain arrays, converted from pandas once and shared by the summary and
    the cards. Row ``i`` of ``values``/``changed`` is ``e.counterfactuals`` row ``i`` (shown as
    ``#i+1``, as the printed explanation numbers it). ``outcome``: see geco.report.outcomes."""

    explanation: Explanation
    outcome: str
    features: list[str]
    numeric: np.ndarray  # (d,) bool: the feature is a number that moves up or down
    x: np.ndarray  # (d,) object: the instance's values
    values: np.ndarray  # (n, d) object: every reported row, best first
    changed: np.ndarray  # (n, d) bool: values != x
    is_cf: np.ndarray  # (n,) bool: the row is a counterfactual
    probability: np.ndarray
    distance: np.ndarray
    n_changed: np.ndarray

    @property
    def found(self) -> bool:
        """A counterfactual was found (``success`` and at least one flagged row)."""
        return bool(self.outcome == FOUND and self.is_cf.any())

    @property
    def best(self) -> int | None:
        """Row of the best counterfactual (rows are best first), None when there is none."""
        return int(np.flatnonzero(self.is_cf)[0]) if self.found else None


def instance_view(e: Explanation) -> InstanceView:
    """The arrays of ``e`` that the report reads."""
    feats = e.features
    cfs = e.counterfactuals
    x = e.x[feats].to_numpy(dtype=object)[0]
    if len(cfs):
        values = cfs[feats].to_numpy(dtype=object)
        meta = {m: cfs[m].to_numpy() for m in ("counterfactual", "probability", "distance", "n_changed")}
    else:
        values = np.empty((0, len(feats)), dtype=object)
        meta = {m: np.zeros(0) for m in ("counterfactual", "probability", "distance", "n_changed")}
    is_cf = meta["counterfactual"].astype(bool)
    kind = outcome_of(e)
    return InstanceView(
        explanation=e,
        outcome=NOT_FOUND if kind == FOUND and not is_cf.any() else kind,
        features=feats,
        numeric=np.array([is_numeric_feature(e.x[f]) for f in feats], dtype=bool),
        x=x,
        values=values,
        changed=(values != x[None, :]).astype(bool) if len(values) else np.zeros((0, len(feats)), dtype=bool),
        is_cf=is_cf,
        probability=meta["probability"].astype(float),
        distance=meta["distance"].astype(float),
        n_changed=meta["n_changed"].astype(int),
    )


def summarise(
    explanations: Sequence[Explanation | InstanceView], top_transitions: int = 5
) -> BatchSummary:
    """Aggregate a batch of explanations (or their views) into the overview's numbers."""
    views = [v if isinstance(v, InstanceView) else instance_view(v) for v in explanations]
    explanations = [v.explanation for v in views]
    features: list[str] = []
    numeric: dict[str, bool] = {}
    for e in explanations:
        for f in e.features:
            if f not in numeric:
                features.append(f)
                numeric[f] = is_numeric_feature(e.x[f])
    best = Counter()
    anyc = Counter()
    deltas: dict[str, list[float]] = {f: [] for f in features if numeric[f]}
    trans: dict[str, Counter] = {f: Counter() for f in features if not numeric[f]}
    n_changed, dist, seconds = [], [], []
    not_found, errors, desired = [], [], []
    n_cf = 0
    engines: Counter = Counter()
    for v in views:
        e = v.explanation
        if "engine" in e.stats:
            engines[str(e.stats["engine"])] += 1
        if v.outcome == DESIRED:
            desired.append(e.x.index[0])
            continue
        if v.outcome == ERROR:
            errors.append((e.x.index[0], e.reason))
            continue
        seconds.append(float(e.stats.get("seconds_total", np.nan)))
        if not v.found:
            not_found.append((e.x.index[0], e.reason))
            continue
        mask = v.changed[v.is_cf]
        n_cf += len(mask)
        feats = np.asarray(v.features, dtype=object)
        best.update(feats[v.changed[v.best]])
        anyc.update(feats[mask.any(axis=0)])
        n_changed.append(int(v.changed[v.best].sum()))
        dist.append(float(v.distance[v.best]))
        cf_values = v.values[v.is_cf]
        for j in np.flatnonzero(mask.any(axis=0)):
            f, hit = v.features[j], mask[:, j]
            if numeric[f]:
                deltas[f].extend((cf_values[hit, j].astype(float) - float(v.x[j])).tolist())
            else:
                trans[f].update((v.x[j], b) for b in cf_values[hit, j])
    secs = np.asarray(seconds, dtype=float)
    numeric_changes = []
    for f, d in deltas.items():
        if d:
            a = np.asarray(d)
            numeric_changes.append(
                NumericChange(f, len(a), int((a > 0).sum()), int((a < 0).sum()),
                              float(np.median(a)), float(np.median(np.abs(a))))
            )  # fmt: skip
    transitions = {
        f: [(a, b, n) for (a, b), n in c.most_common(top_transitions)] for f, c in trans.items() if c
    }
    return BatchSummary(
        n=len(explanations),
        n_found=len(explanations) - len(not_found) - len(errors) - len(desired),
        n_not_found=len(not_found),
        n_desired=len(desired),
        n_error=len(errors),
        features=features,
        numeric=numeric,
        seconds=secs[np.isfinite(secs)],
        best_counts={f: best[f] for f in features},
        any_counts={f: anyc[f] for f in features},
        n_changed_best=np.asarray(n_changed, dtype=int),
        distance_best=np.asarray(dist, dtype=float),
        n_counterfactuals=n_cf,
        numeric_changes=numeric_changes,
        transitions=transitions,
        not_found=not_found,
        errors=errors,
        desired=desired,
        engines=engines,
    )
