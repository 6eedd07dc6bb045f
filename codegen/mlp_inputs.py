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

import numpy as np

from codegen.errors import UnsupportedModel
from codegen.mlp_partial import AffineTerm, CodeTerm, FeatureInput
from codegen.mlp_reader import MLP, MLPReadError, read_mlp
from codegen.pipeline import ModelInput, read_model_input
from geco.scoring import UnsupportedModelError, class_index
from plaf_grammar.schema import Schema

__all__ = ["model_inputs"]


def model_inputs(model: Any, schema: Schema, desired_class: Any) -> tuple[MLP, list[FeatureInput]]:
    """(network, per-feature inputs) or ``UnsupportedModel(reason)``."""
    mi = read_model_input(model, schema)  # bare estimators too: identity columns
    est = mi.estimator
    try:
        column = class_index(est, desired_class)
    except UnsupportedModelError as e:
        raise UnsupportedModel(str(e)) from None
    try:
        mlp = read_mlp(est, column)
    except MLPReadError as e:
        raise UnsupportedModel(str(e)) from None
    if len(mi.columns) != mlp.n_inputs:
        raise UnsupportedModel(f"the pipeline yields {len(mi.columns)} columns, the MLP takes {mlp.n_inputs}")
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
