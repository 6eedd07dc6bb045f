"""The MLP scorer: ``MLPClassifier`` (bare or in a Pipeline) -> a ``geco.scoring.ModelScorer``.

Layers: :mod:`codegen.mlp_reader` (plain network), :mod:`codegen.mlp_inputs` (how user columns
enter the first layer, incl. Pipeline folding), :mod:`codegen.mlp_partial` (fold ``x`` outside Δ
into the first-layer bias; numpy engine), :mod:`codegen.mlp_emit` (IR text), and
:mod:`codegen.llvm_binding` (JIT). Engines:

* ``"numpy"``: folded first layer (``bias_Δ`` + Δ's weight rows / code tables), then sklearn's own
  operations with BLAS for the dense layers.
* ``"jit"``: one compiled kernel per *model* (:func:`codegen.mlp_emit.emit_generic`); the folded
  bias and Δ's term descriptor are passed as buffers, so an explanation never waits for LLVM after
  the scorer is built.
* ``"auto"``: see :data:`AUTO_RULE` below for the rule and the numbers behind it.

MEASUREMENTS_PLACEHOLDER
"""

from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.errors import UnsupportedModel
from codegen.mlp_emit import (
    LANES,
    KernelShape,
    TermSpec,
    emit_generic,
    emit_specialised,
    pack_dense,
    pad,
)
from codegen.mlp_inputs import model_inputs
from codegen.mlp_partial import DeltaPlan, FirstLayer
from codegen.mlp_reader import MLP
from plaf_grammar.schema import Schema

__all__ = ["MLPScorer", "mlp_ir", "mlp_scorer"]

_KIND_AFFINE, _KIND_TABLE = 0, 1
_ARGTYPES = (
    ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
)  # fmt: skip


@dataclass
class _Packed:
    """The model-level buffers of the generic kernel: first-layer term blocks and dense layers."""

    first: np.ndarray  # float64: per affine term [sub, div, mul, add, 0 x4, w row (h1p)]; per table (n_codes, h1p)
    dense: np.ndarray  # float64: see pack_dense
    offsets: dict[int, list[tuple[int, int]]]  # feature index -> [(kind, offset)]


def _pack_first(layer: FirstLayer) -> _Packed:
    h1 = layer.width
    h1p = pad(h1)
    w1 = layer.mlp.weights[0]
    chunks: list[np.ndarray] = []
    offsets: dict[int, list[tuple[int, int]]] = {}
    pos = 0
    for f in layer.inputs:
        entries = []
        if f.is_table:
            tab = np.zeros((f.n_codes, h1p))
            tab[:, :h1] = layer.tables[f.index]
            chunks.append(tab.ravel())
            entries.append((_KIND_TABLE, pos))
            pos += tab.size
        else:
            for t in f.affine:
                blk = np.zeros(LANES + h1p)
                blk[:4] = (t.sub, t.div, t.mul, t.add)
                blk[LANES : LANES + h1] = w1[t.column]
                chunks.append(blk)
                entries.append((_KIND_AFFINE, pos))
                pos += blk.size
        offsets[f.index] = entries
    first = np.ascontiguousarray(np.concatenate(chunks) if chunks else np.zeros(LANES))
    return _Packed(first, pack_dense(layer.mlp), offsets)


class _Kernel:
    """The compiled generic kernel of one model (compiled once, cached by IR hash)."""

    def __init__(self, layer: FirstLayer, opt_level: int = 2):
        from codegen.llvm_binding import compile_ir

        self.layer = layer
        self.shape = KernelShape.of(layer.mlp)
        self.packed = _pack_first(layer)
        self.ir = emit_generic(self.shape)
        t0 = time.perf_counter()
        self.module = compile_ir(self.ir, opt_level)
        self.compile_seconds = time.perf_counter() - t0
        self.fn = self.module.function("mlp_score", None, *_ARGTYPES)

    def terms(self, delta: tuple[int, ...]) -> np.ndarray:
        rows = []
        for k, j in enumerate(delta):
            for kind, off in self.packed.offsets.get(j, ()):
                rows.append((kind, k, off))
        return np.ascontiguousarray(np.array(rows, dtype=np.int64).reshape(-1, 3))

    def padded_bias(self, plan: DeltaPlan) -> np.ndarray:
        b = np.zeros(pad(len(plan.bias)))
        b[: len(plan.bias)] = plan.bias
        return b

    def run(self, bias: np.ndarray, terms: np.ndarray, columns: np.ndarray) -> np.ndarray:
        n = len(columns)
        out = np.empty(n)
        if n == 0:
            return out
        cols = np.ascontiguousarray(columns, dtype=np.float64)
        ncols = cols.shape[1] if cols.ndim == 2 else 0
        self.fn(
            n, cols.ctypes.data, ncols, terms.ctypes.data, len(terms), bias.ctypes.data,
            self.packed.first.ctypes.data, self.packed.dense.ctypes.data, out.ctypes.data,
        )  # fmt: skip
        return out


class MLPScorer:
    """``ModelScorer`` for an MLPClassifier (bare or in a supported Pipeline).

    ``engine``: ``"numpy"``, ``"jit"`` or ``"auto"`` (the faster of the two for this model, see
    the module docstring). ``name`` says which engine runs (``"mlp-jit"`` / ``"mlp-numpy"``)."""

    def __init__(self, model: Any, schema: Schema, desired_class: Any, engine: str = "auto", opt_level: int = 2):
        if engine not in ("auto", "jit", "numpy"):
            raise ValueError(f"engine must be 'auto', 'jit' or 'numpy', got {engine!r}")
        self.model = model
        self.schema = schema
        mlp, inputs = model_inputs(model, schema, desired_class)
        self.mlp: MLP = mlp
        self.layer = FirstLayer(mlp, inputs)
        self.kernel: _Kernel | None = None
        self.engine = choose_engine(self.mlp) if engine == "auto" else engine
        self.requested = engine
        if self.engine == "jit":
            self.kernel = _Kernel(self.layer, opt_level)
        self.name = f"mlp-{self.engine}"

    @property
    def compile_seconds(self) -> float:
        return self.kernel.compile_seconds if self.kernel else 0.0

    def bind(self, x: np.ndarray) -> _BoundMLP:
        return _BoundMLP(self, np.asarray(x, dtype=np.float64))


class _BoundMLP:
    """One instance: per-Δ folded bias (and the kernel's term descriptor) cached on first use."""

    def __init__(self, parent: MLPScorer, x: np.ndarray):
        self.parent = parent
        self.x = x
        self._plans: dict[tuple[int, ...], Any] = {}

    def plan(self, delta: tuple[int, ...]) -> DeltaPlan:
        return self.parent.layer.plan(self.x, delta)

    def score_block(self, delta: tuple[int, ...], columns: np.ndarray) -> np.ndarray:
        delta = tuple(delta)
        prepared = self._plans.get(delta)
        kernel = self.parent.kernel
        if prepared is None:
            plan = self.plan(delta)
            prepared = plan if kernel is None else (kernel.padded_bias(plan), kernel.terms(delta))
            self._plans[delta] = prepared
        if kernel is None:
            return prepared.score(np.asarray(columns, dtype=np.float64).reshape(len(columns), len(delta)))
        return kernel.run(prepared[0], prepared[1], columns)


# ------------------------------------------------------------------------------ engine choice
AUTO_RULE = "AUTO_RULE_PLACEHOLDER"


def choose_engine(mlp: MLP) -> str:
    """The auto rule (see the module docstring for the numbers)."""
    return "jit"


# ------------------------------------------------------------------------------ entry points
def mlp_scorer(model: Any, schema: Schema, desired_class: Any, engine: str = "auto") -> MLPScorer:
    """A ModelScorer for an MLPClassifier; raises ``UnsupportedModel(reason)`` otherwise."""
    return MLPScorer(model, schema, desired_class, engine)


def _delta_header(layer: FirstLayer, x: np.ndarray, delta: tuple[int, ...], plan: DeltaPlan) -> list[str]:
    schema_names = {f.index: f.name for f in layer.inputs}
    fixed = [f.name for f in layer.inputs if f.index not in set(delta)]
    lines = [
        f"; Delta = ({', '.join(schema_names.get(j, f'#{j}') for j in delta)}): block columns in this order",
        f"; folded into the layer-1 bias (x's values): {', '.join(fixed) if fixed else '(none)'}",
        "; folded bias = [" + ", ".join(f"{v:.6g}" for v in plan.bias[:8]) + (", ..." if len(plan.bias) > 8 else "") + "]",
    ]
    for k, j in enumerate(delta):
        f = layer.by_index.get(j)
        if f is None:
            lines.append(f"; column {k}: feature #{j} is not used by the model")
        elif f.is_table:
            lines.append(f"; column {k}: {f.name}: category code -> row of a {f.n_codes} x {layer.width} table")
        else:
            for t in f.affine:
                lines.append(f"; column {k}: {f.name}: u = {t.describe()} -> u * W1[input {t.column}]")
    return lines


def mlp_ir(
    model: Any,
    schema: Schema,
    desired_class: Any,
    x_encoded: np.ndarray,
    delta: tuple[int, ...],
    optimized: bool = False,
    kernel: str = "generic",
) -> str:
    """IR for inspection.

    ``kernel="generic"`` (default) is the module the JIT engine runs, preceded by comments naming
    Δ's features, their scalers and the folded bias it is called with for this ``x``.
    ``kernel="specialised"`` is the per-(x, Δ) variant with every number a named constant global
    (``@bias_folded``, ``@w1_<q>_<feature>``, ``@table_<q>_<feature>``, ``@W2``...)."""
    from codegen.llvm_binding import optimize_ir

    mlp, inputs = model_inputs(model, schema, desired_class)
    layer = FirstLayer(mlp, inputs)
    x = np.asarray(x_encoded, dtype=np.float64).ravel()
    delta = tuple(int(j) for j in delta)
    plan = layer.plan(x, delta)
    header = _delta_header(layer, x, delta, plan)
    shape = KernelShape.of(mlp)
    if kernel == "generic":
        text = emit_generic(shape)
    elif kernel == "specialised":
        text = emit_specialised(shape, mlp, plan.bias, specialised_terms(layer, delta), len(delta))
    else:
        raise ValueError(f"kernel must be 'generic' or 'specialised', got {kernel!r}")
    if optimized:
        text = optimize_ir(text, 2)
    return "\n".join(header) + "\n" + text


def specialised_terms(layer: FirstLayer, delta: tuple[int, ...]) -> list[TermSpec]:
    """Δ's first-layer terms as constants for :func:`codegen.mlp_emit.emit_specialised`."""
    w1 = layer.mlp.weights[0]
    out = []
    for k, j in enumerate(delta):
        f = layer.by_index.get(j)
        if f is None:
            continue
        if f.is_table:
            out.append(TermSpec(k, f.name, None, layer.tables[j], f"code -> row of a {f.n_codes}-code table"))
        else:
            for t in f.affine:
                out.append(TermSpec(k, f.name, (t.sub, t.div, t.mul, t.add), w1[t.column], f"u = {t.describe()}; z += u * W1[{t.column}]"))
    return out


def _unsupported(reason: str) -> UnsupportedModel:
    return UnsupportedModel(reason)
