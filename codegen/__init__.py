"""codegen: partial evaluation of fitted models, LLVM IR emission, JIT and cache.

Public entry points (the Explainer calls these):

* :class:`UnsupportedModel` - raised, with a one-line ``reason``, for anything not compiled.
* :func:`read_model_input` (``codegen.pipeline``) - per-model-column maps of a preprocessing
  pipeline, shared by the tree and MLP compilers.
"""

from codegen.errors import UnsupportedModel
from codegen.pipeline import ColumnMap, ModelInput, read_model_input

__all__ = ["ColumnMap", "ModelInput", "UnsupportedModel", "read_model_input"]
from codegen.mlp_scorer import MLPScorer, mlp_ir, mlp_scorer  # noqa: F401 - MLP entry points
