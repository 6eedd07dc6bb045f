"""codegen: partial evaluation of fitted models, LLVM IR emission, JIT and cache.

Public entry points (the Explainer calls these):

* :class:`UnsupportedModel` - raised, with a one-line ``reason``, for anything not compiled.
* :func:`tree_scorer` / :func:`tree_ir` - tree models (``codegen.tree_scorer``).
* :func:`read_model_input` (``codegen.pipeline``) - per-model-column maps of a preprocessing
  pipeline, shared by the tree and MLP compilers.

Layers for trees, each its own module and tested alone: ``tree_reader`` (sklearn -> node arrays),
``pipeline`` + ``forest`` (fold preprocessing into splits on the user's columns), ``partial``
(partial evaluation for (x, Δ)), ``tree_emit`` (IR text), ``tree_kernel`` (one generic compiled
walker), ``tree_scorer`` (tiers and cost model), ``llvm_binding`` (all LLVM state).
"""

from codegen.errors import UnsupportedModel
from codegen.mlp_scorer import MLPScorer, mlp_ir, mlp_scorer  # MLP entry points (issue 6)
from codegen.pipeline import ColumnMap, ModelInput, read_model_input
from codegen.tree_scorer import TreeScorer, tree_ir, tree_scorer

__all__ = [
    "ColumnMap",
    "MLPScorer",
    "ModelInput",
    "TreeScorer",
    "UnsupportedModel",
    "mlp_ir",
    "mlp_scorer",
    "read_model_input",
    "tree_ir",
    "tree_scorer",
]
