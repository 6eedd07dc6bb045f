"""Grounded PLAF expressions as flat postfix programs over a row of encoded values.

Why a program beside the numpy closures (:mod:`plaf_grammar.predicates`): a compiled loop over
candidate rows (the search's action cascade) runs every rule of a program in one call, without
a numpy call per tree node per rule; it needs the expressions as data, not as Python
functions. Programs are one int64 table of instructions and one float64 table of constants; the
instructions push a row's column or a constant, or pop their operands and push the result,
booleans as 1.0 and 0.0. They compute what the closures compute, in the same float64
arithmetic (IEEE: a comparison with NaN is false but for ``!=``, a division by zero gives an
infinity or NaN), and a value counts as true where it is not 0 (NaN is true), as numpy's
``bool`` conversion has it. :func:`evaluate` runs one with numpy (the reference the compiled
loop is tested against).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from plaf_grammar.ast import Bool, Category, Expr, Num, Ref, Str
from plaf_grammar.predicates import categorical_feature, constant_code
from plaf_grammar.schema import Schema
from plaf_grammar.visitor import Visitor

__all__ = ["OPCODES", "RulePrograms", "evaluate"]

#: instruction codes: column (arg a: its index in the row), constant (a: its index), the
#: arithmetic and comparisons (pop two, push one), unary ops (pop one), set membership (a, b:
#: the set's first constant and its size; pop one)
OPCODES = {
    "col": 0, "const": 1, "neg": 2, "abs": 3, "+": 4, "-": 5, "*": 6, "/": 7, "==": 8, "!=": 9, "<": 10,
    "<=": 11, ">": 12, ">=": 13, "in": 14, "not in": 15, "not": 16, "and": 17, "or": 18,
}  # fmt: skip


@dataclass(frozen=True)
class RulePrograms:
    """Expressions as one table of instructions ``code`` ((n, 3) int64: opcode, a, b) over
    ``constants``; expression ``p``'s run from ``starts[p]`` to ``starts[p + 1]``; ``depth``:
    the most values any holds at once."""

    code: np.ndarray
    constants: np.ndarray
    starts: np.ndarray
    depth: int

    @classmethod
    def of(cls, exprs: Sequence[Expr], schema: Schema | None) -> RulePrograms:
        """The programs of grounded expressions (only ``cf`` references and constants), their
        columns indexed as in ``schema``'s rows (None only for no expressions)."""
        emit = _Emitter(schema)
        starts = [0]
        for e in exprs:
            emit.height = 0
            emit.visit(e)
            starts.append(len(emit.code) // 3)
        return cls(np.array(emit.code, dtype=np.int64).reshape(-1, 3), np.array(emit.constants, dtype=np.float64),
                   np.array(starts, dtype=np.int64), emit.depth)  # fmt: skip

    def __len__(self) -> int:
        return len(self.starts) - 1


class _Emitter(Visitor[None]):
    """Appends an expression's instructions in postfix order, as the closures compute it."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.code: list[int] = []
        self.constants: list[float] = []
        self.height = self.depth = 0

    def op(self, name: str, pops: int, a: int = 0, b: int = 0) -> None:
        self.code += [OPCODES[name], a, b]
        self.height += 1 - pops
        self.depth = max(self.depth, self.height)

    def const(self, value: float) -> None:
        self.constants.append(float(value))
        self.op("const", 0, len(self.constants) - 1)

    def Num(self, e: Num) -> None:
        self.const(e.value)

    def Bool(self, e: Bool) -> None:
        self.const(bool(e.value))

    def Category(self, e: Category) -> None:
        self.const(e.code)

    def Str(self, e: Str) -> None:
        raise ValueError(f"string {e} outside a comparison with a categorical feature")

    def Ref(self, e: Ref) -> None:
        if e.kind != "cf":
            raise ValueError(f"expression is not grounded: {e}")
        self.op("col", 0, self.schema.index(e.name))

    def unary(self, e: Expr, name: str) -> None:
        self.visit(e.operand)  # type: ignore[attr-defined]
        self.op(name, 1)

    def Neg(self, e: Expr) -> None:
        self.unary(e, "neg")

    def Abs(self, e: Expr) -> None:
        self.unary(e, "abs")

    def BinOp(self, e: Expr) -> None:
        """Arithmetic, and (as ``BoolOp``) ``and`` / ``or``: both operands, then the operator."""
        self.visit(e.left)  # type: ignore[attr-defined]
        self.visit(e.right)  # type: ignore[attr-defined]
        self.op(e.op, 2)  # type: ignore[attr-defined]

    BoolOp = BinOp

    def Compare(self, e: Expr) -> None:
        self.operand(e.left, e.right)  # type: ignore[attr-defined]
        self.operand(e.right, e.left)  # type: ignore[attr-defined]
        self.op(e.op, 2)  # type: ignore[attr-defined]

    def InSet(self, e: Expr) -> None:
        self.visit(e.operand)  # type: ignore[attr-defined]
        feat = categorical_feature(e.operand, self.schema)  # type: ignore[attr-defined]
        items = e.items  # type: ignore[attr-defined]
        start = len(self.constants)
        if feat is not None:
            self.constants += [float(constant_code(i, feat, self.schema)) for i in items]
        else:
            self.constants += [float(i.value) for i in items]
        self.op("not in" if e.negated else "in", 1, start, len(items))  # type: ignore[attr-defined]

    def Not(self, e: Expr) -> None:
        self.unary(e, "not")

    def operand(self, e: Expr, other: Expr) -> None:
        """A comparison operand; a literal facing a categorical feature becomes its code."""
        feat = categorical_feature(other, self.schema)
        if feat is not None and isinstance(e, (Str, Bool, Num)):
            self.const(constant_code(e, feat, self.schema))
        else:
            self.visit(e)


_BINARY = {
    OPCODES["+"]: np.add, OPCODES["-"]: np.subtract, OPCODES["*"]: np.multiply, OPCODES["/"]: np.divide,
    OPCODES["=="]: np.equal, OPCODES["!="]: np.not_equal, OPCODES["<"]: np.less, OPCODES["<="]: np.less_equal,
    OPCODES[">"]: np.greater, OPCODES[">="]: np.greater_equal,
}  # fmt: skip


def evaluate(programs: RulePrograms, p: int, rows: np.ndarray) -> np.ndarray:
    """Whether each row of ``rows`` ((n, d) float64, the schema's columns) meets program ``p``
    of ``programs``, run a whole column at a time with numpy: the reference of the compiled
    loop."""
    n = len(rows)
    stack: list[np.ndarray] = []
    with np.errstate(all="ignore"):
        for op, a, b in programs.code[programs.starts[p] : programs.starts[p + 1]].tolist():
            if op == OPCODES["col"]:
                stack.append(rows[:, a].astype(np.float64))
            elif op == OPCODES["const"]:
                stack.append(np.full(n, programs.constants[a]))
            elif op in _BINARY:
                right = stack.pop()
                stack.append(_BINARY[op](stack.pop(), right).astype(np.float64))
            elif op == OPCODES["neg"]:
                stack.append(-stack.pop())
            elif op == OPCODES["abs"]:
                stack.append(np.abs(stack.pop()))
            elif op in (OPCODES["in"], OPCODES["not in"]):
                hit = np.isin(stack.pop(), programs.constants[a : a + b])
                stack.append((hit != (op == OPCODES["not in"])).astype(np.float64))
            elif op == OPCODES["not"]:
                stack.append((stack.pop() == 0).astype(np.float64))
            else:  # and, or
                right, left = stack.pop() != 0, stack.pop() != 0
                stack.append((left & right if op == OPCODES["and"] else left | right).astype(np.float64))
    return stack.pop() != 0
