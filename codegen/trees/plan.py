"""Plans: the residual forest of (x, Δ) with every small residual tree in QuickScorer form.

Why: after partial evaluation most live trees are small (a few to a few dozen leaves over Δ's
columns), but walking them row by row costs a data-dependent branch per level - most of an
explanation before plans. QuickScorer (Lucchese et al., SIGIR 2015) scores such a tree without
branches: number its leaves left to right; a split that sends the row right rules out its left
subtree's leaves, so the row's leaf is the lowest bit left standing after ANDing one mask per
"false" split. Every split then costs one compare over the whole block in vector code, and the
plan is built in one linear pass over the residual (``benchmarks/README.md``). Trees with more than
64 leaves stay walks.

A plan is built natively (:meth:`codegen.trees.native_partial.NativePartial.plan`) and run by
``@plan_eval_jobs`` in ``codegen/llvm/trees.ll``: every block of a generation in one call.
Exactness: the lowest standing bit is the leaf the walk reaches, and the evaluator adds one leaf
per tree in estimator order - sklearn's additions, bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np

from codegen.llvm.buffers import Pinned
from codegen.llvm.trees_abi import (
    JOB,
    JOB_PLAN,
    JOB_XWALK,
    TINFO,
    TREE_CONSTANT,
    TREE_QUICKSCORER,
    TREE_WALK,
)
from codegen.trees.kernel import NODE, KernelArrays, tree_functions

__all__ = ["PART", "PLAN_PARTS", "PLAN_ROW_BYTES", "QREC", "BlockRunner", "Plan", "XWalk", "positions_within"]

#: a QuickScorer split: payload (threshold bits, or the set of codes going left), column local to
#: Δ, test (0: v <= threshold, 1: code in set, 2: never left; + 4 when NaN goes left, else NaN goes
#: right), mask clearing the left subtree
QREC = np.dtype([("payload", "<i8"), ("col", "<i4"), ("test", "<i4"), ("mask", "<i8")])


def positions_within(sizes: np.ndarray) -> np.ndarray:
    """0, 1, ... size - 1 for each of consecutive segments of ``sizes``, end to end (each block's
    row, or each Δ's column, numbered within it)."""
    sizes = np.asarray(sizes)
    return np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)


def _job(full: KernelArrays, mode: int) -> np.ndarray:
    """A ``JOB`` record (:data:`codegen.llvm.trees_abi.JOB`) with the forest's shared fields filled
    in; the caller adds the mode's fields, the call the block and its scratch."""
    fb = full.buffers
    row = np.zeros(JOB.width, dtype=np.int64)
    row[JOB.mode] = mode
    row[JOB.trees] = len(full.troot)
    row[JOB.tout], row[JOB.sets], row[JOB.setw] = fb.address("tout"), fb.address("sets"), full.setw
    row[JOB.init], row[JOB.outputs] = fb.address("init"), full.K
    row[JOB.divisor] = np.float64(full.div).view(np.int64)
    row[JOB.float32_sums] = int(full.float32_sums)
    return row


#: a plan's parts in buffer order: (name, dtype, columns); @pack_plans copies them in this order
PLAN_PARTS = (("tinfo", np.dtype(np.int32), TINFO.width), ("tconst", np.dtype(np.float64), 1), ("qrec", QREC, 1),
              ("leafval", np.dtype(np.float64), 1), ("nodes", NODE, 1), ("ncat", np.dtype(np.int32), 1))  # fmt: skip
#: bytes per row of each part
PLAN_ROW_BYTES = np.array([dt.itemsize * w for _, dt, w in PLAN_PARTS], dtype=np.int64)
#: position of each part in PLAN_PARTS, by name (``PART.qrec``)
PART = SimpleNamespace(**{name: i for i, (name, _, _) in enumerate(PLAN_PARTS)})
#: the JOB field that takes each part's address
_JOB_FIELD = {"tinfo": JOB.plan_tinfo, "tconst": JOB.plan_tconst, "qrec": JOB.plan_qrec,
              "leafval": JOB.plan_leafval, "nodes": JOB.plan_nodes, "ncat": JOB.ncat}  # fmt: skip
#: the JOB fields of the parts' addresses, in PLAN_PARTS order
_JOB_FIELDS = [_JOB_FIELD[name] for name, _dtype, _width in PLAN_PARTS]


class Plan:
    """The plan of one (x, Δ) (layout: ``codegen/llvm/trees.ll``, section "Plans"): tinfo, tconst,
    QuickScorer records, their leaves, the walk trees' residual nodes and the category counts of
    Δ's columns, at byte ``offsets`` of a buffer that the plans of one batch share (``buffers``).
    ``job`` is its row of the evaluator's job table, addresses filled in; the plan keeps alive
    everything they point to (``buffers``, and ``full`` for the forest's shared arrays)."""

    __slots__ = ("buffers", "delta", "full", "job", "n_splits", "offsets", "rows")

    def __init__(self, delta: tuple[int, ...], full: KernelArrays, buffers: Pinned, offsets: np.ndarray,
                 rows: np.ndarray, job: np.ndarray):  # fmt: skip
        self.delta = delta
        self.full = full
        self.buffers = buffers
        self.offsets = offsets
        self.rows = rows
        self.job = job
        #: splits left after partial evaluation (QuickScorer records plus walked splits)
        self.n_splits = int(rows[PART.qrec] + rows[PART.nodes] // 2)

    @staticmethod
    def job_template(full: KernelArrays) -> np.ndarray:
        """A plan's job row with the forest's fields filled in (:meth:`jobs` adds each plan's)."""
        return _job(full, JOB_PLAN)

    @staticmethod
    def jobs(template: np.ndarray, delta_lens: np.ndarray, addresses: np.ndarray) -> np.ndarray:
        """Job rows of plans (``template``: :meth:`job_template`) of Δ of ``delta_lens`` columns
        whose parts start at ``addresses`` (one row per plan, parts in :data:`PLAN_PARTS` order)."""
        jobs = np.repeat(template[None], len(delta_lens), axis=0)
        jobs[:, JOB.delta_len] = delta_lens
        jobs[:, _JOB_FIELDS] = addresses
        return jobs

    def part(self, name: str) -> np.ndarray:
        """A read-only view of one part (``"tinfo"``, ``"qrec"``, ...)."""
        i = next(i for i, p in enumerate(PLAN_PARTS) if p[0] == name)
        _, dtype, width = PLAN_PARTS[i]
        o, n = int(self.offsets[i]), int(self.rows[i])
        v = self.buffers["buf"][o : o + n * dtype.itemsize * width].view(dtype)
        v = v.reshape(n, width) if width > 1 else v
        v.flags.writeable = False
        return v

    def decide_uniform_columns(self) -> None:
        """From now on, a block's split on a column that every row of the block holds one value
        of is decided once for the block (its mask ANDed into one word the tree's leaves read)
        rather than row by row; each QuickScorer tree's splits regrouped by column (the masks
        are ANDed: any order gives the same leaves), so that the evaluator meets a column's
        splits together and its branch between the two ways stays predictable. For blocks of
        rows made from one x that change a few of the columns (the whole forest's plan: the
        columns no row changes are most of its splits); a plan's own Δ columns vary."""
        tinfo = self.part("tinfo")
        qs = np.flatnonzero(tinfo[:, TINFO.kind] == TREE_QUICKSCORER)
        o, n = int(self.offsets[PART.qrec]), int(self.rows[PART.qrec])
        records = self.buffers["buf"][o : o + n * QREC.itemsize].view(QREC)
        starts, counts = tinfo[qs, TINFO.start].astype(np.intp), tinfo[qs, TINFO.count].astype(np.intp)
        at = np.repeat(starts, counts) + positions_within(counts)  # each QuickScorer tree's records
        owner = np.repeat(np.arange(len(qs)), counts)
        records[at] = records[at[np.lexsort((records["col"][at], owner))]]
        self.job[JOB.uniform_columns] = 1

    def counts(self) -> dict[str, int]:
        """Trees per kind, QuickScorer splits and residual nodes kept for walking."""
        k = self.part("tinfo")[:, TINFO.kind]
        return {
            "constant": int(np.count_nonzero(k == TREE_CONSTANT)),
            "quickscorer": int(np.count_nonzero(k == TREE_QUICKSCORER)),
            "walk": int(np.count_nonzero(k == TREE_WALK)),
            "qs_splits": int(self.rows[PART.qrec]),
            "walk_nodes": int(self.rows[PART.nodes]),
        }


class XWalk:
    """The cold tier for one (x, Δ): the whole forest walked with ``x``'s bound steps (splits
    outside Δ follow ``x``; a subtree whose x-path tests no Δ column is ``x``'s leaf). No setup
    beyond this job row; per row it costs about what the residual walk costs. ``owner`` is the
    object owning ``xstep`` (the instance binding), kept alive with the job."""

    __slots__ = ("buffers", "delta", "full", "job", "owner")

    def __init__(self, delta: tuple[int, ...], full: KernelArrays, ncat: np.ndarray, owner: object, xstep: int):
        local = np.full(len(ncat), -1, dtype=np.int32)
        mask = 0
        for k, d in enumerate(delta):
            local[d] = k
            mask |= 1 << (d & 31)
        self.buffers = Pinned(local=local, ncat=np.ascontiguousarray(ncat[list(delta)], dtype=np.int32)
                              if delta else np.zeros(1, dtype=np.int32))  # fmt: skip
        self.delta, self.full, self.owner = delta, full, owner
        fb, b = full.buffers, self.buffers
        job = self.job = _job(full, JOB_XWALK)
        job[JOB.delta_len], job[JOB.ncat] = len(delta), b.address("ncat")
        job[JOB.walk_nodes], job[JOB.walk_xstep], job[JOB.walk_roots] = fb.address("nodes"), xstep, fb.address("troot")
        job[JOB.walk_local], job[JOB.walk_dmask] = b.address("local"), mask


class BlockRunner:
    """Runs jobs (a :class:`Plan` or an :class:`XWalk` with a Δ block each), every block of a
    call in one native call. Owns the scratch the evaluator writes (padded columns, leaf bit
    vectors, accumulators), grown on demand; not thread-safe."""

    def __init__(self, full: KernelArrays):
        self.full = full
        self._scratch = Pinned(cols=np.empty(8), bv=np.empty(8, dtype=np.int64), acc=np.empty(8 * full.K))

    def _ensure(self, cells: int, rows: int) -> Pinned:
        """Scratch for a call whose largest block has ``rows`` padded rows and ``cells`` padded
        cells: the accumulators hold ``K`` rows of ``rows`` each (one per output)."""
        s = self._scratch
        K = self.full.K
        if len(s["cols"]) < cells or len(s["bv"]) < rows or len(s["acc"]) < K * rows:
            cells, rows = max(cells, 2 * len(s["cols"])), max(rows, 2 * len(s["bv"]))
            s = self._scratch = Pinned(cols=np.empty(cells), bv=np.empty(rows, dtype=np.int64), acc=np.empty(K * rows))
        return s

    def run(self, blocks: Sequence[tuple[Plan | XWalk, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Scores every block in one native call. Returns ``(acc, starts, bad)``: the accumulators
        of all rows, block after block (``(total, K)``; forests: P(desired) already divided), the
        first row of each block, and a bool per block, True where it was refused (a categorical
        value that is neither a category code nor NaN): those rows are meaningless and must be
        rescored."""
        nb = len(blocks)
        if nb == 0:
            K = self.full.K
            return np.empty((0, K)), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
        jobs = np.stack([p.job for p, _ in blocks])
        sizes = np.fromiter((len(c) for _, c in blocks), dtype=np.int64, count=nb)
        flat = np.concatenate([np.ravel(c) for _, c in blocks]).astype(np.float64, copy=False)
        return self.run_packed(jobs, sizes, flat)

    def run_packed(self, jobs: np.ndarray, sizes: np.ndarray, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`run` on blocks already packed: ``jobs`` (a copy of each block's job row, one
        per block; written to), ``sizes`` (rows per block) and ``flat`` (every block's cells,
        block after block, each row-major over its Δ's columns)."""
        nb = len(jobs)
        K = self.full.K
        if nb == 0:
            return np.empty((0, K)), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
        sizes = np.asarray(sizes, dtype=np.int64)
        cells = sizes * jobs[:, JOB.delta_len]
        if len(flat) != int(cells.sum()):
            raise ValueError(f"{len(flat)} cells given for blocks of {int(cells.sum())}")
        padded = (sizes + 7) & ~7
        total = int(sizes.sum())
        acc = np.empty(max(total * K, 1))
        # the padded columns, then a byte per column (whether every row holds one value)
        s = self._ensure(int(((padded + 1) * jobs[:, JOB.delta_len]).max()), int(padded.max()))
        starts = np.zeros(nb, dtype=np.int64)
        np.cumsum(sizes[:-1], out=starts[1:])
        cell_starts = np.zeros(nb, dtype=np.int64)
        np.cumsum(cells[:-1], out=cell_starts[1:])
        call = Pinned(flat=np.ascontiguousarray(flat, dtype=np.float64), acc=acc, jobs=np.ascontiguousarray(jobs))
        jobs = call["jobs"]
        jobs[:, JOB.rows] = call.address("flat") + 8 * cell_starts
        jobs[:, JOB.n] = sizes
        jobs[:, JOB.cols] = s.address("cols")
        jobs[:, JOB.bit_vectors] = s.address("bv")
        jobs[:, JOB.accs] = s.address("acc")
        jobs[:, JOB.out] = call.address("acc") + 8 * K * starts
        tree_functions().score_jobs(call.address("jobs"), nb)
        bad = jobs[:, JOB.status] != 0
        if K == 1:
            return acc[:total].reshape(total, 1), starts, bad
        # each block wrote its outputs one after the other (K x n): back to rows
        out = np.empty((total, K))
        for a, n in zip(starts.tolist(), sizes.tolist()):
            out[a : a + n] = acc[K * a : K * (a + n)].reshape(K, n).T
        return out, starts, bad
