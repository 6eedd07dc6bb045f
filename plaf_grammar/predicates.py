"""Vectorised evaluation of grounded PLAF expressions on numpy columns of candidates.

Why compile to closures over whole arrays: the search evaluates constraints on thousands of
candidates per generation; one numpy operation per tree node (not one Python call per row) keeps
that cost negligible. Columns are in the schema's encoding (float64; categoricals as category
codes); a literal facing a categorical feature becomes its code through the Schema.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from plaf_grammar.ast import (
    Bool,
    BoolOp,
    Category,
    Expr,
    Num,
    Ref,
    SourceRule,
    Str,
    cf_features,
)
from plaf_grammar.schema import Schema
from plaf_grammar.visitor import Visitor

__all__ = ["AllOf", "Columns", "Predicate", "categorical_feature", "constant_code"]

#: name -> float64 array of encoded values, one entry per candidate.
Columns = Mapping[str, np.ndarray]
_Fn = Callable[[Columns], Any]


def categorical_feature(e: Expr, schema: Schema) -> str | None:
    """The categorical feature ``e`` stands for (a reference to one, or one of its values)."""
    if isinstance(e, Category):
        return e.feature
    if isinstance(e, Ref) and e.name in schema and schema[e.name].categories is not None:
        return e.name
    return None


def constant_code(e: Expr, feature: str, schema: Schema) -> int:
    """The code of a constant (a literal or a grounded category) of categorical ``feature``."""
    if isinstance(e, Category):
        return e.code
    return schema.category_code(feature, e.value)  # type: ignore[attr-defined]


def _length(cols: Columns, features: Iterable[str]) -> int:
    for name in features:
        if name in cols:
            return len(cols[name])
    for v in cols.values():
        return len(v)
    return 0


def _column(name: str) -> _Fn:
    def col(cols: Columns) -> np.ndarray:
        try:
            return np.asarray(cols[name], dtype=np.float64)
        except KeyError:
            raise KeyError(f"this predicate needs column {name!r}, which the columns lack") from None

    return col


def _const(value: Any) -> _Fn:
    return lambda cols: value


_ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}
_CMP = {
    "==": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


class _Compiler(Visitor[_Fn]):
    """A grounded expression (only ``cf`` refs and constants) -> a function of columns that
    returns an array (or a scalar for a constant)."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema

    def Num(self, e: Num) -> _Fn:
        return _const(float(e.value))

    def Bool(self, e: Bool) -> _Fn:
        return _const(bool(e.value))

    def Category(self, e: Category) -> _Fn:
        return _const(float(e.code))

    def Str(self, e: Str) -> _Fn:
        raise ValueError(f"string {e} outside a comparison with a categorical feature")

    def Ref(self, e: Ref) -> _Fn:
        if e.kind != "cf":
            raise ValueError(f"expression is not grounded: {e}")
        return _column(e.name)

    def Neg(self, e: Any) -> _Fn:
        f = self.visit(e.operand)
        return lambda cols: np.negative(f(cols))

    def Abs(self, e: Any) -> _Fn:
        f = self.visit(e.operand)
        return lambda cols: np.abs(f(cols))

    def BinOp(self, e: Any) -> _Fn:
        lf, rf, op = self.visit(e.left), self.visit(e.right), _ARITH[e.op]
        return lambda cols: op(lf(cols), rf(cols))

    def Compare(self, e: Any) -> _Fn:
        lf, rf, cmp = self.operand(e.left, e.right), self.operand(e.right, e.left), _CMP[e.op]
        return lambda cols: cmp(lf(cols), rf(cols))

    def InSet(self, e: Any) -> _Fn:
        f = self.visit(e.operand)
        feat = categorical_feature(e.operand, self.schema)
        if feat is not None:
            codes = [constant_code(i, feat, self.schema) for i in e.items]
            values = np.array(codes, dtype=np.float64)
        else:
            values = np.array([float(i.value) for i in e.items], dtype=np.float64)
        if e.negated:
            return lambda cols: ~np.isin(f(cols), values)
        return lambda cols: np.isin(f(cols), values)

    def Not(self, e: Any) -> _Fn:
        f = self.visit(e.operand)
        return lambda cols: np.logical_not(f(cols))

    def BoolOp(self, e: Any) -> _Fn:
        lf, rf = self.visit(e.left), self.visit(e.right)
        op = np.logical_and if e.op == "and" else np.logical_or
        return lambda cols: op(lf(cols), rf(cols))

    def operand(self, e: Expr, other: Expr) -> _Fn:
        """A comparison operand; a literal facing a categorical feature becomes its code."""
        feat = categorical_feature(other, self.schema)
        if feat is not None and isinstance(e, (Str, Bool, Num)):
            return _const(float(constant_code(e, feat, self.schema)))
        return self.visit(e)


class Predicate:
    """A grounded boolean expression as a vectorised test over candidate rows.

    ``predicate(columns)`` returns a bool array, one entry per row; ``columns`` holds (at least)
    every feature in :attr:`features`. ``expr`` is the grounded expression (for printing and for
    :class:`plaf_grammar.programs.RulePrograms`), ``schema`` the one it reads columns of,
    ``rules`` the source statements it came from (for messages)."""

    def __init__(self, expr: Expr, schema: Schema, rule: SourceRule) -> None:
        self.expr = expr
        self.schema = schema
        self.rules: tuple[SourceRule, ...] = (rule,)
        self.features: tuple[str, ...] = cf_features(expr)
        self._fn = _Compiler(schema).visit(expr)

    def __call__(self, columns: Columns) -> np.ndarray:
        n = _length(columns, self.features)
        with np.errstate(all="ignore"):
            out = self._fn(columns)
        out = np.asarray(out, dtype=bool)
        if out.shape != (n,):
            out = np.broadcast_to(out, (n,)).copy()
        return out

    def __str__(self) -> str:
        return str(self.expr)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.expr}>"


class AllOf(Predicate):
    """The conjunction of several predicates (a group's combined filter)."""

    def __init__(self, parts: list[Predicate]) -> None:
        self.parts = list(parts)
        self.schema = parts[0].schema
        self.expr = parts[0].expr
        for p in parts[1:]:
            self.expr = BoolOp("and", self.expr, p.expr)
        self.rules = tuple(dict.fromkeys(r for p in parts for r in p.rules))
        self.features = tuple(dict.fromkeys(f for p in parts for f in p.features))

    def __call__(self, columns: Columns) -> np.ndarray:
        out = self.parts[0](columns)
        for p in self.parts[1:]:
            out &= p(columns)
        return out

    def __str__(self) -> str:
        return " and ".join(f"({p.expr})" if isinstance(p.expr, BoolOp) else str(p.expr) for p in self.parts)
