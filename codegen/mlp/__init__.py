"""MLPs (``sklearn.neural_network.MLPClassifier``, single-output ``MLPRegressor``), layer by layer:

``reader`` (the plain network) -> ``inputs`` (how the user's columns enter the first layer,
pipeline folded in) -> ``partial`` (x outside Δ folded into the first-layer bias; the numpy
engine) -> ``emit`` (IR text of the per-model kernel) -> ``scorer`` (numpy / jit / auto behind one
``ModelScorer``). Only ``scorer`` loads LLVM.
"""
