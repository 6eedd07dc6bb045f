"""Tree-model scorers for the search: a tier per Δ, chosen by a cost model fed with measured times.

Tiers, all bit-identical to ``predict_proba`` (same compares, same ordered sums, sklearn's own
link function), so the search takes the same path whichever tier scored a block:

* full kernel: the whole folded forest on materialised rows (:mod:`codegen.trees.kernel`);
* residual kernel: native partial evaluation per (x, Δ) (:mod:`codegen.trees.native_partial`),
  then the same kernel on the Δ block;
* jit: the residual emitted as IR and compiled (:mod:`codegen.trees.jit`);
* numpy: partial evaluation and the walk in numpy (:mod:`codegen.trees.partial`), no LLVM.

``engine="auto"`` per (x, Δ), every constant measured online: a cold Δ (while its rows times the
full-vs-residual cost gap stay below the cost of partial evaluation) joins one batched
full-kernel call per generation; every other Δ is partially evaluated once and scored by the
residual kernel; a hot Δ (the residual kernel has spent twice the predicted compile time) is
compiled on a background thread and switches to the compiled function once ready.
``engine="jit"`` always compiles the residual; ``engine="numpy"`` never touches LLVM. Why this
design: the measurements in ``benchmarks/README.md`` (section "bench_trees.py").
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from codegen.llvm import binding
from codegen.pipeline import ModelInput
from codegen.protocol import ENGINES, Block, checked_delta, checked_instance
from codegen.trees.emit import emit_residual
from codegen.trees.fold import Forest, fold
from codegen.trees.jit import CompiledResidual, compile_residual, jit_opt_level
from codegen.trees.kernel import KernelArrays, kernel_arrays_forest, run_kernel, tree_functions
from codegen.trees.native_partial import BoundX, NativePartial
from codegen.trees.partial import Residual, bind_x, partial_evaluate
from codegen.trees.reader import read_trees

__all__ = ["BoundTreeScorer", "TreeScorer", "tree_scorer"]

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _background() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="geco-llvm")
        return _executor


class _Ewma:
    """A running estimate (exponentially weighted) seeded with a prior."""

    def __init__(self, prior: float, alpha: float = 0.3):
        self.value = prior
        self.alpha = alpha
        self.n = 0

    def add(self, v: float) -> None:
        self.value = v if self.n == 0 else (1 - self.alpha) * self.value + self.alpha * v
        self.n += 1


class TreeScorer:
    """A :class:`codegen.ModelScorer` for a folded tree model (bare or in a pipeline).

    ``stats`` (a dict, cumulative over every bound instance) reports blocks and rows per tier,
    seconds in partial evaluation and compilation, compiles and cache hits/misses."""

    #: every tier is bit-identical to predict_proba, so the Explainer may report its numbers
    exact = True

    def __init__(self, forest: Forest, engine: str = "auto", *, max_residuals: int = 256):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        self.forest = forest
        self.engine = engine
        self.name = f"trees-{engine}"
        self.max_residuals = max_residuals
        self.stats: dict[str, Any] = {
            "blocks_full_kernel": 0, "rows_full_kernel": 0,
            "blocks_residual_kernel": 0, "rows_residual_kernel": 0,
            "blocks_jit": 0, "rows_jit": 0,
            "blocks_numpy": 0, "rows_numpy": 0,
            "partial_evaluations": 0, "pe_seconds": 0.0,
            "compiles": 0, "compile_seconds": 0.0, "cache_hits": 0, "cache_misses": 0,
            "background_compiles": 0,
        }  # fmt: skip
        self._lock = threading.Lock()
        self.full: KernelArrays | None = None
        self.native: NativePartial | None = None
        if engine == "auto":
            self.full = kernel_arrays_forest(forest)
            self.native = NativePartial(forest, self.full)
            # compile the once-per-process kernels now, so their compile time never enters
            # the measured costs below (it would make partial evaluation look 1000x dearer)
            tree_functions()
        # cost model (seconds); priors from benchmarks/README.md, then measured
        self.c_full = _Ewma(4e-10 * len(forest.feature) + 2e-7)  # ~100 µs/row at 250k nodes
        self.c_res = _Ewma(5e-6)
        self.c_pe = _Ewma(1e-4)
        self.c_compile_base = 0.05
        self.c_compile_split = _Ewma(3e-4)

    def bind(self, x: np.ndarray) -> BoundTreeScorer:
        return BoundTreeScorer(self, checked_instance(x, len(self.forest.schema)))

    def ir(self, x: np.ndarray, delta: tuple[int, ...], optimized: bool = False) -> str:
        """The specialised module for (x, Δ) that the jit tier compiles; ``optimized=True``: after
        LLVM's pipeline at the level the JIT would use."""
        x = np.asarray(x, dtype=np.float64).reshape(-1)
        res = partial_evaluate(self.forest, bind_x(self.forest, x), tuple(delta))
        ir = emit_residual(res, x=x)
        if optimized:
            return binding.optimize_ir(ir, max(1, jit_opt_level(res.n_splits)))
        return ir

    def _count(self, tier: str, n: int) -> None:
        self.stats[f"blocks_{tier}"] += 1
        self.stats[f"rows_{tier}"] += n

    def compile(self, res: Residual) -> CompiledResidual:
        """Emit and compile the specialised module for ``res`` (thread-safe)."""
        compiled, cached, dt = compile_residual(res)
        with self._lock:
            self.stats["compiles"] += 1
            self.stats["cache_hits" if cached else "cache_misses"] += 1
            if not cached:
                self.stats["compile_seconds"] += dt
                if jit_opt_level(res.n_splits) == 1 and res.n_splits > 0:
                    self.c_compile_split.add(max(dt - self.c_compile_base, 0.0) / res.n_splits)
        return compiled


class _DeltaState:
    __slots__ = ("arrays", "compiled", "future", "n_splits", "residual", "rows")

    def __init__(self) -> None:
        self.rows = 0
        self.residual: Residual | None = None
        self.arrays = None
        self.n_splits = 0
        self.compiled: CompiledResidual | None = None
        self.future: Future | None = None


class BoundTreeScorer:
    """Scores Δ blocks for one instance ``x`` (see :class:`TreeScorer` for the tiers)."""

    def __init__(self, parent: TreeScorer, x: np.ndarray):
        self.parent = parent
        self.forest = parent.forest
        self.x = x
        self._xchild: np.ndarray | None = None
        self._bx: BoundX | None = None
        self._states: OrderedDict[tuple[int, ...], _DeltaState] = OrderedDict()
        self._checked: set[tuple[int, ...]] = set()  # every Δ seen, validated once

    # -------------------------------------------------------------- helpers
    def residual(self, delta: tuple[int, ...]) -> Residual:
        """The numpy residual (engines "numpy" and "jit"; the source of a specialised module)."""
        st = self._state(delta)
        if st.residual is None:
            t0 = time.perf_counter()
            if self._xchild is None:
                self._xchild = self._bx.xchild if self._bx is not None else bind_x(self.forest, self.x)
            st.residual = partial_evaluate(self.forest, self._xchild, delta)
            dt = time.perf_counter() - t0
            p = self.parent
            if p.engine != "auto":
                p.stats["partial_evaluations"] += 1
                p.stats["pe_seconds"] += dt
        return st.residual

    def kernel_arrays(self, delta: tuple[int, ...]) -> KernelArrays:
        """The residual forest of Δ in the kernel's layout, by the native partial evaluator."""
        st = self._state(delta)
        if st.arrays is None:
            p = self.parent
            assert p.native is not None
            if self._bx is None:  # once per instance, not part of a Δ's cost
                self._bx = p.native.bind(self.x)
            t0 = time.perf_counter()
            st.arrays = p.native(self._bx, delta)
            st.n_splits = int(np.count_nonzero(st.arrays.nodes["col"] >= 0))
            dt = time.perf_counter() - t0
            p.c_pe.add(dt)
            p.stats["partial_evaluations"] += 1
            p.stats["pe_seconds"] += dt
        return st.arrays

    def _state(self, delta: tuple[int, ...]) -> _DeltaState:
        st = self._states.get(delta)
        if st is None:
            st = self._states[delta] = _DeltaState()
            if len(self._states) > self.parent.max_residuals:
                self._states.popitem(last=False)
        else:
            self._states.move_to_end(delta)
        return st

    def _full_rows(self, delta: tuple[int, ...], cols: np.ndarray) -> np.ndarray:
        rows = np.empty((len(cols), len(self.x)))
        rows[:] = self.x
        if delta:
            rows[:, list(delta)] = cols
        return rows

    # -------------------------------------------------------------- scoring
    def score_block(self, delta: tuple[int, ...], columns: np.ndarray) -> np.ndarray:
        return self.score_blocks([(delta, columns)])[0]

    def score_blocks(self, blocks: Sequence[Block]) -> list[np.ndarray]:
        """All blocks of a generation (the search makes one such call per generation).

        Cold blocks of every Δ are materialised into one matrix and scored by one call of the
        full-forest kernel, so a generation costs one native call plus one per warm/hot Δ."""
        p = self.parent
        f = self.forest
        out: list[np.ndarray | None] = [None] * len(blocks)
        cold: list[tuple[int, tuple[int, ...], np.ndarray]] = []
        for b, (delta, columns) in enumerate(blocks):
            delta = tuple(int(d) for d in delta)
            if delta not in self._checked:
                self._checked.add(checked_delta(delta, len(self.x)))
            cols = np.ascontiguousarray(columns, dtype=np.float64).reshape(len(columns), len(delta))
            n = len(cols)
            if n == 0:
                out[b] = np.empty(0)
            elif p.engine == "numpy":
                p._count("numpy", n)
                out[b] = self.residual(delta).predict(cols)
            elif p.engine == "jit":
                st = self._state(delta)
                if st.compiled is None:
                    st.compiled = p.compile(self.residual(delta))
                p._count("jit", n)
                out[b] = st.compiled(cols)
            else:
                r = self._auto(delta, cols)
                if r is None:
                    cold.append((b, delta, cols))
                else:
                    out[b] = r
        if cold:
            rows = np.concatenate([self._full_rows(d, c) for _, d, c in cold])
            t0 = time.perf_counter()
            acc = run_kernel(p.full, rows)
            p.c_full.add((time.perf_counter() - t0) / len(rows))
            probs = acc[:, 0] if f.divisor is not None else f.finish(acc)
            start = 0
            for b, _, c in cold:
                out[b] = probs[start : start + len(c)]
                start += len(c)
                p._count("full_kernel", len(c))
        return out  # type: ignore[return-value]

    def _auto(self, delta: tuple[int, ...], cols: np.ndarray) -> np.ndarray | None:
        """Score with the residual kernel or compiled code, or return None: full kernel (batched)."""
        p = self.parent
        f = self.forest
        n = len(cols)
        if len(delta) >= len(self.x):  # every feature free: nothing to specialise
            return None
        st = self._state(delta)
        st.rows += n
        if st.future is not None and st.future.done():
            st.compiled, st.future = st.future.result(), None
        if st.compiled is not None:
            p._count("jit", n)
            return st.compiled(cols)
        if st.arrays is None:
            gain = p.c_full.value - p.c_res.value
            if st.rows * gain < p.c_pe.value:
                return None
            self.kernel_arrays(delta)
        if st.future is None and st.n_splits > 0:
            compile_cost = p.c_compile_base + p.c_compile_split.value * st.n_splits
            # compile when the residual kernel has already spent twice what compiling would cost
            if st.rows * p.c_res.value > 2 * compile_cost:
                p.stats["background_compiles"] += 1
                xchild = self._bx.xchild if self._bx is not None else bind_x(f, self.x)
                st.future = _background().submit(lambda: p.compile(partial_evaluate(f, xchild, delta)))
        t0 = time.perf_counter()
        acc = run_kernel(st.arrays, cols)
        p.c_res.add((time.perf_counter() - t0) / n)
        p._count("residual_kernel", n)
        return acc[:, 0] if f.divisor is not None else f.finish(acc)


def tree_scorer(model_input: ModelInput, desired_class: Any, engine: str = "auto") -> TreeScorer:
    """The engine factory for tree models (see :mod:`codegen.registry`): read the final
    estimator's trees, fold the pipeline into them, prepare the tiers of ``engine``.

    Raises :class:`codegen.UnsupportedModel` (one-line ``reason``) for anything it cannot read."""
    forest = fold(read_trees(model_input.estimator), model_input, desired_class)
    return TreeScorer(forest, engine)
