"""Native partial evaluation: the residual forest of (x, Δ) straight into the kernels' layouts.

Why: numpy partial evaluation (:mod:`codegen.trees.partial`) plus packing its result costs
milliseconds per (x, Δ) on a large forest. The same walk written once in LLVM IR (``@plan_deltas``
and ``@bind_x`` in ``codegen/llvm/trees.ll``) costs a tenth of that (``benchmarks/README.md``).

Per instance (:class:`BoundX`): for every forest node the column it tests, the child ``x`` takes,
the leaf ``x`` reaches from there and a bit mask of the columns tested on that path, each filled
the first time a kernel reads it (a search reads a few percent of a deep forest's nodes). Per (x,
Δ) and tree, in estimator order: a tree whose x-path tests no Δ column is a constant (one mask
test); otherwise an explicit-stack DFS follows ``x`` through splits outside Δ, jumping to ``x``'s
leaf where nothing below tests a Δ column, and emits the residual tree - in QuickScorer form for
:meth:`NativePartial.plans` (:mod:`codegen.trees.plan`; trees with more than 64 leaves as residual
nodes to walk), as residual nodes for the walking kernel (:func:`codegen.trees.kernel.run_kernel`)
from :meth:`NativePartial.__call__`. Both reach the same leaves as the numpy
:class:`codegen.trees.partial.Residual` and add the same numbers in the same order: bit-identical
results.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from itertools import chain

import numpy as np

from codegen.llvm.buffers import Pinned
from codegen.llvm.trees_abi import PACK, PLAN, PLAN_SIZES, TINFO, XHEAD, XSTEP
from codegen.trees.fold import Forest
from codegen.trees.kernel import NODE, KernelArrays, run_kernel, tree_functions
from codegen.trees.kernel_choice import KernelChoice
from codegen.trees.plan import (
    PART,
    PLAN_PARTS,
    PLAN_ROW_BYTES,
    QREC,
    BlockRunner,
    Plan,
    XWalk,
    positions_within,
)
from codegen.trees.threads import LazyThread
from codegen.trees.xmask import MAX_CODES, ColumnRecords, XMaskRunner, XMasks

__all__ = ["EXACT_MASK_WIDTH", "EXPLORE_SLICE", "FEW_ROWS_KINDS", "MAX_COLUMNS", "MAX_QS_LEAVES", "PLAN_BATCH", "PLAN_BATCH_TREES", "BoundX",
           "NativePartial", "children_after_parents", "fresh_xstep", "top_down_order", "xstep_columns"]

#: QuickScorer keeps one bit per leaf in a 64-bit word: residual trees with more leaves are walked
MAX_QS_LEAVES = 64

#: plans built per native call (tree-major over all of them: each tree is read once), at least
PLAN_BATCH = 8
#: ... and up to this many trees' plans per call, at most 32 plans: more slots share each tree's
#: read, fewer keep the slots' scratch in cache. Adult, interleaved, same answers: RF-100 37.3 ->
#: 35.0 ms an explanation at 16 plans a call, 35.3 at 32; LightGBM 200 33.1 -> 32.2 at 16 or 32;
#: RF-500 90.1 at 8, 91.8 at 16, 95.3 at 32
PLAN_BATCH_TREES = 2048

#: ``@walk_rows`` walks 32 rows per tree at once: calls with fewer rows than this take the
#: branchy walks (padding lanes would cost more than the mispredictions they save)
WALK_MIN_ROWS = 16

#: the kernels a call of fewer than :data:`WALK_MIN_ROWS` rows may take where the forest has the
#: walker (:meth:`NativePartial.near_rows_few`): the trees as lanes, the x-walk walking on by a
#: row's own values off x's path, the branchy walk
FEW_ROWS_KINDS = ("lanes", "xentry", "branchy")

#: rows a kernel of a choice not measured yet scores first in a call large enough for all of
#: them (:meth:`NativePartial._chosen`)
EXPLORE_SLICE = 256

#: x's binding holds a mask of the columns each path tests, one bit a column up to this width
#: (beyond, bit ``c % 32``): rows of a forest this narrow walk from x on their exact changes
EXACT_MASK_WIDTH = 32



def top_down_order(forest: Forest) -> np.ndarray:
    """Every node reachable from a root, parents before children (int32)."""
    frontier = np.asarray(forest.roots, dtype=np.int64)
    levels = []
    while len(frontier):
        levels.append(frontier)
        split = frontier[forest.feature[frontier] >= 0]
        frontier = np.concatenate([forest.left[split], forest.right[split]])
    return np.concatenate(levels).astype(np.int32) if levels else np.empty(0, np.int32)


def tree_shape(forest: Forest) -> tuple[np.ndarray, int]:
    """Nodes reachable from each root (int32), and the depth of the deepest tree."""
    frontier = np.asarray(forest.roots, dtype=np.int64)
    owner = np.arange(len(frontier))
    sizes = np.zeros(len(frontier), dtype=np.int64)
    depth = 0
    while len(frontier):
        sizes += np.bincount(owner, minlength=len(sizes))
        depth += 1
        split = forest.feature[frontier] >= 0
        frontier = np.concatenate([forest.left[frontier[split]], forest.right[frontier[split]]])
        owner = np.concatenate([owner[split], owner[split]])
    return sizes.astype(np.int32), depth


def children_after_parents(forest: Forest) -> bool:
    """Whether every child has a larger index than its parent (sklearn's layout), so a pass over
    the nodes in descending index order sees children first."""
    split = np.flatnonzero(forest.feature >= 0)
    return bool(np.all(forest.left[split] > split) and np.all(forest.right[split] > split))


def set_bits(forest: Forest) -> np.ndarray:
    """Per code set (row of ``cat_left``): its first 64 codes as the bits of an int64."""
    sets = np.asarray(forest.cat_left, dtype=bool)[:, :64]
    weights = np.left_shift(np.uint64(1), np.arange(sets.shape[1], dtype=np.uint64))
    bits = np.bitwise_or.reduce(np.where(sets, weights, np.uint64(0)), axis=1) if sets.size else np.zeros(0, np.uint64)
    return np.ascontiguousarray(bits, dtype=np.uint64).view(np.int64)


#: ``@walk_rows``' node record: the double (threshold, code-set bits or leaf value) and the link
#: word (left child, or a leaf's own index, in the low 32 bits; column << 3 | leaf << 2 | code set
#: << 1 | NaN goes left in the high 32)
WNODE = np.dtype([("v", "<f8"), ("link", "<i8")])

#: the link word's flags (bits of the high half)
_NAN_LEFT, _CODE_SET, _LEAF, _COL_SHIFT = 1 << 32, 1 << 33, 1 << 34, 35


def walker_nodes(full: KernelArrays, setbits: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The forest as ``@walk_rows`` reads it (:data:`WNODE`), tree by tree, each tree's nodes in
    breadth-first order with a split's children side by side (the right child is the left one's
    successor, so the step gathers one link word instead of two child indices), and each tree's
    root in that numbering (negative: a constant tree, as in ``full.troot``). None when a code set
    is wider than 64 codes (the walker cannot test it)."""
    if full.setw > 64:
        return None
    nodes, roots = full.nodes, np.asarray(full.troot, dtype=np.int64)
    live = np.flatnonzero(roots >= 0)
    frontier, owner, levels, owners = roots[live], live, [], []
    while len(frontier):
        levels.append(frontier)
        owners.append(owner)
        split = nodes["col"][frontier] >= 0
        pair = np.stack([nodes["left"][frontier[split]], nodes["right"][frontier[split]]], axis=1)
        frontier, owner = pair.ravel().astype(np.int64), np.repeat(owner[split], 2)
    if not levels:
        return np.zeros(1, dtype=WNODE), full.troot.astype(np.int32)
    old = np.concatenate(levels)[np.argsort(np.concatenate(owners), kind="stable")]  # tree-major, BFS in each
    new_id = np.full(len(nodes), -1, dtype=np.int64)
    new_id[old] = np.arange(len(old))
    src = nodes[old]
    out = np.zeros(len(old), dtype=WNODE)
    out["v"] = src["v"]
    split = src["col"] >= 0
    left, right = new_id[src["left"][split]], new_id[src["right"][split]]
    assert np.array_equal(right, left + 1), "siblings not adjacent"
    link = np.arange(len(old), dtype=np.int64)  # a leaf links to itself
    link[split] = left
    flags = np.where(split, 0, _LEAF)
    aux = src["aux"].astype(np.int64)
    flags |= np.where(split & (aux & 1 != 0), _NAN_LEFT, 0)
    cat = split & ((aux >> 1) > 0)
    flags |= np.where(cat, _CODE_SET, 0)
    if cat.any():
        out["v"][cat] = setbits[(aux[cat] >> 1) - 1].view(np.float64)
    out["link"] = link | flags | (np.maximum(src["col"], 0).astype(np.int64) << _COL_SHIFT)
    wroot = np.where(roots >= 0, new_id[np.maximum(roots, 0)], roots).astype(np.int32)
    return out, wroot


def _lane_roots(wroot: np.ndarray) -> np.ndarray:
    """``@walk_tree_lanes``' roots: the walker's roots as int64, a constant tree's as 0 (its lane
    walks for nothing), padded with 0 to a whole number of 32 trees."""
    lanes = np.zeros(max(32, -(-len(wroot) // 32) * 32), dtype=np.int64)
    lanes[: len(wroot)] = np.maximum(wroot, 0)
    return lanes


#: bit ``c`` of a folded mask (:meth:`BoundX.folded_masks`), as int64 so a matrix product sums them
_FOLDED_BITS = np.left_shift(np.int64(1), np.arange(32, dtype=np.int64))


def _packed(differs: np.ndarray) -> np.ndarray:
    """(n, W) uint64 of a bool (n, 64 W) array: column c at bit c % 64 of word c // 64, as
    ``@xwalk_rows`` reads a row's mask."""
    return np.packbits(differs, axis=1, bitorder="little").view(np.uint64)


def _folded(differs: np.ndarray) -> np.ndarray:
    """(n,) int32 of a bool (n, w) array: bit c % 32 for every column c set, as
    ``@xwalk_folded_rows`` reads a row's mask."""
    w = differs.shape[1]
    if w <= 32:  # one bit a column: their sum is their union
        return (differs @ _FOLDED_BITS[:w]).astype(np.int32)
    return np.bitwise_or.reduce(np.where(differs, _FOLDED_BITS[np.arange(w) % 32], 0), axis=1).astype(np.int32)


#: int32 rows of the XHEAD record before entry 0 of an ``xstep`` array
_HEAD_ROWS = XHEAD.bytes // (XSTEP.width * XSTEP.slot_bytes)
#: an entry's epoch is the high 16 bits of its ``col`` word; 0 marks a split's entry never filled
_MAX_EPOCH = 0xFFFF
#: the widest forest the bindings serve: a column is the low 16 bits of a ``col`` word (signed)
MAX_COLUMNS = 0x7FFF


def xstep_columns(xstep: np.ndarray) -> np.ndarray:
    """The column each node of an ``xstep`` array tests (-1: a leaf), int32: its ``col`` words'
    low 16 bits (the high 16 hold the entry's epoch)."""
    return xstep[:, XSTEP.col].astype(np.uint16).view(np.int16).astype(np.int32)


def fresh_xstep(nodes: np.ndarray) -> np.ndarray:
    """An ``xstep`` array with its header for a forest's packed ``nodes``: every split's entry
    stale (epoch 0), every leaf's final ({-1, -1, itself, 0}), the header's epoch 0."""
    n = max(len(nodes), 1)
    block = np.zeros((_HEAD_ROWS + n, XSTEP.width), dtype=np.int32)
    xs = block[_HEAD_ROWS:]
    col = np.asarray(nodes["col"], dtype=np.int32) if len(nodes) else np.full(1, -1, dtype=np.int32)
    xs[:, XSTEP.col] = col & 0xFFFF
    leaf = col < 0
    xs[:, XSTEP.child] = -1
    xs[leaf, XSTEP.leaf] = np.flatnonzero(leaf)
    return block


def _words(width: int) -> int:
    """64-bit words of a mask over ``width`` columns."""
    return max(1, -(-width // 64))


class BoundX:
    """Per-instance arrays of the native evaluator: ``xstep[i] = (column of node i, child x takes
    or -1, leaf x reaches from i, mask of the columns tested on that path)``, each entry filled
    by the kernels on first use (``@xready`` in ``codegen/llvm/trees.ll``): binding x writes the
    ``XHEAD`` record before entry 0 and a new epoch, which marks every earlier entry stale without
    touching it (a search reads a few percent of a deep forest's nodes; binding them all cost
    1.3-1.7 ms an instance on RF-500). :meth:`bind_all` fills every entry, for the readers on
    this side. The array (16 bytes per node, after the header) comes from, and returns to, the
    evaluator's pool."""

    __slots__ = ("_all", "_paths", "_runner", "_xmasks", "buffers", "native")

    def __init__(self, native: NativePartial, x: np.ndarray):
        full = native.full
        self.native = native
        self._paths: Pinned | None = None
        self._runner: BlockRunner | None = None
        self._xmasks: list[XMasks | None] = []  # made at the first use (empty: not yet)
        self._all = False
        x = np.ascontiguousarray(x, dtype=np.float64)
        if x.ndim != 1 or len(x) < full.width:  # the kernels read x's columns in native code
            raise ValueError(f"x of shape {x.shape}: the forest reads {full.width} columns")
        block = native.take_xstep()
        self.buffers = Pinned(x=x, block=block, xstep=block[_HEAD_ROWS:])
        head = block[:_HEAD_ROWS].view(np.int64).reshape(-1)
        epoch = int(head[XHEAD.epoch]) + 1
        if epoch > _MAX_EPOCH:  # the epochs came round: every split's entry stale again
            block[_HEAD_ROWS:, XSTEP.col] &= 0xFFFF
            epoch = 1
        head[XHEAD.nodes], head[XHEAD.x] = full.buffers.address("nodes"), self.buffers.address("x")
        head[XHEAD.sets], head[XHEAD.setw], head[XHEAD.epoch] = full.buffers.address("sets"), full.setw, epoch

    def __del__(self) -> None:
        # nothing compiled holds xstep once its owner is gone (x-walk jobs keep their BoundX);
        # a binding refused in __init__ took no array
        buffers = getattr(self, "buffers", None)
        if buffers is not None:
            self.native.give_xstep(buffers["block"])

    def bind_all(self) -> np.ndarray:
        """Every entry of x's binding filled (one native pass over the nodes, once): the
        ``xstep`` array, whose ``col`` words hold the column in their low 16 bits
        (:func:`xstep_columns`)."""
        if not self._all:
            full, native = self.native.full, self.native
            tree_functions().bind_x(
                full.buffers.address("nodes"), len(full.nodes), self.buffers.address("x"),
                full.buffers.address("sets"), full.setw, self.buffers.address("xstep"),
                native.model.address("order"), native.norder,
            )  # fmt: skip
            self._all = True
        return self.buffers["xstep"]

    def path_masks(self) -> np.ndarray:
        """(nodes, W) uint64, W = 64-column words of the forest's width: exactly the columns
        x's path tests from each node down to x's leaf (bit c % 64 of word c // 64). Built on
        first use, one numpy pass per tree level, deepest first (a node's mask is its own
        column's bit and the mask of the child x takes)."""
        if self._paths is None:
            xs = self.bind_all()
            col, child = xstep_columns(xs).astype(np.int64), xs[:, XSTEP.child].astype(np.int64)
            masks = np.zeros((len(xs), _words(self.native.full.width)), dtype=np.uint64)
            for level in reversed(self.native.split_levels()):
                c = col[level]
                masks[level] = masks[child[level]]
                masks[level, c >> 6] |= np.left_shift(np.uint64(1), (c & 63).astype(np.uint64))
            self._paths = Pinned(masks=masks)
        return self._paths["masks"]

    def score_rows(self, rows: np.ndarray, walk_share: float = 0.125,
                   near: tuple[np.ndarray, np.ndarray] | None = None, from_x: bool = False) -> np.ndarray:  # fmt: skip
        """Accumulators ``(n, K)`` of the whole forest on full rows (``run_kernel``'s, bit for
        bit): for a call of at least :data:`WALK_MIN_ROWS` rows, the kernel measured cheapest for
        rows made from x (:meth:`NativePartial.near_rows`) when they are (``near`` given, or
        ``from_x``: x with a few columns changed), else for any rows
        (:meth:`NativePartial.full_rows`), where the forest has the branch-free walker or fits
        QuickScorer whole; other calls :meth:`NativePartial.near_rows_few` where the forest has
        the walker or the x-mask kernel serves them (:meth:`NativePartial.xmask_serves_few`),
        else :meth:`score_rows_branchy` (``near``: as there) - any rows, as an answer's
        counterfactuals and x itself are near x too, and the branchy walk from x's binding first
        fills the binding's entries on their paths (Credit XGBoost 500x6: ~200 us an explanation
        that the search's kernels never read)."""
        native = self.native
        if len(rows) < WALK_MIN_ROWS or (native.walker is None and not native.quickscorer_forest):
            if native.few_rows_kernel is not None or native.xmask_serves_few():
                return native.near_rows_few(self, rows)
            return self.score_rows_branchy(rows, walk_share, near)
        if near is not None or from_x:
            return native.near_rows(self, rows)
        return native.full_rows(rows, self)

    @property
    def runner(self) -> BlockRunner:
        """This instance's evaluator of plan jobs (its scratch; made at the first use)."""
        if self._runner is None:
            self._runner = BlockRunner(self.native.full)
        return self._runner

    def walk_rows(self, rows: np.ndarray) -> np.ndarray:
        """The forest's accumulators on full rows by the branch-free walker
        (:meth:`NativePartial.walk_rows`; it needs nothing of ``x``)."""
        return self.native.walk_rows(rows)

    def score_rows_branchy(self, rows: np.ndarray, walk_share: float = 0.125,
                           near: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:  # fmt: skip
        """Accumulators ``(n, K)`` of the whole forest on full rows (``run_kernel``'s, bit for
        bit). A row that differs from x in at most ``walk_share`` of the forest's columns is walked
        from x's binding, skipping every tree and subtree whose x-path tests none of them (a
        wide table's candidates change a few of a hundred columns); the others, where hardly a
        tree could be skipped and the masks would only cost, go to the full kernel (on Credit's
        23 columns walking every row from x measured 1.4x slower), and so do all rows until
        enough are near x to pay for the path masks (:meth:`path_masks`, a pass over the nodes)
        - except on at most 32 columns, where x's binding holds exact masks of its own
        (:meth:`folded_walk`) and the walk from x costs nothing to set up.
        ``near`` = (columns, sizes): the rows come in runs of ``sizes[b]`` rows that differ from x
        at most in the columns ``columns[b]`` marks (a bool row per run, at least the forest's
        width), which then stand for the columns each row differs in instead of a comparison of
        every cell with x (a mask covering a row's differences walks it to the same leaves)."""
        full = self.native.full
        rows = np.ascontiguousarray(rows, dtype=np.float64)
        n = len(rows)
        if n == 0:
            return np.empty((0, full.K))
        if rows.shape[1] < full.width:
            raise ValueError(f"rows have {rows.shape[1]} columns, the forest reads {full.width}")
        W = _words(full.width)
        if near is not None:
            runs, sizes = near
            if int(np.sum(sizes)) != n or runs.shape[1] < full.width:
                raise ValueError(f"near: runs of {int(np.sum(sizes))} rows over {runs.shape[1]} columns for {n} rows, "
                                 f"the forest reads {full.width}")  # fmt: skip
            differs = np.zeros((len(runs), 64 * W), dtype=bool)
            differs[:, : full.width] = runs[:, : full.width]
            few = np.repeat(np.count_nonzero(differs, axis=1) <= walk_share * full.width, sizes)
            masks = np.repeat(_packed(differs), sizes, axis=0)
        else:
            differs = self._differs(rows)
            few = np.count_nonzero(differs, axis=1) <= walk_share * full.width
            masks = None
        if full.width <= EXACT_MASK_WIDTH and few.any():  # x's binding holds exact masks: nothing to build
            folded = _folded(differs[:, : full.width])
            if near is not None:
                folded = np.repeat(folded, near[1])
            if few.all():
                return self.folded_walk(rows, folded)
            out = np.empty((n, full.K))
            out[few] = self.folded_walk(rows[few], folded[few])
            out[~few] = run_kernel(full, rows[~few])
            return out
        # the path masks cost a pass over every node (once per x): worth it for enough such rows
        worth = self._paths is not None or 8 * int(few.sum()) * len(full.troot) >= len(full.nodes)
        if not few.any() or not worth:
            return run_kernel(full, rows)
        if masks is None:
            masks = _packed(differs if few.all() else differs[few])
        elif not few.all():
            masks = masks[few]
        if few.all():
            return self.path_walk(rows, masks)
        out = np.empty((n, full.K))
        out[few] = self.path_walk(rows[few], masks)
        out[~few] = run_kernel(full, rows[~few])
        return out

    def row_masks(self, rows: np.ndarray) -> np.ndarray:
        """(n, W) uint64: per row, the columns the forest reads where it differs from x (NaN
        differs), 64 a word, as :meth:`path_walk` takes them."""
        return _packed(self._differs(self._checked_rows(rows)))

    def _differs(self, rows: np.ndarray) -> np.ndarray:
        """(n, 64 W) bool: where each row differs from x in the columns the forest reads (NaN
        differs), padded with False to whole 64-column words."""
        w = self.native.full.width
        differs = np.zeros((len(rows), 64 * _words(w)), dtype=bool)
        differs[:, :w] = rows[:, :w] != self.buffers["x"][:w]
        return differs

    def path_walk(self, rows: np.ndarray, row_masks: np.ndarray) -> np.ndarray:
        """``@xwalk_rows`` on C-contiguous rows with their (n, W) uint64 masks of differing
        columns (64 a word), reading the exact :meth:`path_masks` (built at the first call)."""
        full = self.native.full
        rows = self._checked_rows(rows)
        row_masks = np.ascontiguousarray(row_masks, dtype=np.uint64)
        if row_masks.shape != (len(rows), _words(full.width)):
            raise ValueError(f"masks of shape {row_masks.shape} for {len(rows)} rows of {_words(full.width)} words")
        out = np.empty((len(rows), full.K))
        if len(rows) == 0:
            return out
        self.path_masks()  # built on first use; self._paths owns it for the call
        fb = full.buffers
        tree_functions().xwalk_rows(
            rows.ctypes.data, len(rows), rows.shape[1], row_masks.ctypes.data, row_masks.shape[1],
            fb.address("nodes"), self.buffers.address("xstep"), self._paths.address("masks"),
            fb.address("sets"), full.setw, fb.address("troot"), fb.address("tconst"), fb.address("tout"),
            len(full.troot), fb.address("init"), full.K, full.div, int(full.float32_sums), out.ctypes.data,
        )  # fmt: skip
        return out

    def xmasks(self) -> XMasks | None:
        """x's masks on the whole forest's records by column (:mod:`codegen.trees.xmask`), made
        at the first call; None where x holds a value that is no category code."""
        if not self._xmasks:
            self._xmasks.append(self.native.column_records(self).masks(self.buffers["x"]))
        return self._xmasks[0]

    def _checked_rows(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` as the walks read them (C-contiguous float64, two dimensions, at least the
        forest's width): ValueError otherwise, as a shorter row would be read past its end."""
        rows = np.ascontiguousarray(rows, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] < self.native.full.width:
            raise ValueError(f"rows of shape {rows.shape}: the forest reads {self.native.full.width} columns")
        return rows

    def folded_masks(self, rows: np.ndarray) -> np.ndarray:
        """(n,) int32: per row, bit ``c % 32`` set for every column ``c`` the forest reads
        where the row differs from x (NaN differs), as :meth:`folded_walk` takes them."""
        rows, w = self._checked_rows(rows), self.native.full.width
        return _folded(rows[:, :w] != self.buffers["x"][:w])

    def folded_walk(self, rows: np.ndarray, row_masks: np.ndarray, own_walk: bool = False) -> np.ndarray:
        """``@xwalk_folded_rows`` on C-contiguous rows (at least the forest's width) with their
        :meth:`folded_masks`: x's binding alone, no path masks to build (:meth:`path_masks`
        costs a pass over every node, milliseconds on RF-500, where this walk needs none).
        ``own_walk``: ``@xentry_rows``, where a row that leaves x's path walks on by its own
        values (no binding entries filled below: deep trees)."""
        full = self.native.full
        rows = self._checked_rows(rows)
        out = np.empty((len(rows), full.K))
        row_masks = np.ascontiguousarray(row_masks, dtype=np.int32)
        if row_masks.shape != (len(rows),):
            raise ValueError(f"masks of shape {row_masks.shape} for {len(rows)} rows")
        if len(rows) == 0:
            return out
        fb = full.buffers
        functions = tree_functions()
        (functions.xentry_rows if own_walk else functions.xwalk_folded_rows)(
            rows.ctypes.data, len(rows), rows.shape[1], row_masks.ctypes.data,
            fb.address("nodes"), self.buffers.address("xstep"),
            fb.address("sets"), full.setw, fb.address("troot"), fb.address("tconst"), fb.address("tout"),
            len(full.troot), fb.address("init"), full.K, full.div, int(full.float32_sums), out.ctypes.data,
        )  # fmt: skip
        return out

    @property
    def xchild(self) -> np.ndarray:
        """:func:`codegen.trees.partial.bind_x`'s array (int64)."""
        return self.bind_all()[:, XSTEP.child].astype(np.int64)


class _Slot:
    """Scratch of one plan of a batch (outputs bounded by the capacities); its ``PLAN`` record
    (:data:`codegen.llvm.trees_abi.PLAN`) is a row of its lane's ``args``, its Δ's column map and
    category counts rows of the lane's ``local`` and ``ncat``."""

    def __init__(self, T: int, nodes: int, qrec: int, leaves: int):
        self.buffers = Pinned(
            out=np.empty(max(nodes, 1), dtype=NODE),
            tinfo=np.empty((T, TINFO.width), dtype=np.int32),
            tconst=np.empty(T, dtype=np.float64),
            qrec=np.empty(qrec, dtype=QREC),
            leafval=np.empty(leaves, dtype=np.float64),
        )
        self.capacities = (max(nodes, 1), qrec, leaves)


class _Lane:
    """Scratch for building a batch of plans: ``batch`` slots, their argument blocks,
    each slot's Δ column map (``local``: position in Δ of each column, -1 outside) and category
    counts as rows of one array, and a DFS stack. A lane serialises its own calls; a second
    lane lets a helper thread build half of a call's plans (``NativePartial(lanes=2)``)."""

    def __init__(self, native: NativePartial, big_first: bool, slot_nodes: int, depth: int, batch: int):
        f, full = native.forest, native.full
        n, T, d, L = max(len(full.nodes), 1), f.n_trees, len(f.schema), MAX_QS_LEAVES
        self.native = native
        self.has_big = big_first
        self.slots = [_Slot(T, n if i == 0 and big_first else slot_nodes, T * L + L, T * L + L)
                      for i in range(batch)]  # fmt: skip
        self.batch = batch
        self.buffers = Pinned(
            args=np.zeros((batch, PLAN.width), dtype=np.int64),
            sizes=np.zeros((batch, PLAN_SIZES.width), dtype=np.int64),
            local=np.full((batch, d), -1, dtype=np.int32),
            ncat=np.zeros((batch, max(d, 1)), dtype=np.int32),
            stack=np.empty(2 * depth + 8, dtype=np.int32),  # a DFS holds at most depth + 1 entries
            nlout=np.zeros(1, dtype=np.int64),
        )
        m, fb, lb = native.model, full.buffers, self.buffers
        args = lb["args"]
        args[:, PLAN.nodes], args[:, PLAN.roots], args[:, PLAN.trees] = fb.address("nodes"), fb.address("troot"), T
        args[:, PLAN.setbits], args[:, PLAN.tree_size] = m.address("setbits"), m.address("tree_size")
        args[:, PLAN.max_leaves] = native.max_qs_leaves
        args[:, PLAN.stack], args[:, PLAN.leaf_count] = lb.address("stack"), lb.address("nlout")
        slot_rows = np.arange(batch)
        args[:, PLAN.sizes] = lb.address("sizes") + PLAN_SIZES.bytes * slot_rows
        args[:, PLAN.local] = lb.address("local") + lb["local"].strides[0] * slot_rows
        args[:, PLAN.ncat] = lb.address("ncat") + lb["ncat"].strides[0] * slot_rows
        for a, slot in zip(args, self.slots):
            b = slot.buffers
            a[PLAN.residual_nodes] = b.address("out")
            for name in ("tinfo", "tconst", "qrec", "leafval"):
                a[PLAN.index(name)] = b.address(name)
            a[PLAN.cap_nodes], a[PLAN.cap_qrec], a[PLAN.cap_leaves] = slot.capacities
        #: every plan job's fields that do not depend on the plan
        self.job = Plan.job_template(full)
        self.lock = threading.Lock()

    def run(self, bx: BoundX, deltas: Sequence[tuple[int, ...]], quickscorer: bool) -> np.ndarray:
        """One native pass for (x, Δ) of every Δ (at most ``batch``, slot by slot);
        returns the overflow flag per Δ. Caller holds the lock."""
        nd = len(deltas)
        lb = self.buffers
        args, local, ncat = lb["args"], lb["local"], lb["ncat"]
        lens = np.fromiter(map(len, deltas), dtype=np.int64, count=nd)
        cols = np.fromiter(chain.from_iterable(deltas), dtype=np.int64, count=int(lens.sum()))
        slot = np.repeat(np.arange(nd), lens)
        pos = positions_within(lens)  # each column's place in its Δ
        local[slot, cols] = pos
        ncat[slot, pos] = self.native.ncat[cols]
        masks = np.zeros(nd, dtype=np.int64)
        np.bitwise_or.at(masks, slot, np.left_shift(1, cols & 31))
        args[:nd, PLAN.xstep], args[:nd, PLAN.dmask] = bx.buffers.address("xstep"), masks
        args[:nd, PLAN.delta_len], args[:nd, PLAN.quickscorer] = lens, int(quickscorer)
        try:
            tree_functions().plan_deltas(lb.address("args"), nd)
        finally:
            local[slot, cols] = -1
        return args[:nd, PLAN.overflow] != 0

    def pack(self, slots: np.ndarray, deltas: Sequence[tuple[int, ...]]) -> list[Plan]:
        """The plans just built in ``slots``, copied natively into one new buffer."""
        nd = len(slots)
        if nd == 0:
            return []
        sizes = self.buffers["sizes"][slots]
        rows = np.empty((nd, len(PLAN_PARTS)), dtype=np.int64)  # rows of each part, PLAN_PARTS order
        rows[:, PART.tinfo] = rows[:, PART.tconst] = self.native.forest.n_trees
        rows[:, [PART.qrec, PART.leafval, PART.nodes]] = sizes[:, _SIZES_BY_PART]
        rows[:, PART.ncat] = self.buffers["args"][slots, PLAN.delta_len]
        nbytes = (rows * PLAN_ROW_BYTES + 7) & ~7
        ends = np.cumsum(nbytes.reshape(-1))
        offsets = (ends - nbytes.reshape(-1)).reshape(nd, len(PLAN_PARTS))
        table = np.zeros((nd, PACK.width), dtype=np.int64)
        table[:, PACK.batch_slot] = slots
        table[:, _PACK_PARTS] = offsets
        out = Pinned(buf=np.empty(max(int(ends[-1]), 8), dtype=np.uint8), table=table)
        tree_functions().pack_plans(self.buffers.address("args"), nd, out.address("table"), out.address("buf"))
        jobs = Plan.jobs(self.job, rows[:, PART.ncat], out.address("buf") + offsets)
        full = self.native.full
        return [Plan(d, full, out, offsets[j], rows[j], jobs[j]) for j, d in enumerate(deltas)]

    def build(self, bx: BoundX, deltas: Sequence[tuple[int, ...]]) -> list[Plan | None]:
        """Plans of every Δ; None where a plan outgrew its slot and this lane has no big slot."""
        out: list[Plan | None] = [None] * len(deltas)
        with self.lock:
            for i in range(0, len(deltas), self.batch):
                chunk = deltas[i : i + self.batch]
                overflow = self.run(bx, chunk, True)
                ok = np.flatnonzero(~overflow).tolist()
                for j, plan in zip(ok, self.pack(np.asarray(ok, dtype=np.intp), [chunk[j] for j in ok])):
                    out[i + j] = plan
                if self.has_big:
                    for j in np.flatnonzero(overflow).tolist():  # alone, in the slot that holds any plan
                        self.run(bx, [chunk[j]], True)
                        out[i + j] = self.pack(np.zeros(1, dtype=np.intp), [chunk[j]])[0]
        return out


#: the PLAN_SIZES field that gives the rows of the qrec, leafval and nodes parts
_SIZES_BY_PART = [PLAN_SIZES.records, PLAN_SIZES.leaves, PLAN_SIZES.nodes]
#: the PACK fields of the parts' offsets, PLAN_PARTS order
_PACK_PARTS = [PACK.index(name) for name, _dtype, _width in PLAN_PARTS]


#: builds the second lane of plans
_SECOND_LANE = LazyThread("geco-plans")


class NativePartial:
    """Native partial evaluator for one forest: :class:`Plan` s, x-walks and residual
    :class:`KernelArrays` for Δ blocks.

    ``full`` is the forest's :func:`codegen.trees.kernel.kernel_arrays_forest` (its nodes are read,
    its sets / outputs / init are shared by every residual). Scratch for building plans is
    allocated once, in lanes of :attr:`batch` slots: the first slot of the first lane holds a
    plan of any size, the others a typical one (a plan that outgrows its slot is rebuilt in that
    first slot).

    One lane by default: a second (a helper thread building every other Δ) never cost less CPU,
    as each native call returning waits for the GIL the other thread's Python holds. On a 2-core
    AMD EPYC, the plans of an Adult explanation, one lane against two, µs a plan (wall / CPU):
    RF-100 37 / 37 against 36 / 54; RF-500 182 / 182 against 131 / 206; XGBoost 500x6 69 / 69
    against 47 / 79; LightGBM 200 39 / 39 against 38 / 57; XGBoost 120x4 14 / 14 against 20 / 26.
    ``lanes=2`` buys the wall a large forest saves with that CPU."""

    def __init__(self, forest: Forest, full: KernelArrays, *, max_qs_leaves: int = MAX_QS_LEAVES,
                 slot_nodes: int | None = None, lanes: int = 1, batch: int | None = None):  # fmt: skip
        """``slot_nodes``: residual nodes the other slots hold (default: a few trees' worth plus
        1/16 of the forest); ``lanes``: 1 or 2 threads building plans; ``batch``: plans per native
        call (default: :data:`PLAN_BATCH_TREES` trees' worth, 8 to 32)."""
        if not 1 <= max_qs_leaves <= MAX_QS_LEAVES:
            raise ValueError(f"max_qs_leaves must be in 1..{MAX_QS_LEAVES}, got {max_qs_leaves}")
        if lanes not in (1, 2):
            raise ValueError(f"lanes must be 1 or 2, got {lanes}")
        if batch is None:
            batch = min(max(PLAN_BATCH_TREES // max(forest.n_trees, 1), PLAN_BATCH), 32)
        if batch < 1:
            raise ValueError(f"batch must be at least 1, got {batch}")
        #: plans built per native call
        self.batch = batch
        self.forest = forest
        self.full = full
        self.max_qs_leaves = max_qs_leaves
        n = max(len(full.nodes), 1)
        self.ncat = np.array([len(f.categories) if f.categories is not None else 0 for f in forest.schema.features],
                             dtype=np.int32)  # fmt: skip
        sizes, depth = tree_shape(forest)
        if children_after_parents(forest):
            order, self.norder = np.zeros(1, dtype=np.int32), -1
        else:
            order = top_down_order(forest)
            self.norder = len(order)
        self.model = Pinned(order=_nonempty(order), setbits=_nonempty(set_bits(forest)), tree_size=_nonempty(sizes))
        small = min(n, 4 * int(sizes.max(initial=1)) + n // 16) if slot_nodes is None else int(slot_nodes)
        self._lanes = [_Lane(self, i == 0, small, depth, batch) for i in range(lanes)]
        wn = walker_nodes(full, self.model["setbits"])
        #: the nodes and roots of the branch-free walker (``@walk_rows``), None where it cannot run
        self.walker: Pinned | None = None if wn is None else Pinned(nodes=wn[0], roots=wn[1], lanes=_lane_roots(wn[1]))
        #: every tree has at most ``max_qs_leaves`` leaves (a binary tree of L leaves has 2L - 1
        #: nodes): the whole forest fits one plan in QuickScorer form (:meth:`whole_plan`)
        self.quickscorer_forest = bool(len(sizes)) and int(sizes.max()) <= 2 * max_qs_leaves - 1
        self._whole_plan: Plan | None = None
        self._whole_lock = threading.Lock()
        #: which of the walker, the branchy walk and (where the forest fits it) the whole forest
        #: in QuickScorer form serves full rows (:meth:`full_rows`)
        full_kinds = ("branchy",) if wn is None else ("walker", "branchy")
        self.full_rows_kernel = KernelChoice((*full_kinds, "quickscorer") if self.quickscorer_forest else full_kinds)
        #: which kernel serves full rows made from an instance (:meth:`near_rows`): the folded
        #: x-walk (a row off x's path reading the binding, or walking on by its own values: the
        #: second measured 0.6-0.9x the first's cost a row on RF-100 and RF-500), the walker
        #: (where the forest has one), the branchy walk or, where the forest fits it, the whole
        #: forest in QuickScorer form; measured apart from
        #: :attr:`full_rows_kernel`, as rows far from x (the data) make the x-walk pay for nothing
        near = ("xwalk", "xentry", "branchy") if wn is None else ("xwalk", "xentry", "walker", "branchy")
        #: ... and the same forest's records by column from x's masks (:mod:`codegen.trees.xmask`),
        #: where no categorical column has more codes than a code set's bits hold
        self.xmask_forest = self.quickscorer_forest and int(self.ncat.max(initial=0)) <= MAX_CODES
        qs = ("quickscorer", "xmask") if self.xmask_forest else ("quickscorer",) if self.quickscorer_forest else ()
        self.near_rows_kernel = KernelChoice((*near, *qs))
        #: which kernel serves calls too small for the walker (:meth:`near_rows_few`), measured on
        #: such calls alone: the walker with the trees as lanes (``@walk_tree_lanes``), the x-walk
        #: walking on by a row's own values off x's path, or the branchy walk (None: no walker)
        self.few_rows_kernel = None if wn is None else KernelChoice(FEW_ROWS_KINDS, explore_rows=64, settle_rows=16)
        self._column_records: ColumnRecords | None = None
        self._xmask_runner: XMaskRunner | None = None
        self._xsteps: list[np.ndarray] = []
        self._forest = forest
        self._split_levels: list[np.ndarray] | None = None

    def split_levels(self) -> list[np.ndarray]:
        """The split nodes reachable from the roots, level by level from the roots down (built
        once per forest)."""
        if self._split_levels is None:
            f = self._forest
            frontier, levels = np.asarray(f.roots, dtype=np.int64), []
            while len(frontier):
                split = frontier[f.feature[frontier] >= 0]
                if len(split):
                    levels.append(split)
                frontier = np.concatenate([f.left[split], f.right[split]])
            self._split_levels = levels
        return self._split_levels

    def take_xstep(self) -> np.ndarray:
        """An ``xstep`` array for a new :class:`BoundX` (from the pool if one is free). No lock:
        list pop/append are atomic, and a lock here could deadlock with a collection running
        :meth:`BoundX.__del__` inside it."""
        try:
            return self._xsteps.pop()
        except IndexError:
            return fresh_xstep(self.full.nodes)

    def give_xstep(self, a: np.ndarray) -> None:
        """Return a dead :class:`BoundX`'s array to the pool (two are kept)."""
        if len(self._xsteps) < 2:
            self._xsteps.append(a)

    def bind(self, x: np.ndarray) -> BoundX:
        """Per-instance arrays for the schema-encoded instance ``x``."""
        return BoundX(self, x)

    def walk_rows(self, rows: np.ndarray, x: np.ndarray | None = None) -> np.ndarray:
        """``@walk_rows``: 32 full rows walk each tree in lockstep in vector code, three gathers
        a step (``run_kernel``'s accumulators, bit for bit). Needs :attr:`walker` (no code set
        wider than 64 codes). With ``x`` (the rows made from it, the forest reading at most 64
        columns: ``@walk_rows_x``), each group of 32 starts a tree where x's path first tests a
        column one of them changes (on the rows of Adult RF-100 and Credit RF-500 searches, a
        third and a quarter of x's path are shared by the 32)."""
        full, w, rows = self.full, self.walker, self._walker_rows(rows)
        n = len(rows)
        if n == 0:
            return np.empty((0, full.K))
        call = Pinned(rows=rows, acc=np.empty(((n + 31) & ~31) * full.K), out=np.empty((n, full.K)))
        fb = full.buffers
        args = (
            call.address("rows"), n, rows.shape[1], w.address("nodes"), full.setw, w.address("roots"),
            fb.address("tconst"), fb.address("tout"), len(full.troot), fb.address("init"), full.K, full.div,
            int(full.float32_sums), call.address("acc"), call.address("out"),
        )  # fmt: skip
        if x is None or full.width > 64:
            tree_functions().walk_rows(*args)
        else:
            x = np.ascontiguousarray(x, dtype=np.float64)
            if x.ndim != 1 or len(x) < full.width:
                raise ValueError(f"x of shape {x.shape}: the forest reads {full.width} columns")
            near = Pinned(x=x, unions=np.empty((n + 31) // 32, dtype=np.int64))
            tree_functions().walk_rows_x(*args, near.address("x"), near.address("unions"))
        return call["out"]

    def _walker_rows(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` as the walker's kernels read them (C-contiguous float64); ValueError where the
        forest has no walker, or for rows that are not a table at least the forest's width (no
        read past a row's end; no rows at all pass)."""
        if self.walker is None:
            raise ValueError("the forest has a code set wider than 64 codes: no branch-free walker")
        rows = np.ascontiguousarray(rows, dtype=np.float64)
        if len(rows) and (rows.ndim != 2 or rows.shape[1] < self.full.width):
            raise ValueError(f"rows of shape {rows.shape}: the forest reads {self.full.width} columns")
        return rows

    def walk_tree_lanes(self, rows: np.ndarray) -> np.ndarray:
        """``@walk_tree_lanes``: each full row walks 32 trees at once in vector code, the trees
        as the lanes (``run_kernel``'s accumulators, bit for bit): for calls of a few rows, where
        :meth:`walk_rows`' 32 row lanes would walk each tree for one row and the branchy walks
        wait on each tree's misses in cache in turn. Needs :attr:`walker`."""
        full, w, rows = self.full, self.walker, self._walker_rows(rows)
        call = Pinned(rows=_nonempty(rows), out=np.empty((len(rows), full.K)))
        fb = full.buffers
        tree_functions().walk_tree_lanes(
            call.address("rows"), len(rows), rows.shape[1], w.address("nodes"), full.setw, w.address("lanes"),
            w.address("roots"), fb.address("tconst"), fb.address("tout"), len(full.troot), fb.address("init"),
            full.K, full.div, int(full.float32_sums), call.address("out"),
        )  # fmt: skip
        return call["out"]

    def full_rows(self, rows: np.ndarray, bx: BoundX | None = None) -> np.ndarray:
        """The whole forest's accumulators on full rows (``run_kernel``'s, bit for bit) by the
        branch-free walker, the branchy walk or the whole forest in QuickScorer form (by
        ``bx``'s evaluator, else a binding of the first row's), whichever has measured cheaper
        per row for this forest on this machine (:class:`codegen.trees.kernel_choice.KernelChoice`);
        the branchy walk alone where the forest has neither of the others."""
        if len(self.full_rows_kernel.names) == 1:
            return run_kernel(self.full, rows)
        if bx is None and "quickscorer" in self.full_rows_kernel.names and len(rows):
            bx = self.bind(rows[0])
        return self._chosen(self.full_rows_kernel, rows, bx)

    def whole_plan(self, bx: BoundX) -> Plan:
        """The plan of the Δ of every column: the whole forest in QuickScorer form (needs
        :attr:`quickscorer_forest`), built at the first call (``bx``: any instance; with every
        column in Δ nothing of x is read) and kept for every later one."""
        plan = self._whole_plan  # set once, never reset: read without the lock on every call
        if plan is not None:
            return plan
        if not self.quickscorer_forest:
            raise ValueError(f"a tree has more than {self.max_qs_leaves} leaves: no QuickScorer form of the whole forest")
        with self._whole_lock:
            if self._whole_plan is None:
                plan = self.plan(bx, tuple(range(len(self.forest.schema))))
                plan.decide_uniform_columns()  # rows made from x hold x's value in most columns
                self._whole_plan = plan
            return self._whole_plan

    def prepare_near(self, bx: BoundX) -> None:
        """Build what the kernels for rows made from x read once per forest - the whole forest's
        plan and its records by column, where the forest has them - so that no call whose time
        a choice records pays for it (a route measured once with a 2 ms build inside stayed the
        dearer one for good)."""
        if self.quickscorer_forest:
            self.whole_plan(bx)
        if self.xmask_forest:
            self.column_records(bx)

    @property
    def near_prepared(self) -> bool:
        """Whether :meth:`prepare_near` has nothing left to build."""
        return ((not self.quickscorer_forest or self._whole_plan is not None)
                and (not self.xmask_forest or self._column_records is not None))  # fmt: skip

    def column_records(self, bx: BoundX) -> ColumnRecords:
        """The whole forest's records by column (:class:`codegen.trees.xmask.ColumnRecords`,
        needs :attr:`xmask_forest`), built from :meth:`whole_plan` at the first call and kept."""
        records = self._column_records  # set once, never reset
        if records is not None:
            return records
        plan = self.whole_plan(bx)
        with self._whole_lock:
            if self._column_records is None:
                self._xmask_runner = XMaskRunner(ColumnRecords(plan, self.full))
                self._column_records = self._xmask_runner.records
            return self._column_records

    def xmask_rows(self, bx: BoundX, rows: np.ndarray) -> np.ndarray:
        """The whole forest's accumulators on full rows (``run_kernel``'s, bit for bit) from x's
        masks on its records by column (``@xmask_rows``, :mod:`codegen.trees.xmask`): eight rows
        at a time visit the records of the columns where they differ from x alone. Rows with a
        value that is no category code (and every row where x holds one) go to the branchy walk;
        rows narrower than the forest's schema are refused (ValueError), as by the whole plan."""
        masks = bx.xmasks()
        if masks is None:
            return run_kernel(self.full, rows)
        acc, bad = self._xmask_runner.run(masks, rows)
        if bad.any():
            acc[bad] = run_kernel(self.full, np.ascontiguousarray(rows[bad]))
        return acc

    def quickscorer_rows(self, bx: BoundX, rows: np.ndarray) -> np.ndarray:
        """The whole forest's accumulators on full rows (``run_kernel``'s, bit for bit) by its
        :meth:`whole_plan`, every row in one block (``@score_jobs``: each split compared over
        8 rows at once, no branch on the data; it pays over enough rows a call, as every split
        of the forest is read once a call). Rows the plan refuses (a categorical value that is
        no category code) go to the branchy walk."""
        plan = self.whole_plan(bx)
        d = len(plan.delta)
        if rows.ndim != 2 or rows.shape[1] < d:
            raise ValueError(f"rows of shape {rows.shape}: the whole forest's plan reads {d} columns")
        acc, _, bad = bx.runner.run([(plan, rows[:, :d])])
        return run_kernel(self.full, rows) if bad[0] else acc

    def near_rows(self, bx: BoundX, rows: np.ndarray) -> np.ndarray:
        """The whole forest's accumulators on full rows (``run_kernel``'s, bit for bit), rows a
        search made from x (``bx``'s instance) by changing a few columns: by the x-walk on
        folded masks (:meth:`BoundX.folded_walk`, a row off x's path reading the binding or
        walking on by its own values), the branch-free walker, the branchy walk,
        the whole forest in QuickScorer form (:meth:`quickscorer_rows`) or its records by
        column from x's masks (:meth:`xmask_rows`), whichever has measured
        cheapest per row for this forest on this machine
        (:class:`codegen.trees.kernel_choice.KernelChoice`). Any rows give the same numbers;
        near x the x-walk skips every subtree whose x-path tests no changed column."""
        rows = bx._checked_rows(rows)
        if len(rows) == 0:
            return np.empty((0, self.full.K))
        return self._chosen(self.near_rows_kernel, rows, bx)

    def xmask_serves_few(self) -> bool:
        """Whether the x-mask kernel serves calls too small for the walker: where the forest fits
        it and :attr:`near_rows_kernel` has measured it the cheapest of all (its chunk of 8 rows
        costs less than a walk of 1 to 15 on XGBoost 500x6: 16-32 us a call against 19-78)."""
        return self.xmask_forest and self.near_rows_kernel.best() == "xmask"

    def near_rows_few(self, bx: BoundX, rows: np.ndarray) -> np.ndarray:
        """:meth:`near_rows` for a call too small for the walker (32 row lanes a tree): the
        x-mask kernel where it serves such calls (:meth:`xmask_serves_few`); else, where the
        forest has the walker, whichever of :data:`FEW_ROWS_KINDS` :attr:`few_rows_kernel` has
        measured cheapest a row on such calls (on deep forests the trees as lanes: cold in cache,
        1 / 4 / 12 rows on Adult RF-500, 265 / 364 / 526 us against 360 / 803 / 1195 for the
        x-walk walking on by its own values and 695 / 1027 / 1355 for the branchy walk); else
        the x-walk on folded masks or the branchy walk, whichever :attr:`near_rows_kernel` has
        measured cheapest a row on large calls."""
        choice, rows = self.near_rows_kernel, bx._checked_rows(rows)
        if len(rows) == 0:  # nothing to time: an empty call would price a kernel at seconds for no rows
            return np.empty((0, self.full.K))
        if self.xmask_serves_few():
            return self._run("xmask", rows, bx, from_x=True)
        few = self.few_rows_kernel
        if few is None:
            return self._run(min(("xwalk", "xentry", "branchy"), key=choice.per_row), rows, bx, from_x=True)
        return self._timed(few, few.pick(), rows, bx)

    def _chosen(self, choice: KernelChoice, rows: np.ndarray, bx: BoundX | None = None) -> np.ndarray:
        """``rows`` scored by the kernel ``choice`` picks (the x-walk needs ``bx``), its time
        recorded there; a call large enough for every kernel not measured yet to score a slice
        of :data:`EXPLORE_SLICE` rows (at a quarter of the call at most) gives each its slice
        first and the rest to the cheapest then (a forest's first call is often the data's rows
        all at once: the Explainer scoring its seed pool, 30,000 rows by whichever kernel comes
        first)."""
        fresh = [kind for kind in choice.names if choice.measured[kind] == 0]
        if len(fresh) > 1 and len(rows) >= 4 * EXPLORE_SLICE * len(fresh):
            parts = [self._timed(choice, kind, rows[i * EXPLORE_SLICE : (i + 1) * EXPLORE_SLICE], bx)
                     for i, kind in enumerate(fresh)]  # fmt: skip
            parts.append(self._timed(choice, choice.best(), rows[len(fresh) * EXPLORE_SLICE :], bx))
            return np.concatenate(parts)
        return self._timed(choice, choice.pick(), rows, bx)

    def _timed(self, choice: KernelChoice, kind: str, rows: np.ndarray, bx: BoundX | None) -> np.ndarray:
        """``rows`` scored by kernel ``kind``, its time recorded in ``choice`` (the whole forest's
        plan built first, outside it: built once, it would price the kernel's first rows at
        milliseconds each and the choice could settle it as the dearer for good). x's masks for
        the x-mask kernel are made outside it too: made once an instance (70-100 us on Adult
        XGBoost 120x4), they fell on whichever call explored or rechecked the kernel, a few
        hundred rows, and tripled its 0.31 us a row there, so the walker served an explanation
        the x-mask kernel does 9 % cheaper at k = 5 (left out, they make it look a tenth to a
        fifth cheaper than it is over an instance of a few hundred rows)."""
        if kind in ("quickscorer", "xmask"):  # once per forest
            self.prepare_near(bx)
        if kind == "xmask" and bx is not None:  # once per instance
            bx.xmasks()
        t0 = time.perf_counter()
        out = self._run(kind, rows, bx, from_x=choice is not self.full_rows_kernel)
        choice.record(kind, time.perf_counter() - t0, len(rows))
        return out

    def _run(self, kind: str, rows: np.ndarray, bx: BoundX | None = None, from_x: bool = False) -> np.ndarray:
        """The whole forest's accumulators on checked full rows by kernel ``kind``: "xwalk" (on
        folded masks, from ``bx``), "xentry" (the same, a row off x's path walking on by its own
        values), "walker" (``from_x``: the rows were made from ``bx``'s x, each group of 32 starting
        down x's path), "quickscorer" (by ``bx``'s evaluator), "xmask" (from ``bx``'s masks) or
        "branchy"."""
        if kind in ("xwalk", "xentry"):
            return bx.folded_walk(rows, bx.folded_masks(rows), own_walk=kind == "xentry")
        if kind == "walker":
            return self.walk_rows(rows, bx.buffers["x"] if from_x and bx is not None else None)
        if kind == "lanes":
            return self.walk_tree_lanes(rows)
        if kind == "quickscorer":
            return self.quickscorer_rows(bx, rows)
        if kind == "xmask":
            return self.xmask_rows(bx, rows)
        return run_kernel(self.full, rows)

    def plans(self, bx: BoundX, deltas: Sequence[tuple[int, ...]]) -> list[Plan]:
        """The :class:`Plan` of (x, Δ) for every Δ: each residual tree of at most
        ``max_qs_leaves`` leaves in QuickScorer form, larger ones walked. With two lanes and
        several Δ, every other Δ is built on the helper thread."""
        first = self._lanes[0]
        if len(self._lanes) == 1 or len(deltas) < 2:
            return first.build(bx, deltas)  # type: ignore[return-value]
        other = _SECOND_LANE.get().submit(self._lanes[1].build, bx, deltas[1::2])
        out: list[Plan | None] = [None] * len(deltas)
        out[0::2] = first.build(bx, deltas[0::2])
        out[1::2] = other.result()
        missing = [i for i, p in enumerate(out) if p is None]  # outgrew the helper's slots
        for i, plan in zip(missing, first.build(bx, [deltas[i] for i in missing])):
            out[i] = plan
        return out  # type: ignore[return-value]

    def plan(self, bx: BoundX, delta: tuple[int, ...]) -> Plan:
        """:meth:`plans` for one Δ."""
        return self.plans(bx, [delta])[0]

    def xwalk(self, bx: BoundX, delta: tuple[int, ...]) -> XWalk:
        """The cold tier of (x, Δ): no partial evaluation, the forest walked with ``bx``."""
        return XWalk(delta, self.full, self.ncat, bx, bx.buffers.address("xstep"))

    def __call__(self, bx: BoundX, delta: tuple[int, ...]) -> KernelArrays:
        """The residual forest of (x, Δ) as kernel arrays (rows: Δ blocks, column k = ``delta[k]``)."""
        full = self.full
        lane = self._lanes[0]
        b = lane.slots[0].buffers
        with lane.lock:
            lane.run(bx, [delta], False)
            m = int(lane.buffers["sizes"][0, PLAN_SIZES.nodes])
            nodes = b["out"][:m].copy()
            troot = b["tinfo"][:, TINFO.start].copy()  # the walk root; -1 for a constant
            tconst = b["tconst"].copy()
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


def _nonempty(a: np.ndarray) -> np.ndarray:
    """A one-element stand-in for an empty array (its address is never read, but must exist)."""
    return a if len(a) else np.zeros(1, dtype=a.dtype)
