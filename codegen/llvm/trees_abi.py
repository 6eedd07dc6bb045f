"""The argument records shared by Python and ``codegen/llvm/trees.ll``, declared once.

``trees.ll`` names their slots by placeholders (``{PLAN.local}``) filled from these blocks when it
is loaded (:func:`codegen.llvm.sources.ir_source`); :mod:`codegen.trees.native_partial` and
:mod:`codegen.trees.plan` fill the records by the same names. Every slot is an i64: an address,
a count or a flag (the job's divisor is the bits of a double), except in the per-tree and per-node
records of int32 (TINFO, XSTEP).
"""

from __future__ import annotations

from codegen.llvm.slots import SlotBlock

__all__ = [
    "BLOCKS",
    "JOB",
    "JOB_PLAN",
    "JOB_XWALK",
    "PACK",
    "PLAN",
    "PLAN_SIZES",
    "TINFO",
    "TREE_CONSTANT",
    "TREE_QUICKSCORER",
    "TREE_WALK",
    "XHEAD",
    "XMASK",
    "XSTEP",
]

#: one plan being built by ``@plan_deltas`` / ``@plan_tree`` / ``@pack_plans`` (a batch is an array
#: of these records; the forest-wide fields are read from the first record)
PLAN = SlotBlock(
    "PLAN",
    32,
    {
        "nodes": 0,  # the forest's packed nodes
        "xstep": 1,  # x's binding (one XStep per node)
        "roots": 2,  # root node per tree (int32)
        "trees": 3,  # tree count
        "local": 4,  # column -> position in delta, or -1 (int32 per column)
        "dmask": 5,  # bit (column mod 32) of every delta column
        "residual_nodes": 6,  # out: the walk trees' residual nodes
        "stack": 7,  # DFS stack scratch
        "tinfo": 8,  # out: 4 int32 per tree
        "tconst": 9,  # out: constant per tree (double)
        "ncat": 10,  # category count per delta position (int32)
        "delta_len": 11,  # len(delta)
        "setbits": 12,  # per code set, its first 64 codes as bits
        "quickscorer": 14,  # 1: small trees in QuickScorer form; 0: every live tree as residual nodes
        "max_leaves": 15,  # largest tree kept in QuickScorer form
        "qrec": 16,  # out: QuickScorer records
        "leafval": 17,  # out: QuickScorer leaf values
        "sizes": 18,  # out: a PLAN_SIZES record
        "leaf_count": 19,  # scratch: leaves of the last QuickScorer tree (one i64)
        "cap_nodes": 21,  # capacity of residual_nodes
        "cap_qrec": 22,  # capacity of qrec
        "cap_leaves": 23,  # capacity of leafval
        "tree_size": 24,  # nodes per tree (int32)
        "overflow": 25,  # out: 1 when this plan outgrew a capacity (it is then rebuilt alone)
    },
)

#: the running sizes of one plan being built (written by ``@plan_tree``)
PLAN_SIZES = SlotBlock("SIZES", 3, {"nodes": 0, "records": 1, "leaves": 2})

#: per tree of a plan (int32): its kind, its first QuickScorer record or its walk root (-1 for a
#: constant), its record count and the offset of its leaves in leafval
TINFO = SlotBlock("TINFO", 4, {"kind": 0, "start": 1, "count": 2, "leaves": 3}, slot_bytes=4)

#: ``TINFO.kind`` values
TREE_CONSTANT, TREE_QUICKSCORER, TREE_WALK = 0, 1, 2

#: per forest node, x's binding (int32, the ``%XStep`` struct): the column the node tests (-1: a
#: leaf), the child x takes (-1: none), the leaf x reaches from the node, the bits (column mod 32)
#: of the columns tested on that path
XSTEP = SlotBlock("XSTEP", 4, {"col": 0, "child": 1, "leaf": 2, "mask": 3}, slot_bytes=4)

#: what filling an ``XSTEP`` entry on first use reads: the record just before entry 0 (slot ``k``
#: at ``xstep - 8 * (XHEAD.width - k)`` bytes) - the forest's packed nodes, x, the code sets and
#: their width, and the binding's epoch (1..65535, held in each current entry's ``col`` word)
XHEAD = SlotBlock("XHEAD", 6, {"nodes": 0, "x": 1, "sets": 2, "setw": 3, "epoch": 4})

#: one row of ``@pack_plans``' table: the batch slot of a plan and the byte offset of each of its
#: parts in the destination buffer (the part names of ``codegen.trees.plan.PLAN_PARTS``)
PACK = SlotBlock(
    "PACK", 8, {"batch_slot": 0, "tinfo": 1, "tconst": 2, "qrec": 3, "leafval": 4, "nodes": 5, "ncat": 6}
)

#: ``JOB.mode`` values
JOB_PLAN, JOB_XWALK = 0, 1

#: one Δ block for ``@score_jobs``: the shared fields, then a plan's parts or an x-walk's inputs
JOB = SlotBlock(
    "JOB",
    25,
    {
        "rows": 0,  # the block's values, n x delta_len doubles
        "n": 1,  # rows in the block
        "delta_len": 2,  # len(delta)
        "cols": 3,  # scratch: delta_len x n8 doubles (n8 = n rounded up to 8)
        "bit_vectors": 4,  # scratch: n8 i64
        "accs": 5,  # scratch: K x n8 doubles
        "mode": 6,  # JOB_PLAN or JOB_XWALK
        "trees": 7,  # tree count
        "tout": 8,  # output per tree (int32)
        "sets": 9,  # the forest's code sets (bytes)
        "setw": 10,  # bytes per code set
        "init": 11,  # initial value per output
        "outputs": 12,  # K
        "divisor": 13,  # forests: tree count as double bits; 0.0 for boosting
        "ncat": 14,  # category count per delta position (int32)
        "out": 15,  # out: K x n doubles
        "status": 16,  # out: 1 if the block was refused (a value that is no category code)
        "plan_tinfo": 17,
        "plan_tconst": 18,
        "plan_qrec": 19,
        "plan_leafval": 20,
        "plan_nodes": 21,  # residual nodes of the walk trees
        "walk_nodes": 17,  # the forest's packed nodes
        "walk_xstep": 18,
        "walk_roots": 19,
        "walk_local": 20,  # column -> position in delta, or -1
        "walk_dmask": 21,
        "float32_sums": 22,  # 1: every addition rounded to float32 (XGBoost)
        "uniform_columns": 23,  # plans, 1: a split on a column every row holds one value of is decided once
    },
    variants=("plan", "walk"),
)

#: one call of ``@xmask_rows`` (:mod:`codegen.trees.xmask`): full rows made from x, the forest's
#: records by column, x's masks, the scratch and the outputs
XMASK = SlotBlock(
    "XMASK",
    32,
    {
        "rows": 0,  # full rows, n x columns doubles
        "n": 1,  # rows
        "columns": 2,  # d
        "x": 3,  # the instance, d doubles
        "differ": 4,  # scratch: d bytes, 1 where a row of the chunk differs from x
        "xm": 5,  # d x t8 words: per column and tree, the AND of x's false splits' masks
        "pre": 6,  # (d + 1) x t8: row c, the AND of xm's rows before c
        "suf": 7,  # (d + 1) x t8: row c, the AND of xm's rows from c on
        "t8": 8,  # trees rounded up to 8
        "colrec": 9,  # first record of each column, then the record count (d + 1 int64): a column's
        # code-set and never-left records first, then its numeric ones (from colnum)
        "rtree": 10,  # per record, its tree (int32)
        "rpay": 11,  # per record, the threshold's bits or the code set's bits
        "rtest": 12,  # per record, the test as a QuickScorer record's (int32)
        "rmask": 13,  # per record, the leaves a false split rules out cleared
        "trees": 14,  # T
        "tkind": 15,  # per tree, 0: a constant, 1: QuickScorer (int32)
        "tleaf": 16,  # per tree, its first leaf in leafval (int64)
        "tconst": 17,  # per tree, a constant tree's value
        "tout": 18,  # per tree, its output (int32)
        "leafval": 19,  # the leaves' values, tree after tree
        "ncat": 20,  # per column, its category count (0: a number; int32)
        "init": 21,  # initial value per output
        "outputs": 22,  # K
        "divisor": 23,  # forests: tree count as double bits; 0.0 for boosting
        "float32_sums": 24,  # 1: every addition rounded to float32 (XGBoost)
        "base": 25,  # scratch: t8 words
        "bit_vectors": 26,  # scratch: T x 8 words
        "cols": 27,  # scratch: d x 8 doubles
        "accs": 28,  # scratch: K x 8 doubles
        "out": 29,  # out: n x K doubles
        "bad": 30,  # out: a byte per row, 1 where a value is no category code
        "colnum": 31,  # per column, its first numeric record: from there on by threshold, ascending
    },
)

#: every block ``trees.ll`` refers to
BLOCKS = (PLAN, PLAN_SIZES, TINFO, XSTEP, XHEAD, PACK, JOB, XMASK)
