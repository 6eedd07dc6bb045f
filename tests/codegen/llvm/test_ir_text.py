"""The IR text helpers both emitters write through: exact double literals and function lines."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from codegen.llvm.ir_text import FunctionText, hex_double, module_comment


@pytest.mark.parametrize(
    "v", [0.0, -0.0, 1.0, 0.1, -2.5, 5e-324, 1.7976931348623157e308, math.inf, -math.inf, 2.0**-1074, 1 / 3]
)
def test_hex_double_is_the_exact_bit_pattern(v):
    text = hex_double(v)
    assert text == "0x" + format(struct.unpack("<Q", struct.pack("<d", v))[0], "016X")
    assert struct.unpack("<d", struct.pack("<Q", int(text, 16)))[0] == v or math.isnan(v)


def test_hex_double_accepts_numpy_scalars_and_nan():
    assert hex_double(np.float32(0.1)) == hex_double(float(np.float32(0.1)))
    assert hex_double(np.int64(3)) == hex_double(3.0) == "0x4008000000000000"
    assert hex_double(math.nan) == "0x7FF8000000000000"


def test_function_text_lines():
    fn = FunctionText("define void @f(ptr %p)")
    fn.label("entry")
    fn.instr("%v = load double, ptr %p", "the value")
    fn.instrs("%w = fadd double %v, 1.0", "store double %w, ptr %p", note="p += 1")
    fn.comment("two\nlines")
    fn.label("exit", "done")
    fn.instr("ret void")
    assert fn.text() == (
        "define void @f(ptr %p) {\n"
        "entry:\n"
        "  %v = load double, ptr %p  ; the value\n"
        "  %w = fadd double %v, 1.0\n"
        "  store double %w, ptr %p  ; p += 1\n"
        "  ; two\n"
        "  ; lines\n"
        "exit:  ; done\n"
        "  ret void\n"
        "}"
    )
    assert module_comment("header") == "; header"
