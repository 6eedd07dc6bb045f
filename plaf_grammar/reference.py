"""The reference evaluator: does a counterfactual satisfy a PLAF program?

Why a second evaluator: the vectorised path (grounding, folding, category codes, numpy) is where
bugs hide. This one is deliberately naive and independent of it: it walks the original AST with
plain Python values (strings for categories), one candidate at a time. Tests compare the two, and
the search uses it to check every counterfactual it returns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from plaf_grammar.ast import (
    Abs,
    BinOp,
    Bool,
    BoolOp,
    Compare,
    Decreasing,
    Expr,
    Fixed,
    Group,
    Implication,
    Increasing,
    InSet,
    Neg,
    Not,
    Num,
    Program,
    Ref,
    Rule,
    Str,
)
from plaf_grammar.schema import Feature, Schema

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


class _Eval:
    def __init__(self, schema: Schema, x: dict[str, Any], cf: dict[str, Any]) -> None:
        self.schema = schema
        self.env = {"x": x, "cf": cf}

    def feature_of(self, e: Expr) -> Feature | None:
        if isinstance(e, Ref) and self.schema[e.name].categories is not None:
            return self.schema[e.name]
        return None

    def value(self, e: Expr) -> Any:
        if isinstance(e, (Num, Str, Bool)):
            return e.value
        if isinstance(e, Ref):
            v = self.env[e.kind][e.name]
            return float(v) if self.schema[e.name].categories is None else v
        if isinstance(e, Neg):
            return -float(self.value(e.operand))
        if isinstance(e, Abs):
            return abs(float(self.value(e.operand)))
        if isinstance(e, BinOp):
            a, b = float(self.value(e.left)), float(self.value(e.right))
            if e.op == "+":
                return a + b
            if e.op == "-":
                return a - b
            if e.op == "*":
                return a * b
            return _divide(a, b)
        if isinstance(e, Compare):
            return self.compare(e)
        if isinstance(e, InSet):
            v = self.value(e.operand)
            if self.feature_of(e.operand) is not None:
                found = any(v == i.value and type(v) is type(i.value) for i in e.items)
                if not found and not isinstance(v, (str, bool)):
                    found = any(v == i.value for i in e.items if not isinstance(i.value, (str, bool)))
            else:
                found = any(float(v) == float(i.value) for i in e.items)
            return found != e.negated
        if isinstance(e, Not):
            return not self.value(e.operand)
        if isinstance(e, BoolOp):
            if e.op == "and":
                return bool(self.value(e.left)) and bool(self.value(e.right))
            return bool(self.value(e.left)) or bool(self.value(e.right))
        raise TypeError(f"not a PLAF expression: {e!r}")

    def compare(self, e: Compare) -> bool:
        a, b = self.value(e.left), self.value(e.right)
        f = self.feature_of(e.left) or self.feature_of(e.right)
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


def holds(program: Program, x: Any, cf: Any) -> bool:
    """True iff the counterfactual ``cf`` satisfies every statement of ``program`` for the
    instance ``x``. Both are dicts, Series or 1-row DataFrames of user values (category labels,
    not codes). ``program`` must come from :func:`plaf_grammar.load` (it needs the schema)."""
    if program.schema is None:
        raise ValueError("holds() needs a checked program (plaf_grammar.load), for its schema")
    ev = _Eval(program.schema, _row(x), _row(cf))
    for stmt in program.statements:
        if isinstance(stmt, Group):
            continue
        if isinstance(stmt, (Fixed, Increasing, Decreasing)):
            op = "==" if isinstance(stmt, Fixed) else ">=" if isinstance(stmt, Increasing) else "<="
            for n in stmt.names:
                if not ev.compare(Compare(op, Ref("cf", n), Ref("x", n))):
                    return False
        elif isinstance(stmt, Rule):
            if not ev.value(stmt.expr):
                return False
        elif (
            isinstance(stmt, Implication)
            and ev.value(stmt.condition)
            and not ev.value(stmt.consequence)
        ):
            return False
    return True
