"""Grounding a checked PLAF program on an instance ``x``.

Why ground: the search explains one ``x`` at a time. Replacing every ``x.f`` by ``x``'s value and
folding the constants leaves expressions over ``cf`` only, which compile to vectorised
predicates (``predicates.py``) and print readably ("cf.age >= 43"). The result says where each
piece acts: a filter per group (applied once to that group's feasible values), implications in
the cascade's order, and candidate-level rules for the rest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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
    Program,
    Ref,
    Str,
    cf_features,
)
from plaf_grammar.check import Analysis
from plaf_grammar.predicates import AllOf, CandidateRule, Columns, Predicate, as_columns
from plaf_grammar.schema import Feature, Schema, SchemaError

__all__ = ["GroundImplication", "GroundProgram", "encode_instance", "ground", "substitute"]


def encode_instance(schema: Schema, x: Any) -> np.ndarray:
    """``x`` as a 1-D float64 vector in the schema's encoding.

    Accepts a pandas Series or 1-row DataFrame (user values), a dict name -> user value, or a
    1-D numpy array that is already encoded. Bad input raises ``SchemaError`` naming the column.
    """
    if isinstance(x, np.ndarray):
        arr = np.asarray(x, dtype=np.float64)
        if arr.ndim == 2 and arr.shape[0] == 1:
            arr = arr[0]
        if arr.shape != (len(schema),):
            raise SchemaError(f"x: expected an encoded vector of {len(schema)} values, got shape {x.shape}")
        if np.isnan(arr).any():
            j = int(np.argmax(np.isnan(arr)))
            raise SchemaError(f"x: column {schema.names[j]!r} is NaN")
        return arr.copy()
    if isinstance(x, Mapping) and not isinstance(x, pd.Series):
        x = pd.Series(dict(x), dtype=object)
    if isinstance(x, pd.Series):
        extra = [c for c in x.index if c not in schema]
        if extra:
            raise SchemaError(f"x: unexpected column(s) {extra}")
        out = np.empty(len(schema), dtype=np.float64)
        for j, n in enumerate(schema.names):
            if n not in x.index:
                raise SchemaError(f"x: missing column {n!r}")
            v = x[n]
            if v is None or (isinstance(v, float) and math.isnan(v)):
                raise SchemaError(f"x: column {n!r} has a missing value (NaN)")
            out[j] = schema.encode_value(n, v)
        return out
    if isinstance(x, pd.DataFrame):
        if len(x) != 1:
            raise SchemaError(f"x: expected one row, got {len(x)}")
        return schema.encode(x, what="x")[0]
    raise TypeError(f"x must be a Series, a 1-row DataFrame, a dict or an encoded array, got {type(x).__name__}")


def _literal(f: Feature, value: Any, like: Expr) -> Expr:
    """The literal node for a user value of feature ``f``."""
    if f.categories is None:
        v = float(value)
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return Num(int(value), pos=like.pos)
        return Num(v, pos=like.pos)
    if isinstance(value, bool):
        return Bool(value, pos=like.pos)
    if isinstance(value, str):
        return Str(value, pos=like.pos)
    return Num(value.item() if isinstance(value, np.generic) else value, pos=like.pos)


def _arith(op: str, a: float, b: float, ints: bool) -> int | float:
    with np.errstate(all="ignore"):
        r = float({"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op](
            np.float64(a), np.float64(b)
        ))
    if ints and op != "/" and math.isfinite(r) and r.is_integer() and abs(r) < 2**53:
        return int(r)
    return r


def _is_lit(e: Expr) -> bool:
    return isinstance(e, (Num, Str, Bool))


def _cat_feature(e: Expr, schema: Schema) -> Feature | None:
    if isinstance(e, Ref) and schema[e.name].categories is not None:
        return schema[e.name]
    return None


def substitute(e: Expr, x: Mapping[str, Any], schema: Schema) -> Expr:
    """Replace ``x.f`` by ``x``'s user value and fold what became constant.

    Folding uses the same float64 arithmetic and category order as the vectorised predicates, so
    a folded constant means what the unfolded expression would have computed."""
    if isinstance(e, Ref):
        return _literal(schema[e.name], x[e.name], e) if e.kind == "x" else e
    if isinstance(e, (Num, Str, Bool)):
        return e
    if isinstance(e, Neg):
        o = substitute(e.operand, x, schema)
        if isinstance(o, Num):
            return Num(-o.value, pos=e.pos)
        return Neg(o, pos=e.pos)
    if isinstance(e, Abs):
        o = substitute(e.operand, x, schema)
        return Num(abs(o.value), pos=e.pos) if isinstance(o, Num) else Abs(o, pos=e.pos)
    if isinstance(e, BinOp):
        a, b = substitute(e.left, x, schema), substitute(e.right, x, schema)
        if isinstance(a, Num) and isinstance(b, Num):
            ints = isinstance(a.value, int) and isinstance(b.value, int)
            return Num(_arith(e.op, a.value, b.value, ints), pos=e.pos)
        return BinOp(e.op, a, b, pos=e.pos)
    if isinstance(e, Compare):
        a, b = substitute(e.left, x, schema), substitute(e.right, x, schema)
        if _is_lit(a) and _is_lit(b):
            feat = _cat_feature(e.left, schema) or _cat_feature(e.right, schema)
            return Bool(_compare_const(e.op, a, b, feat), pos=e.pos)
        return Compare(e.op, a, b, pos=e.pos)
    if isinstance(e, InSet):
        o = substitute(e.operand, x, schema)
        if _is_lit(o):
            if _cat_feature(e.operand, schema) is not None:
                hit = any(type(i) is type(o) and i.value == o.value for i in e.items)
            else:
                hit = any(float(i.value) == float(o.value) for i in e.items)
            return Bool(hit != e.negated, pos=e.pos)
        return InSet(o, e.items, e.negated, pos=e.pos)
    if isinstance(e, Not):
        o = substitute(e.operand, x, schema)
        return Bool(not o.value, pos=e.pos) if isinstance(o, Bool) else Not(o, pos=e.pos)
    if isinstance(e, BoolOp):
        a, b = substitute(e.left, x, schema), substitute(e.right, x, schema)
        absorbing = e.op == "or"  # true absorbs 'or', false absorbs 'and'
        for c, other in ((a, b), (b, a)):
            if isinstance(c, Bool):
                return Bool(absorbing, pos=e.pos) if c.value == absorbing else other
        return BoolOp(e.op, a, b, pos=e.pos)
    raise TypeError(f"not a PLAF expression: {e!r}")  # pragma: no cover


def _compare_const(op: str, a: Expr, b: Expr, feat: Feature | None) -> bool:
    if feat is not None:
        from plaf_grammar.check import category_code

        va, vb = float(category_code(feat, a)), float(category_code(feat, b))  # type: ignore[arg-type]
    else:
        va, vb = float(a.value), float(b.value)  # type: ignore[attr-defined]
    return {
        "==": va == vb,
        "!=": va != vb,
        "<": va < vb,
        "<=": va <= vb,
        ">": va > vb,
        ">=": va >= vb,
    }[op]


@dataclass
class GroundImplication:
    """``if condition then consequence`` grounded on x, for the action cascade.

    ``condition(columns)``: the condition holds, per candidate (``columns`` holds every feature
    the condition reads). ``consequence(columns)``: the consequence holds, over the consequence
    group's columns (use it to filter that group's feasible values). ``group``: the consequence
    group index; ``condition_groups``: the groups the grounded condition reads."""

    condition: Predicate
    consequence: Predicate
    group: int
    condition_groups: frozenset[int]
    source: str

    def violated(self, columns: Columns) -> np.ndarray:
        """Candidates where the condition holds and the consequence fails."""
        cols = as_columns(self.condition.schema, columns)
        return self.condition(cols) & ~self.consequence(cols)

    def __str__(self) -> str:
        return f"if {self.condition.expr} then {self.consequence.expr}"


class GroundProgram:
    """A program grounded on one instance: per-group filters, ordered implications and
    candidate-level rules, all as vectorised predicates over encoded columns.

    ``x`` is the encoded instance, ``x_values`` its user values (name -> value)."""

    def __init__(
        self,
        program: Program,
        x: np.ndarray,
        group_filters: list[Predicate | None],
        implications: list[GroundImplication],
        cross_rules: list[CandidateRule],
    ) -> None:
        self.program = program
        self.schema: Schema = program.schema  # type: ignore[assignment]
        self.groups: list[tuple[str, ...]] = program.groups
        self.x = x
        self.x_values = {n: self.schema.decode_value(n, x[j]) for j, n in enumerate(self.schema.names)}
        self.group_filters = group_filters
        self.implications = implications
        self.cross_rules = cross_rules

    def check(self, columns: Columns) -> np.ndarray:
        """Whether each candidate satisfies the whole program (every group filter, every
        implication as ``not condition or consequence``, every candidate-level rule)."""
        cols = as_columns(self.schema, columns)
        n = len(next(iter(cols.values()))) if cols else 0
        ok = np.ones(n, dtype=bool)
        for f in self.group_filters:
            if f is not None:
                ok &= f(cols)
        for imp in self.implications:
            ok &= ~imp.condition(cols) | imp.consequence(cols)
        for r in self.cross_rules:
            ok &= r(cols)
        return ok

    def __str__(self) -> str:
        lines = ["group filters (applied once to each group's feasible values):"]
        for i, (g, f) in enumerate(zip(self.groups, self.group_filters)):
            lines.append(f"  [{i}] {', '.join(g)}: {f if f is not None else '(free)'}")
        lines.append("implications (in cascade order):")
        lines += [f"  {k + 1}. {imp}" for k, imp in enumerate(self.implications)] or ["  (none)"]
        lines.append("candidate-level rules (span several groups; checked on every candidate):")
        lines += [f"  {r.expr}" for r in self.cross_rules] or ["  (none)"]
        return "\n".join(lines)


def ground(program: Program, x: Any) -> GroundProgram:
    """Ground a checked ``program`` on the instance ``x`` (Series, 1-row DataFrame, dict of user
    values, or an encoded 1-D float64 array)."""
    analysis: Analysis = program._checked()
    schema = analysis.schema
    xe = encode_instance(schema, x)
    xv = {n: schema.decode_value(n, xe[j]) for j, n in enumerate(schema.names)}
    gidx = analysis.group_index
    per_group: list[list[Predicate]] = [[] for _ in analysis.groups]
    cross: list[CandidateRule] = []

    def place(expr: Expr, source: str, static_groups: frozenset[int]) -> None:
        """File a grounded rule under its group, or as a candidate-level rule."""
        if isinstance(expr, Bool) and expr.value:
            return
        # folding may drop features (x.b > 3 or cf.c > 1 -> cf.c > 1): place by what is left;
        # a constant-false rule stays with its static group(s) and empties it.
        groups = frozenset(gidx[f] for f in cf_features(expr)) or static_groups
        if len(groups) == 1:
            per_group[next(iter(groups))].append(Predicate(expr, schema, source))
        else:
            cross.append(CandidateRule(expr, schema, source, groups))

    for info in analysis.rules:
        place(substitute(info.expr, xv, schema), program.source_of(info.statement), info.groups)

    implications: list[GroundImplication] = []
    for info in analysis.implications:
        source = program.source_of(info.statement)
        cond = substitute(info.statement.condition, xv, schema)
        conseq = substitute(info.statement.consequence, xv, schema)
        if isinstance(cond, Bool):
            if cond.value:  # condition true for this x: the consequence is a plain rule
                place(conseq, source, frozenset([info.group]))
            continue
        if isinstance(conseq, Bool) and conseq.value:
            continue
        implications.append(
            GroundImplication(
                condition=Predicate(cond, schema, source),
                consequence=Predicate(conseq, schema, source),
                group=info.group,
                condition_groups=frozenset(gidx[f] for f in cf_features(cond)),
                source=source,
            )
        )

    filters: list[Predicate | None] = [
        None if not ps else ps[0] if len(ps) == 1 else AllOf(ps, schema) for ps in per_group
    ]
    return GroundProgram(program, xe, filters, implications, cross)
