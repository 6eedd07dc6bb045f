"""codegen: fitted models read into plain arrays, partially evaluated per (x, Δ), compiled to LLVM.

Layers (imports go downwards only; codegen imports nothing of geco):

* :mod:`codegen.registry` - model class -> engine factory; ``scorer_for`` is what geco calls.
* :mod:`codegen.trees`, :mod:`codegen.mlp` - one subpackage per model family: reader, partial
  evaluation, IR emission, scorer.
* :mod:`codegen.pipeline` - a preprocessing Pipeline read into per-column maps (shared).
* :mod:`codegen.llvm` - the only place that touches llvmlite, and the hand-written ``.ll`` kernels.
* :mod:`codegen.protocol` (what every engine implements), :mod:`codegen.errors`,
  :mod:`codegen.estimator`.

Importing ``codegen`` (or a reader) does not load llvmlite; ``codegen.registry`` does.
"""

from codegen.errors import UnsupportedModel
from codegen.estimator import class_index, split_pipeline
from codegen.pipeline import ColumnMap, ModelInput, read_model_input
from codegen.protocol import ENGINES, Block, InstanceScorer, ModelScorer

__all__ = [
    "ENGINES",
    "Block",
    "ColumnMap",
    "InstanceScorer",
    "ModelInput",
    "ModelScorer",
    "UnsupportedModel",
    "class_index",
    "read_model_input",
    "split_pipeline",
]
