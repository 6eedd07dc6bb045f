"""The hand-written tree kernels: one compiled walker for any forest, no compile per Δ.

Why: compiling a specialised module for every Δ an explanation meets costs more than scoring its
rows any other way (``benchmarks/README.md``). The kernels in ``codegen/llvm/trees.ll`` are
compiled once per process: ``forest_eval`` walks packed 24-byte nodes tree-major (one tree over
every row, as sklearn does, so the tree stays in cache) - the whole folded forest on full rows, or
a residual forest on a Δ block. It keeps sklearn's arithmetic exactly: per row ``acc = init``,
then ``acc[output[t]] += leaf`` for every tree in estimator order (constant trees of a residual
add their constant in place), then ``acc / divisor`` for forests; XGBoost's sums are rounded to
float32 after every addition (``float32_sums``). The same module holds the
native partial evaluator (:mod:`codegen.trees.native_partial`), which shares the walk step.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from codegen.llvm import binding
from codegen.llvm.buffers import Pinned
from codegen.llvm.signatures import ctypes_signature
from codegen.llvm.sources import ir_source
from codegen.trees.fold import Forest
from codegen.trees.partial import Residual

__all__ = [
    "NODE",
    "KernelArrays",
    "TreeFunctions",
    "kernel_arrays_forest",
    "kernel_arrays_residual",
    "pack_nodes",
    "run_kernel",
    "tree_functions",
    "trees_module",
]

NODE = np.dtype([("v", "<f8"), ("col", "<i4"), ("aux", "<i4"), ("left", "<i4"), ("right", "<i4")])

@dataclass(frozen=True)
class TreeFunctions:
    """The compiled ``trees.ll`` module and its entry points (see that file)."""

    module: binding.CompiledModule
    forest_eval: object
    bind_x: object
    xwalk_rows: object
    xwalk_folded_rows: object
    xentry_rows: object
    plan_deltas: object
    pack_plans: object
    score_jobs: object
    walk_rows: object
    walk_rows_x: object
    walk_tree_lanes: object
    box_leaf_range: object
    xmask_rows: object
    xmask_of_x: object


_functions: TreeFunctions | None = None
_functions_lock = threading.Lock()


def trees_module() -> tuple[str, int]:
    """The IR text and opt level of the tree kernels' module."""
    return ir_source("trees"), 2


def tree_functions() -> TreeFunctions:
    """The tree kernels, compiled on first use (once per process; thread-safe). Their ctypes
    signatures are read from the ``define`` lines of ``trees.ll``."""
    global _functions
    with _functions_lock:
        if _functions is None:
            text, opt = trees_module()
            cm = binding.compile_ir(text, opt)

            def entry(name: str) -> object:
                restype, argtypes = ctypes_signature(text, name)
                return cm.function(name, restype, *argtypes)

            _functions = TreeFunctions(
                module=cm,
                forest_eval=entry("forest_eval"),
                bind_x=entry("bind_x"),
                xwalk_rows=entry("xwalk_rows"),
                xwalk_folded_rows=entry("xwalk_folded_rows"),
                xentry_rows=entry("xentry_rows"),
                plan_deltas=entry("plan_deltas"),
                pack_plans=entry("pack_plans"),
                score_jobs=entry("score_jobs"),
                walk_rows=entry("walk_rows"),
                walk_rows_x=entry("walk_rows_x"),
                walk_tree_lanes=entry("walk_tree_lanes"),
                box_leaf_range=entry("box_leaf_range"),
                xmask_rows=entry("xmask_rows"),
                xmask_of_x=entry("xmask_of_x"),
            )
        return _functions


@dataclass(frozen=True, eq=False)
class KernelArrays:
    """Packed nodes (``NODE`` records, 24 bytes: one cache line holds the whole test) plus the
    per-tree arrays, in the kernel's layout. ``buffers`` owns them all and gives the kernel their
    addresses; the object is immutable, so the addresses always match the arrays."""

    nodes: np.ndarray
    sets: np.ndarray
    setw: int
    troot: np.ndarray
    tconst: np.ndarray
    tout: np.ndarray
    init: np.ndarray
    K: int
    div: float
    float32_sums: bool = False  # XGBoost: every addition rounded to float32
    buffers: Pinned = field(init=False, repr=False)
    #: columns a row must have: the largest column a split reads, plus one
    width: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "width", int(self.nodes["col"].max(initial=-1)) + 1)
        object.__setattr__(
            self,
            "buffers",
            Pinned(nodes=self.nodes, sets=self.sets, troot=self.troot, tconst=self.tconst, tout=self.tout,
                   init=self.init),
        )  # fmt: skip


def pack_nodes(col, thr, leaf_value, cat, miss, left, right) -> np.ndarray:
    """Node arrays -> ``NODE`` records (a leaf keeps its value where a split keeps its threshold)."""
    nodes = np.empty(len(col), dtype=NODE)
    is_leaf = col < 0
    nodes["v"] = np.where(is_leaf, leaf_value, thr)
    nodes["col"] = col
    nodes["aux"] = 2 * (np.asarray(cat, dtype=np.int64) + 1) + np.asarray(miss, dtype=np.int64)
    nodes["left"] = left
    nodes["right"] = right
    return nodes


def _sets(forest: Forest) -> tuple[np.ndarray, int]:
    s = np.ascontiguousarray(forest.cat_left, dtype=np.uint8)
    if s.size == 0:
        s = np.zeros((1, 1), np.uint8)
    return s, s.shape[1]


def kernel_arrays_forest(forest: Forest) -> KernelArrays:
    """The whole folded forest: rows are full schema-encoded rows."""
    sets, setw = _sets(forest)
    f = forest
    return KernelArrays(
        nodes=pack_nodes(f.feature, f.threshold, f.value, f.cat, f.missing_left, f.left, f.right),
        sets=sets,
        setw=setw,
        troot=f.roots.astype(np.int32),
        tconst=np.zeros(f.n_trees),
        tout=f.output.astype(np.int32),
        init=np.ascontiguousarray(f.init, dtype=np.float64),
        K=f.n_outputs,
        div=float(f.divisor or 0.0),
        float32_sums=f.float32_sums,
    )


def kernel_arrays_residual(res: Residual) -> KernelArrays:
    """A residual forest: rows are Δ blocks; constant trees add their constant in place."""
    f = res.forest
    sets, setw = _sets(f)
    troot = np.full(f.n_trees, -1, dtype=np.int32)
    troot[res.live] = res.root
    nd = res.node
    return KernelArrays(
        nodes=pack_nodes(res.col, f.threshold[nd], f.value[nd], f.cat[nd], f.missing_left[nd], res.left, res.right),
        sets=sets,
        setw=setw,
        troot=troot,
        tconst=np.ascontiguousarray(res.const, dtype=np.float64),
        tout=f.output.astype(np.int32),
        init=np.ascontiguousarray(f.init, dtype=np.float64),
        K=f.n_outputs,
        div=float(f.divisor or 0.0),
        float32_sums=f.float32_sums,
    )


def run_kernel(a: KernelArrays, rows: np.ndarray) -> np.ndarray:
    """Accumulators ``(n, K)`` (forests: already divided, i.e. P(desired) in column 0)."""
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    n = len(rows)
    out = np.empty((n, a.K))
    if n == 0:
        return out
    if (rows.shape[1] if rows.ndim == 2 else 1) < a.width:  # the kernel would read past each row
        raise ValueError(f"rows have {rows.shape[1] if rows.ndim == 2 else 1} columns, the forest reads {a.width}")
    buf = a.buffers
    tree_functions().forest_eval(
        rows.ctypes.data, n, rows.shape[1] if rows.ndim == 2 else 1, buf.address("nodes"),
        buf.address("sets"), a.setw, buf.address("troot"), buf.address("tconst"), buf.address("tout"),
        len(a.troot), buf.address("init"), a.K, a.div, int(a.float32_sums), out.ctypes.data,
    )  # fmt: skip
    return out
