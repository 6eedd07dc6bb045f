"""What every scoring engine implements, compiled or not: the search and the Explainer use only this.

The search never builds full rows itself. It hands a bound scorer *Δ blocks*: the sorted tuple of
feature indices a block changes and an ``(n, len(Δ))`` float64 array of their encoded values
(:class:`plaf_grammar.Schema` encoding: categoricals as category codes). Every other feature
equals the instance ``x`` the scorer was bound to, which is what lets a compiled engine
specialise per (x, Δ).

A bound scorer may also offer ``score_delta_rows(rows, starts, deltas) -> (n,) array``: full rows
held in Δ order (the rows from ``starts[i]`` on are ``x`` outside ``deltas[i]``), scored as
``score_blocks`` would score each Δ's columns (``deltas`` may be :class:`DeltaMasks`, whose
tuples are made only if read). The tree engines do, so the many small Δ of a generation need no
per-block copies; the search uses it where present.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain, pairwise
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = [
    "COMPILED_ENGINES",
    "ENGINES",
    "MERGE_BELOW",
    "MERGE_MIN_BLOCKS",
    "Allowed",
    "Block",
    "DeltaMasks",
    "InstanceScorer",
    "ModelScorer",
    "checked_delta",
    "checked_deltas",
    "checked_engine",
    "checked_instance",
]

#: The compiled engine tiers: "auto" picks per model and per Δ from measured costs, "jit" compiles
#: (tree models: only where the measured costs say it pays, so never slower than "auto"), "numpy"
#: never touches LLVM.
COMPILED_ENGINES: tuple[str, ...] = ("auto", "jit", "numpy")
#: Every engine a caller may ask for: the compiled tiers ("auto" falls back to the black box for
#: a model no compiled engine serves), then the black box (the model's own ``predict_proba``).
ENGINES: tuple[str, ...] = (*COMPILED_ENGINES, "blackbox")

#: The compiled engines' block-merge policy (:attr:`ModelScorer.merge_below`,
#: :attr:`ModelScorer.merge_min_blocks`): the Δ blocks of a generation smaller than MERGE_BELOW
#: rows are scored together as one block of full rows when there are at least MERGE_MIN_BLOCKS of
#: them. A tiny block costs the engine far more per row in per-Δ bookkeeping than walking full
#: rows does (a tree engine walks each from x's binding, only where it differs from x) once there
#: are hundreds (wide data); with a few dozen (Adult, Credit) the per-Δ tiers are cheaper (RF-500
#: on Adult: 1.5x slower when merged); merging larger blocks measured slower on wide data too.
MERGE_BELOW = 32
MERGE_MIN_BLOCKS = 128

#: A Δ block: (sorted changed feature indices, (n, len(Δ)) float64 values of those features).
Block = tuple[tuple[int, ...], np.ndarray]

#: A box of rows, per feature: the finite set of encoded values it may take (an array), or None
#: for the instance's own value (see :meth:`ModelScorer.upper_bound`).
Allowed = Sequence[np.ndarray | None]


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
    ``compiled``: False only for the black box (the model's own ``predict_proba``).
    ``exact``: the scores equal ``predict_proba`` bit for bit, so they may be reported as the
    model's own numbers. ``merge_below`` / ``merge_min_blocks``: the block-merge policy the
    search applies to this engine (0: never merge)."""

    name: str
    compiled: bool
    exact: bool
    merge_below: int
    merge_min_blocks: int

    def bind(self, x: np.ndarray) -> InstanceScorer:
        """``x``: the encoded instance, shape (d,)."""
        ...

    def score_rows(self, rows: np.ndarray) -> np.ndarray:
        """P(desired) for full encoded rows, shape (n, d): the engine's own numbers."""
        ...

    def error_bound(self, rows: np.ndarray) -> np.ndarray:
        """Per encoded row, a bound on ``|score - predict_proba|``: 0 for an exact engine, ``inf``
        where the engine has none; a caller asks the model itself only about rows whose score
        lies that close to a threshold."""
        ...

    def upper_bound(self, x: np.ndarray, allowed: Allowed) -> float | None:
        """A sound upper bound on the model's own P(desired) (``predict_proba``'s, preprocessing
        included, floating point included) over every row whose feature ``j`` takes one of
        ``allowed[j]`` (``None``: ``x[j]``); None where the engine cannot bound the model (the
        black box). Never below the true maximum: a certificate of "no counterfactual" rests
        on it."""
        ...

    def warm_up(self, rows: np.ndarray) -> None:
        """Compile the once-per-process kernels now, on a few encoded rows of the data, so the
        first explanation is as fast as the others (a no-op where nothing compiles)."""
        ...

    def ir(self, x: np.ndarray, delta: tuple[int, ...], optimized: bool = False) -> str:
        """LLVM IR of the model specialised to ``x`` with the features ``delta`` left free;
        raises :class:`codegen.UnsupportedModel` for an engine without IR."""
        ...


def checked_engine(engine: str, allowed: tuple[str, ...] = ENGINES) -> str:
    """``engine`` if it is one of ``allowed``; raises ValueError naming them otherwise."""
    if engine not in allowed:
        raise ValueError(f"engine must be one of {allowed}, got {engine!r}")
    return engine


def checked_instance(x: np.ndarray, d: int) -> np.ndarray:
    """``x`` as the float64 vector of ``d`` values that ``bind`` takes; raises ValueError for any
    other shape (compiled code reads ``x`` by feature index, so a short vector would be read past
    its end)."""
    arr = np.ascontiguousarray(x, dtype=np.float64)
    if arr.shape != (d,):
        raise ValueError(f"x: expected an encoded vector of {d} values, got shape {arr.shape}")
    return arr


class DeltaMasks(Sequence[tuple[int, ...]]):
    """Δ given as masks: ``masks`` (Δ, d) bool, row ``i`` marking the features of Δ ``i``. Its
    items are the Δ's feature indices, ascending (a valid Δ by construction), as tuples made
    at the first read: a scorer that needs only the rows (walking them whole from x) never
    makes them, and a generation holds hundreds of Δ."""

    def __init__(self, masks: np.ndarray) -> None:
        self.masks = np.asarray(masks, dtype=bool)
        if self.masks.ndim != 2:
            raise ValueError(f"Δ masks must be (n, d), got shape {self.masks.shape}")
        self._tuples: list[tuple[int, ...]] | None = None

    def _made(self) -> list[tuple[int, ...]]:
        if self._tuples is None:
            r, c = np.nonzero(self.masks)  # row by row, columns ascending
            cut = np.searchsorted(r, np.arange(len(self.masks) + 1)).tolist()
            cols = c.tolist()
            self._tuples = [tuple(cols[a:b]) for a, b in pairwise(cut)]
        return self._tuples

    def __len__(self) -> int:
        return len(self.masks)

    def __getitem__(self, i):  # type: ignore[override]
        return self._made()[i]

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return iter(self._made())


def checked_deltas(deltas: Sequence[Sequence[int]], d: int) -> list[tuple[int, ...]]:
    """Every Δ of ``deltas`` as a tuple, checked as :func:`checked_delta` checks one but in one
    numpy pass (a generation brings hundreds of new Δ); on a bad one, its ValueError for the
    first."""
    out = [delta if type(delta) is tuple else tuple(delta) for delta in deltas]
    lens = np.fromiter(map(len, out), dtype=np.int64, count=len(out))
    flat = np.fromiter(chain.from_iterable(out), dtype=np.float64, count=int(lens.sum()))
    owner = np.repeat(np.arange(len(out)), lens)
    inside = (flat >= 0) & (flat < d) & (flat == np.floor(flat))
    falls = (np.diff(flat) <= 0) & (np.diff(owner) == 0)  # a step within one Δ that does not rise
    if not inside.all() or falls.any():
        for delta in out:
            checked_delta(delta, d)
    return out


def checked_delta(delta: Sequence[int], d: int) -> tuple[int, ...]:
    """``delta`` as a Δ: strictly increasing feature indices in ``[0, d)``; raises ValueError
    otherwise (a negative or fractional index would silently name another feature)."""
    if not all(float(j).is_integer() for j in delta):  # int() would silently name another feature
        raise ValueError(f"delta must be strictly increasing feature indices in [0, {d}), got {tuple(delta)}")
    out = tuple(int(j) for j in delta)
    if any(j < 0 or j >= d for j in out) or any(a >= b for a, b in pairwise(out)):
        raise ValueError(f"delta must be strictly increasing feature indices in [0, {d}), got {out}")
    return out
