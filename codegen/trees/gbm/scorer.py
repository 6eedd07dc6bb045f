"""The engine factory of XGBoost and LightGBM models: their trees folded onto the user's columns
(:mod:`codegen.trees.gbm.input`) behind the same tiers as sklearn's trees
(:class:`codegen.trees.scorer.TreeScorer`: partial evaluation, kernel, JIT, IR, cost model).

Two additions: values such a model reads as missing although they are numbers (0 behind a
sparse XGBoost input, ``zero_as_missing`` in LightGBM; :attr:`codegen.trees.fold.Forest.missing_values`)
become NaN before any tier sees them, in ``x`` and in every Δ block; and the library's link runs
compiled (:mod:`codegen.trees.gbm.native_links`), bit-identical to the numpy one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from codegen.outputs import output_of
from codegen.pipeline import ModelInput
from codegen.protocol import Block
from codegen.trees.fold import fold
from codegen.trees.gbm.input import gbm_raw
from codegen.trees.gbm.native_links import native_link
from codegen.trees.scorer import BoundTreeScorer, TreeScorer

__all__ = ["GBMTreeScorer", "gbm_scorer"]


class GBMTreeScorer(TreeScorer):
    """A :class:`TreeScorer` whose inputs pass through :meth:`Forest.read_missing` first.

    Every tier of :class:`TreeScorer` serves it (the kernels round each sum to float32 where
    XGBoost does, ``Forest.float32_sums``)."""

    def bind(self, x: np.ndarray) -> BoundTreeScorer:
        self.load_kernels()
        x = self.forest.read_missing(np.asarray(x, dtype=np.float64))
        if not self.forest.missing_values:
            return BoundTreeScorer(self, x)
        return _BoundGBMScorer(self, x)

    def ir(self, x: np.ndarray, delta: tuple[int, ...], optimized: bool = False) -> str:
        x = self.forest.read_missing(np.asarray(x, dtype=np.float64).reshape(-1))
        return super().ir(x, delta, optimized)


class _BoundGBMScorer(BoundTreeScorer):
    def score_block(self, delta: tuple[int, ...], columns: np.ndarray) -> np.ndarray:
        return self.score_blocks([(delta, columns)])[0]

    def score_blocks(self, blocks: Sequence[Block]) -> list[np.ndarray]:
        f = self.forest
        read = {s for s, _, _ in f.missing_values}
        return super().score_blocks(
            [(d, f.read_missing(c, tuple(d)) if read.intersection(d) else c) for d, c in blocks]
        )

    def score_delta_rows(self, rows: np.ndarray, starts: np.ndarray, deltas: Sequence[tuple[int, ...]]) -> np.ndarray:
        # outside its Δ a row holds x's values as given, which read as the bound x does
        return super().score_delta_rows(self.forest.read_missing(rows), starts, deltas)


def gbm_scorer(model_input: ModelInput, desired_class: Any, engine: str = "auto") -> TreeScorer:
    """Registry factory (see :mod:`codegen.registry`); ``model_input`` comes from
    :func:`codegen.trees.gbm.input.read_gbm_input`. Raises :class:`codegen.UnsupportedModel`."""
    raw = gbm_raw(model_input)
    forest = fold(raw, model_input, desired_class)
    output = output_of(desired_class)
    single_class = output.kind == "proba" and len(output.classes) == 1 and not raw.regression
    if engine != "numpy" and single_class:  # the numpy tier stays free of LLVM
        link = native_link(raw.finish, raw.classes.index(output.classes[0]), raw.n_outputs)
        if link is not None:
            forest = dataclasses.replace(forest, link=link)
    return GBMTreeScorer(forest, engine)
