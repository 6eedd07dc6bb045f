"""Native partial evaluation: the residual forest of (x, Δ) straight into the kernel's layout.

Why: :func:`codegen.partial.partial_evaluate` (numpy, one vector step per tree level) plus packing
its result for the kernel costs ~3 ms per (x, Δ) on a 500-tree depth-10 forest; an Adult
explanation needs ~45 of them, i.e. most of its time. The same walk written once in LLVM IR
(compiled once per process, like the kernel) costs 20-60 µs with warm caches for |Δ| <= 2 and
0.1-0.6 ms for |Δ| 3-5 (~20-30 ns per residual node: the skip chains are dependent loads and
unpredictable branches), 20-100x less than numpy for |Δ| <= 2; ~0.44 ms per Δ on average inside an
RF-500 explanation (cold caches, the search's Δ, binding x included) against 2.8-3.6 ms. Binding x
(``xstep``, ``path`` below) is native as well: ~2 ms per instance instead of ~10 ms for
:func:`codegen.partial.bind_x`.

Per instance (:class:`BoundX`): ``xstep[i] = (column, child x takes)`` interleaved (one cache line
per skip step) and x's root-to-leaf path in every tree, so a tree that stays constant costs a scan
of ~10 contiguous entries instead of a pointer chase through the 6 MB forest.

Input: the whole folded forest packed as kernel ``NODE`` records (:func:`kernel_arrays_forest`,
global node indices, ``col`` = schema feature or -1 for a leaf), the instance's ``xstep`` and
``path`` and ``local`` (int32 per schema feature: its column in the Δ block, -1 outside Δ). Per
tree (in estimator order): follow x's path through splits outside Δ; a leaf there makes the tree constant (``troot = -1``,
``tconst`` = its leaf value); otherwise the residual tree is copied by an explicit-stack DFS that
skips splits outside Δ on every path, remapping ``col`` to the local column and ``left``/``right``
to residual indices (thresholds, leaf values and ``aux`` are copied). The kernel then reaches the
same leaves as on the numpy :class:`codegen.partial.Residual` and adds the same numbers in the
same order, so its results are bit-identical.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from codegen import llvm_binding
from codegen.forest import Forest
from codegen.tree_kernel import NODE, NODE_IR, KernelArrays

__all__ = ["PARTIAL_IR", "NativePartial"]

PARTIAL_IR = NODE_IR + r"""
; geco native partial evaluator: residual forest of (x, delta) in the kernel's node layout
; node = { threshold or leaf value, column (-1: leaf), aux, left, right } (24 bytes; i32 slots 2..5)
; per instance: xstep[i] = { column of node i (-1: leaf), child x takes at i } (8 bytes) and
;   path[t][j] = { column, node } along x's root-to-leaf path in tree t (row stride %L entries)
; stack entries: { forest node, i32 slot of the residual parent's left/right field (-1: root) }
define i64 @partial_eval(ptr noalias %nodes, ptr noalias %xstep, ptr noalias %path, i64 %L,
                         ptr noalias %local, i64 %T, ptr noalias %out,
                         ptr noalias %troot, ptr noalias %tconst, ptr noalias %stack) {
entry:
  %none = icmp sle i64 %T, 0
  br i1 %none, label %done, label %tree
tree:
  %t = phi i64 [0, %entry], [%t1, %tree_next]
  %cnt = phi i32 [0, %entry], [%cnt_next, %tree_next]
  %prow = mul i64 %t, %L
  br label %scan
scan:                                        ; x's path until a leaf or the first split in delta
  %j = phi i64 [0, %tree], [%j1, %fixed0]
  %pj = add i64 %prow, %j
  %pe = getelementptr inbounds { i32, i32 }, ptr %path, i64 %pj
  %gc = load i32, ptr %pe
  %gp = getelementptr inbounds { i32, i32 }, ptr %path, i64 %pj, i32 1
  %g = load i32, ptr %gp
  %gleaf = icmp slt i32 %gc, 0
  br i1 %gleaf, label %constant, label %gchk
gchk:
  %gc64 = sext i32 %gc to i64
  %glp = getelementptr inbounds i32, ptr %local, i64 %gc64
  %gl = load i32, ptr %glp
  %gfree = icmp sge i32 %gl, 0
  br i1 %gfree, label %live, label %fixed0
fixed0:
  %j1 = add i64 %j, 1
  br label %scan
constant:                                    ; x alone decides the tree: its leaf value
  %g64 = sext i32 %g to i64
  %gvp = getelementptr inbounds %Node, ptr %nodes, i64 %g64
  %gv = load double, ptr %gvp
  %trp = getelementptr inbounds i32, ptr %troot, i64 %t
  store i32 -1, ptr %trp
  %tcp = getelementptr inbounds double, ptr %tconst, i64 %t
  store double %gv, ptr %tcp
  br label %tree_next
live:
  %trp2 = getelementptr inbounds i32, ptr %troot, i64 %t
  store i32 %cnt, ptr %trp2
  %tcp2 = getelementptr inbounds double, ptr %tconst, i64 %t
  store double 0.0, ptr %tcp2
  store i32 %g, ptr %stack
  %s1p = getelementptr inbounds i32, ptr %stack, i64 1
  store i32 -1, ptr %s1p
  br label %pop
pop:
  %sp = phi i64 [1, %live], [%sp1, %emit_leaf], [%sp3, %emit_split]
  %id = phi i32 [%cnt, %live], [%id1, %emit_leaf], [%id1, %emit_split]
  %empty = icmp eq i64 %sp, 0
  br i1 %empty, label %tree_next, label %popit
popit:
  %sp1 = sub i64 %sp, 1
  %e0 = shl i64 %sp1, 1
  %ep = getelementptr inbounds i32, ptr %stack, i64 %e0
  %h0 = load i32, ptr %ep
  %pp = getelementptr inbounds i32, ptr %ep, i64 1
  %patch = load i32, ptr %pp
  br label %skip
skip:                                        ; follow x through splits outside delta
  %h = phi i32 [%h0, %popit], [%hx, %fixed]
  %h64 = sext i32 %h to i64
  %hcp = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %h64
  %hc = load i32, ptr %hcp
  %hleaf = icmp slt i32 %hc, 0
  br i1 %hleaf, label %emit, label %hchk
hchk:
  %hc64 = sext i32 %hc to i64
  %hlp = getelementptr inbounds i32, ptr %local, i64 %hc64
  %hl = load i32, ptr %hlp
  %hfree = icmp sge i32 %hl, 0
  br i1 %hfree, label %emit, label %fixed
fixed:
  %hxp = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %h64, i32 1
  %hx = load i32, ptr %hxp
  br label %skip
emit:                                        ; residual node %id = forest node %h
  %col = phi i32 [-1, %skip], [%hl, %hchk]
  %id1 = add i32 %id, 1
  %haspar = icmp sge i32 %patch, 0
  br i1 %haspar, label %link, label %copy
link:
  %patch64 = sext i32 %patch to i64
  %slot = getelementptr inbounds i32, ptr %out, i64 %patch64
  store i32 %id, ptr %slot
  br label %copy
copy:
  %id64 = sext i32 %id to i64
  %hvp = getelementptr inbounds %Node, ptr %nodes, i64 %h64
  %hv = load double, ptr %hvp
  %hap = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 2
  %ha = load i32, ptr %hap
  %ov = getelementptr inbounds %Node, ptr %out, i64 %id64
  store double %hv, ptr %ov
  %oc = getelementptr inbounds %Node, ptr %out, i64 %id64, i32 1
  store i32 %col, ptr %oc
  %oa = getelementptr inbounds %Node, ptr %out, i64 %id64, i32 2
  store i32 %ha, ptr %oa
  %ol = getelementptr inbounds %Node, ptr %out, i64 %id64, i32 3
  store i32 -1, ptr %ol
  %or = getelementptr inbounds %Node, ptr %out, i64 %id64, i32 4
  store i32 -1, ptr %or
  %issplit = icmp sge i32 %col, 0
  br i1 %issplit, label %emit_split, label %emit_leaf
emit_leaf:
  br label %pop
emit_split:                                  ; push right, then left (left is copied first)
  %hrp = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 4
  %hr = load i32, ptr %hrp
  %hlcp = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 3
  %hlc = load i32, ptr %hlcp
  %base = mul i32 %id, 6
  %rslot = add i32 %base, 5
  %lslot = add i32 %base, 4
  store i32 %hr, ptr %ep
  store i32 %rslot, ptr %pp
  %q1p = getelementptr inbounds i32, ptr %ep, i64 2
  store i32 %hlc, ptr %q1p
  %q1s = getelementptr inbounds i32, ptr %ep, i64 3
  store i32 %lslot, ptr %q1s
  %sp3 = add i64 %sp1, 2
  br label %pop
tree_next:
  %cnt_next = phi i32 [%cnt, %constant], [%id, %pop]
  %t1 = add i64 %t, 1
  %tdone = icmp eq i64 %t1, %T
  br i1 %tdone, label %done, label %tree
done:
  %total = phi i32 [0, %entry], [%cnt_next, %tree_next]
  %total64 = sext i32 %total to i64
  ret i64 %total64
}

; per instance: xstep (column and the child x takes at every node) and x's path in every tree
; (padded with its leaf to %L entries); the split test is the kernel's
define void @bind_x(ptr noalias %nodes, i64 %n, ptr noalias %x, ptr noalias %sets, i64 %setw,
                    ptr noalias %xstep, ptr noalias %roots, i64 %T, ptr noalias %path, i64 %L) {
entry:
  br label %node
node:
  %i = phi i64 [0, %entry], [%i1, %node_next]
  %cp = getelementptr inbounds %Node, ptr %nodes, i64 %i, i32 1
  %c = load i32, ptr %cp
  %isleaf = icmp slt i32 %c, 0
  br i1 %isleaf, label %node_next, label %test
test:
  %c64 = sext i32 %c to i64
  %vp = getelementptr inbounds double, ptr %x, i64 %c64
  %v = load double, ptr %vp
  %go = call i1 @goes_left(ptr %nodes, i64 %i, double %v, ptr %sets, i64 %setw)
  %lp = getelementptr inbounds %Node, ptr %nodes, i64 %i, i32 3
  %lv = load i32, ptr %lp
  %rq = getelementptr inbounds %Node, ptr %nodes, i64 %i, i32 4
  %rv = load i32, ptr %rq
  %child = select i1 %go, i32 %lv, i32 %rv
  br label %node_next
node_next:
  %next = phi i32 [-1, %node], [%child, %test]
  %xc = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %i
  store i32 %c, ptr %xc
  %xg = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %i, i32 1
  store i32 %next, ptr %xg
  %i1 = add i64 %i, 1
  %nd = icmp eq i64 %i1, %n
  br i1 %nd, label %tree, label %node
tree:
  %t = phi i64 [0, %node_next], [%t1, %tree_next]
  %rp = getelementptr inbounds i32, ptr %roots, i64 %t
  %g0 = load i32, ptr %rp
  %prow = mul i64 %t, %L
  br label %walk
walk:
  %j = phi i64 [0, %tree], [%j1, %walk]
  %g = phi i32 [%g0, %tree], [%g1, %walk]
  %g64 = sext i32 %g to i64
  %sc = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %g64
  %gcol = load i32, ptr %sc
  %sg = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %g64, i32 1
  %gnext = load i32, ptr %sg
  %pj = add i64 %prow, %j
  %pc = getelementptr inbounds { i32, i32 }, ptr %path, i64 %pj
  store i32 %gcol, ptr %pc
  %pn = getelementptr inbounds { i32, i32 }, ptr %path, i64 %pj, i32 1
  store i32 %g, ptr %pn
  %atleaf = icmp slt i32 %gcol, 0
  %g1 = select i1 %atleaf, i32 %g, i32 %gnext
  %j1 = add i64 %j, 1
  %jd = icmp eq i64 %j1, %L
  br i1 %jd, label %tree_next, label %walk
tree_next:
  %t1 = add i64 %t, 1
  %td = icmp eq i64 %t1, %T
  br i1 %td, label %exit, label %tree
exit:
  ret void
}
"""

_P = ctypes.c_void_p
_I = ctypes.c_int64
_ARGTYPES = (_P, _P, _P, _I, _P, _I, _P, _P, _P, _P)
_BIND_ARGTYPES = (_P, _I, _P, _P, _I, _P, _P, _I, _P, _I)
_fns = None
_fn_lock = threading.Lock()


def _native():
    """(partial_eval, bind_x) ctypes functions; the module is compiled once per process."""
    global _fns
    with _fn_lock:
        if _fns is None:
            cm = llvm_binding.compile_ir(PARTIAL_IR, 2)
            _fns = (cm, cm.function("partial_eval", _I, *_ARGTYPES), cm.function("bind_x", None, *_BIND_ARGTYPES))
    return _fns[1], _fns[2]


def _addr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


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
    ``xstep[i] = (column of node i, child x takes there or -1)`` - :func:`codegen.partial.bind_x`
    plus the column - and ``path[t, j] = (column, node)`` along x's root-to-leaf path in tree ``t``
    (padded with the leaf)."""

    __slots__ = ("L", "path", "path_ptr", "x", "xstep", "xstep_ptr")

    def __init__(self, native: NativePartial, x: np.ndarray):
        full = native.full
        self.x = np.ascontiguousarray(x, dtype=np.float64)
        n = len(full.nodes)
        T = len(full.troot)
        self.L = native.L
        self.xstep = np.empty((n, 2), dtype=np.int32)
        self.path = np.empty((T, self.L, 2), dtype=np.int32)
        self.xstep_ptr = _addr(self.xstep)
        self.path_ptr = _addr(self.path)
        _native()[1](
            native._ptrs[0], n, _addr(self.x), _addr(full.sets), full.setw,
            self.xstep_ptr, _addr(full.troot), T, self.path_ptr, self.L,
        )  # fmt: skip

    @property
    def xchild(self) -> np.ndarray:
        """:func:`codegen.partial.bind_x`'s array (int64)."""
        return self.xstep[:, 1].astype(np.int64)


class NativePartial:
    """Native partial evaluator for one forest, producing :class:`KernelArrays` for Δ blocks.

    ``full`` is the forest's :func:`codegen.tree_kernel.kernel_arrays_forest` (its nodes are read,
    its sets / outputs / init are shared by every residual). Scratch buffers (output nodes and the
    DFS stack, each bounded by the forest's node count) are allocated once; calls are serialised."""

    def __init__(self, forest: Forest, full: KernelArrays):
        self.forest = forest
        self.full = full
        n = max(len(full.nodes), 1)
        T = forest.n_trees
        self.n_features = len(forest.schema)
        self.L = max_path_length(forest)
        self._out = np.empty(n, dtype=NODE)
        self._out64 = self._out.view(np.int64)  # NODE is 3 x 8 bytes: copy as int64
        self._stack = np.empty(2 * n, dtype=np.int32)
        self._local = np.full(self.n_features, -1, dtype=np.int32)
        self._troot = np.empty(T, dtype=np.int32)
        self._tconst = np.empty(T, dtype=np.float64)
        self._ptrs = tuple(_addr(a) for a in (full.nodes, self._local, self._out, self._troot, self._tconst, self._stack))
        self._lock = threading.Lock()

    def bind(self, x: np.ndarray) -> BoundX:
        """Per-instance arrays for the schema-encoded instance ``x``."""
        return BoundX(self, x)

    def __call__(self, bx: BoundX, delta: tuple[int, ...]) -> KernelArrays:
        """The residual forest of (x, Δ) as kernel arrays (rows: Δ blocks, column k = ``delta[k]``)."""
        full = self.full
        fn = _native()[0]
        nodes_p, local_p, out_p, troot_p, tconst_p, stack_p = self._ptrs
        T = len(self._troot)
        with self._lock:
            local = self._local
            for k, d in enumerate(delta):
                local[d] = k
            try:
                m = fn(nodes_p, bx.xstep_ptr, bx.path_ptr, bx.L, local_p, T, out_p, troot_p, tconst_p, stack_p)
            finally:
                for d in delta:
                    local[d] = -1
            nodes = np.empty(m, dtype=NODE)
            nodes.view(np.int64)[:] = self._out64[: 3 * m]
            troot = self._troot.copy()
            tconst = self._tconst.copy()
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
        )
