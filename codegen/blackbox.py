"""The black-box engine: any model with ``predict_proba`` (or a callable returning probabilities).

It implements the same :class:`codegen.ModelScorer` protocol as the compiled engines
(``codegen.registry``): bound to an instance, it materialises full rows from Δ blocks, decodes
them to the user's DataFrame form and makes one model call per generation. It is also every
engine choice's reference: the model's own numbers (:class:`codegen.choice.EngineChoice`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from codegen.errors import UnsupportedModel
from codegen.estimator import class_index
from codegen.protocol import Block
from plaf_grammar import Schema

__all__ = ["BlackBoxScorer", "BoundBlackBox"]


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
        if callable(getattr(model, "predict_proba", None)):
            self._proba: Callable[[pd.DataFrame], np.ndarray] = model.predict_proba
            self.column = class_index(model, desired_class)
        elif callable(model):
            self._proba = model
            self.column = None if not isinstance(desired_class, (int, np.integer)) else int(desired_class)
        else:
            raise UnsupportedModel(
                f"{type(model).__name__} has no predict_proba and is not callable; geco needs "
                "class probabilities"
            )
        self.model = model
        self.schema = schema

    def predict(self, encoded: np.ndarray) -> np.ndarray:
        """P(desired) for full encoded rows (one model call)."""
        frame = self.schema.decode(encoded)
        p = np.asarray(self._proba(frame), dtype=np.float64)
        if p.ndim == 1:
            return p
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
