"""Tree-model scorers for the search: tiers chosen per Δ by a cost model fed with measured times.

The design follows from measurements on this machine (2 shared cores, llvmlite 0.50 / LLVM 22;
Adult, ``Pipeline(OneHotEncoder, RandomForestClassifier(500, max_depth=10))``, 139k splits;
``benchmarks/bench_trees.py`` reproduces them, ±30 % noise from other work on the machine):

* The workload. One GeCo explanation (Adult, the example PLAF program) scores 70-150 Δ blocks over
  only 38-48 distinct Δ, 7-13k rows in all: a median block of 40-100 rows, ~150 rows per Δ per
  explanation; 85 % of the (Δ, row) pairs are distinct, so a value memo would save little. The
  search hands over all blocks of a generation at once (``score_blocks``), and the black-box path
  makes one ``predict_proba`` call per generation (~33 µs/row on RF-500).
* Specialised JIT per (x, Δ) (:mod:`codegen.tree_emit`): Adult has 13 features, so Δ features sit
  at every tree level and the residual still has 160-10,000 live splits. Compiling takes
  0.05-0.6 s at O0 and 0.3-4.5 s at O1/O2 (hundreds of tree functions plus a 500-term exact sum);
  it then scores 0.12-0.4 µs/row (O1, |Δ| <= 2; 900-1900x sklearn on a 200-row block) or
  2.6-12 µs/row (|Δ| 3-5). Break-even against the kernel below needs thousands of rows of the
  *same* (x, Δ) - ten times what an explanation gives it. Compiling eagerly per Δ would make
  explanations slower than the black-box path.
* Partial evaluation in numpy (:mod:`codegen.partial`, all trees at once) costs ~1.7 ms per (x, Δ)
  (+0.7 ms to pack the residual for the kernel; 2.8-3.6 ms per Δ inside a real explanation); the numpy
  walk of the residual costs 14-170 µs/row: the LLVM-free engine and the reference. The same walk
  written once in LLVM IR (:mod:`codegen.native_partial`, compiled once per process with the
  kernel's node layout as output) costs 20-60 µs warm for |Δ| <= 2 and 0.1-0.6 ms for |Δ| 3-5
  (~20-30 ns per residual node); inside an explanation, with cold caches and the search's larger
  Δ, ~0.44 ms per Δ on average incl. binding x (numpy: 2.8-3.6 ms). Binding x (the child it takes
  at every split, x's path in every tree) is native too: ~2 ms per explanation instead of ~10 ms.
* One generic compiled kernel (:mod:`codegen.tree_kernel`, ~50 ms once per process, disk-cacheable)
  walks packed 24-byte nodes tree-major: the residual forest at 1-26 µs/row, or the whole folded
  forest on materialised rows (no partial evaluation) at 22-52 µs/row - about sklearn's per-row
  cost, without its ~40 ms per-call overhead.

Hence ``engine="auto"`` per (x, Δ), with every constant *measured online*:

1. cold Δ: while ``rows_so_far * (c_full - c_res)`` stays below the measured cost of (native)
   partial evaluation - in practice a Δ's first block of 1-3 rows - its rows join one batched
   full-forest kernel call per generation (so does Δ = every feature: nothing to specialise);
   measured on Adult/Credit RF-500 this beats partial-evaluating every Δ at once by ~20 %;
2. every other Δ: native partial evaluation once, then the residual kernel;
3. hot Δ: when the residual kernel has already spent twice the predicted compile time
   (``compile_base + compile_per_split * splits``, measured), the numpy residual is built and the
   specialised module compiled on a background thread (llvmlite releases the GIL) while the
   kernel keeps scoring; blocks switch to the compiled function once it is ready. It needs tens
   of thousands of rows of one (x, Δ), so it does not trigger within one explanation on Adult or
   Credit. Compiled modules are shared through the IR-hash cache of :mod:`codegen.llvm_binding`
   (``GECO_LLVM_CACHE=<dir>`` adds an on-disk object cache).

A branch-free, fixed-depth kernel walking 4 rows in lockstep was tried and measured slower for
|Δ| <= 3 (2.4 vs 1.3 µs/row at |Δ| = 1): a block's rows share most values, so the branchy walk
predicts well; batching the blocks of a generation into one native call would save ~5 µs per
block (~1 % of an explanation). After native partial evaluation the residual kernel itself is
~half of an explanation's time.

End to end (``bench_trees.py`` part (c), 50 instances, black box on 10; before native partial
evaluation in brackets, measured the same day with the same models over 20 instances):

=================  ======================  ====================  =========  =============
model              auto median / p90 (s)   black box median (s)  speed-up   PE per Δ
=================  ======================  ====================  =========  =============
Adult RF-500       0.13 / 0.16 [0.25/0.30]  0.65 [0.57]          5.6x       442 µs [3.6 ms]
Credit RF-500      0.20 / 0.42 [0.47/0.69]  0.64 [0.81]          3.3x       434 µs [2.8 ms]
Adult HistGB-100   0.040 / 0.060            0.17                 2.9x       49 µs
Credit HistGB-100  0.086 / 0.14             0.11                 1.4x       32 µs
=================  ======================  ====================  =========  =============

(identical counterfactuals in every case). Partial evaluation is now 15-19 % of an RF-500
explanation and the residual kernel most of the rest (Adult 8.4k rows, Credit 15.5k rows per
explanation at 1-25 µs/row). The issue's goal (median <= 0.1 s and >= 10x the black box on
RF-500) is still missed: the residual forests stay large (hundreds to thousands of live splits
over 13-14 features), so each row still walks hundreds of trees.

``engine="jit"`` always compiles the specialised residual (synchronously, O1 up to 600 live
splits, else O0); ``engine="numpy"`` never touches LLVM (partial evaluation + numpy walk).
Every tier is bit-identical to ``predict_proba`` (same compares, same ordered sums, sklearn's own
link function), so the search takes the same path whichever tier scored a block.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from codegen import llvm_binding
from codegen.errors import UnsupportedModel
from codegen.forest import Forest, read_forest
from codegen.native_partial import BoundX, NativePartial
from codegen.native_partial import _native as native_functions
from codegen.partial import Residual, bind_x, partial_evaluate
from codegen.tree_emit import emit_residual
from codegen.tree_kernel import KernelArrays, kernel_arrays_forest, run_kernel
from codegen.tree_kernel import _kernel as kernel_function
from plaf_grammar import Schema

__all__ = ["ENGINES", "TreeScorer", "tree_ir", "tree_scorer"]

ENGINES = ("auto", "jit", "numpy")
_SCORE_ARGS = (ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p)
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


def jit_opt_level(n_splits: int) -> int:
    """O1 pays for small residuals (0.1 µs/row vs 1 µs/row at O0); above ~600 live splits its
    compile time grows to seconds, so fall back to O0 (the backend alone, ~0.1 ms/split)."""
    return 1 if n_splits <= 600 else 0


class _Compiled:
    def __init__(self, cm: llvm_binding.CompiledModule, K: int):
        self.module = cm
        self.fn = cm.function("score", None, *_SCORE_ARGS)
        self.K = K

    def __call__(self, cols: np.ndarray, forest: Forest) -> np.ndarray:
        n = len(cols)
        cols = np.ascontiguousarray(cols, dtype=np.float64)
        if forest.divisor is not None:
            out = np.empty(n)
            self.fn(cols.ctypes.data, n, out.ctypes.data)
            return out
        raw = np.empty((n, self.K))
        self.fn(cols.ctypes.data, n, raw.ctypes.data)
        return forest.finish(raw)


class TreeScorer:
    """A :class:`geco.scoring.ModelScorer` for a tree model (bare or in a pipeline).

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
        self._full = kernel_arrays_forest(forest) if engine == "auto" else None
        self._native = NativePartial(forest, self._full) if self._full is not None else None
        if engine == "auto":
            # compile the once-per-process modules now, so their compile time never enters
            # the measured costs below (it would make partial evaluation look 1000x dearer)
            native_functions()
            kernel_function()
        # cost model (seconds); priors from the measurements in the module docstring
        self.c_full = _Ewma(4e-10 * len(forest.feature) + 2e-7)  # ~100 µs/row at 250k nodes
        self.c_res = _Ewma(5e-6)
        self.c_pe = _Ewma(1e-4)
        #: cold Δ (first rows fewer than the PE cost is worth) join the batched full-kernel call
        self.cold_full_kernel = True
        self.c_compile_base = 0.05
        self.c_compile_split = _Ewma(3e-4)

    def bind(self, x: np.ndarray) -> BoundTreeScorer:
        return BoundTreeScorer(self, np.asarray(x, dtype=np.float64))

    def _count(self, tier: str, n: int) -> None:
        self.stats[f"blocks_{tier}"] += 1
        self.stats[f"rows_{tier}"] += n

    def compile(self, res: Residual) -> _Compiled:
        """Emit and compile the specialised module for ``res`` (thread-safe)."""
        ir = emit_residual(res)
        opt = jit_opt_level(res.n_splits)
        cached = llvm_binding.is_cached(ir, opt)
        t0 = time.perf_counter()
        cm = llvm_binding.compile_ir(ir, opt)
        dt = time.perf_counter() - t0
        with self._lock:
            self.stats["compiles"] += 1
            self.stats["cache_hits" if cached else "cache_misses"] += 1
            if not cached:
                self.stats["compile_seconds"] += dt
                if opt == 1 and res.n_splits > 0:
                    self.c_compile_split.add(max(dt - self.c_compile_base, 0.0) / res.n_splits)
        return _Compiled(cm, self.forest.n_outputs)


class _DeltaState:
    __slots__ = ("arrays", "compiled", "future", "n_splits", "residual", "rows")

    def __init__(self) -> None:
        self.rows = 0
        self.residual: Residual | None = None
        self.arrays = None
        self.n_splits = 0
        self.compiled: _Compiled | None = None
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
            assert p._native is not None
            if self._bx is None:  # once per instance, not part of a Δ's cost
                self._bx = p._native.bind(self.x)
            t0 = time.perf_counter()
            st.arrays = p._native(self._bx, delta)
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

    def score_blocks(self, blocks: list[tuple[tuple[int, ...], np.ndarray]]) -> list[np.ndarray]:
        """All blocks of a generation (the search makes one such call per generation).

        Cold blocks of every Δ are materialised into one matrix and scored by one call of the
        full-forest kernel, so a generation costs one native call plus one per warm/hot Δ."""
        p = self.parent
        f = self.forest
        out: list[np.ndarray | None] = [None] * len(blocks)
        cold: list[tuple[int, tuple[int, ...], np.ndarray]] = []
        for b, (delta, columns) in enumerate(blocks):
            delta = tuple(int(d) for d in delta)
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
                out[b] = st.compiled(cols, f)
            else:
                r = self._auto(delta, cols)
                if r is None:
                    cold.append((b, delta, cols))
                else:
                    out[b] = r
        if cold:
            rows = np.concatenate([self._full_rows(d, c) for _, d, c in cold])
            t0 = time.perf_counter()
            acc = run_kernel(p._full, rows)
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
            return st.compiled(cols, f)
        if st.arrays is None:
            gain = p.c_full.value - p.c_res.value
            if p.cold_full_kernel and st.rows * gain < p.c_pe.value:
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


# ------------------------------------------------------------------------------ entry points


def tree_scorer(model: Any, schema: Schema, desired_class: Any, engine: str = "auto") -> TreeScorer:
    """A compiled scorer for a tree model or a Pipeline ending in one.

    Raises :class:`codegen.UnsupportedModel` (one-line ``reason``) for anything it cannot read."""
    if engine not in ENGINES:
        raise UnsupportedModel(f"unknown tree engine {engine!r} (expected one of {ENGINES})")
    return TreeScorer(read_forest(model, schema, desired_class), engine)


def _delta_indices(schema: Schema, delta: Any) -> tuple[int, ...]:
    out = []
    for d in delta:
        if isinstance(d, str):
            if d not in schema:
                raise KeyError(f"unknown feature {d!r}")
            out.append(schema.index(d))
        else:
            out.append(int(d))
    return tuple(sorted(set(out)))


def tree_ir(
    model: Any,
    schema: Schema,
    desired_class: Any,
    x_encoded: np.ndarray,
    delta: tuple[int, ...],
    optimized: bool = False,
) -> str:
    """The specialised LLVM IR for instance ``x_encoded`` and the features ``delta`` (indices or
    names); ``optimized=True`` returns it after LLVM's pipeline at the level the JIT would use."""
    forest = read_forest(model, schema, desired_class)
    x = np.asarray(x_encoded, dtype=np.float64).reshape(-1)
    res = partial_evaluate(forest, bind_x(forest, x), _delta_indices(schema, delta))
    ir = emit_residual(res, x=x)
    if optimized:
        return llvm_binding.optimize_ir(ir, max(1, jit_opt_level(res.n_splits)))
    return ir
