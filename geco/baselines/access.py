"""The one place where the baselines reach past geco's public API.

The baselines build a ``geco.Explainer`` for its schema, data, PLAF program, group domains and
feature ranges (documented attributes) and need a few things more: the feasible values of each
group for one instance, GeCo's distance, the model's own probabilities and an engine's score of
full rows. Each of those is one small function here, so a change inside geco is fixed in one file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from geco.explainer import Explainer
from geco.problem.distance import DistanceSpec
from geco.problem.feasible_space import GroupSpace, feasible_space
from geco.problem.hashing import row_hashes
from plaf_grammar import GroundProgram

__all__ = [
    "GroupSpace",
    "bind_full_rows",
    "class_column",
    "distance_spec",
    "encode_instance",
    "feasible_spaces",
    "ground",
    "model_proba",
    "row_hashes",
]


def encode_instance(explainer: Explainer, x: Any) -> tuple[np.ndarray, pd.DataFrame]:
    """One instance (one-row DataFrame, Series or dict) -> its encoded vector and its one-row
    DataFrame in the user's form; bad input raises the schema's error naming the column."""
    if isinstance(x, pd.Series):
        x = x.to_frame().T
    elif isinstance(x, dict):
        x = pd.DataFrame([x])
    if not isinstance(x, pd.DataFrame):
        raise TypeError(f"x must be a one-row DataFrame, a Series or a dict, got {type(x).__name__}")
    if len(x) != 1:
        raise ValueError(f"explain() takes exactly one row, got {len(x)}")
    enc = explainer.schema.encode(x.infer_objects(), what="instance")[0]
    return enc, explainer.schema.decode(enc[None], index=x.index)


def ground(explainer: Explainer, x_enc: np.ndarray) -> GroundProgram:
    """The explainer's PLAF program grounded on ``x`` (vectorised ``check`` over rows)."""
    return explainer.program.ground(x_enc)


def distance_spec(explainer: Explainer, x_enc: np.ndarray, weights: Sequence[float]) -> DistanceSpec:
    """GeCo's distance to ``x`` with the explainer's feature ranges."""
    return DistanceSpec(x_enc, explainer.ranges, explainer.categorical, tuple(weights))


def feasible_spaces(
    explainer: Explainer, x_enc: np.ndarray, grounded: GroundProgram, dist: DistanceSpec
) -> list[GroupSpace]:
    """Per group: the value tuples seen in the data, minus ``x``'s own, that satisfy the group's
    own rules for ``x`` (sorted by distance, with their frequencies as ``weights``)."""
    return feasible_space(explainer.domains, x_enc, grounded.group_filters, dist)


def model_proba(explainer: Explainer, rows: np.ndarray) -> np.ndarray:
    """P(desired class) from the model's own ``predict_proba`` for encoded full rows."""
    if len(rows) == 0:
        return np.empty(0)
    return explainer.blackbox.predict(rows)


def class_column(explainer: Explainer) -> int:
    """The column of ``predict_proba`` that holds the desired class."""
    col = explainer.blackbox.column
    return 1 if col is None else int(col)


def bind_full_rows(explainer: Explainer, x_enc: np.ndarray):
    """A function scoring encoded full rows with the explainer's engine (compiled where the model
    allows, else ``predict_proba``), bound to ``x``."""
    bound = explainer.scorer.bind(x_enc)
    every = tuple(range(len(x_enc)))

    def score(rows: np.ndarray) -> np.ndarray:
        if len(rows) == 0:
            return np.empty(0)
        return np.asarray(bound.score_block(every, np.ascontiguousarray(rows)), dtype=np.float64)

    return score
