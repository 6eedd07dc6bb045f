"""What every reader asks of a fitted model first: its final estimator, the columns it reads and
the desired class's column."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from codegen.errors import UnknownClass, UnsupportedModel
from plaf_grammar import SchemaError

__all__ = ["class_index", "class_list", "input_columns", "split_pipeline", "stored_name"]


def split_pipeline(model: Any) -> tuple[list[tuple[str, Any]], Any]:
    """(preprocessing steps, final estimator) of a fitted ``Pipeline`` (nested pipelines
    flattened); a bare estimator has no steps."""
    from sklearn.pipeline import Pipeline

    steps: list[tuple[str, Any]] = []
    while isinstance(model, Pipeline):
        steps.extend(model.steps[:-1])
        model = model.steps[-1][1]
    return steps, model


def _first_step(model: Any) -> Any:
    """The object whose ``feature_names_in_`` a Pipeline reports: its first step (nested
    pipelines followed); a bare estimator is its own."""
    from sklearn.pipeline import Pipeline

    while isinstance(model, Pipeline):
        model = model.steps[0][1]
    return model


def _is_lightgbm(model: Any) -> bool:
    return type(model).__module__.split(".")[0] == "lightgbm"


def stored_name(model: Any, column: str) -> str:
    """``column`` as ``model`` (a bare estimator or a Booster) stores it among its feature names.

    LightGBM writes every space of a column name as ``_`` (its Dataset does, and it refuses the
    JSON special characters outright); it reads a DataFrame by position, so the user's names still
    reach it. scikit-learn and XGBoost keep names as they are."""
    return column.replace(" ", "_") if _is_lightgbm(model) else column


def input_columns(model: Any, columns: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """(the entries of ``columns`` the model reads, in the model's order; the others, in their
    order) for a fitted estimator or Pipeline, by its ``feature_names_in_``. A model without
    feature names (a callable, or fitted on an array) reads them all.

    A name matches the column of that name or, for LightGBM, the column it is the stored form of
    (:func:`stored_name`). Raises :class:`plaf_grammar.SchemaError` for a name no column
    matches, or that two columns could be (``"a b"`` and ``"a_b"`` for LightGBM's ``"a_b"``)."""
    try:
        names = [str(n) for n in model.feature_names_in_]
    except AttributeError:
        return list(columns), []
    owner = _first_step(model)
    by_name = {str(c): c for c in columns}
    read_as: dict[str, list[str]] = {}  # a model name -> the columns it may be
    for c in by_name:
        read_as.setdefault(c, []).append(c)
        if stored_name(owner, c) != c:
            read_as.setdefault(stored_name(owner, c), []).append(c)
    chosen: list[Any] = []
    missing: list[str] = []
    for n in names:
        same = read_as.get(n, [])
        if len(same) > 1:
            raise SchemaError(
                f"cannot tell which column of X the model's column {n!r} is: {type(owner).__name__} "
                f"stores each of {same} as {n!r}; drop the one it was not fitted on"
            )
        if same:
            chosen.append(by_name[same[0]])
        else:
            missing.append(n)
    if missing:
        hint = " (LightGBM writes a space in a column name as '_')" if _is_lightgbm(owner) else ""
        raise SchemaError(
            f"X lacks column(s) {missing} that the model was fitted on (feature_names_in_){hint}"
        )
    used = {str(c) for c in chosen}
    return chosen, [c for c in columns if str(c) not in used]


def class_list(classes: Any) -> list[Any]:
    """A classifier's ``classes_`` as a list. A multi-output classifier (one array of classes
    per output) is refused: its ``predict_proba`` is a list of tables, and geco explains one
    probability."""
    several = isinstance(classes, (list, tuple)) and any(isinstance(c, np.ndarray) for c in classes)
    if several or (isinstance(classes, np.ndarray) and classes.ndim > 1):
        raise UnsupportedModel(
            f"the model predicts {len(classes)} outputs (a multi-output classifier); geco explains one: "
            "fit a model per target, or pass a function returning one output's probabilities"
        )
    return list(np.asarray(classes).tolist())


def class_index(model: Any, desired_class: Any) -> int:
    """Column of ``predict_proba`` that holds ``desired_class``.

    A model without ``classes_`` (e.g. a plain function) takes a column index instead. A value
    that is neither raises :class:`codegen.errors.UnknownClass` (a ValueError)."""
    classes = getattr(model, "classes_", None)
    if classes is None:
        if isinstance(desired_class, (int, np.integer)) and desired_class >= 0:
            return int(desired_class)
        raise UnknownClass(
            f"model has no classes_; desired_class must be a column index, got {desired_class!r}"
        )
    classes = class_list(classes)
    if desired_class not in classes:
        alike = [c for c in classes if str(c) == str(desired_class)]  # 1 for "1", "1" for 1, True for "True"
        hint = f": did you mean {alike[0]!r} ({type(alike[0]).__name__})?" if alike else ""
        raise UnknownClass(f"desired_class {desired_class!r} is not one of the model's classes {classes}{hint}")
    return classes.index(desired_class)
