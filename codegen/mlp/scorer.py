"""The MLP scorer: ``MLPClassifier`` (one class's probability or a set's) and single-output
``MLPRegressor`` (its prediction), bare or in a Pipeline, behind one :class:`codegen.ModelScorer`.

Engines:

* ``"numpy"``: the folded first layer (``bias_Δ`` + Δ's weight rows / code tables), then
  sklearn's own operations with BLAS for the dense layers (:mod:`codegen.mlp.partial`).
* ``"jit"``: one compiled kernel per *model* (:func:`codegen.mlp.emit.emit_generic`); the folded
  bias and Δ's term descriptor are passed as buffers, so an explanation never waits for LLVM
  after the scorer is built.
* ``"auto"``: numpy at once; the kernel if :func:`jit_candidate` accepts the network and it wins
  a race on a generation of small blocks. Why: the kernel streams every dense weight matrix once per tile of rows,
  so it loses to BLAS's cache blocking once a matrix leaves the L2 cache (measurements in
  ``benchmarks/README.md``, section "bench_mlp.py").

Exactness: the folded bias and the kernel add the same terms as sklearn's BLAS in another order
(the kernel also uses FMA and a vector ``exp``), so they differ from ``predict_proba`` by rounding
only, and by how much depends on the *scale of the inputs*. With ``u = 2**-53``,
``γ(k) = k·u/(1-k·u)``, ``m`` inputs and model-input row ``x``::

    |p_engine - p_sklearn| <= κ·max(E_out) + R        (a regressor: |Δ| <= E_out)
    E_1 = 2·γ(m+1)·(|b_1| + |x|·|W_1|)                         (first layer: any summation order)
    E_l = (L·E_{l-1} + A)·|W_l| + 2·γ(n_{l-1}+1)·(|a_{l-1}|·|W_l| + |b_l|)

(``L`` the hidden activation's Lipschitz constant, ``A = 32u`` for the vector ``exp`` of tanh /
logistic, ``κ`` = 1/4 for a logistic output, 1/2 for softmax, ``R`` a few dozen ``u`` for the
link's own rounding; derivation, sets of classes and the per-row evaluator in
:mod:`codegen.mlp.bound`). The first term dominates: ``~2(m+1)·u·|x|·|W_1|``, about
1e-15 for standardised inputs and 1e-10 for raw inputs near 1e6 whose first-layer terms cancel
(tests check both). So ``exact`` is False: the Explainer reports ``predict_proba``'s (``predict``'s)
own numbers, and decides with them which candidates are counterfactuals.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.compiled import CompiledScorer
from codegen.llvm import binding
from codegen.llvm.buffers import Pinned
from codegen.mlp.bound import error_bound
from codegen.mlp.bound import upper_bound as mlp_upper_bound
from codegen.mlp.emit import LANES, KernelShape, emit_generic, pack_dense, pad
from codegen.mlp.inputs import first_layer
from codegen.mlp.partial import DeltaPlan, FirstLayer
from codegen.mlp.reader import MLP
from codegen.pipeline import ModelInput
from codegen.protocol import (
    COMPILED_ENGINES,
    Allowed,
    Block,
    checked_delta,
    checked_engine,
    checked_instance,
)
from plaf_grammar import Schema

__all__ = ["DENSE_BYTES_MAX", "DeltaArguments", "MLPKernel", "MLPScorer", "jit_candidate", "mlp_scorer"]

_KIND_AFFINE, _KIND_TABLE = 0, 1
_ARGTYPES = (
    ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
)  # fmt: skip

#: Largest dense (layer >= 2) weight matrix, padded, that the row-tile kernel handles well: it
#: streams every dense weight matrix once per tile of 8 rows, so matrices that fall out of the
#: L2 cache (1 MiB per core on the machine measured) make it lose to BLAS's cache-blocked dgemm.
DENSE_BYTES_MAX = 256 * 1024
#: the race's generation: this many blocks of this many rows
_RACE_BLOCKS = 16
_RACE_ROWS = 16
#: the race also compares both engines' outputs: a kernel further off than this (relative to the
#: outputs' size when they exceed 1, as a regressor's may) is not used
_RACE_AGREEMENT = 1e-9


@dataclass
class _FirstLayerPacked:
    """The first layer in the kernel's buffer layout: term blocks and where each feature's are."""

    #: float64: per affine term [sub, div, mul, add, lo, hi, 0, 0, w row (h1p)]; per table
    #: [n_codes, 0 x 7, (n_codes + 1, h1p) rows] (the last row NaN: a value that is not a code)
    first: np.ndarray
    offsets: dict[int, list[tuple[int, int]]]  # feature index -> [(kind, offset)]


def _pack_first(layer: FirstLayer) -> _FirstLayerPacked:
    h1 = layer.width
    h1p = pad(h1)
    w1 = layer.mlp.weights[0]
    chunks: list[np.ndarray] = []
    offsets: dict[int, list[tuple[int, int]]] = {}
    pos = 0
    for f in layer.inputs:
        entries = []
        if f.is_table:
            tab = np.zeros((f.n_codes + 1, h1p))
            tab[:, :h1] = layer.tables[f.index]
            head = np.zeros(LANES)
            head[0] = f.n_codes
            chunks += [head, tab.ravel()]
            entries.append((_KIND_TABLE, pos))
            pos += LANES + tab.size
        else:
            for t in f.affine:
                blk = np.zeros(LANES + h1p)
                blk[:6] = t.params
                blk[LANES : LANES + h1] = w1[t.column]
                chunks.append(blk)
                entries.append((_KIND_AFFINE, pos))
                pos += blk.size
        offsets[f.index] = entries
    first = np.ascontiguousarray(np.concatenate(chunks) if chunks else np.zeros(LANES))
    return _FirstLayerPacked(first, offsets)


class MLPKernel:
    """The compiled kernel of one model and the weight buffers it reads (``weights`` owns them).

    The machine code depends only on the layer sizes, activation and class column, so models of
    one shape share it through :func:`codegen.llvm.binding.compile_ir`'s cache."""

    def __init__(self, layer: FirstLayer, opt_level: int = 2):
        self.layer = layer
        self.shape = KernelShape.of(layer.mlp)
        packed = _pack_first(layer)
        self.offsets = packed.offsets
        self.weights = Pinned(first=packed.first, dense=pack_dense(layer.mlp))
        self.ir = emit_generic(self.shape)
        t0 = time.perf_counter()
        self.module = binding.compile_ir(self.ir, opt_level)
        self.compile_seconds = time.perf_counter() - t0
        self.fn = self.module.function("mlp_score", None, *_ARGTYPES)

    def terms(self, delta: tuple[int, ...]) -> np.ndarray:
        """Δ's term descriptor: rows (kind, column in the block, offset into ``first``)."""
        rows = []
        for k, j in enumerate(delta):
            for kind, off in self.offsets.get(j, ()):
                rows.append((kind, k, off))
        return np.ascontiguousarray(np.array(rows, dtype=np.int64).reshape(-1, 3))


class DeltaArguments:
    """The kernel's constant arguments for one (x, Δ), and everything they point into.

    Owns the padded folded bias and Δ's term descriptor (``buffers``) and holds the kernel, whose
    ``weights`` the argument tuple also points into: while this object lives, every address in
    ``args`` is valid. Keep it (not ``args``) for as long as calls may use it."""

    __slots__ = ("args", "buffers", "kernel")

    def __init__(self, kernel: MLPKernel, plan: DeltaPlan):
        bias = np.zeros(pad(len(plan.bias)))
        bias[: len(plan.bias)] = plan.bias
        terms = kernel.terms(plan.delta)
        self.kernel = kernel
        self.buffers = Pinned(terms=terms, bias=bias)
        # ndarray.ctypes.data costs ~1.5 us per access: every constant address is taken once
        self.args = (
            self.buffers.address("terms"), len(terms), self.buffers.address("bias"),
            *kernel.weights.addresses("first", "dense"),
        )  # fmt: skip


class _Staging:
    """Reused input/output buffers (per bound instance): copying a block into them is cheaper than
    taking two fresh addresses per call, which dominated small blocks."""

    def __init__(self, rows: int = 256, width: int = 8):
        self.buffers = Pinned(cols=np.empty(rows * width), out=np.empty(rows))

    def run(self, call: DeltaArguments, columns: np.ndarray) -> np.ndarray:
        n = len(columns)
        if n == 0:
            return np.empty(0)
        width = columns.shape[1] if columns.ndim == 2 else 0
        buf = self.buffers
        cols, out = buf["cols"], buf["out"]
        if n * width > len(cols) or n > len(out):
            rows, width_max = max(n, 2 * len(out)), max(width, 8)
            buf = self.buffers = Pinned(cols=np.empty(rows * width_max), out=np.empty(rows))
            cols, out = buf["cols"], buf["out"]
        if width:
            cols[: n * width].reshape(n, width)[...] = columns
        call.kernel.fn(n, buf.address("cols"), width, *call.args, buf.address("out"))
        return out[:n].copy()


class MLPScorer(CompiledScorer):
    """:class:`codegen.ModelScorer` for an MLP, given its first layer (:func:`first_layer`).

    ``engine``:

    * ``"numpy"``: the numpy engine only.
    * ``"jit"``: compile the kernel now (synchronously) and always use it.
    * ``"auto"``: the numpy engine at once; if :func:`jit_candidate` accepts the network, compile
      the kernel (on a background thread if ``background``: LLVM releases the GIL), time both
      engines on a generation of small blocks, and switch to the kernel only if it is faster and
      agrees.

    ``name`` says which engine runs now (``"mlp-jit"`` / ``"mlp-numpy"``); ``decision`` why."""

    #: results differ from predict_proba by rounding, bounded in the module docstring
    exact = False

    def __init__(
        self,
        layer: FirstLayer,
        schema: Schema,
        engine: str = "auto",
        *,
        opt_level: int = 2,
        background: bool = True,
    ):
        checked_engine(engine, COMPILED_ENGINES)
        self.schema = schema
        self.layer = layer
        self.mlp: MLP = layer.mlp
        self.opt_level = opt_level
        self.kernel: MLPKernel | None = None  # set (atomically) once the kernel may be used
        self.built_kernel: MLPKernel | None = None  # compiled, used or not
        self.timings: dict[str, float] = {}
        self._thread: threading.Thread | None = None
        self._restore = ""  # "kernel" after unpickling a scorer that used it: rebuilt at the first bind
        if engine == "numpy":
            self.decision = "numpy engine requested"
        elif engine == "jit":
            self.built_kernel = self.kernel = MLPKernel(self.layer, opt_level)
            self.decision = "jit engine requested"
        else:
            ok, why = jit_candidate(layer.mlp)
            self.decision = why
            if ok:
                self.decision = "compiling in the background; numpy until then"
                if background:
                    self._thread = threading.Thread(target=self._compile_and_measure, daemon=True)
                    self._thread.start()
                else:
                    self._compile_and_measure()

    @property
    def name(self) -> str:
        return "mlp-jit" if self.kernel is not None or self._restore == "kernel" else "mlp-numpy"

    @property
    def compile_seconds(self) -> float:
        return self.built_kernel.compile_seconds if self.built_kernel else 0.0

    def wait(self, timeout: float | None = None) -> MLPScorer:
        """Block until the background compile-and-measure step (if any) has finished."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self

    def _compile_and_measure(self) -> None:
        try:
            kernel = MLPKernel(self.layer, self.opt_level)
        except Exception as exc:  # pragma: no cover - an LLVM failure must not break explaining
            self.decision = f"compile failed ({exc}); numpy engine"
            return
        self.built_kernel = kernel
        t_jit, t_np, diff, scale = _race(self, kernel)
        self.timings = {"jit_block_seconds": t_jit, "numpy_block_seconds": t_np, "max_abs_difference": diff}
        if not diff <= _RACE_AGREEMENT * max(1.0, scale):
            self.decision = f"numpy: the kernel differs from numpy by {diff:.3g} on the race blocks"
        elif t_jit < t_np:
            self.kernel = kernel
            self.decision = f"jit: {t_np / t_jit:.1f}x faster than numpy on {_RACE_BLOCKS} blocks of {_RACE_ROWS} rows"
        else:
            self.decision = f"numpy: jit {t_jit / t_np:.2f}x the numpy time on {_RACE_BLOCKS} blocks of {_RACE_ROWS} rows"

    def error_bound(self, rows: np.ndarray) -> np.ndarray:
        """Per encoded row: a bound on ``|score - predict_proba|`` for either engine (NaN for a
        row the engines score NaN); :mod:`codegen.mlp.bound` derives it."""
        return error_bound(self.layer, rows)

    def upper_bound(self, x: np.ndarray, allowed: Allowed) -> float | None:
        """Interval bound propagation over the box (:func:`codegen.mlp.bound.upper_bound`); None
        for a regressor, whose prediction is no probability."""
        return mlp_upper_bound(self.layer, x, allowed)

    def bind(self, x: np.ndarray) -> BoundMLPScorer:
        if self._restore:
            self._rebuild_kernel()
        return BoundMLPScorer(self, checked_instance(x, len(self.schema)))

    def __getstate__(self) -> dict[str, Any]:
        """The network, the engine decision and its measurements (so the unpickled scorer scores
        with the same engine, bit for bit); the kernel is rebuilt at the first ``bind`` where it
        is unpickled, from the object code carried along when this process holds it."""
        self.wait()
        state = {k: v for k, v in self.__dict__.items() if k not in ("kernel", "built_kernel", "_thread")}
        # a kernel that lost the race is not rebuilt: ir() emits the same module without it
        state["_restore"] = "kernel" if self.kernel is not None else self._restore
        state["_objects"] = (
            binding.object_codes([(self.kernel.ir, self.opt_level)]) if self.kernel is not None else {}
        )
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        binding.preload_objects(state.pop("_objects", {}))
        self.__dict__.update(state)
        self.kernel = self.built_kernel = None
        self._thread = None

    def _rebuild_kernel(self) -> None:
        self.built_kernel = self.kernel = MLPKernel(self.layer, self.opt_level)
        self._restore = ""

    def ir(self, x: np.ndarray, delta: tuple[int, ...], optimized: bool = False) -> str:
        """The module the jit engine runs, preceded by comments naming Δ's features, their
        scalers and the folded bias it is called with for this ``x``."""
        x = np.asarray(x, dtype=np.float64).ravel()
        delta = tuple(int(j) for j in delta)
        header = _delta_header(self.layer, delta, self.layer.plan(x, delta))
        text = self.built_kernel.ir if self.built_kernel is not None else emit_generic(KernelShape.of(self.mlp))
        if optimized:
            text = binding.optimize_ir(text, self.opt_level)
        return "\n".join(header) + "\n" + text


class BoundMLPScorer:
    """One instance: per-Δ folded bias (and the kernel's arguments) cached on first use."""

    def __init__(self, parent: MLPScorer, x: np.ndarray):
        self.parent = parent
        self.x = x
        self._plans: dict[tuple[int, ...], DeltaPlan] = {}
        self._calls: dict[tuple[int, ...], DeltaArguments] = {}
        self._staging = _Staging()
        self._contributions: np.ndarray | None = None  # x's share of z1 per feature, on first use

    def plan(self, delta: tuple[int, ...]) -> DeltaPlan:
        plan = self._plans.get(delta)
        if plan is None:
            layer = self.parent.layer
            if self._contributions is None:
                self._contributions = layer.contributions(self.x)
            plan = layer.plan(self.x, checked_delta(delta, len(self.x)), self._contributions)
            self._plans[delta] = plan
        return plan

    def score_block(self, delta: tuple[int, ...], columns: np.ndarray) -> np.ndarray:
        delta = tuple(delta)
        # the kernel reads len(delta) values per row: a narrower block must not reach it
        columns = np.asarray(columns, dtype=np.float64).reshape(len(columns), len(delta))
        kernel = self.parent.kernel
        if kernel is None:
            return self.plan(delta).score(columns)
        call = self._calls.get(delta)
        if call is None:
            call = self._calls[delta] = DeltaArguments(kernel, self.plan(delta))
        return self._staging.run(call, columns)

    def score_blocks(self, blocks: Sequence[Block]) -> list[np.ndarray]:
        """The jit kernel block by block (a call per Δ). The numpy engine folds each block's
        first layer, then runs the dense layers once for the rows of all blocks: a generation's
        many small blocks would otherwise cost a BLAS call per layer and Δ."""
        if self.parent.kernel is not None:
            return [self.score_block(delta, columns) for delta, columns in blocks]
        return self.numpy_blocks(blocks)

    def numpy_blocks(self, blocks: Sequence[Block]) -> list[np.ndarray]:
        """The numpy engine on a generation: each block's folded first layer, one dense tail."""
        if not blocks:
            return []
        firsts = []
        for delta, columns in blocks:
            delta = tuple(delta)
            columns = np.asarray(columns, dtype=np.float64).reshape(len(columns), len(delta))
            firsts.append(self.plan(delta).z1(columns))
        p = self.parent.mlp.tail(np.concatenate(firsts))
        return np.split(p, np.cumsum([len(z) for z in firsts])[:-1])


def jit_candidate(mlp: MLP) -> tuple[bool, str]:
    """The static half of the auto rule: no dense weight matrix above :data:`DENSE_BYTES_MAX`."""
    biggest = max((w.shape[0] * pad(w.shape[1]) * 8 for w in mlp.weights[1:]), default=0)
    if biggest > DENSE_BYTES_MAX:
        return False, (
            f"numpy: a dense weight matrix of {biggest // 1024} KiB exceeds {DENSE_BYTES_MAX // 1024} KiB; "
            "BLAS's cache blocking beats the row-tile kernel there"
        )
    return True, "jit candidate"


def _race(scorer: MLPScorer, kernel: MLPKernel, reps: int = 5) -> tuple[float, float, float, float]:
    """Best-of-``reps`` seconds per engine of a typical generation - :data:`_RACE_BLOCKS` blocks of
    :data:`_RACE_ROWS` rows, each changing one feature - the largest difference between their
    results and the largest result's magnitude. A generation, not one block: the numpy engine runs the dense layers once for all
    blocks, the kernel once per block, and which is faster depends on that (a (100, 100) network
    favours numpy, a single hidden layer the kernel)."""
    x = np.zeros(len(scorer.schema))
    feats = [f.index for f in scorer.layer.inputs]
    deltas = [(feats[i % len(feats)],) for i in range(_RACE_BLOCKS)] if feats else [()]
    blocks = [(d, np.zeros((_RACE_ROWS, len(d)))) for d in deltas]
    calls = [DeltaArguments(kernel, scorer.layer.plan(x, d)) for d in deltas]  # own what the kernel reads
    staging = _Staging()
    numpy_engine = BoundMLPScorer(scorer, x)
    best = [np.inf, np.inf]
    results: list[np.ndarray] = [np.empty(0), np.empty(0)]
    engines = (
        lambda: np.concatenate([staging.run(c, cols) for c, (_, cols) in zip(calls, blocks)]),
        lambda: np.concatenate(numpy_engine.numpy_blocks(blocks)),
    )
    for _ in range(reps):
        for k, f in enumerate(engines):
            t0 = time.perf_counter()
            results[k] = f()
            best[k] = min(best[k], time.perf_counter() - t0)
    diff = float(np.max(np.abs(results[0] - results[1]), initial=0.0))
    scale = float(np.max(np.abs(results[1]), initial=0.0))
    return best[0], best[1], diff, scale


def _delta_header(layer: FirstLayer, delta: tuple[int, ...], plan: DeltaPlan) -> list[str]:
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


def mlp_scorer(
    model_input: ModelInput, desired_class: Any, engine: str = "auto", *, background: bool = False
) -> MLPScorer:
    """The engine factory for MLPs (see :mod:`codegen.registry`); raises
    :class:`codegen.UnsupportedModel` with a reason for a network it cannot read.

    ``background=False`` by default: the engine choice is made before the first explanation, so
    the same seed always gives the same explanation (the two engines differ by ~1e-16, which
    could reorder an exact tie mid-run)."""
    layer = first_layer(model_input, desired_class)
    return MLPScorer(layer, model_input.schema, engine, background=background)
