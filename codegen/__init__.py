"""codegen: fitted models read into plain arrays, partially evaluated per (x, Δ), compiled to LLVM.

Layers (imports go downwards only; codegen imports nothing of geco):

* :mod:`codegen.registry` - model class -> engine factory; ``choose_engine`` is what geco calls
  (``scorer_for`` when only a compiled engine will do).
* :mod:`codegen.runtime` - the process-wide runtime for callers: compile cache, statistics,
  assembly, stopping the background threads.
* :mod:`codegen.trees`, :mod:`codegen.mlp` - one subpackage per model family: reader, partial
  evaluation, IR emission, scorer.
* :mod:`codegen.blackbox` - the engine that calls the model's own ``predict_proba`` (or
  ``predict``, or its margin: :mod:`codegen.outputs` names what an engine scores).
* :mod:`codegen.pipeline` - a preprocessing Pipeline read into per-column maps (shared).
* :mod:`codegen.llvm` - the only place that touches llvmlite, and the hand-written ``.ll`` kernels.
* :mod:`codegen.protocol` (what every engine implements, the engine names),
  :mod:`codegen.compiled` (what the compiled engines share), :mod:`codegen.choice` (an engine
  choice), :mod:`codegen.errors`, :mod:`codegen.estimator`.

Importing ``codegen`` (or a reader) does not load llvmlite; ``codegen.registry`` does.
"""

from codegen.blackbox import BlackBoxScorer
from codegen.choice import EngineChoice
from codegen.errors import UnknownClass, UnsupportedModel
from codegen.estimator import class_index, input_columns, split_pipeline, stored_name
from codegen.outputs import ModelOutput
from codegen.pipeline import ColumnMap, ModelInput, read_model_input
from codegen.protocol import COMPILED_ENGINES, ENGINES, Block, InstanceScorer, ModelScorer
from codegen.runtime import (
    cache_settings,
    compile_statistics,
    configure_cache,
    emit_assembly,
    shutdown,
)

__all__ = [
    "COMPILED_ENGINES",
    "ENGINES",
    "BlackBoxScorer",
    "Block",
    "ColumnMap",
    "EngineChoice",
    "InstanceScorer",
    "ModelInput",
    "ModelOutput",
    "ModelScorer",
    "UnknownClass",
    "UnsupportedModel",
    "cache_settings",
    "class_index",
    "compile_statistics",
    "configure_cache",
    "emit_assembly",
    "input_columns",
    "read_model_input",
    "shutdown",
    "split_pipeline",
    "stored_name",
]
