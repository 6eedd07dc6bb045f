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
from codegen.mlp.reader import MLP, read_mlp
from codegen.pipeline import ModelInput

__all__ = ["feature_inputs", "first_layer", "model_inputs"]


def model_inputs(mi: ModelInput, desired_class: Any) -> tuple[MLP, list[FeatureInput]]:
    """(network, per-feature inputs) of the pipeline read into ``mi``; raises
    :class:`codegen.UnsupportedModel` with a reason for anything else."""
    mlp = read_mlp(mi.estimator, class_index(mi.estimator, desired_class))
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


def first_layer(mi: ModelInput, desired_class: Any) -> FirstLayer:
    """The network with its first layer regrouped by user feature (what both engines run)."""
    return FirstLayer(*model_inputs(mi, desired_class))
