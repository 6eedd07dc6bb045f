"""ctypes signatures read from ``define`` lines: the tree kernels and the emitted ``@score`` are
called with the parameter types their IR declares."""

from __future__ import annotations

import ctypes

import pytest

from codegen.llvm.signatures import ctypes_signature
from codegen.llvm.sources import ir_source
from codegen.trees.emit import SCORE_SIGNATURE
from codegen.trees.kernel import tree_functions

PTR, I64, F64 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double


def test_multi_line_definitions_with_attributes():
    text = "define internal i32 @f(ptr %a) {\n}\ndefine double @g(ptr noalias readonly %a,\n     i64 %n, double %d) nounwind {"
    assert ctypes_signature(text, "g") == (F64, (PTR, I64, F64))
    assert ctypes_signature(text, "f") == (ctypes.c_int32, (PTR,))
    assert ctypes_signature(SCORE_SIGNATURE, "score") == (None, (PTR, I64, PTR))
    with pytest.raises(KeyError, match="@h"):
        ctypes_signature(text, "h")
    with pytest.raises(ValueError, match="@v: no ctypes type"):
        ctypes_signature("define void @v(<8 x double> %x)", "v")


def test_tree_kernels_take_what_trees_ll_declares():
    text = ir_source("trees")
    assert ctypes_signature(text, "forest_eval") == (None, (PTR, I64, I64, PTR, PTR, I64, PTR, PTR, PTR, I64, PTR, I64, F64, I64, PTR))
    assert ctypes_signature(text, "score_jobs") == (None, (PTR, I64))
    assert ctypes_signature(text, "box_leaf_range") == (None, (PTR, PTR, I64, PTR, PTR, I64, *(PTR,) * 6, I64, I64,
                                                               *(PTR,) * 3, I64))  # fmt: skip
    fns = tree_functions()
    for walk in ("xwalk_folded_rows", "xentry_rows"):
        assert ctypes_signature(text, walk) == (None, (PTR, I64, I64, PTR, PTR, PTR, PTR, I64, PTR, PTR, PTR, I64,
                                                       PTR, I64, F64, I64, PTR))  # fmt: skip
    assert ctypes_signature(text, "walk_tree_lanes") == (None, (PTR, I64, I64, PTR, I64, PTR, PTR, PTR, PTR, I64, PTR,
                                                                I64, F64, I64, PTR))  # fmt: skip
    for name in ("forest_eval", "bind_x", "xwalk_rows", "xwalk_folded_rows", "xentry_rows", "plan_deltas", "pack_plans",
                 "score_jobs", "walk_rows", "walk_tree_lanes", "box_leaf_range"):  # fmt: skip
        restype, argtypes = ctypes_signature(text, name)
        assert getattr(fns, name).argtypes == argtypes, name
        assert getattr(fns, name).restype is restype, name
