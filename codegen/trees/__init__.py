"""Tree models, layer by layer (each module is tested alone):

``reader`` (sklearn trees -> node arrays) -> ``fold`` (the pipeline folded into splits on the
user's columns) -> ``partial`` (numpy partial evaluation for (x, Δ)) -> ``emit`` (IR text of a
residual). Compiled tiers: ``kernel`` (the hand-written kernels of ``codegen/llvm/trees.ll``),
``native_partial`` (x bound natively; partial evaluation into plans), ``plan`` (plans - residual
trees in QuickScorer form or walked - and x-walks, run on Δ blocks), ``jit`` (compiled residuals),
and ``scorer`` (the tiers behind one ``ModelScorer``); ``threads`` holds the background workers
they share.

XGBoost and LightGBM enter at the reader, in the subpackage ``gbm``: ``gbm.xgboost_reader`` /
``gbm.lightgbm_reader`` (the same node arrays, with the libraries' split tests in
``gbm.split_tests`` and links in ``gbm.links``), ``gbm.input`` (how such a model reads the user's
DataFrame: pandas categoricals, sparse input), ``gbm.native_links`` (the links compiled) and
``gbm.scorer`` (the registry factory). Only ``kernel``, ``native_partial``, ``plan``, ``jit``,
``scorer``, ``gbm.native_links`` and ``gbm.scorer`` load LLVM; no module imports xgboost or
lightgbm.
"""
