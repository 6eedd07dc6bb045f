"""Which number of a model the engines score: one class's probability, a set's, a raw margin or
a regression model's prediction.

Every engine factory and the black box take a ``desired_class``. A plain value there (a class
label, or a column index for a model without classes) asks for that class's probability, as it
always did. A :class:`ModelOutput` asks for something else:

* ``ModelOutput("proba", (a, b))``: P(a) + P(b), summed as ``predict_proba(X)[:, [a, b]].sum(1)``;
* ``ModelOutput("margin")``: the raw score before the link of a binary boosting model
  (``decision_function``, XGBoost's ``output_margin``, LightGBM's ``raw_score``);
* ``ModelOutput("prediction")``: a regression model's ``predict``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.errors import UnknownClass, UnsupportedModel
from codegen.estimator import class_list

__all__ = ["OUTPUT_KINDS", "ModelOutput", "class_columns", "output_of", "refuse"]

#: the kinds of :class:`ModelOutput`
OUTPUT_KINDS = ("proba", "margin", "prediction")


@dataclass(frozen=True)
class ModelOutput:
    """What the engines score (see the module docstring); ``classes`` only for ``"proba"``."""

    kind: str
    classes: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in OUTPUT_KINDS:
            raise ValueError(f"unknown model output {self.kind!r}; one of {OUTPUT_KINDS}")
        if self.kind == "proba" and not self.classes:
            raise ValueError("a probability output needs at least one class")

    def __repr__(self) -> str:
        if self.kind == "proba":
            return " or ".join(repr(c) for c in self.classes)
        return "the raw margin" if self.kind == "margin" else "the prediction"


def output_of(desired_class: Any) -> ModelOutput:
    """``desired_class`` as a :class:`ModelOutput` (a plain value: that class's probability)."""
    if isinstance(desired_class, ModelOutput):
        return desired_class
    return ModelOutput("proba", (desired_class,))


def class_columns(classes: Sequence[Any] | None, wanted: Sequence[Any]) -> list[int]:
    """The ``predict_proba`` columns of the ``wanted`` classes; a model without ``classes``
    takes column indices. Raises :class:`UnknownClass` naming a class the model lacks."""
    if classes is None:
        bad = [c for c in wanted if not (isinstance(c, (int, np.integer)) and c >= 0)]
        if bad:
            raise UnknownClass(f"model has no classes_; desired classes must be column indices, got {bad!r}")
        return [int(c) for c in wanted]
    known = class_list(classes)
    missing = [c for c in wanted if c not in known]
    if missing:
        raise UnknownClass(f"desired class(es) {missing!r} are not among the model's classes {known}")
    return [known.index(c) for c in wanted]


def refuse(kind: str, why: str) -> UnsupportedModel:
    """The error for an output a model does not have."""
    return UnsupportedModel(f"no {kind}: {why}")
