"""A target as people state it - a class, a set of classes, a margin or a prediction range -
checked and turned into what the engines score (:class:`codegen.outputs.ModelOutput`) and what
the search tests (:class:`geco.search.target.Target`).

* ``desired_class=1`` (with ``threshold``): P(1) > threshold, the paper's target;
* ``desired_class=[1, 2]``: P(1) + P(2) > threshold ("grade A or B", "any class but 0");
* ``margin_range=(lo, hi)``: lo <= the raw score before the link <= hi (binary boosting models);
* ``desired_range=(lo, hi)``: lo <= the prediction <= hi (regression models; DiCE's name).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen import ModelOutput
from geco.search.target import Target

__all__ = ["StatedTarget", "checked_interval", "stated_target"]


@dataclass(frozen=True)
class StatedTarget:
    """``output``: what the engines score (a plain class label for the paper's target, so its
    engines are the ones it always had); ``kind``: "probability", "margin" or "range";
    ``desired``: the class or classes (probability targets), None otherwise; ``interval``:
    (lo, hi) of a margin or range target."""

    output: Any
    kind: str
    desired: Any
    interval: tuple[float, float] | None = None

    def target(self, threshold: float, scores: np.ndarray) -> Target:
        """The search's target; an interval's shortfall is divided by the spread of ``scores``
        (the data's own scores), so it weighs about as ``1 - p`` does."""
        if self.interval is None:
            return Target.probability(threshold, self.desired)
        spread = float(np.ptp(scores)) if len(scores) else 1.0
        return Target.interval(self.kind, *self.interval, scale=spread)


def checked_interval(name: str, value: Any) -> tuple[float, float]:
    """``value`` as a (lo, hi) pair of numbers with lo <= hi (either may be infinite); raises
    ValueError naming ``name`` otherwise."""
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (lo, hi) of numbers, got {value!r}") from None
    if math.isnan(lo) or math.isnan(hi) or lo > hi:
        raise ValueError(f"{name} must be (lo, hi) with lo <= hi, got {value!r}")
    return lo, hi


def _classes(desired_class: Any) -> list[Any] | None:
    """The classes of a set-valued ``desired_class`` (list, tuple, set, array), else None."""
    if isinstance(desired_class, (str, bytes)) or not isinstance(desired_class, (Sequence, set, frozenset, np.ndarray)):
        return None
    values = desired_class.tolist() if isinstance(desired_class, np.ndarray) else list(desired_class)
    if isinstance(desired_class, (set, frozenset)):
        values = sorted(values, key=repr)
    unique: list[Any] = []
    for v in values:
        if v not in unique:
            unique.append(v)
    if not unique:
        raise ValueError("desired_class: an empty set of classes")
    return unique


def stated_target(desired_class: Any, margin_range: Any = None, desired_range: Any = None) -> StatedTarget:
    """The target the Explainer's arguments state (see the module docstring). Raises ValueError
    for two targets at once, an empty class set or a malformed interval."""
    if margin_range is not None and desired_range is not None:
        raise ValueError("give margin_range= or desired_range=, not both")
    if desired_range is not None:
        return StatedTarget(ModelOutput("prediction"), "range", None, checked_interval("desired_range", desired_range))
    if margin_range is not None:
        return StatedTarget(ModelOutput("margin"), "margin", None, checked_interval("margin_range", margin_range))
    classes = _classes(desired_class)
    if classes is None:
        return StatedTarget(desired_class, "probability", desired_class)
    if len(classes) == 1:  # one class: the paper's target, its engines unchanged
        return StatedTarget(classes[0], "probability", classes[0])
    return StatedTarget(ModelOutput("proba", tuple(classes)), "probability", classes)
