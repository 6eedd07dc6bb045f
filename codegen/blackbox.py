"""The black-box engine: any model with ``predict_proba`` (or a callable returning probabilities),
a binary model's raw margin, or any regression model's ``predict`` (:mod:`codegen.outputs`).

It implements the same :class:`codegen.ModelScorer` protocol as the compiled engines
(``codegen.registry``): bound to an instance, it materialises full rows from Δ blocks, decodes
them to the user's DataFrame form and makes one model call per generation. It is also every
engine choice's reference: the model's own numbers (:class:`codegen.choice.EngineChoice`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from codegen.errors import UnsupportedModel
from codegen.estimator import class_index, split_pipeline
from codegen.outputs import ModelOutput, class_columns, output_of, refuse
from codegen.protocol import Block
from plaf_grammar import Schema

__all__ = ["BlackBoxScorer", "BoundBlackBox", "model_output_function"]


class BlackBoxScorer:
    """Scores through the model's own ``predict_proba`` on materialised rows (any classifier)."""

    name = "blackbox"
    compiled = False
    #: it *is* the model's predict_proba
    exact = True
    #: a model call's fixed overhead is what matters, and every generation is one call already
    merge_below = 0
    merge_min_blocks = 0

    def __init__(self, model: Any, schema: Schema, desired_class: Any = 1):
        self.columns: list[int] | None = None  # several classes: P of the set, their sum
        if isinstance(desired_class, ModelOutput) and desired_class.kind != "proba":
            self._proba = model_output_function(model, desired_class)
            self.column = None
        elif isinstance(desired_class, ModelOutput) and len(desired_class.classes) > 1:
            if not callable(getattr(model, "predict_proba", None)):
                raise UnsupportedModel(f"{type(model).__name__} has no predict_proba; a set of classes needs one")
            self._proba = model.predict_proba
            self.columns = class_columns(getattr(model, "classes_", None), desired_class.classes)
            self.column = None
        elif callable(getattr(model, "predict_proba", None)):
            self._proba: Callable[[pd.DataFrame], np.ndarray] = model.predict_proba
            self.column = class_index(model, output_of(desired_class).classes[0])
        elif callable(model):
            desired_class = output_of(desired_class).classes[0]
            self._proba = model
            self.column = None if not isinstance(desired_class, (int, np.integer)) else int(desired_class)
        else:
            hint = (
                "; a regression model is explained with desired_range=(lo, hi)"
                if callable(getattr(model, "predict", None)) else ""
            )  # fmt: skip
            raise UnsupportedModel(
                f"{type(model).__name__} has no predict_proba and is not callable; geco needs "
                f"class probabilities{hint}"
            )
        self.output = output_of(desired_class)
        self.model = model
        self.schema = schema

    def predict(self, encoded: np.ndarray) -> np.ndarray:
        """The score of full encoded rows (one model call): P(desired), P of the desired set,
        the margin or the prediction (:attr:`output`)."""
        frame = self.schema.decode(encoded)
        p = np.asarray(self._proba(frame), dtype=np.float64)
        if p.ndim == 1:
            return p
        if self.columns is not None:
            return p[:, self.columns].sum(axis=1)
        if self.column is None:
            return p[:, -1] if p.shape[1] == 2 else p[:, 0]
        return p[:, self.column]

    def score_rows(self, rows: np.ndarray) -> np.ndarray:
        """:meth:`predict`: the model's own numbers (no model call for no rows)."""
        if len(rows) == 0:
            return np.empty(0)
        return self.predict(rows)

    def error_bound(self, rows: np.ndarray) -> np.ndarray:
        """Zeros: these are ``predict_proba``'s numbers."""
        return np.zeros(len(rows))

    def upper_bound(self, x: np.ndarray, allowed: Any) -> None:
        """None: a black box cannot be bounded without asking it about every row."""
        return None

    def warm_up(self, rows: np.ndarray) -> None:
        """Nothing to compile."""

    def bind(self, x: np.ndarray) -> BoundBlackBox:
        return BoundBlackBox(self, np.asarray(x, dtype=np.float64))

    def ir(self, x: np.ndarray, delta: tuple[int, ...], optimized: bool = False) -> str:
        raise UnsupportedModel(
            "the black-box engine has no LLVM IR: it calls the model's own predict_proba"
        )


class BoundBlackBox:
    """The black box bound to one instance ``x``."""

    def __init__(self, parent: BlackBoxScorer, x: np.ndarray):
        self.parent = parent
        self.x = x

    def score_block(self, delta: tuple[int, ...], columns: np.ndarray) -> np.ndarray:
        n = len(columns)
        if n == 0:
            return np.empty(0)
        rows = np.tile(self.x, (n, 1))
        if delta:
            rows[:, list(delta)] = columns
        return self.parent.predict(rows)

    def score_blocks(self, blocks: Sequence[Block]) -> list[np.ndarray]:
        """All blocks of a generation in ONE model call: a model call has a fixed overhead
        (input validation, joblib dispatch, pipeline transforms) that dwarfs small blocks."""
        sizes = [len(cols) for _, cols in blocks]
        total = sum(sizes)
        if total == 0:
            return [np.empty(0) for _ in blocks]
        rows = np.tile(self.x, (total, 1))
        start = 0
        for (delta, cols), n in zip(blocks, sizes):
            if delta and n:
                rows[start : start + n, list(delta)] = cols
            start += n
        probs = self.parent.predict(rows)
        return np.split(probs, np.cumsum(sizes)[:-1])


def model_output_function(model: Any, output: ModelOutput) -> Callable[[pd.DataFrame], np.ndarray]:
    """The model's own function for a margin or a prediction (:mod:`codegen.outputs`); raises
    :class:`UnsupportedModel` where the model has none."""
    _, final = split_pipeline(model)
    name = type(final).__name__
    package = type(final).__module__.split(".")[0]
    if output.kind == "prediction":
        if hasattr(final, "classes_") or hasattr(model, "classes_"):
            raise refuse("prediction range", f"{name} is a classifier; give desired_class (and threshold) instead")
        if callable(getattr(model, "predict", None)):
            return model.predict
        if callable(model):
            return model
        raise refuse("prediction", f"{name} has no predict")
    if package == "xgboost" and hasattr(final, "classes_"):
        _binary(final, name)
        return functools.partial(model.predict, output_margin=True)
    if package == "lightgbm" and hasattr(final, "classes_"):
        _binary(final, name)
        return functools.partial(model.predict, raw_score=True)
    if not callable(getattr(final, "decision_function", None)):
        why = (
            "its probability is the average of its trees' votes, there is no score before a link; "
            "give threshold instead" if hasattr(final, "estimators_") or hasattr(final, "tree_")
            else "it has no decision_function"
        )  # fmt: skip
        raise refuse("raw margin", f"{name}: {why}")
    _binary(final, name)
    return model.decision_function


def _binary(final: Any, name: str) -> None:
    classes = getattr(final, "classes_", None)
    if classes is None or len(classes) != 2:
        raise refuse("raw margin", f"{name} is not a binary classifier (a margin range needs one raw score)")
