"""The outcome of choosing an engine for a model: which engine scores, the model's own
reference, and why, in one line for the user (:func:`codegen.registry.choose_engine` makes it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codegen.blackbox import BlackBoxScorer
from codegen.protocol import ModelScorer

__all__ = ["EngineChoice", "describe_engine", "model_label"]


@dataclass(frozen=True)
class EngineChoice:
    """``scorer`` scores the search; ``reference`` is the model's own ``predict_proba`` (the same
    object as ``scorer`` when the black box scores); ``fallback_reason`` is "" unless "auto" fell
    back to the black box, then the reason no compiled engine serves the model; ``description``
    says which engine scores and why, in one line."""

    scorer: ModelScorer
    reference: BlackBoxScorer
    fallback_reason: str
    description: str


def model_label(model: Any) -> str:
    """The model's class name; a Pipeline names its final estimator too: ``Pipeline(SVC)``."""
    label = type(model).__name__
    steps = getattr(model, "steps", None)
    if steps:
        label += f"({type(steps[-1][1]).__name__})"
    return label


def describe_engine(model: Any, scorer: ModelScorer, requested: str, fallback_reason: str) -> str:
    """Which engine scores ``model`` and why, in one line."""
    label = model_label(model)
    if scorer.compiled:
        return f"compiled engine {scorer.name!r}: the codegen layer compiles {label}"
    if requested == "blackbox":
        return "black box (predict_proba): engine='blackbox' was requested"
    return f"black box (predict_proba): no compiled engine for {label} ({fallback_reason})"
