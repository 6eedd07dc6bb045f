"""Native partial evaluation: the residual forest of (x, Δ) straight into the kernel's layout.

Why: numpy partial evaluation (:mod:`codegen.trees.partial`) plus packing its result costs
milliseconds per (x, Δ) on a large forest - most of an explanation. The same walk written once in
LLVM IR (``@partial_eval`` and ``@bind_x`` in ``codegen/llvm/trees.ll``, compiled with the kernel)
costs tens of microseconds (``benchmarks/README.md``).

Per instance (:class:`BoundX`): ``xstep[i] = (column, child x takes)`` interleaved and x's
root-to-leaf path in every tree, so a tree that stays constant costs a scan of a few contiguous
entries. Per tree, in estimator order: follow x's path through splits outside Δ; a leaf there
makes the tree a constant (``troot = -1``, ``tconst`` its value); otherwise an explicit-stack DFS
copies the residual tree, skipping splits outside Δ and remapping columns and children. The
kernel then reaches the same leaves as on the numpy :class:`codegen.trees.partial.Residual` and
adds the same numbers in the same order: bit-identical results.
"""

from __future__ import annotations

import threading

import numpy as np

from codegen.llvm.buffers import Pinned
from codegen.trees.fold import Forest
from codegen.trees.kernel import NODE, KernelArrays, tree_functions

__all__ = ["BoundX", "NativePartial", "max_path_length"]


def max_path_length(forest: Forest) -> int:
    """Nodes on the longest root-to-leaf path of any tree."""
    frontier = np.asarray(forest.roots, dtype=np.int64)
    L = 0
    while len(frontier):
        L += 1
        split = frontier[forest.feature[frontier] >= 0]
        frontier = np.concatenate([forest.left[split], forest.right[split]])
    return L


class BoundX:
    """Per-instance arrays of the native evaluator (one native pass per ``x``):
    ``xstep[i] = (column of node i, child x takes there or -1)`` - :func:`codegen.trees.partial.bind_x`
    plus the column - and ``path[t, j] = (column, node)`` along x's root-to-leaf path in tree ``t``
    (padded with the leaf)."""

    __slots__ = ("L", "buffers")

    def __init__(self, native: NativePartial, x: np.ndarray):
        full = native.full
        n = len(full.nodes)
        T = len(full.troot)
        self.L = native.L
        self.buffers = Pinned(
            x=np.ascontiguousarray(x, dtype=np.float64),
            xstep=np.empty((n, 2), dtype=np.int32),
            path=np.empty((T, self.L, 2), dtype=np.int32),
        )
        fb, b = full.buffers, self.buffers
        tree_functions().bind_x(
            fb.address("nodes"), n, b.address("x"), fb.address("sets"), full.setw,
            b.address("xstep"), fb.address("troot"), T, b.address("path"), self.L,
        )  # fmt: skip

    @property
    def xchild(self) -> np.ndarray:
        """:func:`codegen.trees.partial.bind_x`'s array (int64)."""
        return self.buffers["xstep"][:, 1].astype(np.int64)


class NativePartial:
    """Native partial evaluator for one forest, producing :class:`KernelArrays` for Δ blocks.

    ``full`` is the forest's :func:`codegen.trees.kernel.kernel_arrays_forest` (its nodes are read,
    its sets / outputs / init are shared by every residual). Scratch buffers (output nodes and the
    DFS stack, each bounded by the forest's node count) are allocated once; calls are serialised."""

    def __init__(self, forest: Forest, full: KernelArrays):
        self.forest = forest
        self.full = full
        n = max(len(full.nodes), 1)
        T = forest.n_trees
        self.L = max_path_length(forest)
        out = np.empty(n, dtype=NODE)
        self._scratch = Pinned(
            out=out,
            out64=out.view(np.int64),  # NODE is 3 x 8 bytes: copied out as int64
            stack=np.empty(2 * n, dtype=np.int32),
            local=np.full(len(forest.schema), -1, dtype=np.int32),
            troot=np.empty(T, dtype=np.int32),
            tconst=np.empty(T, dtype=np.float64),
        )
        self._lock = threading.Lock()

    def bind(self, x: np.ndarray) -> BoundX:
        """Per-instance arrays for the schema-encoded instance ``x``."""
        return BoundX(self, x)

    def __call__(self, bx: BoundX, delta: tuple[int, ...]) -> KernelArrays:
        """The residual forest of (x, Δ) as kernel arrays (rows: Δ blocks, column k = ``delta[k]``)."""
        full = self.full
        s = self._scratch
        bb = bx.buffers
        local = s["local"]
        T = len(s["troot"])
        with self._lock:
            for k, d in enumerate(delta):
                local[d] = k
            try:
                m = tree_functions().partial_eval(
                    full.buffers.address("nodes"), bb.address("xstep"), bb.address("path"), bx.L,
                    s.address("local"), T, s.address("out"), s.address("troot"), s.address("tconst"),
                    s.address("stack"),
                )  # fmt: skip
            finally:
                for d in delta:
                    local[d] = -1
            nodes = np.empty(m, dtype=NODE)
            nodes.view(np.int64)[:] = s["out64"][: 3 * m]
            troot = s["troot"].copy()
            tconst = s["tconst"].copy()
        return KernelArrays(
            nodes=nodes,
            sets=full.sets,
            setw=full.setw,
            troot=troot,
            tconst=tconst,
            tout=full.tout,
            init=full.init,
            K=full.K,
            div=full.div,
            float32_sums=full.float32_sums,
        )
