"""What every scoring engine implements, compiled or not: the search and the Explainer use only this.

The search never builds full rows itself. It hands a bound scorer *Δ blocks*: the sorted tuple of
feature indices a block changes and an ``(n, len(Δ))`` float64 array of their encoded values
(:class:`plaf_grammar.Schema` encoding: categoricals as category codes). Every other feature
equals the instance ``x`` the scorer was bound to, which is what lets a compiled engine
specialise per (x, Δ).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["ENGINES", "Block", "InstanceScorer", "ModelScorer", "checked_delta", "checked_instance"]

#: The compiled engine tiers: "auto" picks per model and per Δ from measured costs, "jit" compiles
#: (tree models: only where the measured costs say it pays, so never slower than "auto"), "numpy"
#: never touches LLVM.
ENGINES: tuple[str, ...] = ("auto", "jit", "numpy")

#: A Δ block: (sorted changed feature indices, (n, len(Δ)) float64 values of those features).
Block = tuple[tuple[int, ...], np.ndarray]


@runtime_checkable
class InstanceScorer(Protocol):
    """Scores Δ blocks of candidates for one fixed instance ``x``."""

    def score_block(self, delta: tuple[int, ...], columns: np.ndarray) -> np.ndarray:
        """P(desired class) per row: ``x`` with the features ``delta`` set to ``columns``."""
        ...

    def score_blocks(self, blocks: Sequence[Block]) -> list[np.ndarray]:
        """:meth:`score_block` for every block of a generation, in order (one call lets an
        engine batch what the blocks share)."""
        ...


@runtime_checkable
class ModelScorer(Protocol):
    """A model prepared once (per Explainer), bound to one instance per explanation.

    ``name`` says which engine scores now (it may change once, when an engine is measured).
    ``exact``: the scores equal ``predict_proba`` bit for bit, so they may be reported as the
    model's own numbers. A scorer that is not exact may also have ``error_bound(rows)``: per
    encoded row, a bound on ``|score - predict_proba|``, so a caller asks the model itself only
    about rows whose score lies that close to a threshold (without it, about every row)."""

    name: str
    exact: bool

    def bind(self, x: np.ndarray) -> InstanceScorer:
        """``x``: the encoded instance, shape (d,)."""
        ...

    def ir(self, x: np.ndarray, delta: tuple[int, ...], optimized: bool = False) -> str:
        """LLVM IR of the model specialised to ``x`` with the features ``delta`` left free;
        raises :class:`codegen.UnsupportedModel` for an engine without IR."""
        ...


def checked_instance(x: np.ndarray, d: int) -> np.ndarray:
    """``x`` as the float64 vector of ``d`` values that ``bind`` takes; raises ValueError for any
    other shape (compiled code reads ``x`` by feature index, so a short vector would be read past
    its end)."""
    arr = np.ascontiguousarray(x, dtype=np.float64)
    if arr.shape != (d,):
        raise ValueError(f"x: expected an encoded vector of {d} values, got shape {arr.shape}")
    return arr


def checked_delta(delta: Sequence[int], d: int) -> tuple[int, ...]:
    """``delta`` as a Δ: strictly increasing feature indices in ``[0, d)``; raises ValueError
    otherwise (a negative index would silently name another feature)."""
    out = tuple(int(j) for j in delta)
    if any(j < 0 or j >= d for j in out) or any(a >= b for a, b in pairwise(out)):
        raise ValueError(f"delta must be strictly increasing feature indices in [0, {d}), got {out}")
    return out
