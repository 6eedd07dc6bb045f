"""The specialised tier: a residual forest emitted as IR (:mod:`codegen.trees.emit`) and compiled.

It runs a small residual several times faster than a plan but costs 0.05-4 s of compile per
(x, Δ), so the scorer compiles only a Δ whose plan has already spent twice that
(``benchmarks/README.md``).
"""

from __future__ import annotations

import time

import numpy as np

from codegen.llvm import binding
from codegen.llvm.signatures import ctypes_signature
from codegen.trees.emit import SCORE_SIGNATURE, emit_residual
from codegen.trees.fold import Forest
from codegen.trees.partial import Residual

__all__ = ["CompiledResidual", "compile_residual", "jit_opt_level"]

_SCORE_RESTYPE, _SCORE_ARGS = ctypes_signature(SCORE_SIGNATURE, "score")


def jit_opt_level(n_splits: int) -> int:
    """O1 pays for small residuals (0.1 µs/row vs 1 µs/row at O0); above ~600 live splits its
    compile time grows to seconds, so fall back to O0 (the backend alone, ~0.1 ms/split)."""
    return 1 if n_splits <= 600 else 0


class CompiledResidual:
    """The compiled ``@score`` of one residual; calls keep their input and output arrays alive."""

    def __init__(self, module: binding.CompiledModule, forest: Forest, width: int | None = None):
        self.module = module
        self.forest = forest
        self.width = width  # len(Δ): the values the compiled code reads per row (None: unchecked)
        self.fn = module.function("score", _SCORE_RESTYPE, *_SCORE_ARGS)

    def __call__(self, cols: np.ndarray) -> np.ndarray:
        """P(desired) for a Δ block ``(n, len(Δ))``."""
        f = self.forest
        n = len(cols)
        cols = np.ascontiguousarray(cols, dtype=np.float64)
        if self.width is not None:
            cols = cols.reshape(n, self.width)  # a narrower block would be read past its rows
        if f.divisor is not None:
            out = np.empty(n)
            self.fn(cols.ctypes.data, n, out.ctypes.data)
            return out
        raw = np.empty((n, f.n_outputs))
        self.fn(cols.ctypes.data, n, raw.ctypes.data)
        return f.finish(raw)


def compile_residual(res: Residual) -> tuple[CompiledResidual, bool, float]:
    """(compiled residual, whether it came from the cache, seconds spent). Thread-safe."""
    ir = emit_residual(res)
    opt = jit_opt_level(res.n_splits)
    cached = binding.is_cached(ir, opt)
    t0 = time.perf_counter()
    cm = binding.compile_ir(ir, opt)
    return CompiledResidual(cm, res.forest, len(res.delta)), cached, time.perf_counter() - t0
