"""Tree models, layer by layer (each module is tested alone):

``reader`` (sklearn trees -> node arrays) -> ``fold`` (the pipeline folded into splits on the
user's columns) -> ``partial`` (numpy partial evaluation for (x, Δ)) -> ``emit`` (IR text of a
residual). Compiled tiers: ``kernel`` (the hand-written kernels of ``codegen/llvm/trees.ll``),
``native_partial`` (x bound natively; partial evaluation into plans), ``plan`` (plans - residual
trees in QuickScorer form or walked - and x-walks, run on Δ blocks), ``jit`` (compiled residuals),
and ``scorer`` (the tiers behind one ``ModelScorer``). Only ``kernel``, ``native_partial``,
``plan``, ``jit`` and ``scorer`` load LLVM.
"""
