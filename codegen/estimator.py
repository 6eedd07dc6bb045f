"""What every reader asks of a fitted model first: its final estimator and the desired class's column."""

from __future__ import annotations

from typing import Any

import numpy as np

from codegen.errors import UnsupportedModel

__all__ = ["class_index", "split_pipeline"]


def split_pipeline(model: Any) -> tuple[list[tuple[str, Any]], Any]:
    """(preprocessing steps, final estimator) of a fitted ``Pipeline`` (nested pipelines
    flattened); a bare estimator has no steps."""
    from sklearn.pipeline import Pipeline

    steps: list[tuple[str, Any]] = []
    while isinstance(model, Pipeline):
        steps.extend(model.steps[:-1])
        model = model.steps[-1][1]
    return steps, model


def class_index(model: Any, desired_class: Any) -> int:
    """Column of ``predict_proba`` that holds ``desired_class``.

    A model without ``classes_`` (e.g. a plain function) takes a column index instead."""
    classes = getattr(model, "classes_", None)
    if classes is None:
        if isinstance(desired_class, (int, np.integer)) and desired_class >= 0:
            return int(desired_class)
        raise UnsupportedModel(
            f"model has no classes_; desired_class must be a column index, got {desired_class!r}"
        )
    classes = list(np.asarray(classes).tolist())
    if desired_class not in classes:
        raise UnsupportedModel(
            f"desired_class {desired_class!r} is not one of the model's classes {classes}"
        )
    return classes.index(desired_class)
