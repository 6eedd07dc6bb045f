"""Tree models, layer by layer (each module is tested alone):

``reader`` (sklearn trees -> node arrays) -> ``fold`` (the pipeline folded into splits on the
user's columns) -> ``partial`` (numpy partial evaluation for (x, Δ)) -> ``emit`` (IR text of a
residual). Compiled tiers: ``kernel`` (the hand-written kernels of ``codegen/llvm/trees.ll``),
``native_partial`` (partial evaluation in the same module), ``jit`` (compiled residuals), and
``scorer`` (the tiers behind one ``ModelScorer``). Only ``kernel``, ``native_partial``, ``jit``
and ``scorer`` load LLVM.
"""
