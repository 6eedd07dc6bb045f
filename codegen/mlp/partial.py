"""Partial evaluation of an MLP for one instance ``x`` and one Δ (the features a block changes).

The first layer is the only place where the user's columns meet the network:
``z1 = b1 + Σ_c u_c · W1[c, :]`` over model-input columns ``c``, where ``u`` is the preprocessed
row. We regroup that sum by *user feature* ``f``:

* a numeric feature contributes ``Σ_terms t(v_f) · W1[c_term, :]`` with ``t`` its scaler, computed
  at run time exactly in sklearn's operation order (``((v - sub) / div) * mul + add``: with the
  neutral constants 0 and 1 each step is exact, so this one form reproduces StandardScaler
  (``(v - mean) / scale``), MinMaxScaler (``v * scale + min``) and passthrough bit for bit);
* a categorical/ordinal feature (a category *code*) contributes ``table_f[code]``, a row of a
  precomputed ``(n_codes, h1)`` table: for a one-hot encoded feature that row is the weight row of
  the code's indicator column (a categorical value picks a weight row; no one-hot vector is
  built), for an OrdinalEncoder/passthrough code it is ``t(code) · W1[c, :]``.

Why scalers are applied to the value and not folded into ``W1``: folding ``(v - m)/s · w`` into
``v · (w/s) - m·w/s`` cancels catastrophically when ``|m|/s`` is large (a feature like a year or a
capital amount) and breaks the 1e-12 contract; the scaled value costs two flops per Δ column per
row, nothing next to the ``h1``-wide row update that follows.

A value that is not one of a feature's codes ``0..n_codes-1`` (NaN, negative, too large, not an
integer) picks a row of NaNs, so the probability is NaN - never another code's row, never a read
outside the table (the kernel does the same).

Given ``x`` and Δ, every feature outside Δ is a constant, so its contribution folds into the bias:
``bias_Δ = b1 + Σ_{f ∉ Δ} contribution_f(x_f)``; only Δ's columns remain to be computed per row.
:class:`DeltaPlan` holds that folded bias plus the Δ columns' terms; both engines (numpy here, the
JIT kernel in :mod:`codegen.mlp.emit`) consume it. No llvmlite import in this layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from codegen.mlp.reader import MLP

__all__ = ["AffineTerm", "CodeTerm", "DeltaPlan", "FeatureInput", "FirstLayer", "table_rows"]


def table_rows(values: np.ndarray, n_codes: int) -> np.ndarray:
    """Row of a code table per value: the code itself, or ``n_codes`` (the NaN row) for a value
    that is not one of the codes ``0..n_codes-1``."""
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        code = (v >= 0) & (v < n_codes) & (v == np.trunc(v))
    return np.where(code, v, n_codes).astype(np.intp)


@dataclass(frozen=True)
class AffineTerm:
    """Model column ``column`` receives ``clip(((v - sub) / div) * mul + add, lo, hi)``.

    With the neutral constants (0, 1, 1, 0, -inf, inf) every step is exact, so this one form
    reproduces sklearn's StandardScaler, MinMaxScaler (with or without ``clip``), MaxAbsScaler,
    RobustScaler, a scaler after a scaler in that order, and passthrough, bit for bit."""

    column: int
    sub: float = 0.0
    div: float = 1.0
    mul: float = 1.0
    add: float = 0.0
    lo: float = -np.inf
    hi: float = np.inf

    @property
    def params(self) -> tuple[float, float, float, float, float, float]:
        return (self.sub, self.div, self.mul, self.add, self.lo, self.hi)

    def value(self, v: np.ndarray | float) -> np.ndarray | float:
        u = ((v - self.sub) / self.div) * self.mul + self.add
        if self.lo != -np.inf or self.hi != np.inf:
            u = np.clip(u, self.lo, self.hi)
        return u

    def describe(self) -> str:
        parts = "v"
        if self.sub != 0.0:
            parts = f"(v - {self.sub:.6g})"
        if self.div != 1.0:
            parts = f"{parts} / {self.div:.6g}"
        if self.mul != 1.0:
            parts = f"({parts}) * {self.mul:.6g}"
        if self.add != 0.0:
            parts = f"{parts} + {self.add:.6g}"
        if self.lo != -np.inf or self.hi != np.inf:
            parts = f"clip({parts}, {self.lo:.6g}, {self.hi:.6g})"
        return parts

    @classmethod
    def from_ops(cls, column: int, ops: tuple[tuple, ...]) -> AffineTerm | None:
        """From :mod:`codegen.pipeline`'s exact op sequence; None if it is not of our form."""
        order = ("sub", "div", "mul", "add", "clip")
        vals: dict[str, Any] = {}
        pos = 0
        for op in ops:
            if op[0] not in order[pos:] or op[0] in vals:
                return None
            pos = order.index(op[0]) + 1
            vals[op[0]] = op[1:]
        kw: dict[str, float] = {k: float(v[0]) for k, v in vals.items() if k != "clip"}
        if "clip" in vals:
            kw["lo"], kw["hi"] = float(vals["clip"][0]), float(vals["clip"][1])
        return cls(column, **kw)


@dataclass(frozen=True)
class CodeTerm:
    """Model column ``column`` receives ``values[code]`` for a categorical feature's code."""

    column: int
    values: np.ndarray  # (n_codes,) float64


@dataclass(frozen=True)
class FeatureInput:
    """How one user feature (schema index ``index``) enters the model's input columns."""

    index: int
    name: str
    affine: tuple[AffineTerm, ...] = ()
    codes: tuple[CodeTerm, ...] = ()
    n_codes: int = 0  # > 0: a categorical/ordinal feature, evaluated through a table

    @property
    def is_table(self) -> bool:
        return self.n_codes > 0


@dataclass
class FirstLayer:
    """The first layer regrouped by user feature: weight rows and code tables, built once."""

    mlp: MLP
    inputs: list[FeatureInput]
    #: feature index -> (n_codes + 1, h1); the last row (NaN) serves values that are not codes
    tables: dict[int, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        w1 = self.mlp.weights[0]
        self.by_index = {f.index: f for f in self.inputs}
        #: schema index of each input feature, in ``inputs`` order
        self.input_features = np.array([f.index for f in self.inputs], dtype=np.intp)
        for f in self.inputs:
            if f.is_table:
                table = np.zeros((f.n_codes + 1, w1.shape[1]))
                for t in f.codes:
                    vals = np.asarray(t.values, dtype=np.float64)
                    nz = np.flatnonzero(vals != 0.0)
                    # a one-hot row is exactly W1[c] (1.0 * w); zeros contribute nothing
                    table[nz] += vals[nz, None] * w1[t.column]
                table[f.n_codes] = np.nan
                self.tables[f.index] = np.ascontiguousarray(table)

    def magnitude_table(self, index: int) -> np.ndarray:
        """For the error bound: row ``code`` holds ``Σ_terms |value(code)| · |W1[c_term]|`` of
        table feature ``index`` (last row NaN), built on first use and kept - one gather per
        feature and row instead of a pass per one-hot column."""
        cache = self.__dict__.setdefault("_magnitudes", {})
        table = cache.get(index)
        if table is None:
            f, w1 = self.by_index[index], self.mlp.weights[0]
            table = np.zeros((f.n_codes + 1, w1.shape[1]))
            for t in f.codes:
                vals = np.abs(np.asarray(t.values, dtype=np.float64))
                nz = np.flatnonzero(vals)
                table[nz] += vals[nz, None] * np.abs(w1[t.column])
            table[f.n_codes] = np.nan
            table = cache[index] = np.ascontiguousarray(table)
        return table

    @property
    def width(self) -> int:
        return self.mlp.weights[0].shape[1]

    def contribution(self, f: FeatureInput, v: float) -> np.ndarray:
        """``f``'s share of ``z1`` for value ``v`` (an (h1,) vector)."""
        w1 = self.mlp.weights[0]
        if f.is_table:
            return self.tables[f.index][table_rows(np.array([v]), f.n_codes)[0]]
        out = np.zeros(w1.shape[1])
        for t in f.affine:
            out += t.value(v) * w1[t.column]
        return out

    def contributions(self, x: np.ndarray) -> np.ndarray:
        """Every input feature's share of ``z1`` at ``x``: an ``(len(inputs), h1)`` array whose
        row ``i`` belongs to ``inputs[i]``. Computed once per instance, it makes each Δ's folded
        bias one vectorised sum instead of a Python pass over all features."""
        out = np.empty((len(self.inputs), self.width))
        for i, f in enumerate(self.inputs):
            out[i] = self.contribution(f, float(x[f.index]))
        return out

    def plan(self, x: np.ndarray, delta: tuple[int, ...], contributions: np.ndarray | None = None) -> DeltaPlan:
        """Fold every feature outside Δ into the bias; keep Δ's terms (partial evaluation).
        ``contributions``: :meth:`contributions` of this ``x``, when the caller keeps it."""
        if contributions is None:
            contributions = self.contributions(x)
        outside = ~np.isin(self.input_features, np.asarray(delta, dtype=np.intp))
        bias = self.mlp.biases[0] + contributions[outside].sum(axis=0)
        return DeltaPlan(self, tuple(delta), bias)


@dataclass
class DeltaPlan:
    """The residual first layer for one (x, Δ): ``z1 = bias + Σ_{f ∈ Δ} contribution_f(v_f)``."""

    layer: FirstLayer
    delta: tuple[int, ...]
    bias: np.ndarray  # (h1,) float64: b1 + the folded contributions of x outside Δ

    def z1(self, columns: np.ndarray) -> np.ndarray:
        """First-layer pre-activations for a block; ``columns[:, k]`` is feature ``delta[k]``."""
        n = len(columns)
        w1 = self.layer.mlp.weights[0]
        z = np.empty((n, len(self.bias)))
        z[:] = self.bias
        for k, j in enumerate(self.delta):
            f = self.layer.by_index.get(j)
            if f is None:  # a feature the model drops (ColumnTransformer remainder="drop")
                continue
            col = columns[:, k]
            if f.is_table:
                z += self.layer.tables[j][table_rows(col, f.n_codes)]
            else:
                for t in f.affine:
                    z += np.multiply.outer(t.value(col), w1[t.column])
        return z

    def score(self, columns: np.ndarray) -> np.ndarray:
        """The numpy engine: folded first layer, then BLAS for the dense layers."""
        return self.layer.mlp.tail(self.z1(columns))
