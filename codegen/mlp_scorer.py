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
* ``"auto"``: see :class:`MLPScorer` and the numbers below.

Measured (``benchmarks/bench_mlp.py``; 2 shared Zen 4 cores, single-threaded BLAS, best of 5,
Δ = 2 features; OneHotEncoder + StandardScaler pipelines; µs per block):

=====================  =====  ========  ========  =========  ==================================
model                  rows   jit µs    numpy µs  blackbox   notes
=====================  =====  ========  ========  =========  ==================================
Adult MLP (100,)         1       6.2      20.2    14,510     numpy/jit 3.2x, blackbox/jit 2,300x
                        32      10.0      93.2    26,220     9.3x / 2,600x
                      1024     144       657      33,240     4.6x / 231x
Adult MLP (100,100)      1      21.4      76.6    25,340     3.6x / 1,185x
                        32      60.4     121      27,900     2.0x / 462x
                      1024     767     1,032      17,980     1.35x / 23x
Credit MLP (100,)       32       9.5      94.4     5,820     10x / 614x
Credit MLP (100,100)  1024     771     1,011       3,418     1.3x / 4.4x
=====================  =====  ========  ========  =========  ==================================

* Compile: the generic kernel takes 0.12-0.35 s at O2, once per model (its IR holds no weights,
  so every model with the same layer sizes/activation/class column shares it through
  ``compile_ir``'s IR-hash cache). The specialised kernel with constant globals runs the same
  speed (0.56-1.9x of the generic time, i.e. noise) but costs the same 0.12-0.32 s for *every*
  (x, Δ); an explanation touches about 100-600 Δ blocks, so buffers win outright.
* Vector code: the inner loop is ``vfmadd231pd (mem){1to8}, %zmm, %zmm`` x 8 rows per weight
  vector load (checked in ``emit_assembly``); ``tanh``/``logistic`` stay in vectors through the
  inlined ``exp``.
* Where the kernel loses: it streams every dense weight matrix once per 8-row tile, so once a
  matrix leaves the L2 cache BLAS's blocked dgemm wins: (300,300,300) 0.4-0.87x, (500,500)
  0.5-0.7x of numpy's speed, while (100,100) (80 KiB) and (500,) win by 1.3-12x. That is the
  paper's "partial evaluation of large MLPs can slow them down", and the static half of the auto
  rule (:data:`DENSE_BYTES_MAX` = 256 KiB, between 80 KiB measured faster and 720 KiB measured
  slower). The dynamic half races both engines on a 32-row block after compiling (Adult: jit
  2.9x / 1.6x faster for (100,) / (100,100)) and keeps numpy if the kernel is not faster.
* End to end (20 Adult instances, the lead's Explainer, same seeds, identical counterfactuals in
  20/20 for every engine): median s per explanation blackbox / numpy / jit / auto = Adult (100,)
  0.320 / 0.163 / 0.120 / 0.130; Adult (100,100) 0.295 / 0.148 / 0.087 / 0.091; Credit (100,)
  0.253 / 0.276 / 0.189 / 0.150; Credit (100,100) 0.268 / 0.243 / 0.188 / 0.201. Scoring then
  takes 0.007-0.04 s of an explanation; the rest is the search itself.

Exactness: the folded bias and the kernel sum in a different order than sklearn's BLAS (and use
FMA and a vector ``exp``), so results differ by rounding only: |Δp| <= 0.25 * |Δz| with |Δz| a few
ulp of ``Σ|u_c W1_c|``. With preprocessed (scaled) inputs that is ~1e-16; only unscaled inputs of
magnitude ~1e4 reach ~1e-13. Tests hold every engine to 1e-12 of ``predict_proba``.
Determinism: ``engine="auto"`` switches from numpy to jit mid-run when the background compile
finishes; both agree to ~1e-16, so the search only diverges on an exact tie at that level. Use
``engine="jit"``/``"numpy"`` or ``background=False`` where bit-reproducibility across runs matters.
"""

from __future__ import annotations

import ctypes
import threading
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

    first: np.ndarray  # float64: per affine term [sub, div, mul, add, lo, hi, 0, 0, w row (h1p)]; per table (n_codes, h1p)
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
                blk[:6] = t.params
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

    def prepare(self, plan: DeltaPlan) -> tuple[np.ndarray, np.ndarray, tuple]:
        """Per (x, Δ): padded folded bias, term descriptor, and the constant call arguments."""
        bias = np.zeros(pad(len(plan.bias)))
        bias[: len(plan.bias)] = plan.bias
        terms = self.terms(plan.delta)
        # ndarray.ctypes.data costs ~1.5 us per access; take every constant pointer once
        args = (terms.ctypes.data, len(terms), bias.ctypes.data, self._first_ptr, self._dense_ptr)
        return bias, terms, args

    @property
    def _first_ptr(self) -> int:
        return self.packed.first.ctypes.data

    @property
    def _dense_ptr(self) -> int:
        return self.packed.dense.ctypes.data


class _Staging:
    """Reused input/output buffers whose addresses are taken once (per bound instance).

    Copying a block into them (n x |Δ| doubles) is cheaper than taking two fresh ctypes
    pointers per call, which dominated small blocks."""

    def __init__(self, rows: int = 256, width: int = 8):
        self._alloc(rows, width)

    def _alloc(self, rows: int, width: int) -> None:
        self.cols = np.empty(rows * width)
        self.out = np.empty(rows)
        self.cols_ptr = self.cols.ctypes.data
        self.out_ptr = self.out.ctypes.data

    def run(self, kernel: _Kernel, args: tuple, columns: np.ndarray) -> np.ndarray:
        n = len(columns)
        if n == 0:
            return np.empty(0)
        width = columns.shape[1] if columns.ndim == 2 else 0
        if n * width > len(self.cols) or n > len(self.out):
            self._alloc(max(n, 2 * len(self.out)), max(width, 8))
        if width:
            self.cols[: n * width].reshape(n, width)[...] = columns
        kernel.fn(n, self.cols_ptr, width, *args, self.out_ptr)
        return self.out[:n].copy()


class MLPScorer:
    """``ModelScorer`` for an MLPClassifier (bare or in a supported Pipeline).

    ``engine``:

    * ``"numpy"``: the numpy engine only.
    * ``"jit"``: compile the kernel now (synchronously) and always use it.
    * ``"auto"``: the numpy engine at once; if :func:`jit_candidate` accepts the network, compile
      the kernel in a background thread (LLVM releases the GIL), time both engines on one block
      there, and switch to the kernel only if it is faster. So an explanation never waits for
      LLVM and never runs the slower engine once the measurement is in.
      ``background=False`` does the same synchronously (deterministic engine choice).

    ``name`` says which engine runs now (``"mlp-jit"`` / ``"mlp-numpy"``); ``decision`` why."""

    def __init__(
        self,
        model: Any,
        schema: Schema,
        desired_class: Any,
        engine: str = "auto",
        opt_level: int = 2,
        background: bool = True,
    ):
        if engine not in ("auto", "jit", "numpy"):
            raise ValueError(f"engine must be 'auto', 'jit' or 'numpy', got {engine!r}")
        self.model = model
        self.schema = schema
        mlp, inputs = model_inputs(model, schema, desired_class)
        self.mlp: MLP = mlp
        self.layer = FirstLayer(mlp, inputs)
        self.requested = engine
        self.opt_level = opt_level
        self.kernel: _Kernel | None = None  # set (atomically) once the kernel may be used
        self.compiled: _Kernel | None = None
        self.timings: dict[str, float] = {}
        self._thread: threading.Thread | None = None
        if engine == "numpy":
            self.decision = "numpy engine requested"
        elif engine == "jit":
            self.compiled = self.kernel = _Kernel(self.layer, opt_level)
            self.decision = "jit engine requested"
        else:
            ok, why = jit_candidate(mlp)
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
        return "mlp-jit" if self.kernel is not None else "mlp-numpy"

    @property
    def compile_seconds(self) -> float:
        return self.compiled.compile_seconds if self.compiled else 0.0

    def wait(self, timeout: float | None = None) -> MLPScorer:
        """Block until the background compile-and-measure step (if any) has finished."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self

    def _compile_and_measure(self) -> None:
        try:
            kernel = _Kernel(self.layer, self.opt_level)
        except Exception as exc:  # pragma: no cover - an LLVM failure must not break explaining
            self.decision = f"compile failed ({exc}); numpy engine"
            return
        self.compiled = kernel
        t_jit, t_np = _race(self, kernel)
        self.timings = {"jit_block_seconds": t_jit, "numpy_block_seconds": t_np}
        if t_jit < t_np:
            self.kernel = kernel
            self.decision = f"jit: {t_np / t_jit:.1f}x faster than numpy on a {_RACE_ROWS}-row block"
        else:
            self.decision = f"numpy: jit {t_jit / t_np:.2f}x the numpy time on a {_RACE_ROWS}-row block"

    def bind(self, x: np.ndarray) -> _BoundMLP:
        return _BoundMLP(self, np.asarray(x, dtype=np.float64))


class _BoundMLP:
    """One instance: per-Δ folded bias (and the kernel's term descriptor) cached on first use."""

    def __init__(self, parent: MLPScorer, x: np.ndarray):
        self.parent = parent
        self.x = x
        self._plans: dict[tuple[int, ...], DeltaPlan] = {}
        self._prepared: dict[tuple[int, ...], tuple] = {}
        self._staging = _Staging()

    def plan(self, delta: tuple[int, ...]) -> DeltaPlan:
        plan = self._plans.get(delta)
        if plan is None:
            plan = self._plans[delta] = self.parent.layer.plan(self.x, delta)
        return plan

    def score_block(self, delta: tuple[int, ...], columns: np.ndarray) -> np.ndarray:
        delta = tuple(delta)
        columns = np.asarray(columns, dtype=np.float64)
        kernel = self.parent.kernel
        if kernel is None:
            return self.plan(delta).score(columns.reshape(len(columns), len(delta)))
        prepared = self._prepared.get(delta)
        if prepared is None:
            prepared = self._prepared[delta] = kernel.prepare(self.plan(delta))
        return self._staging.run(kernel, prepared[2], columns)


# ------------------------------------------------------------------------------ engine choice
#: Largest dense (layer >= 2) weight matrix, padded, that the row-tile kernel handles well: it
#: streams every dense weight matrix once per tile of 8 rows, so matrices that fall out of the
#: L2 cache (1 MiB per core on this Zen 4) make it lose to BLAS's cache-blocked dgemm.
DENSE_BYTES_MAX = 256 * 1024
_RACE_ROWS = 32


def jit_candidate(mlp: MLP) -> tuple[bool, str]:
    """The static half of the auto rule (the numbers are in the module docstring)."""
    biggest = max((w.shape[0] * pad(w.shape[1]) * 8 for w in mlp.weights[1:]), default=0)
    if biggest > DENSE_BYTES_MAX:
        return False, (
            f"numpy: a dense weight matrix of {biggest // 1024} KiB exceeds {DENSE_BYTES_MAX // 1024} KiB; "
            "BLAS's cache blocking beats the row-tile kernel there"
        )
    return True, "jit candidate"


def _race(scorer: MLPScorer, kernel: _Kernel, reps: int = 7) -> tuple[float, float]:
    """Best-of-``reps`` seconds of one typical block (32 rows, one changed feature) per engine."""
    d = len(scorer.schema)
    x = np.zeros(d)
    feats = [f.index for f in scorer.layer.inputs]
    delta = (feats[0],) if feats else ()
    cols = np.zeros((_RACE_ROWS, len(delta)))
    plan = scorer.layer.plan(x, delta)
    args = kernel.prepare(plan)[2]
    staging = _Staging()
    best = [np.inf, np.inf]
    for _ in range(reps):
        for k, f in enumerate((lambda: staging.run(kernel, args, cols), lambda: plan.score(cols))):
            t0 = time.perf_counter()
            f()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best[0], best[1]


# ------------------------------------------------------------------------------ entry points
def mlp_scorer(
    model: Any, schema: Schema, desired_class: Any, engine: str = "auto", background: bool = False
) -> MLPScorer:
    """A ModelScorer for an MLPClassifier; raises ``UnsupportedModel(reason)`` otherwise.

    ``background=False`` by default: the engine choice is made before the first explanation, so
    the same seed always gives the same explanation (the two engines differ by ~1e-16, which
    could reorder an exact tie mid-run)."""
    return MLPScorer(model, schema, desired_class, engine, background=background)


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
                out.append(TermSpec(k, f.name, t.params, w1[t.column], f"u = {t.describe()}; z += u * W1[{t.column}]"))
    return out


def _unsupported(reason: str) -> UnsupportedModel:
    return UnsupportedModel(reason)
