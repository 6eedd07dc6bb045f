"""Vectorised evaluation of grounded PLAF expressions on numpy columns of candidates.

Why compile to closures over whole arrays: the search evaluates constraints on thousands of
candidates per generation; one numpy operation per AST node (not one Python call per row) keeps
that cost negligible. Inputs are columns in the schema's *encoded* form (float64; categoricals
as category codes), or a pandas DataFrame in user form, which is encoded here first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Union

import numpy as np
import pandas as pd

from plaf_grammar.ast import (
    Abs,
    BinOp,
    Bool,
    BoolOp,
    Compare,
    Expr,
    InSet,
    Neg,
    Not,
    Num,
    Ref,
    Str,
    cf_features,
)
from plaf_grammar.check import category_code
from plaf_grammar.schema import Schema, SchemaError

__all__ = ["AllOf", "CandidateRule", "Columns", "Predicate", "compile_expr", "encode_columns"]

#: name -> float64 array (encoded), or a DataFrame in user form.
Columns = Union[Mapping[str, np.ndarray], pd.DataFrame]  # noqa: UP007
_Fn = Callable[[Mapping[str, np.ndarray]], Any]


def encode_columns(schema: Schema, df: pd.DataFrame) -> dict[str, np.ndarray]:
    """Encode the schema features present in a user-form DataFrame (others are ignored).

    Unlike ``Schema.encode`` this accepts a subset of the columns, as a group's feasible values
    are."""
    out: dict[str, np.ndarray] = {}
    for name in df.columns:
        if name not in schema:
            continue
        f = schema[name]
        s = df[name]
        if f.categories is None:
            try:
                out[name] = s.to_numpy(dtype=np.float64)
            except (TypeError, ValueError):
                raise SchemaError(f"column {name!r} must be numeric, got dtype {s.dtype}") from None
            continue
        if isinstance(s.dtype, pd.CategoricalDtype) and tuple(s.dtype.categories.tolist()) == f.categories:
            codes = s.cat.codes.to_numpy()
        else:
            codes = pd.Categorical(s, categories=list(f.categories)).codes
        bad = codes < 0
        if bad.any():
            i = int(np.argmax(bad))
            raise SchemaError(
                f"column {name!r} has unknown category {s.iloc[i]!r} at row {df.index[i]!r} "
                f"(valid: {', '.join(repr(c) for c in f.categories[:8])})"
            )
        out[name] = codes.astype(np.float64)
    return out


def as_columns(schema: Schema, columns: Columns) -> Mapping[str, np.ndarray]:
    """Columns in encoded form: a DataFrame is encoded, a mapping is used as it is."""
    if isinstance(columns, pd.DataFrame):
        return encode_columns(schema, columns)
    if isinstance(columns, Mapping):
        return columns
    raise TypeError(f"columns must be a mapping name -> array or a DataFrame, got {type(columns).__name__}")


def _length(cols: Mapping[str, np.ndarray], features: Iterable[str]) -> int:
    for name in features:
        if name in cols:
            return len(cols[name])
    for v in cols.values():
        return len(v)
    return 0


def _column(name: str) -> _Fn:
    def col(cols: Mapping[str, np.ndarray]) -> np.ndarray:
        try:
            return np.asarray(cols[name], dtype=np.float64)
        except KeyError:
            raise KeyError(f"this predicate needs column {name!r}, which the columns lack") from None

    return col


def _const(value: float) -> _Fn:
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


def compile_expr(e: Expr, schema: Schema) -> _Fn:
    """Compile a grounded expression (only ``cf`` refs, literals) to a function of columns that
    returns an array (or a scalar for a constant)."""
    if isinstance(e, Num):
        return _const(float(e.value))
    if isinstance(e, Bool):
        v = bool(e.value)
        return lambda cols: v
    if isinstance(e, Ref):
        if e.kind != "cf":
            raise ValueError(f"expression is not grounded: {e}")
        return _column(e.name)
    if isinstance(e, Neg):
        f = compile_expr(e.operand, schema)
        return lambda cols: np.negative(f(cols))
    if isinstance(e, Abs):
        f = compile_expr(e.operand, schema)
        return lambda cols: np.abs(f(cols))
    if isinstance(e, BinOp):
        lf, rf, op = compile_expr(e.left, schema), compile_expr(e.right, schema), _ARITH[e.op]
        return lambda cols: op(lf(cols), rf(cols))
    if isinstance(e, Compare):
        lf, rf = _operand(e.left, e.right, schema), _operand(e.right, e.left, schema)
        cmp = _CMP[e.op]
        return lambda cols: cmp(lf(cols), rf(cols))
    if isinstance(e, InSet):
        f = compile_expr(e.operand, schema)
        feat = _categorical(e.operand, schema)
        if feat is not None:
            values = np.array([category_code(feat, i) for i in e.items], dtype=np.float64)
        else:
            values = np.array([float(i.value) for i in e.items], dtype=np.float64)
        if e.negated:
            return lambda cols: ~np.isin(f(cols), values)
        return lambda cols: np.isin(f(cols), values)
    if isinstance(e, Not):
        f = compile_expr(e.operand, schema)
        return lambda cols: np.logical_not(f(cols))
    if isinstance(e, BoolOp):
        lf, rf = compile_expr(e.left, schema), compile_expr(e.right, schema)
        op = np.logical_and if e.op == "and" else np.logical_or
        return lambda cols: op(lf(cols), rf(cols))
    if isinstance(e, Str):
        raise ValueError(f"string {e} outside a comparison with a categorical feature")
    raise TypeError(f"not a PLAF expression: {e!r}")  # pragma: no cover


def _categorical(e: Expr, schema: Schema):
    if isinstance(e, Ref) and e.name in schema and schema[e.name].categories is not None:
        return schema[e.name]
    return None


def _operand(e: Expr, other: Expr, schema: Schema) -> _Fn:
    """A comparison operand; a literal facing a categorical feature becomes its code."""
    feat = _categorical(other, schema)
    if feat is not None and isinstance(e, (Str, Bool, Num)):
        return _const(float(category_code(feat, e)))
    return compile_expr(e, schema)


class Predicate:
    """A grounded boolean expression as a vectorised test over candidate rows.

    ``predicate(columns)`` returns a bool array, one entry per row; ``columns`` holds (at least)
    every feature in :attr:`features`. ``expr`` is the grounded expression (for printing),
    ``source`` the statement text it came from (for messages)."""

    def __init__(self, expr: Expr, schema: Schema, source: str) -> None:
        self.expr = expr
        self.schema = schema
        self.source = source
        self.features: tuple[str, ...] = cf_features(expr)
        self._fn = compile_expr(expr, schema)

    def __call__(self, columns: Columns) -> np.ndarray:
        cols = as_columns(self.schema, columns)
        n = _length(cols, self.features)
        with np.errstate(all="ignore"):
            out = self._fn(cols)
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

    def __init__(self, parts: list[Predicate], schema: Schema) -> None:
        self.parts = list(parts)
        self.schema = schema
        self.expr = parts[0].expr
        for p in parts[1:]:
            self.expr = BoolOp("and", self.expr, p.expr)
        self.source = "; ".join(p.source for p in parts)
        self.features = tuple(dict.fromkeys(f for p in parts for f in p.features))

    def __call__(self, columns: Columns) -> np.ndarray:
        cols = as_columns(self.schema, columns)
        out = self.parts[0](cols)
        for p in self.parts[1:]:
            out &= p(cols)
        return out

    def __str__(self) -> str:
        return " and ".join(f"({p.expr})" if isinstance(p.expr, BoolOp) else str(p.expr) for p in self.parts)


class CandidateRule(Predicate):
    """A rule whose ``cf`` features span several groups: applied to whole candidates (slower
    than a group filter, which is applied once to a group's sample space)."""

    def __init__(self, expr: Expr, schema: Schema, source: str, groups: frozenset[int]) -> None:
        super().__init__(expr, schema, source)
        self.groups = groups
