"""Grounding a checked PLAF program on an instance ``x``.

Why ground: the search explains one ``x`` at a time. Replacing every ``x.f`` by ``x``'s value and
folding the constants leaves expressions over ``cf`` only, which compile to vectorised
predicates (``predicates.py``) and print readably ("cf.age >= 43"). The result says where each
piece acts: a filter per group (applied once to that group's feasible values), implications in
the cascade's order, and candidate-level rules for the rest.

Grounding reads ``x`` in the schema's encoding: a numeric ``x.f`` becomes a number, a
categorical one a :class:`Category` node that carries its code (and its label, for printing).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from plaf_grammar.analysis import Analysis
from plaf_grammar.ast import (
    Abs,
    BinOp,
    Bool,
    BoolOp,
    Category,
    Compare,
    Expr,
    InSet,
    Neg,
    Not,
    Num,
    Ref,
    SourceRule,
    Str,
    cf_features,
    refs,
)
from plaf_grammar.predicates import (
    AllOf,
    Columns,
    Predicate,
    categorical_feature,
    constant_code,
)
from plaf_grammar.schema import Schema
from plaf_grammar.visitor import Visitor

__all__ = ["GroundImplication", "GroundProgram", "GroundingMemo", "ground"]

_CONSTANT = (Num, Str, Bool, Category)
_ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}
_CMP = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def _arith(op: str, a: float, b: float, ints: bool) -> int | float:
    with np.errstate(all="ignore"):
        r = float(_ARITH[op](np.float64(a), np.float64(b)))
    if ints and op != "/" and math.isfinite(r) and r.is_integer() and abs(r) < 2**53:
        return int(r)
    return r


class _Substitute(Visitor[Expr]):
    """Replace ``x.f`` by ``x``'s value and fold what became constant.

    Folding uses the same float64 arithmetic and category codes as the vectorised predicates, so
    a folded constant means what the unfolded expression would have computed."""

    def __init__(self, schema: Schema, x: np.ndarray) -> None:
        self.schema = schema
        self.x = x

    def value(self, e: Expr, feature: str | None) -> float:
        """A constant as the predicates would see it: a number, or a code of ``feature``."""
        if feature is not None:
            return float(constant_code(e, feature, self.schema))
        return float(e.value)  # type: ignore[attr-defined]

    def Ref(self, e: Ref) -> Expr:
        if e.kind != "x":
            return e
        j = self.schema.index(e.name)
        f = self.schema.features[j]
        if f.categories is None:
            return Num(self.schema.decode_value(e.name, self.x[j]), pos=e.pos)
        code = int(self.x[j])
        label = f.categories[code]
        if isinstance(label, np.generic):
            label = label.item()
        return Category(e.name, code, label, pos=e.pos)

    def Num(self, e: Expr) -> Expr:
        return e

    Str = Bool = Category = Num

    def Neg(self, e: Neg) -> Expr:
        o = self.visit(e.operand)
        if not isinstance(o, Num):
            return Neg(o, pos=e.pos)
        # an int zero has no sign, but float64 arithmetic (predicates, reference) gives -0.0,
        # and the sign decides the infinity a later division by it yields
        return Num(-float(o.value) if o.value == 0 else -o.value, pos=e.pos)

    def Abs(self, e: Abs) -> Expr:
        o = self.visit(e.operand)
        return Num(abs(o.value), pos=e.pos) if isinstance(o, Num) else Abs(o, pos=e.pos)

    def BinOp(self, e: BinOp) -> Expr:
        a, b = self.visit(e.left), self.visit(e.right)
        if isinstance(a, Num) and isinstance(b, Num):
            ints = isinstance(a.value, int) and isinstance(b.value, int)
            return Num(_arith(e.op, a.value, b.value, ints), pos=e.pos)
        return BinOp(e.op, a, b, pos=e.pos)

    def Compare(self, e: Compare) -> Expr:
        a, b = self.visit(e.left), self.visit(e.right)
        if isinstance(a, _CONSTANT) and isinstance(b, _CONSTANT):
            feat = categorical_feature(e.left, self.schema) or categorical_feature(e.right, self.schema)
            return Bool(_CMP[e.op](self.value(a, feat), self.value(b, feat)), pos=e.pos)
        return Compare(e.op, a, b, pos=e.pos)

    def InSet(self, e: InSet) -> Expr:
        o = self.visit(e.operand)
        if isinstance(o, _CONSTANT):
            feat = categorical_feature(e.operand, self.schema)
            v = self.value(o, feat)
            hit = any(self.value(i, feat) == v for i in e.items)
            return Bool(hit != e.negated, pos=e.pos)
        return InSet(o, e.items, e.negated, pos=e.pos)

    def Not(self, e: Not) -> Expr:
        o = self.visit(e.operand)
        return Bool(not o.value, pos=e.pos) if isinstance(o, Bool) else Not(o, pos=e.pos)

    def BoolOp(self, e: BoolOp) -> Expr:
        a, b = self.visit(e.left), self.visit(e.right)
        absorbing = e.op == "or"  # true absorbs 'or', false absorbs 'and'
        for c, other in ((a, b), (b, a)):
            if isinstance(c, Bool):
                return Bool(absorbing, pos=e.pos) if c.value == absorbing else other
        return BoolOp(e.op, a, b, pos=e.pos)


@dataclass(frozen=True)
class GroundImplication:
    """``if condition then consequence`` grounded on x, for the action cascade.

    ``condition(columns)``: the condition holds, per candidate (``columns`` holds every feature
    the condition reads). ``consequence(columns)``: the consequence holds, over the consequence
    group's columns (use it to filter that group's feasible values). ``group``: the consequence
    group index; ``rule``: the implication as written."""

    condition: Predicate
    consequence: Predicate
    group: int
    rule: SourceRule

    def __str__(self) -> str:
        return f"if {self.condition.expr} then {self.consequence.expr}"


def _unique(rules: Iterable[SourceRule]) -> list[SourceRule]:
    return list(dict.fromkeys(rules))


class GroundProgram:
    """A program grounded on one instance: per-group filters, ordered implications and
    candidate-level rules, all as vectorised predicates over encoded columns.

    ``x`` is the encoded instance. ``group_filters[g]`` is group g's combined filter (None if
    the group is free) and ``group_rules[g]`` the source statements behind it."""

    def __init__(
        self,
        schema: Schema,
        groups: list[tuple[str, ...]],
        x: np.ndarray,
        group_parts: list[list[Predicate]],
        implications: list[GroundImplication],
        cross_rules: list[Predicate],
    ) -> None:
        self.schema = schema
        self.groups = groups
        self.x = x
        self._group_parts = group_parts
        self.group_filters: list[Predicate | None] = [
            None if not ps else ps[0] if len(ps) == 1 else AllOf(ps) for ps in group_parts
        ]
        self.group_rules: list[list[SourceRule]] = [
            _unique(r for p in ps for r in p.rules) for ps in group_parts
        ]
        self.implications = implications
        self.cross_rules = cross_rules

    def violated_rules(self, group: int, x: np.ndarray | None = None) -> list[SourceRule]:
        """The source rules of group ``group``'s filter that the encoded instance ``x`` (default:
        the one grounded on) breaks."""
        x = self.x if x is None else x
        cols = {n: np.asarray(x[self.schema.index(n)], dtype=np.float64)[None] for n in self.groups[group]}
        return _unique(r for p in self._group_parts[group] if not p(cols)[0] for r in p.rules)

    def check(self, columns: Columns) -> np.ndarray:
        """Whether each candidate satisfies the whole program (every group filter, every
        implication as ``not condition or consequence``, every candidate-level rule)."""
        n = len(next(iter(columns.values()))) if columns else 0
        ok = np.ones(n, dtype=bool)
        for f in self.group_filters:
            if f is not None:
                ok &= f(columns)
        for imp in self.implications:
            ok &= ~imp.condition(columns) | imp.consequence(columns)
        for r in self.cross_rules:
            ok &= r(columns)
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


class GroundingMemo:
    """Rules grounded before, by rule and the exact bits of the ``x`` values the rule reads:
    grounding a rule folds those values into it and nothing else of ``x``, so a rule met again
    with the same values grounds to the same predicates (immutable, shared). Explaining rows of
    one table meets the same values over and over (codes, ages, counts). Bounded: emptied when
    ``capacity`` entries are held. Thread-safe as dict operations are."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._reads: dict[tuple[str, int], np.ndarray] = {}
        self._grounded: dict[tuple[str, int, bytes], Any] = {}

    def grounded(self, kind: str, i: int, exprs: tuple[Expr, ...], xe: np.ndarray, schema: Schema,
                 make: Callable[[], Any]) -> Any:  # fmt: skip
        """What ``make()`` grounds statement ``i`` of ``kind`` (its expressions ``exprs``) to on
        the encoded instance ``xe``: made once per distinct values of its ``x`` references."""
        reads = self._reads.get((kind, i))
        if reads is None:
            names = dict.fromkeys(r.name for e in exprs for r in refs(e, "x"))
            reads = self._reads[(kind, i)] = np.array([schema.index(n) for n in names], dtype=np.intp)
        key = (kind, i, xe[reads].tobytes())
        hit = self._grounded.get(key, _MISSING)
        if hit is _MISSING:
            if len(self._grounded) >= self.capacity:
                self._grounded.clear()
            hit = self._grounded[key] = make()
        return hit


_MISSING = object()


def _placed(expr: Expr, rule: SourceRule, static_groups: frozenset[int], analysis: Analysis) -> tuple[int, Predicate] | None:
    """Where a grounded rule acts: its group (-1: across groups, a candidate-level rule) and its
    predicate; None for a rule that always holds."""
    if isinstance(expr, Bool) and expr.value:
        return None
    # folding may drop features (x.b > 3 or cf.c > 1 -> cf.c > 1): place by what is left;
    # a constant-false rule stays with its static group(s) and empties it.
    groups = frozenset(analysis.group_index[f] for f in cf_features(expr)) or static_groups
    return (next(iter(groups)) if len(groups) == 1 else -1), Predicate(expr, analysis.schema, rule)


def _grounded_implication(sub: _Substitute, imp: Any, analysis: Analysis) -> tuple[str, Any] | None:
    """An implication grounded: ("implication", the :class:`GroundImplication`), ("rule", its
    consequence placed as a plain rule: the condition holds for this x) or None (it cannot
    fire, or always holds)."""
    cond = sub.visit(imp.statement.condition)
    conseq = sub.visit(imp.statement.consequence)
    if isinstance(cond, Bool):
        if cond.value:  # condition true for this x: the consequence is a plain rule
            return "rule", _placed(conseq, imp.source, frozenset([imp.group]), analysis)
        return None
    if isinstance(conseq, Bool) and conseq.value:
        return None
    schema = analysis.schema
    return "implication", GroundImplication(
        condition=Predicate(cond, schema, imp.source),
        consequence=Predicate(conseq, schema, imp.source),
        group=imp.group,
        rule=imp.source,
    )


def ground(analysis: Analysis, x: Any, memo: GroundingMemo | None = None) -> GroundProgram:
    """Ground a checked program (its :class:`Analysis`) on the instance ``x``: a Series, 1-row
    DataFrame or dict of user values, or an encoded 1-D float64 array. ``memo``: rules grounded
    on earlier instances of the same program (:class:`GroundingMemo`)."""
    schema = analysis.schema
    xe = schema.encode_instance(x)
    sub = _Substitute(schema, xe)
    per_group: list[list[Predicate]] = [[] for _ in analysis.groups]
    cross: list[Predicate] = []

    def file(placed: tuple[int, Predicate] | None) -> None:
        """File a placed rule under its group, or as a candidate-level rule."""
        if placed is not None:
            (cross if placed[0] < 0 else per_group[placed[0]]).append(placed[1])

    for i, info in enumerate(analysis.rules):

        def make(info: Any = info) -> tuple[int, Predicate] | None:
            return _placed(sub.visit(info.expr), info.source, info.groups, analysis)

        file(make() if memo is None else memo.grounded("rule", i, (info.expr,), xe, schema, make))

    implications: list[GroundImplication] = []
    for i, imp in enumerate(analysis.implications):

        def make_implication(imp: Any = imp) -> tuple[str, Any] | None:
            return _grounded_implication(sub, imp, analysis)

        exprs = (imp.statement.condition, imp.statement.consequence)
        what = make_implication() if memo is None else memo.grounded("implication", i, exprs, xe, schema, make_implication)
        if what is None:
            continue
        if what[0] == "rule":
            file(what[1])
        else:
            implications.append(what[1])

    return GroundProgram(schema, list(analysis.groups), xe, per_group, implications, cross)
