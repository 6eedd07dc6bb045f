"""How the search asks a model for probabilities: one small interface, several engines.

The search never builds full rows itself. It hands a *Δ block* to the scorer: the sorted tuple of
feature indices the block changes and an ``(n, len(Δ))`` float64 array of their encoded values
(see :class:`plaf_grammar.Schema`: categoricals as category codes). Every other feature equals the
instance ``x`` the scorer was bound to. That is what lets a compiled engine specialise per Δ.

* :class:`BlackBoxScorer` (any model with ``predict_proba``, or any callable returning
  probabilities) materialises full rows, decodes them to the user's DataFrame form and makes one
  model call per block.
* compiled engines (``codegen``) implement the same two methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import pandas as pd

from plaf_grammar import Schema

__all__ = ["BlackBoxScorer", "InstanceScorer", "ModelScorer", "UnsupportedModelError", "class_index"]


class UnsupportedModelError(TypeError):
    """The model cannot be used (no predict_proba, unknown desired class, ...)."""


class InstanceScorer(Protocol):
    """Scores Δ blocks of candidates for one fixed instance ``x``."""

    def score_block(self, delta: tuple[int, ...], columns: np.ndarray) -> np.ndarray:
        """P(desired class) for each row: ``x`` with features ``delta`` set to ``columns``."""
        ...


class ModelScorer(Protocol):
    """A model prepared once (per Explainer); bound to one instance per explanation."""

    name: str

    def bind(self, x: np.ndarray) -> InstanceScorer:
        """``x``: the encoded instance, shape (d,)."""
        ...


def class_index(model: Any, desired_class: Any) -> int:
    """Column of ``predict_proba`` that holds the desired class."""
    classes = getattr(model, "classes_", None)
    if classes is None:
        if isinstance(desired_class, (int, np.integer)) and desired_class >= 0:
            return int(desired_class)
        raise UnsupportedModelError(
            f"model has no classes_; desired_class must be a column index, got {desired_class!r}"
        )
    classes = list(np.asarray(classes).tolist())
    if desired_class not in classes:
        raise UnsupportedModelError(
            f"desired_class {desired_class!r} is not one of the model's classes {classes}"
        )
    return classes.index(desired_class)


class BlackBoxScorer:
    """Scores through the model's own ``predict_proba`` on materialised rows (any classifier)."""

    name = "blackbox"

    def __init__(self, model: Any, schema: Schema, desired_class: Any = 1):
        if callable(getattr(model, "predict_proba", None)):
            self._proba: Callable[[pd.DataFrame], np.ndarray] = model.predict_proba
            self.column = class_index(model, desired_class)
        elif callable(model):
            self._proba = model
            self.column = None if not isinstance(desired_class, (int, np.integer)) else int(desired_class)
        else:
            raise UnsupportedModelError(
                f"{type(model).__name__} has no predict_proba and is not callable; geco needs "
                "class probabilities"
            )
        self.model = model
        self.schema = schema
        self.calls = 0
        self.rows = 0

    def predict(self, encoded: np.ndarray) -> np.ndarray:
        """P(desired) for full encoded rows (one model call)."""
        frame = self.schema.decode(encoded)
        p = np.asarray(self._proba(frame), dtype=np.float64)
        self.calls += 1
        self.rows += len(encoded)
        if p.ndim == 1:
            return p
        if self.column is None:
            return p[:, -1] if p.shape[1] == 2 else p[:, 0]
        return p[:, self.column]

    def bind(self, x: np.ndarray) -> _BoundBlackBox:
        return _BoundBlackBox(self, np.asarray(x, dtype=np.float64))


class _BoundBlackBox:
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

    def score_blocks(self, blocks: list[tuple[tuple[int, ...], np.ndarray]]) -> list[np.ndarray]:
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
