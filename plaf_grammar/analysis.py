"""Where each statement of a PLAF program acts, decided once per program and schema.

* ``fixed`` / ``increasing`` / ``decreasing`` become one rule per feature;
* a rule whose ``cf`` features lie in one group filters that group's feasible values;
* a rule spanning several groups is a candidate-level filter (slower: it is evaluated on every
  candidate instead of once on the sample space);
* an implication whose consequence lies in one group is repaired by the action cascade;
  these are ordered topologically over the group dependency graph (condition groups ->
  consequence group), and a cycle is an error;
* an implication whose consequence spans several groups has no single group to redraw: it acts
  as the rule ``not condition or consequence`` (a candidate-level rule, outside the cascade's
  order, so it adds no edge to the dependency graph);
* ``cost`` statements become one price per feature and direction (:mod:`plaf_grammar.costs`).

Every declared feature must exist and every expression must type-check (``typecheck.py``);
problems raise a positioned :class:`PLAFError`.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any

from plaf_grammar.ast import (
    BoolOp,
    Compare,
    Cost,
    Expr,
    Group,
    Implication,
    Not,
    Program,
    Ref,
    Rule,
    SourceRule,
    Statement,
    cf_features,
)
from plaf_grammar.costs import FeatureCosts, cost_problem
from plaf_grammar.errors import PLAFCycleError, PLAFNameError, PLAFTypeError, PLAFValueError
from plaf_grammar.schema import Schema
from plaf_grammar.typecheck import TypeChecker, error_at, order_hint
from plaf_grammar.visitor import Visitor

__all__ = ["Analysis", "ImplicationInfo", "RuleInfo", "analyse", "as_rule"]


@dataclass(frozen=True)
class RuleInfo:
    """A rule every counterfactual must satisfy, with the groups its ``cf`` features lie in.
    ``statement`` is the statement it comes from (an :class:`Implication` whose consequence spans
    several groups gives the rule ``not condition or consequence``)."""

    statement: Statement
    expr: Expr
    features: tuple[str, ...]
    groups: frozenset[int]
    source: SourceRule


@dataclass(frozen=True)
class ImplicationInfo:
    """An implication with its condition groups and the single group of its consequence."""

    statement: Implication
    condition_features: tuple[str, ...]
    condition_groups: frozenset[int]
    consequence_features: tuple[str, ...]
    group: int
    source: SourceRule


@dataclass(frozen=True)
class Analysis:
    """The result of checking: groups (every feature in exactly one; declared groups first, then
    each other feature alone in schema order), rules (with the implications whose consequence
    spans several groups), the other implications in topological order, and
    what changing each feature costs (1 everywhere without ``cost`` statements)."""

    schema: Schema
    groups: tuple[tuple[str, ...], ...]
    group_index: dict[str, int]
    rules: tuple[RuleInfo, ...]
    implications: tuple[ImplicationInfo, ...]
    costs: FeatureCosts


def _group_label(g: tuple[str, ...]) -> str:
    return g[0] if len(g) == 1 else "(" + ", ".join(g) + ")"


class _Statements(Visitor[None]):
    """First pass over the statements: names, types, declared groups; collects the rules (with
    ``fixed``-style statements spelled out) and the implications."""

    def __init__(self, schema: Schema) -> None:
        self.types = TypeChecker(schema)
        self.declared: list[tuple[str, ...]] = []
        self.where: dict[str, tuple[int, int]] = {}  # feature -> (group number, line)
        self.rules: list[tuple[Statement, Expr]] = []
        self.implications: list[Implication] = []
        self.costs: list[Cost] = []
        self.priced: dict[tuple[str, str], int] = {}  # (feature, direction) -> line of its cost

    def names(self, stmt: Any) -> None:
        seen: set[str] = set()
        for i, name in enumerate(stmt.names):
            pos = stmt.name_position(i)
            f = self.types.feature(name, pos)
            if name in seen:
                raise error_at(PLAFNameError, f"{name!r} is named twice in this '{stmt.keyword}'", pos)
            seen.add(name)
            if isinstance(stmt, Group):
                if name in self.where:
                    gi, line = self.where[name]
                    raise error_at(
                        PLAFNameError,
                        f"feature {name!r} is already in group {_group_label(self.declared[gi])} "
                        f"(line {line}); a feature belongs to exactly one group",
                        pos,
                    )
                continue
            if stmt.op != "==" and not f.is_ordered:
                raise error_at(
                    PLAFTypeError,
                    f"'{stmt.keyword}' on unordered categorical feature {name!r}; {order_hint(name)}",
                    pos,
                )
            expr = Compare(stmt.op, Ref("cf", name, pos=pos), Ref("x", name, pos=pos), pos=pos)
            self.rules.append((stmt, expr))

    def Group(self, stmt: Group) -> None:
        self.names(stmt)
        for name in stmt.names:
            self.where[name] = (len(self.declared), stmt.pos[0] if stmt.pos else 0)
        self.declared.append(stmt.names)

    Fixed = Increasing = Decreasing = names

    def Cost(self, stmt: Cost) -> None:
        seen: set[str] = set()
        directions = (stmt.direction,) if stmt.direction else ("up", "down")
        line = stmt.pos[0] if stmt.pos else 0
        for i, name in enumerate(stmt.names):
            pos = stmt.name_position(i)
            f = self.types.feature(name, pos)
            if name in seen:
                raise error_at(PLAFNameError, f"{name!r} is named twice in this 'cost'", pos)
            seen.add(name)
            if stmt.direction and not f.is_ordered:
                raise error_at(
                    PLAFTypeError,
                    f"'cost {stmt.direction}' on unordered categorical feature {name!r}: a change of "
                    f"category has no direction; write 'cost {name} {stmt.value}', or {order_hint(name)}",
                    pos,
                )
            for d in directions:
                if (name, d) in self.priced:
                    both = "" if stmt.direction else " (a plain 'cost' prices both directions)"
                    raise error_at(
                        PLAFNameError,
                        f"the cost of changing {name!r} {d} is already given on line "
                        f"{self.priced[(name, d)]}; give each feature and direction one cost{both}",
                        pos,
                    )
        why = cost_problem(stmt.value)
        if why:
            raise error_at(PLAFValueError, why, stmt.value_pos or stmt.pos)
        for name in stmt.names:
            for d in directions:
                self.priced[(name, d)] = line
        self.costs.append(stmt)

    def Rule(self, stmt: Rule) -> None:
        self.types.expect_bool(stmt.expr, "a rule")
        if not cf_features(stmt.expr):
            raise error_at(
                PLAFValueError,
                "this rule mentions no cf feature: after grounding on x it is always true or "
                "always false",
                stmt.pos,
            )
        self.rules.append((stmt, stmt.expr))

    def Implication(self, stmt: Implication) -> None:
        self.types.expect_bool(stmt.condition, "the condition of 'if'")
        self.types.expect_bool(stmt.consequence, "the consequence ('then')")
        if not cf_features(stmt.consequence):
            raise error_at(
                PLAFValueError,
                "the consequence mentions no cf feature: there is nothing to change when the "
                "condition holds",
                stmt.consequence.pos,
            )
        self.implications.append(stmt)


def analyse(program: Program, schema: Schema) -> Analysis:
    """Check ``program`` against ``schema`` and decide where each statement acts. Raises a
    :class:`PLAFError` subclass (without file context; ``check`` adds it)."""
    st = _Statements(schema)
    for stmt in program.statements:
        st.visit(stmt)

    groups = list(st.declared)
    groups += [(n,) for n in schema.names if n not in st.where]
    gidx = {n: i for i, g in enumerate(groups) for n in g}

    rule_infos = []
    for stmt, expr in st.rules:
        feats = cf_features(expr)
        rule_infos.append(
            RuleInfo(stmt, expr, feats, frozenset(gidx[f] for f in feats), program.source_rule(stmt))
        )

    imp_infos = []
    for imp in st.implications:
        cfeat = cf_features(imp.condition)
        qfeat = cf_features(imp.consequence)
        qgroups = sorted({gidx[f] for f in qfeat})
        if len(qgroups) > 1:
            expr = as_rule(imp)
            feats = cf_features(expr)
            groups_of = frozenset(gidx[f] for f in feats)
            rule_infos.append(RuleInfo(imp, expr, feats, groups_of, program.source_rule(imp)))
            continue
        cgroups = frozenset(gidx[f] for f in cfeat)
        if qgroups[0] in cgroups:
            label = _group_label(groups[qgroups[0]])
            raise error_at(
                PLAFCycleError,
                f"the condition and the consequence both constrain group {label}: a group cannot "
                f"depend on itself (cycle {label} -> {label}); write it as a rule instead: "
                f"not ({imp.condition}) or ({imp.consequence})",
                imp.pos,
            )
        imp_infos.append(
            ImplicationInfo(imp, cfeat, cgroups, qfeat, qgroups[0], program.source_rule(imp))
        )

    ordered = _topological(imp_infos, groups)
    costs = _feature_costs(program, schema, st.costs)
    return Analysis(schema, tuple(groups), gidx, tuple(rule_infos), tuple(ordered), costs)


def as_rule(imp: Implication) -> Expr:
    """``if C then Q`` as the rule ``not C or Q``: how an implication whose consequence spans
    several groups acts (no single group can be redrawn to repair it)."""
    return BoolOp("or", Not(imp.condition, pos=imp.pos), imp.consequence, pos=imp.pos)


def _feature_costs(program: Program, schema: Schema, statements: list[Cost]) -> FeatureCosts:
    """The checked ``cost`` statements as one price per feature and direction (1 elsewhere)."""
    up = dict.fromkeys(schema.names, 1.0)
    down = dict(up)
    for stmt in statements:
        for name in stmt.names:
            if stmt.direction != "down":
                up[name] = float(stmt.value)
            if stmt.direction != "up":
                down[name] = float(stmt.value)
    rules = tuple(program.source_rule(s) for s in statements)
    return FeatureCosts(schema.names, tuple(up.values()), tuple(down.values()), rules)


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
    raise error_at(
        PLAFCycleError,
        f"implications form a cycle: {names}; the action cascade needs an order in which "
        "each consequence is repaired after everything its condition reads",
        imps[last].statement.pos,
    )
