"""The records Python fills for ``codegen/llvm/trees.ll`` (codegen.llvm.trees_abi): the kernel
text names every slot it reads through the declared blocks, a copy of the text or of a block that
disagrees fails to load, Python fills the records by the same names, and the packed structs the
kernels index (%Node, %QRec, %XStep) have the numpy layouts Python writes."""

from __future__ import annotations

import re

import numpy as np
import pytest
from tree_cases import case

from codegen.llvm import trees_abi
from codegen.llvm.slots import SlotBlock, SlotLayoutError, fill_slots
from codegen.llvm.sources import SLOT_BLOCKS, ir_source, ir_template
from codegen.llvm.trees_abi import (
    JOB,
    JOB_PLAN,
    JOB_XWALK,
    PLAN,
    TINFO,
    TREE_CONSTANT,
    TREE_WALK,
    XSTEP,
)
from codegen.trees.kernel import NODE, kernel_arrays_forest
from codegen.trees.native_partial import NativePartial, xstep_columns
from codegen.trees.partial import bind_x
from codegen.trees.plan import PLAN_PARTS, QREC

TEMPLATE = ir_template("trees")


def _fill(text: str, blocks=trees_abi.BLOCKS) -> str:
    return fill_slots(text, blocks, source="copy of trees.ll")


def test_the_kernel_text_loads_with_every_placeholder_filled():
    assert SLOT_BLOCKS["trees"] == trees_abi.BLOCKS
    text = ir_source("trees")
    assert "{PLAN." not in text and "{JOB." not in text and not re.search(r"\{[A-Z]+\.", text)
    assert f"mul i64 %j, {JOB.width}" in text and f"@aint(ptr %a, i64 {PLAN.overflow})" not in text
    assert f"getelementptr inbounds i64, ptr %a, i64 {PLAN.overflow}" in text


def test_no_record_slot_is_a_bare_number_in_the_kernel_text():
    """Every record read goes through @aptr / @aint or an i64 GEP on a record pointer: none of them
    may name its slot by a literal (it would escape the declaration)."""
    code = [ln.split(";")[0] for ln in TEMPLATE.splitlines()]
    bare = [ln for ln in code if re.search(r"@a(ptr|int)\(ptr %\w+, i64 \d+\)", ln)]
    bare += [ln for ln in code if re.search(r"getelementptr inbounds i64, ptr %(a|as|ra|row|sizes), i64 \d+\s*$", ln)]
    bare += [ln for ln in code if re.search(r"getelementptr inbounds %XStep, ptr %\w+, i64 %\w+, i32 \d", ln)]
    bare += [ln for ln in code if re.search(r"getelementptr inbounds i32, ptr %(p|trec), i64 \d", ln)]  # tinfo
    assert not bare, bare
    assert len(re.findall(r"\{(PLAN|SIZES|PACK|JOB|TINFO|XSTEP)\.", TEMPLATE)) > 100


def test_a_misnamed_slot_in_a_copy_of_the_kernel_fails_to_load():
    assert "{PLAN.local}" in TEMPLATE
    with pytest.raises(SlotLayoutError, match="has no field 'locals'"):
        _fill(TEMPLATE.replace("{PLAN.local}", "{PLAN.locals}"))


def test_a_slot_written_as_a_bare_number_in_a_copy_of_the_kernel_fails_to_load():
    """The kernel reading slot 4 by number instead of by name: PLAN.local is then unused."""
    with pytest.raises(SlotLayoutError, match="never uses the declared field.*PLAN.local"):
        _fill(TEMPLATE.replace("{PLAN.local}", str(PLAN.local)))


def test_a_declaration_that_moves_a_shared_slot_fails_against_the_kernel():
    """A JOB where the plan's tinfo no longer shares the x-walk's node slot: the kernel loads one
    pointer for both, so the text refuses the declaration."""
    fields = dict(JOB.fields, plan_tinfo=24)  # a slot no field takes
    moved = SlotBlock("JOB", JOB.width, fields, variants=JOB.variants)
    blocks = tuple(moved if b is JOB else b for b in trees_abi.BLOCKS)
    with pytest.raises(SlotLayoutError, match="in different slots"):
        _fill(TEMPLATE, blocks)


def test_a_declared_field_the_kernel_never_reads_fails():
    extra = SlotBlock("PLAN", PLAN.width, dict(PLAN.fields, spare=13))
    blocks = tuple(extra if b is PLAN else b for b in trees_abi.BLOCKS)
    with pytest.raises(SlotLayoutError, match="never uses the declared field.*PLAN.spare"):
        _fill(TEMPLATE, blocks)


def test_plan_and_xwalk_jobs_are_filled_by_field_name(fitted, forests):
    name, _model, _schema, X, _desired = case(fitted, "hgb-native-cat")
    forest = forests[name]
    full = kernel_arrays_forest(forest)
    native = NativePartial(forest, full)
    bx = native.bind(X[0])
    delta = (0, 2)
    plan = native.plan(bx, delta)
    job = plan.job
    assert job.shape == (JOB.width,) and job[JOB.mode] == JOB_PLAN and job[JOB.delta_len] == len(delta)
    fields = {"tinfo": JOB.plan_tinfo, "tconst": JOB.plan_tconst, "qrec": JOB.plan_qrec,
              "leafval": JOB.plan_leafval, "nodes": JOB.plan_nodes, "ncat": JOB.ncat}  # fmt: skip
    assert set(fields) == {p[0] for p in PLAN_PARTS}
    base = plan.buffers.address("buf")
    for part, i in zip(PLAN_PARTS, range(len(PLAN_PARTS))):
        assert job[fields[part[0]]] == base + int(plan.offsets[i]), part[0]
    np.testing.assert_array_equal(plan.part("ncat"), native.ncat[list(delta)])
    assert job[JOB.trees] == forest.n_trees and job[JOB.outputs] == full.K
    assert job[JOB.tout] == full.buffers.address("tout") and job[JOB.sets] == full.buffers.address("sets")
    assert job[JOB.divisor] == np.float64(full.div).view(np.int64)
    walk = native.xwalk(bx, delta).job
    assert walk[JOB.mode] == JOB_XWALK
    assert walk[JOB.walk_nodes] == full.buffers.address("nodes") and walk[JOB.walk_xstep] == bx.buffers.address("xstep")
    assert walk[JOB.walk_dmask] == sum(1 << (d & 31) for d in delta)


def _struct(name: str) -> list[str]:
    m = re.search(rf"^%{name} = type \{{ ([^}}]*) \}}", TEMPLATE, re.M)
    assert m, name
    return [t.strip() for t in m.group(1).split(",")]


_LLVM = {"double": np.dtype("<f8"), "i64": np.dtype("<i8"), "i32": np.dtype("<i4")}


@pytest.mark.parametrize(("struct", "dtype"), [("Node", NODE), ("QRec", QREC)])
def test_packed_records_match_their_numpy_dtypes(struct, dtype):
    types = _struct(struct)
    assert len(types) == len(dtype.names)
    offset = 0
    for ty, field in zip(types, dtype.names):
        got, at = dtype.fields[field][:2]
        assert (got.kind, got.itemsize, at) == (_LLVM[ty].kind, _LLVM[ty].itemsize, offset), (struct, field)
        offset += _LLVM[ty].itemsize
    assert dtype.itemsize == offset


def test_xstep_and_tinfo_records_are_read_by_field_name(fitted, forests):
    """XSTEP is the %XStep struct (int32 fields): x's child and leaf as Python reads them equal the
    numpy binding; a residual's TINFO start is its walk root (-1 for constants)."""
    assert _struct("XStep") == ["i32"] * XSTEP.width and XSTEP.slot_bytes == TINFO.slot_bytes == 4
    name, _model, _schema, X, _desired = case(fitted, "rf-bare")
    forest = forests[name]
    native = NativePartial(forest, kernel_arrays_forest(forest))
    bx = native.bind(X[0])
    xstep = bx.buffers["xstep"]
    assert xstep.dtype == np.int32 and xstep.shape[1] == XSTEP.width
    split = forest.feature >= 0
    np.testing.assert_array_equal(bx.xchild[split], bind_x(forest, X[0])[split])
    np.testing.assert_array_equal(xstep_columns(xstep)[split], forest.feature[split])
    assert (xstep_columns(xstep)[~split] == -1).all()
    leaves = np.flatnonzero(~split)
    reached = xstep[forest.roots, XSTEP.leaf]
    assert np.isin(reached, leaves).all()
    plan = native.plan(bx, (0,))
    tinfo = plan.part("tinfo")
    assert tinfo.shape == (forest.n_trees, TINFO.width)
    residual = native(bx, (0,))
    walked = tinfo[:, TINFO.kind] == TREE_WALK
    const = tinfo[:, TINFO.kind] == TREE_CONSTANT
    assert (tinfo[const, TINFO.start] == -1).all() and (residual.troot[const] == -1).all()
    assert walked.sum() + const.sum() <= forest.n_trees
