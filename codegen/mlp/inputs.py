"""How the user's encoded columns enter an MLP's first layer (bare model or Pipeline).

Produces the plain network (:class:`codegen.mlp.reader.MLP`) and one
:class:`codegen.mlp.partial.FeatureInput` per user feature. For a Pipeline the column maps come
from :mod:`codegen.pipeline` (shared with the tree compiler) and are translated here: identity and
affine maps become :class:`AffineTerm` (applied to the value at run time in sklearn's operation
order), one-hot and code maps become :class:`CodeTerm` (folded into a code -> contribution table).
No llvmlite import in this layer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from codegen.errors import UnsupportedModel
from codegen.estimator import class_index
from codegen.mlp.partial import AffineTerm, CodeTerm, FeatureInput, FirstLayer
from codegen.mlp.reader import MLP, read_network
from codegen.outputs import class_columns, output_of
from codegen.pipeline import ModelInput

__all__ = ["feature_inputs", "first_layer", "model_inputs", "output_columns"]


def output_columns(estimator: Any, desired_class: Any) -> tuple[int, ...]:
    """The ``predict_proba`` columns ``desired_class`` sums (one class, a set, or ``(0,)`` for a
    regressor's prediction). Raises :class:`codegen.UnknownClass` for a class the model lacks and
    :class:`codegen.UnsupportedModel` for an output the model does not have."""
    from sklearn.base import is_regressor

    output = output_of(desired_class)
    name = type(estimator).__name__
    regressor = is_regressor(estimator)
    if output.kind == "prediction" or regressor:
        if not regressor:
            raise UnsupportedModel(f"{name} is a classifier: give desired_class (and threshold), not a prediction range")
        if output.kind != "prediction":
            raise UnsupportedModel(f"{name} is a regressor: give desired_range=(lo, hi), not a class")
        return (0,)
    if output.kind == "margin":
        raise UnsupportedModel(f"{name} has no raw margin compiled; give threshold instead")
    if len(output.classes) == 1:
        return (class_index(estimator, output.classes[0]),)
    return tuple(class_columns(getattr(estimator, "classes_", None), output.classes))


def model_inputs(mi: ModelInput, desired_class: Any) -> tuple[MLP, list[FeatureInput]]:
    """(network, per-feature inputs) of the pipeline read into ``mi``; raises
    :class:`codegen.UnsupportedModel` with a reason for anything else."""
    mlp = read_network(mi.estimator, output_columns(mi.estimator, desired_class))
    if len(mi.columns) != mlp.n_inputs:
        raise UnsupportedModel(f"the pipeline yields {len(mi.columns)} columns, the {type(mi.estimator).__name__} takes {mlp.n_inputs}")
    return mlp, feature_inputs(mi)


def feature_inputs(mi: ModelInput) -> list[FeatureInput]:
    """Group the model's input columns by the user feature they are computed from."""
    affine: dict[int, list[AffineTerm]] = {}
    codes: dict[int, list[CodeTerm]] = {}
    for j, c in enumerate(mi.columns):
        if c.kind in ("identity", "affine"):
            term = AffineTerm.from_ops(j, tuple(c.ops))
            if term is None:
                raise UnsupportedModel(f"column {c.name!r}: scaler sequence {[op[0] for op in c.ops]} is not supported")
            affine.setdefault(c.source, []).append(term)
        else:
            assert c.table is not None
            codes.setdefault(c.source, []).append(CodeTerm(j, np.asarray(c.table, dtype=np.float64)))
    out = []
    for i, feat in enumerate(mi.schema.features):
        if i in codes:
            if i in affine:  # pragma: no cover - pipeline.py maps a source one way only
                raise UnsupportedModel(f"feature {feat.name!r} enters the model both as number and code")
            out.append(FeatureInput(i, feat.name, codes=tuple(codes[i]), n_codes=len(codes[i][0].values)))
        elif i in affine:
            out.append(FeatureInput(i, feat.name, affine=tuple(affine[i])))
    return out


def first_layer(mi: ModelInput, desired_class: Any) -> FirstLayer:
    """The network with its first layer regrouped by user feature (what both engines run)."""
    return FirstLayer(*model_inputs(mi, desired_class))
