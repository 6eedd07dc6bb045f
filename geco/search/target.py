"""What a counterfactual must reach, as a test on the score the engine gives a candidate.

The search keeps one number per candidate (the "probability" slot): P(desired class) - or of a
set of classes - for a probability target, the raw margin for a margin target, the prediction
for a regression target. A :class:`Target` says which scores meet it and how far a score falls
short, so the search's ranking stays GeCo's: ``dist`` for a counterfactual, otherwise
``1 + dist + shortfall``. For the probability target the shortfall is ``1 - p`` and the test
``p > threshold``, the paper's own; an interval target (margin, prediction) is met by
``lo <= score <= hi`` and falls short by its distance to the interval, divided by the spread of
the data's scores so it weighs like ``1 - p``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["TARGET_KINDS", "Target"]

#: "probability" (P(desired) > threshold), "margin" and "range" (lo <= score <= hi)
TARGET_KINDS = ("probability", "margin", "range")


@dataclass(frozen=True)
class Target:
    """A test on scores (see the module docstring). ``desired``: the class or classes of a
    probability target (for messages and the JSON), None otherwise. ``scale``: what an interval
    target divides its distance by (the data's score spread)."""

    kind: str = "probability"
    lo: float = 0.5
    hi: float = float("inf")
    desired: Any = None
    scale: float = 1.0

    @classmethod
    def probability(cls, threshold: float, desired: Any = None) -> Target:
        """P(desired) > ``threshold`` (the paper's test)."""
        return cls("probability", float(threshold), float("inf"), desired)

    @classmethod
    def interval(cls, kind: str, lo: float, hi: float, scale: float = 1.0) -> Target:
        """``lo <= score <= hi`` for a ``"margin"`` or ``"range"`` target."""
        if kind not in ("margin", "range"):
            raise ValueError(f"an interval target is 'margin' or 'range', got {kind!r}")
        scale = float(scale)
        return cls(kind, float(lo), float(hi), None, scale if np.isfinite(scale) and scale > 0 else 1.0)

    @property
    def is_probability(self) -> bool:
        return self.kind == "probability"

    def meets(self, score: np.ndarray) -> np.ndarray:
        """Which scores meet the target (NaN never does)."""
        score = np.asarray(score)
        if self.is_probability:
            return score > self.lo
        return (score >= self.lo) & (score <= self.hi)

    def shortfall(self, score: np.ndarray) -> np.ndarray:
        """How far each score is from meeting the target: ``1 - p``, or the distance to the
        interval over :attr:`scale` (0 inside it)."""
        score = np.asarray(score)
        if self.is_probability:
            return 1.0 - score
        return (np.maximum(self.lo - score, 0.0) + np.maximum(score - self.hi, 0.0)) / self.scale

    def closeness_key(self, score: np.ndarray) -> np.ndarray:
        """Lower is closer to the target: ``-p`` (most probable first), else the shortfall."""
        score = np.asarray(score)
        return -score if self.is_probability else self.shortfall(score)

    def edge_distance(self, score: np.ndarray) -> np.ndarray:
        """Distance of each score to the nearest edge of the target: a score within an engine's
        error bound of it may lie on the other side by the model's own numbers."""
        score = np.asarray(score, dtype=np.float64)
        if self.is_probability:
            return np.abs(score - self.lo)
        return np.minimum(np.abs(score - self.lo), np.abs(score - self.hi))

    def describe(self) -> str:
        """The test in words, for messages: ``p > 0.5``, ``0 <= margin <= 2``, ``250000 <= prediction
        <= 300000``."""
        if self.is_probability:
            return f"p > {self.lo}"
        name = "margin" if self.kind == "margin" else "prediction"
        return f"{self.lo:g} <= {name} <= {self.hi:g}"

    def to_dict(self) -> dict[str, Any]:
        """The target as an explanation's JSON carries it (``stats["target"]``)."""
        if self.is_probability:
            desired = list(self.desired) if isinstance(self.desired, (list, tuple)) else self.desired
            desired = desired.item() if isinstance(desired, np.generic) else desired
            return {"kind": "probability", "desired_class": desired, "threshold": self.lo}
        key = "margin_range" if self.kind == "margin" else "desired_range"
        return {"kind": self.kind, key: [self.lo, self.hi]}
