"""Static checks of a PLAF program against a data schema, and the analysis grounding needs.

Why check before grounding: every mistake a user can make in the text (a misspelt feature, a
category that does not exist, ``<`` on an unordered categorical, a cycle of implications) is
found once, with its position, before any search starts; grounding and the vectorised
predicates can then assume a well-typed program.

The analysis decides where each statement acts:

* ``fixed`` / ``increasing`` / ``decreasing`` become one rule per feature;
* a rule whose ``cf`` features lie in one group filters that group's feasible values;
* a rule spanning several groups is a candidate-level filter (slower: it is evaluated on every
  candidate instead of once on the sample space);
* an implication's consequence must lie in one group, and implications are ordered
  topologically over the group dependency graph (condition groups -> consequence group).
"""

from __future__ import annotations

import difflib
import heapq
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

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
    Pos,
    Program,
    Ref,
    Rule,
    Statement,
    Str,
    cf_features,
    format_name,
    format_string,
)
from plaf_grammar.errors import (
    PLAFCycleError,
    PLAFError,
    PLAFNameError,
    PLAFTypeError,
    PLAFValueError,
)
from plaf_grammar.schema import Feature, Schema

__all__ = ["Analysis", "ImplicationInfo", "RuleInfo", "category_code", "check", "to_schema"]


@dataclass(frozen=True)
class RuleInfo:
    """A rule every counterfactual must satisfy, with the groups its ``cf`` features lie in."""

    statement: Statement
    expr: Expr
    features: tuple[str, ...]
    groups: frozenset[int]


@dataclass(frozen=True)
class ImplicationInfo:
    """An implication with its condition groups and the single group of its consequence."""

    statement: Implication
    condition_features: tuple[str, ...]
    condition_groups: frozenset[int]
    consequence_features: tuple[str, ...]
    group: int


@dataclass(frozen=True)
class Analysis:
    """The result of checking: groups (every feature in exactly one), rules, and implications in
    topological order."""

    schema: Schema
    groups: tuple[tuple[str, ...], ...]
    group_index: dict[str, int]
    rules: tuple[RuleInfo, ...]
    implications: tuple[ImplicationInfo, ...]


def to_schema(schema_or_dataframe: Schema | pd.DataFrame) -> Schema:
    """Accept a Schema or infer one from a DataFrame (see ``Schema.from_dataframe``)."""
    if isinstance(schema_or_dataframe, Schema):
        return schema_or_dataframe
    if isinstance(schema_or_dataframe, pd.DataFrame):
        return Schema.from_dataframe(schema_or_dataframe)
    raise TypeError(
        f"expected a plaf_grammar.Schema or a pandas DataFrame, got {type(schema_or_dataframe).__name__}"
    )


# ------------------------------------------------------------------------------ helpers
def _err(cls: type[PLAFError], msg: str, pos: Pos | None) -> PLAFError:
    if pos is None:
        return cls(msg)
    line, col, eline, ecol = pos
    return cls(msg, line, col, end_column=ecol if eline == line else None)


def _valid_list(values: Sequence[Any], n: int = 6) -> str:
    shown = ", ".join(format_string(v) if isinstance(v, str) else repr(v) for v in values[:n])
    return shown + (f", ... ({len(values)} in all)" if len(values) > n else "")


def category_code(f: Feature, lit: Str | Bool | Num) -> int:
    """The code of a literal among ``f``'s categories; raises PLAFValueError if it is not one."""
    cats = f.categories or ()
    value = lit.value
    for i, c in enumerate(cats):
        same_kind = isinstance(c, str) == isinstance(value, str) and isinstance(
            c, bool
        ) == isinstance(value, bool)
        if same_kind and c == value:
            return i
    msg = f"unknown category {lit} for feature {format_name(f.name)!r}"
    if isinstance(value, str):
        close = difflib.get_close_matches(value, [str(c) for c in cats], n=1, cutoff=0.6)
        if close:
            msg += f"; did you mean {format_string(close[0])}?"
    msg += f" (valid: {_valid_list(cats)})"
    raise _err(PLAFValueError, msg, lit.pos)


class _Checker:
    def __init__(self, schema: Schema) -> None:
        self.schema = schema

    # --- names
    def feature(self, name: str, pos: Pos | None) -> Feature:
        if name in self.schema:
            return self.schema[name]
        names = list(self.schema.names)
        msg = f"unknown feature {name!r}"
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        if not close:
            lower = {n.lower(): n for n in names}
            if name.lower() in lower:
                close = [lower[name.lower()]]
        if close:
            msg += f"; did you mean {close[0]!r}?"
        else:
            msg += f" (features: {', '.join(names[:8])}{', ...' if len(names) > 8 else ''})"
        raise _err(PLAFNameError, msg, pos)

    # --- types: "num", "bool", "str" (a literal), ("cat", Feature)
    def typeof(self, e: Expr) -> Any:
        if isinstance(e, Num):
            return "num"
        if isinstance(e, Str):
            return "str"
        if isinstance(e, Bool):
            return "bool"
        if isinstance(e, Ref):
            f = self.feature(e.name, e.pos)
            return "num" if f.is_numeric else ("cat", f)
        if isinstance(e, (Neg, Abs)):
            self.expect_num(e.operand, "-" if isinstance(e, Neg) else "abs()")
            return "num"
        if isinstance(e, BinOp):
            self.expect_num(e.left, e.op)
            self.expect_num(e.right, e.op)
            return "num"
        if isinstance(e, Compare):
            self.compare(e)
            return "bool"
        if isinstance(e, InSet):
            self.in_set(e)
            return "bool"
        if isinstance(e, Not):
            self.expect_bool(e.operand, "'not'")
            return "bool"
        if isinstance(e, BoolOp):
            self.expect_bool(e.left, f"'{e.op}'")
            self.expect_bool(e.right, f"'{e.op}'")
            return "bool"
        raise TypeError(f"not a PLAF expression: {e!r}")  # pragma: no cover

    @staticmethod
    def describe(e: Expr, t: Any) -> str:
        if isinstance(t, tuple):
            return f"{t[1].kind} feature {t[1].name!r}"
        if t == "str":
            return f"the string {e}"
        if t == "bool":
            return "a condition"
        if isinstance(e, Ref):
            return f"numeric feature {e.name!r}"
        return "a number"

    def expect_num(self, e: Expr, op: str) -> None:
        t = self.typeof(e)
        if t != "num":
            raise _err(PLAFTypeError, f"arithmetic ({op}) on {self.describe(e, t)}", e.pos)

    def expect_bool(self, e: Expr, where: str) -> None:
        t = self.typeof(e)
        if t != "bool":
            hint = ""
            if isinstance(e, Ref):
                hint = f"; compare it, e.g. {e} == ..."
            raise _err(
                PLAFTypeError, f"{where} needs a condition, got {self.describe(e, t)}{hint}", e.pos
            )

    def compare(self, e: Compare) -> None:
        lt = "lit" if isinstance(e.left, (Str, Bool)) else self.typeof(e.left)
        rt = "lit" if isinstance(e.right, (Str, Bool)) else self.typeof(e.right)
        ordered_op = e.op not in ("==", "!=")
        for side, t in ((e.left, lt), (e.right, rt)):
            if t == "bool":
                raise _err(
                    PLAFTypeError,
                    f"cannot compare a condition with {e.op!r}; combine conditions with and/or/not",
                    side.pos,
                )
        if lt == "num" and rt == "num":
            return
        cats = [(s, t[1]) for s, t in ((e.left, lt), (e.right, rt)) if isinstance(t, tuple)]
        if len(cats) == 2:
            (_, f), (_, g) = cats
            if f.categories != g.categories:
                raise _err(
                    PLAFTypeError,
                    f"cannot compare {f.kind} feature {f.name!r} with {g.kind} feature {g.name!r}: "
                    "they have different categories",
                    e.pos,
                )
            if ordered_op and f.kind != "ordinal":
                raise _err(
                    PLAFTypeError,
                    f"{e.op!r} on unordered categorical feature {f.name!r}; use == or != or 'in'",
                    e.pos,
                )
            return
        if len(cats) == 1:
            side, f = cats[0]
            other = e.right if side is e.left else e.left
            ot = rt if side is e.left else lt
            if ot == "lit" or (isinstance(other, Num) and ot == "num" and self._num_cats(f)):
                if isinstance(other, Bool) and not any(isinstance(c, bool) for c in f.categories or ()):
                    raise _err(
                        PLAFTypeError,
                        f"comparing {f.kind} feature {f.name!r} with {other}; write a category "
                        f"such as {format_string(str(f.categories[0])) if f.categories else '...'}",
                        other.pos,
                    )
                category_code(f, other)  # type: ignore[arg-type]
                if ordered_op and f.kind != "ordinal":
                    raise _err(
                        PLAFTypeError,
                        f"{e.op!r} on unordered categorical feature {f.name!r}; use == or != or 'in'",
                        e.pos,
                    )
                return
            raise _err(
                PLAFTypeError,
                f"comparing {f.kind} feature {f.name!r} with {self.describe(other, ot)}"
                + ("; write the category as a string" if ot == "num" else ""),
                other.pos,
            )
        # no categorical side: num vs literal, or literal vs literal
        for side, t in ((e.left, lt), (e.right, rt)):
            if t == "lit":
                other = e.right if side is e.left else e.left
                ot = rt if side is e.left else lt
                what = "a string" if isinstance(side, Str) else str(side)
                if ot == "num":
                    raise _err(
                        PLAFTypeError,
                        f"comparing {self.describe(other, ot)} with {what}",
                        side.pos,
                    )
                raise _err(
                    PLAFTypeError,
                    f"{what} can only be compared with a categorical feature",
                    side.pos,
                )
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _num_cats(f: Feature) -> bool:
        return any(
            isinstance(c, (int, float)) and not isinstance(c, bool) for c in f.categories or ()
        )

    def in_set(self, e: InSet) -> None:
        t = self.typeof(e.operand)
        if t == "num":
            for item in e.items:
                if not isinstance(item, Num):
                    raise _err(
                        PLAFTypeError,
                        f"set of numbers for {self.describe(e.operand, t)} contains {item}",
                        item.pos,
                    )
            return
        if isinstance(t, tuple):
            f = t[1]
            for item in e.items:
                if isinstance(item, Num) and not self._num_cats(f):
                    raise _err(
                        PLAFTypeError,
                        f"comparing {f.kind} feature {f.name!r} with a number; write the category "
                        "as a string",
                        item.pos,
                    )
                category_code(f, item)
            return
        raise _err(
            PLAFTypeError,
            f"'in' needs a feature or a number on its left, got {self.describe(e.operand, t)}",
            e.operand.pos,
        )


def _names_pos(stmt: Any, i: int) -> Pos | None:
    return stmt.name_pos[i] if i < len(stmt.name_pos) else stmt.pos


def _group_label(g: tuple[str, ...]) -> str:
    return g[0] if len(g) == 1 else "(" + ", ".join(g) + ")"


def check(program: Program, schema_or_dataframe: Schema | pd.DataFrame) -> Program:
    """Check ``program`` against a schema and return a new Program carrying the schema and the
    :class:`Analysis`. Raises a :class:`PLAFError` subclass, positioned, on the first problem."""
    schema = to_schema(schema_or_dataframe)
    try:
        analysis = _analyse(program, schema)
    except PLAFError as e:
        raise e.with_context(program.filename, program.text) from None
    return replace(program, schema=schema, analysis=analysis)


def _analyse(program: Program, schema: Schema) -> Analysis:
    ck = _Checker(schema)
    declared: list[tuple[str, ...]] = []
    where: dict[str, tuple[int, int]] = {}  # feature -> (group number, line) of its first group
    rules: list[tuple[Statement, Expr]] = []
    imps: list[Implication] = []

    for stmt in program.statements:
        if isinstance(stmt, (Group, Fixed, Increasing, Decreasing)):
            seen: set[str] = set()
            for i, name in enumerate(stmt.names):
                pos = _names_pos(stmt, i)
                f = ck.feature(name, pos)
                if name in seen:
                    raise _err(
                        PLAFNameError, f"{name!r} is named twice in this '{stmt.keyword}'", pos
                    )
                seen.add(name)
                if isinstance(stmt, Group):
                    if name in where:
                        gi, line = where[name]
                        raise _err(
                            PLAFNameError,
                            f"feature {name!r} is already in group "
                            f"{_group_label(declared[gi])} (line {line}); a feature belongs to "
                            "exactly one group",
                            pos,
                        )
                elif isinstance(stmt, (Increasing, Decreasing)) and not f.is_ordered:
                    raise _err(
                        PLAFTypeError,
                        f"'{stmt.keyword}' on unordered categorical feature {name!r}",
                        pos,
                    )
                if not isinstance(stmt, Group):
                    op = {"fixed": "==", "increasing": ">=", "decreasing": "<="}[stmt.keyword]
                    rules.append(
                        (stmt, Compare(op, Ref("cf", name, pos=pos), Ref("x", name, pos=pos), pos=pos))
                    )
            if isinstance(stmt, Group):
                for name in stmt.names:
                    where[name] = (len(declared), stmt.pos[0] if stmt.pos else 0)
                declared.append(stmt.names)
        elif isinstance(stmt, Rule):
            ck.expect_bool(stmt.expr, "a rule")
            if not cf_features(stmt.expr):
                raise _err(
                    PLAFValueError,
                    "this rule mentions no cf feature: after grounding on x it is always true or "
                    "always false",
                    stmt.pos,
                )
            rules.append((stmt, stmt.expr))
        elif isinstance(stmt, Implication):
            ck.expect_bool(stmt.condition, "the condition of 'if'")
            ck.expect_bool(stmt.consequence, "the consequence ('then')")
            if not cf_features(stmt.consequence):
                raise _err(
                    PLAFValueError,
                    "the consequence mentions no cf feature: there is nothing to change when the "
                    "condition holds",
                    stmt.consequence.pos,
                )
            imps.append(stmt)
        else:  # pragma: no cover
            raise TypeError(f"not a PLAF statement: {stmt!r}")

    groups = list(declared)
    groups += [(n,) for n in schema.names if n not in where]
    gidx = {n: i for i, g in enumerate(groups) for n in g}

    rule_infos = []
    for stmt, expr in rules:
        feats = cf_features(expr)
        rule_infos.append(RuleInfo(stmt, expr, feats, frozenset(gidx[f] for f in feats)))

    imp_infos = []
    for imp in imps:
        cfeat = cf_features(imp.condition)
        qfeat = cf_features(imp.consequence)
        qgroups = sorted({gidx[f] for f in qfeat})
        if len(qgroups) > 1:
            labels = " and ".join(_group_label(groups[g]) for g in qgroups)
            raise _err(
                PLAFCycleError,
                f"the consequence of an implication must constrain one group, but it changes "
                f"{labels}; declare them as one group or split the implication",
                imp.consequence.pos,
            )
        cgroups = frozenset(gidx[f] for f in cfeat)
        if qgroups[0] in cgroups:
            raise _err(
                PLAFCycleError,
                f"the condition and the consequence both constrain group "
                f"{_group_label(groups[qgroups[0]])}: a group cannot depend on itself (cycle "
                f"{_group_label(groups[qgroups[0]])} -> {_group_label(groups[qgroups[0]])}); "
                f"write it as a rule instead: not ({imp.condition}) or ({imp.consequence})",
                imp.pos,
            )
        imp_infos.append(ImplicationInfo(imp, cfeat, cgroups, qfeat, qgroups[0]))

    ordered = _topological(imp_infos, groups)
    return Analysis(schema, tuple(groups), gidx, tuple(rule_infos), tuple(ordered))


def _topological(
    imps: list[ImplicationInfo], groups: list[tuple[str, ...]]
) -> list[ImplicationInfo]:
    """Kahn's algorithm over implications: I comes after every J whose consequence group is one
    of I's condition groups (ties broken by source order). A cycle raises PLAFCycleError."""
    n = len(imps)
    deps = [
        {j for j in range(n) if imps[j].group in imps[i].condition_groups} for i in range(n)
    ]
    users: list[set[int]] = [set() for _ in range(n)]
    for i, d in enumerate(deps):
        for j in d:
            users[j].add(i)
    remaining = [len(d) for d in deps]
    heap = [i for i in range(n) if remaining[i] == 0]
    heapq.heapify(heap)
    order: list[int] = []
    while heap:
        j = heapq.heappop(heap)
        order.append(j)
        for i in users[j]:
            remaining[i] -= 1
            if remaining[i] == 0:
                heapq.heappush(heap, i)
    if len(order) == n:
        return [imps[i] for i in order]
    # find a cycle among the rest, over implications: i -> j means i depends on j
    left = set(range(n)) - set(order)
    start = min(left)
    path, seen_at = [start], {start: 0}
    while True:
        nxt = min(j for j in deps[path[-1]] if j in left)
        if nxt in seen_at:
            cycle = path[seen_at[nxt] :]
            break
        seen_at[nxt] = len(path)
        path.append(nxt)
    # cycle[k] depends on cycle[k+1]: group chain cycle[-1].group -> ... -> cycle[0].group
    chain = [imps[i].group for i in reversed(cycle)]
    chain.append(chain[0])
    names = " -> ".join(_group_label(groups[g]) for g in chain)
    last = max(cycle)  # report at the implication that closes the cycle in the file
    raise _err(
        PLAFCycleError,
        f"implications form a cycle: {names}; the action cascade needs an order in which "
        "each consequence is repaired after everything its condition reads",
        imps[last].statement.pos,
    )
