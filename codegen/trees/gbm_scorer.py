"""The engine factory of XGBoost and LightGBM models: their trees folded onto the user's columns
(:mod:`codegen.trees.gbm_input`) behind the same tiers as sklearn's trees
(:class:`codegen.trees.scorer.TreeScorer`: partial evaluation, kernel, JIT, IR, cost model)."""

from __future__ import annotations

from typing import Any

from codegen.pipeline import ModelInput
from codegen.trees.gbm_input import gbm_forest
from codegen.trees.scorer import TreeScorer

__all__ = ["gbm_scorer"]


def gbm_scorer(model_input: ModelInput, desired_class: Any, engine: str = "auto") -> TreeScorer:
    """Registry factory (see :mod:`codegen.registry`); ``model_input`` comes from
    :func:`codegen.trees.gbm_input.read_gbm_input`. Raises :class:`codegen.UnsupportedModel`."""
    return TreeScorer(gbm_forest(model_input, desired_class), engine)
