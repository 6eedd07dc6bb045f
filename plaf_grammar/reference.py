"""The reference evaluator: does a counterfactual satisfy a PLAF program?

Why a second evaluator: the vectorised path (grounding, folding, category codes, numpy) is where
bugs hide. This one is deliberately naive and independent of it: it walks the original AST with
plain Python values (strings for categories), one candidate at a time, and shares no code with
grounding or the predicates beyond the tree and the visitor base. Tests compare the two.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from plaf_grammar.ast import Compare, Expr, Program, Ref
from plaf_grammar.check import CheckedProgram
from plaf_grammar.schema import Schema
from plaf_grammar.visitor import Visitor

__all__ = ["holds"]


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _row(values: Any) -> dict[str, Any]:
    if isinstance(values, pd.DataFrame):
        if len(values) != 1:
            raise ValueError(f"expected one row, got {len(values)}")
        values = values.iloc[0]
    if isinstance(values, pd.Series):
        return {k: _plain(v) for k, v in values.items()}
    if isinstance(values, Mapping):
        return {k: _plain(v) for k, v in values.items()}
    raise TypeError(f"expected a dict, Series or 1-row DataFrame, got {type(values).__name__}")


def _divide(a: float, b: float) -> float:
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


class _Evaluator(Visitor[Any]):
    """``visit(node)``: an expression's plain Python value, or whether a statement holds."""

    def __init__(self, schema: Schema, x: dict[str, Any], cf: dict[str, Any]) -> None:
        self.schema = schema
        self.env = {"x": x, "cf": cf}

    def categorical(self, e: Expr) -> Any:
        if isinstance(e, Ref) and self.schema[e.name].categories is not None:
            return self.schema[e.name]
        return None

    # --- statements
    def Group(self, s: Any) -> bool:
        return True

    Cost = Group  # a price, not a rule

    def names(self, s: Any) -> bool:
        return all(self.Compare(Compare(s.op, Ref("cf", n), Ref("x", n))) for n in s.names)

    Fixed = Increasing = Decreasing = names

    def Rule(self, s: Any) -> bool:
        return bool(self.visit(s.expr))

    def Implication(self, s: Any) -> bool:
        return not self.visit(s.condition) or bool(self.visit(s.consequence))

    # --- expressions
    def Num(self, e: Any) -> Any:
        return e.value

    Str = Bool = Num

    def Ref(self, e: Any) -> Any:
        v = self.env[e.kind][e.name]
        return float(v) if self.schema[e.name].categories is None else v

    def Neg(self, e: Any) -> float:
        return -float(self.visit(e.operand))

    def Abs(self, e: Any) -> float:
        return abs(float(self.visit(e.operand)))

    def BinOp(self, e: Any) -> float:
        a, b = float(self.visit(e.left)), float(self.visit(e.right))
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if e.op == "*":
            return a * b
        return _divide(a, b)

    def InSet(self, e: Any) -> bool:
        v = self.visit(e.operand)
        if self.categorical(e.operand) is not None:
            found = any(v == i.value and type(v) is type(i.value) for i in e.items)
            if not found and not isinstance(v, (str, bool)):
                found = any(v == i.value for i in e.items if not isinstance(i.value, (str, bool)))
        else:
            found = any(float(v) == float(i.value) for i in e.items)
        return found != e.negated

    def Not(self, e: Any) -> bool:
        return not self.visit(e.operand)

    def BoolOp(self, e: Any) -> bool:
        if e.op == "and":
            return bool(self.visit(e.left)) and bool(self.visit(e.right))
        return bool(self.visit(e.left)) or bool(self.visit(e.right))

    def Compare(self, e: Any) -> bool:
        a, b = self.visit(e.left), self.visit(e.right)
        f = self.categorical(e.left) or self.categorical(e.right)
        if f is not None:
            if e.op == "==":
                return a == b
            if e.op == "!=":
                return a != b
            order = list(f.categories or ())  # ordinal: position in the category list
            a, b = order.index(a), order.index(b)
        else:
            a, b = float(a), float(b)
        return {
            "==": a == b,
            "!=": a != b,
            "<": a < b,
            "<=": a <= b,
            ">": a > b,
            ">=": a >= b,
        }[e.op]


def holds(program: CheckedProgram, x: Any, cf: Any) -> bool:
    """True iff the counterfactual ``cf`` satisfies every statement of ``program`` for the
    instance ``x``. Both are dicts, Series or 1-row DataFrames of user values (category labels,
    not codes). ``program`` must be checked (:func:`plaf_grammar.load` or ``check``): the
    evaluator needs its schema."""
    if isinstance(program, Program):
        raise ValueError("holds() needs a checked program (plaf_grammar.load or check), for its schema")
    if not isinstance(program, CheckedProgram):
        raise TypeError(f"expected a plaf_grammar.CheckedProgram, got {type(program).__name__}")
    ev = _Evaluator(program.schema, _row(x), _row(cf))
    return all(ev.visit(s) for s in program.program.statements)
