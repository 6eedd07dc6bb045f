"""The x-mask kernel: rows made from x, scored by the whole forest in QuickScorer form with no
plan built per Δ (``@xmask_rows`` in ``codegen/llvm/trees.ll``).

Why: a search's rows differ from x in their Δ's columns alone, so every split on another column
falls as it falls for x. The plan tier partially evaluates the forest for every (x, Δ) - about
90 µs a Δ on 500 trees of depth 6, while a generation's Δ hold a few rows each - and the whole
forest's plan visits every split for every call. Here, once per forest, the whole plan's
records are ordered by column (:class:`ColumnRecords`); once per instance, the masks x's false
splits leave on each column and tree (:class:`XMasks`, and their running ANDs from either end);
then eight rows at a time start from the AND over the columns where none of them differs from x
and visit the records of the other columns alone. The lowest leaf left standing is the walk's leaf and the
leaves are added in estimator order: ``run_kernel``'s numbers bit for bit.

For forests whose every tree has at most 64 leaves (boosting) and whose categorical columns have
at most 64 codes; rows with a value that is no category code come back marked, for the caller to
score by the full kernel.
"""

from __future__ import annotations

import threading

import numpy as np

from codegen.llvm.buffers import Pinned
from codegen.llvm.trees_abi import TINFO, TREE_CONSTANT, TREE_QUICKSCORER, XMASK
from codegen.trees.kernel import KernelArrays, tree_functions
from codegen.trees.plan import Plan, positions_within

__all__ = ["MAX_CODES", "ColumnRecords", "XMaskRunner", "XMasks"]

#: a code set's bits hold its first 64 codes: columns with more categories are not served
MAX_CODES = 64


class ColumnRecords:
    """The whole forest's QuickScorer records ordered by column (from its whole plan:
    :meth:`codegen.trees.native_partial.NativePartial.whole_plan`), with the per-tree arrays
    ``@xmask_rows`` reads; ``buffers`` owns them all. Raises ``ValueError`` for a plan with a
    walked tree or a categorical column of more than :data:`MAX_CODES` codes."""

    def __init__(self, plan: Plan, full: KernelArrays):
        tinfo, qrec = plan.part("tinfo"), plan.part("qrec")
        kind = tinfo[:, TINFO.kind]
        if not np.isin(kind, (TREE_CONSTANT, TREE_QUICKSCORER)).all():
            raise ValueError("a tree of the whole plan is walked: no QuickScorer form of every tree")
        ncat = np.ascontiguousarray(plan.part("ncat"), dtype=np.int32)
        if len(ncat) and int(ncat.max()) > MAX_CODES:
            raise ValueError(f"a categorical column has more than {MAX_CODES} codes")
        self.d, self.T = len(plan.delta), len(tinfo)
        self.t8 = -(-self.T // 8) * 8
        counts = np.where(kind == TREE_QUICKSCORER, tinfo[:, TINFO.count], 0).astype(np.intp)
        at = np.repeat(tinfo[:, TINFO.start].astype(np.intp), counts) + positions_within(counts)
        tree = np.repeat(np.arange(self.T), counts)
        records = qrec[at]
        col = records["col"].astype(np.intp)
        numeric = (records["test"] & 3) == 0
        thr = np.where(numeric, records["payload"].view(np.float64), 0.0)
        # by column; a column's code-set and never-left records first, then its numeric ones by
        # threshold (the kernel stops at the first one no lane's value exceeds)
        order = np.lexsort((tree, thr, numeric, col))
        records, tree, col, numeric = records[order], tree[order], col[order], numeric[order]
        colrec = np.searchsorted(col, np.arange(self.d + 1)).astype(np.int64)
        n_sets = np.bincount(col[~numeric], minlength=self.d)[: self.d]
        self.buffers = Pinned(
            colrec=colrec, colnum=(colrec[:-1] + n_sets).astype(np.int64),
            rtree=tree.astype(np.int32), rpay=np.ascontiguousarray(records["payload"], dtype=np.int64),
            rtest=np.ascontiguousarray(records["test"], dtype=np.int32),
            rmask=np.ascontiguousarray(records["mask"], dtype=np.int64),
            tkind=(kind == TREE_QUICKSCORER).astype(np.int32),
            tleaf=np.ascontiguousarray(tinfo[:, TINFO.leaves], dtype=np.int64),
            tconst=np.ascontiguousarray(plan.part("tconst"), dtype=np.float64),
            tout=np.ascontiguousarray(full.tout, dtype=np.int32),
            leafval=np.ascontiguousarray(plan.part("leafval"), dtype=np.float64), ncat=ncat,
            init=np.ascontiguousarray(full.init, dtype=np.float64),
        )  # fmt: skip
        self.full = full

    def args(self) -> np.ndarray:
        """An ``XMASK`` record with the forest's fields filled in (the caller adds the call's)."""
        a, b, full = np.zeros(XMASK.width, dtype=np.int64), self.buffers, self.full
        for name in ("colrec", "colnum", "rtree", "rpay", "rtest", "rmask", "tkind", "tleaf", "tconst", "tout", "leafval",
                     "ncat", "init"):  # fmt: skip
            a[XMASK.index(name)] = b.address(name)
        a[XMASK.columns], a[XMASK.t8], a[XMASK.trees], a[XMASK.outputs] = self.d, self.t8, self.T, full.K
        a[XMASK.divisor] = np.float64(full.div).view(np.int64)
        a[XMASK.float32_sums] = int(full.float32_sums)
        return a

    def masks(self, x: np.ndarray) -> XMasks | None:
        """x's masks (:class:`XMasks`, ``@xmask_of_x``), or None where x holds a value that is
        no category code of its column (x's own routing then needs the full kernel's rules)."""
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 1 or len(x) < self.d:  # the kernels read d values of x
            raise ValueError(f"x of shape {x.shape}: the forest's records cover {self.d} columns")
        x = x[: self.d]
        ncat = self.buffers["ncat"]
        cat = ncat > 0
        xc = x[cat]
        if not (np.isnan(xc) | ((xc >= 0) & (xc < ncat[cat]) & (np.floor(xc) == xc))).all():
            return None
        t8 = self.t8
        masks = XMasks(x, np.full((self.d, t8), -1, dtype=np.int64), np.empty((self.d + 1, t8), dtype=np.int64),
                       np.empty((self.d + 1, t8), dtype=np.int64))  # fmt: skip
        b = masks.buffers
        call = Pinned(args=self.args())
        a = call["args"]
        a[XMASK.x], a[XMASK.xm], a[XMASK.pre], a[XMASK.suf] = b.address("x"), b.address("xm"), b.address("pre"), b.address("suf")
        tree_functions().xmask_of_x(call.address("args"))
        return masks


class XMasks:
    """Per instance ``x``: ``xm`` (d x t8 words), per column and tree the AND of the masks of x's
    false splits on that column; ``pre`` and ``suf`` ((d + 1) x t8), its running ANDs over the
    columns before c and from c on (filled by ``@xmask_of_x``: :meth:`ColumnRecords.masks`).
    ``buffers`` owns them and x; ``calls`` is the ``XMASK`` record of the runner that last read
    them (its forest's, its scratch's and these addresses filled in, made once)."""

    def __init__(self, x: np.ndarray, xm: np.ndarray, pre: np.ndarray, suf: np.ndarray):
        self.buffers = Pinned(x=np.array(x, dtype=np.float64), xm=xm, pre=pre, suf=suf)
        self.calls: tuple[XMaskRunner, Pinned] | None = None


class XMaskRunner:
    """Runs ``@xmask_rows`` for one forest's :class:`ColumnRecords`: owns the scratch it writes
    (one call at a time: ``lock``)."""

    def __init__(self, records: ColumnRecords):
        self.records = records
        full = records.full
        self._scratch = s = Pinned(base=np.empty(records.t8, dtype=np.int64), bv=np.empty(8 * records.T, dtype=np.int64),
                                   cols=np.empty(8 * records.d), acc=np.empty(8 * full.K),
                                   differ=np.empty(records.d, dtype=np.uint8))  # fmt: skip
        a = self._template = records.args()
        a[XMASK.differ], a[XMASK.base], a[XMASK.bit_vectors] = s.address("differ"), s.address("base"), s.address("bv")
        a[XMASK.cols], a[XMASK.accs] = s.address("cols"), s.address("acc")
        self.lock = threading.Lock()

    def _record(self, masks: XMasks) -> Pinned:
        """The ``XMASK`` record of this runner and ``masks`` (made at their first call)."""
        if masks.calls is None or masks.calls[0] is not self:
            call = Pinned(args=self._template.copy())
            a, mb = call["args"], masks.buffers
            a[XMASK.x], a[XMASK.xm], a[XMASK.pre], a[XMASK.suf] = mb.address("x"), mb.address("xm"), mb.address("pre"), mb.address("suf")
            masks.calls = (self, call)
        return masks.calls[1]

    def run(self, masks: XMasks, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Accumulators ``(n, K)`` (forests divided) of full ``rows`` (any rows: those made from
        ``masks``' x by changing a few columns cost least), and a bool per row, True where a value
        is no category code (its accumulators are meaningless: score it otherwise)."""
        rec, K = self.records, self.records.full.K
        rows = np.asarray(rows, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] < rec.d:
            raise ValueError(f"rows of shape {rows.shape}: the forest reads {rec.d} columns")
        n = len(rows)
        if n == 0:
            return np.empty((0, K)), np.zeros(0, dtype=bool)
        call = Pinned(rows=np.ascontiguousarray(rows[:, : rec.d]), out=np.empty((n, K)), bad=np.zeros(n, dtype=np.bool_))
        with self.lock:
            record = self._record(masks)
            a = record["args"]
            a[XMASK.rows], a[XMASK.n], a[XMASK.out], a[XMASK.bad] = call.address("rows"), n, call.address("out"), call.address("bad")
            tree_functions().xmask_rows(record.address("args"))
        return call["out"], call["bad"]
