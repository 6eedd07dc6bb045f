"""The trees' leaf ranges over a box of allowed values, compiled (``@box_leaf_range`` in
``trees.ll``): :func:`codegen.trees.bound.leaf_ranges`' numbers, found by one depth-first walk
per tree over the packed forest the other kernels read (a node's test in one 24-byte record)
instead of a dozen numpy passes over seven node arrays per tree level; :data:`BOX_LANES` trees'
walks at once, a step of each in turn, so that their misses in cache overlap. The walk skips a
subtree whose leaves all lie within the range it has found (:func:`subtree_extents`): on a
forest of pure leaves most of a wide box's nodes are never read.

The certificates of "no counterfactual" rest on these numbers, so the tests hold them equal to
the numpy reference on random boxes, categorical sets and missing values included.
"""

from __future__ import annotations

import numpy as np

from codegen.llvm.buffers import Pinned
from codegen.trees.bound import Box
from codegen.trees.fold import Forest
from codegen.trees.kernel import KernelArrays, tree_functions

__all__ = ["BOX_LANES", "NativeLeafRanges", "subtree_extents", "tree_depth"]

#: trees ``@box_leaf_range`` walks at once, a step of each in turn (their misses in cache overlap):
#: an answer's bound, cold after its search, 1 / 4 / 8 / 16 at once: 1001 / 570 / 491 / 506 us on Adult
#: RF-500, 431 / 292 / 274 / 256 on Credit XGBoost 500x6 (Intel Xeon)
BOX_LANES = 8


def _split_levels(nodes: np.ndarray, roots: np.ndarray) -> list[np.ndarray]:
    """The splits of the trees of ``roots`` (< 0: a constant tree) in the packed ``nodes``,
    level by level from the roots (each level's array non-empty)."""
    levels, frontier = [], np.asarray(roots[roots >= 0], dtype=np.int64)
    while len(frontier):
        inner = frontier[nodes["col"][frontier] >= 0]
        if len(inner) == 0:
            break
        levels.append(inner)
        frontier = np.concatenate([nodes["left"][inner], nodes["right"][inner]]).astype(np.int64)
    return levels


def subtree_extents(nodes: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """(n_nodes, 2) per packed node (:data:`codegen.trees.kernel.NODE` records): the largest and
    the smallest leaf value below it (itself for a leaf), NaN where a leaf below is NaN. Found
    level by level from the roots (``roots`` < 0: a constant tree, no nodes), deepest first."""
    out = np.full((len(nodes), 2), np.nan)
    leaf = nodes["col"] < 0
    out[leaf, 0] = out[leaf, 1] = nodes["v"][leaf]
    for inner in reversed(_split_levels(nodes, roots)):  # np.maximum / np.minimum: a NaN below stays NaN
        left, right = nodes["left"][inner], nodes["right"][inner]
        out[inner, 0] = np.maximum(out[left, 0], out[right, 0])
        out[inner, 1] = np.minimum(out[left, 1], out[right, 1])
    return out


def tree_depth(nodes: np.ndarray, roots: np.ndarray) -> int:
    """The most edges from a root to a leaf over the trees of ``roots`` (< 0: a constant tree)
    in the packed ``nodes``: 0 for leaves alone or no tree."""
    return len(_split_levels(nodes, roots))


class NativeLeafRanges:
    """``(forest, box) -> (top, low)`` for the forest packed as ``full``
    (:func:`codegen.trees.kernel.kernel_arrays_forest` of ``forest``: the same nodes), as
    :func:`codegen.trees.bound.leaf_ranges` gives them. Each call owns its box and its walks'
    stacks (:data:`BOX_LANES` trees at once, each a stack as deep as the forest's trees)."""

    def __init__(self, forest: Forest, full: KernelArrays):
        if len(full.nodes) != len(forest.feature) or len(full.troot) != forest.n_trees:
            raise ValueError("the packed forest is not this forest's")
        self.forest, self.full = forest, full
        self.has_sets = forest.cat_left.size > 0
        self.extent = subtree_extents(full.nodes, full.troot)
        #: stack entries a walk needs: at most one pending sibling a level, and a split's two children
        self.room = tree_depth(full.nodes, full.troot) + 2

    def __call__(self, forest: Forest, box: Box, need_low: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """(top, low) per tree; ``need_low`` False: (top, None), from a walk that prunes on the
        largest leaf alone and dives to it first (what an averaged forest's bound reads)."""
        if forest is not self.forest:
            raise ValueError("these leaf ranges were built for another forest")
        full, T = self.full, forest.n_trees
        codes = np.ascontiguousarray(box.codes, dtype=np.uint8)
        if self.has_sets and codes.shape[1] != full.setw:
            raise ValueError(f"the box has {codes.shape[1]} codes a column, the forest's sets {full.setw}")
        call = Pinned(
            lo=np.asarray(box.lo, dtype=np.float64), hi=np.asarray(box.hi, dtype=np.float64),
            missing=np.asarray(box.missing, dtype=np.uint8),
            codes=codes.reshape(-1) if self.has_sets else np.zeros(1, dtype=np.uint8),
            outside=np.asarray(box.outside, dtype=np.uint8), top=np.empty(T), low=np.empty(T),
            stack=np.empty(BOX_LANES * self.room, dtype=np.int32), extent=self.extent,
        )  # fmt: skip
        fb = full.buffers
        tree_functions().box_leaf_range(
            fb.address("nodes"), fb.address("sets"), full.setw, fb.address("troot"), fb.address("tconst"), T,
            call.address("lo"), call.address("hi"), call.address("missing"), call.address("codes"),
            call.address("outside"), call.address("stack"), BOX_LANES, self.room, call.address("top"),
            call.address("low"), call.address("extent"), int(not need_low),
        )  # fmt: skip
        return call["top"], (call["low"] if need_low else None)
