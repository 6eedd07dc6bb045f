"""Property tests: the round trip on generated programs, and the vectorised predicates agreeing
with the reference evaluator on random programs and random candidates."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from plaf_grammar import PLAFError, Schema, holds, load, parse
from plaf_grammar.ast import (
    Abs,
    BinOp,
    Bool,
    BoolOp,
    Compare,
    Decreasing,
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

# ------------------------------------------------------------------------------ round trip
names = st.one_of(
    st.sampled_from(["a", "b_2", "group", "x", "cf", "age"]),
    st.text(min_size=1, max_size=6),  # anything, quoted when printed
)
numbers = st.one_of(
    st.integers(-1000, 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
)
literals = st.one_of(
    numbers.map(Num), st.text(max_size=5).map(Str), st.booleans().map(Bool)
)
refs = st.builds(Ref, st.sampled_from(["cf", "x"]), names)


def _neg(e):
    """Negation as the parser builds it: a negative literal is a number."""
    return Num(-e.value) if isinstance(e, Num) else Neg(e)


def _extend(children):
    return st.one_of(
        children.map(_neg),  # the parser folds -NUMBER into a number
        st.builds(Abs, children),
        st.builds(BinOp, st.sampled_from(["+", "-", "*", "/"]), children, children),
        st.builds(Compare, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), children, children),
        st.builds(InSet, children, st.lists(literals, min_size=1, max_size=3).map(tuple), st.booleans()),
        st.builds(Not, children),
        st.builds(BoolOp, st.sampled_from(["and", "or"]), children, children),
    )


any_expr = st.recursive(st.one_of(literals, refs), _extend, max_leaves=12)
name_lists = st.lists(names, min_size=1, max_size=3).map(tuple)
statements = st.one_of(
    st.builds(Group, name_lists),
    st.builds(Fixed, name_lists),
    st.builds(Increasing, name_lists),
    st.builds(Decreasing, name_lists),
    st.builds(Rule, any_expr),
    st.builds(Implication, any_expr, any_expr),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(statements, max_size=5).map(tuple))
def test_round_trip_generated_programs(stmts):
    program = Program(stmts)
    text = str(program)
    again = parse(text)
    assert again == program, text
    assert str(again) == text


# ------------------------------------------------------------------------------ agreement
CATS = {"o": ("lo", "mid", "hi"), "c": ("red", "green", "blue")}
NUMERIC = ("a", "b", "n-q")  # n-q needs quoting
FEATURES = ("a", "b", "o", "c", "n-q")
NUM_VALUES = [-2, -1, 0, 0.5, 1, 2, 3]


def _schema() -> Schema:
    df = pd.DataFrame(
        {
            "a": [0.0, 1.0],
            "b": [0, 1],
            "o": pd.Categorical(["lo", "hi"], categories=list(CATS["o"]), ordered=True),
            "c": pd.Categorical(["red", "blue"], categories=list(CATS["c"])),
            "n-q": [0.5, 1.5],
        }
    )
    return Schema.from_dataframe(df)


SCHEMA = _schema()


@functools.cache
def num_expr(feats: tuple[str, ...]):
    numeric = [f for f in feats if f in NUMERIC]
    leaves = [st.sampled_from(NUM_VALUES).map(Num), st.sampled_from(NUMERIC).map(lambda n: Ref("x", n))]
    if numeric:
        leaves.append(st.sampled_from(numeric).map(lambda n: Ref("cf", n)))
    return st.recursive(
        st.one_of(*leaves),
        lambda ch: st.one_of(
            ch.map(_neg),
            st.builds(Abs, ch),
            st.builds(BinOp, st.sampled_from(["+", "-", "*", "/"]), ch, ch),
        ),
        max_leaves=4,
    )


@functools.cache
def cat_atom(feats: tuple[str, ...]):
    """A comparison or membership test on a categorical/ordinal feature."""
    cats = [f for f in feats if f in CATS]

    @st.composite
    def build(draw):
        f = draw(st.sampled_from(cats))
        kind = draw(st.sampled_from(["cf", "x"])) if len(cats) else "cf"
        left = Ref("cf", f)
        right = draw(
            st.one_of(st.sampled_from(CATS[f]).map(Str), st.just(Ref("x", f)))
        )
        ops = ["==", "!=", "<", "<=", ">", ">="] if f == "o" else ["==", "!="]
        if draw(st.booleans()):
            items = draw(st.lists(st.sampled_from(CATS[f]), min_size=1, max_size=3, unique=True))
            return InSet(left, tuple(Str(i) for i in items), draw(st.booleans()))
        op = draw(st.sampled_from(ops))
        if kind == "x" and draw(st.booleans()):
            left, right = right, left
        return Compare(op, left, right)

    return build()


@functools.cache
def bool_expr(feats: tuple[str, ...]):
    atoms = [
        st.builds(Compare, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), num_expr(feats), num_expr(feats)),
        st.builds(
            InSet,
            num_expr(feats),
            st.lists(st.sampled_from(NUM_VALUES).map(Num), min_size=1, max_size=3).map(tuple),
            st.booleans(),
        ),
    ]
    if any(f in CATS for f in feats):
        atoms.append(cat_atom(feats))
    return st.recursive(
        st.one_of(*atoms),
        lambda ch: st.one_of(st.builds(Not, ch), st.builds(BoolOp, st.sampled_from(["and", "or"]), ch, ch)),
        max_leaves=4,
    )


@st.composite
def programs(draw):
    """A well-typed program: random groups, rules, fixed/increasing/decreasing, and acyclic
    implications (condition groups come before the consequence group in a random order)."""
    feats = list(FEATURES)
    perm = draw(st.permutations(feats))
    cut = draw(st.integers(0, 3))
    declared = [tuple(perm[:2])] if cut >= 2 else []
    if cut == 3:
        declared.append(tuple(perm[2:4]))
    grouped = {f for g in declared for f in g}
    groups = declared + [(f,) for f in feats if f not in grouped]
    order = draw(st.permutations(range(len(groups))))
    stmts: list = [Group(g) for g in declared]
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["rule", "rule", "imp", "imp", "fixed", "inc", "dec"]))
        if kind == "rule":
            stmts.append(Rule(draw(bool_expr(FEATURES))))
        elif kind == "fixed":
            stmts.append(Fixed(tuple(draw(st.lists(st.sampled_from(feats), min_size=1, max_size=2, unique=True)))))
        elif kind in ("inc", "dec"):
            ordered = [f for f in feats if f != "c"]
            names_ = tuple(draw(st.lists(st.sampled_from(ordered), min_size=1, max_size=2, unique=True)))
            stmts.append(Increasing(names_) if kind == "inc" else Decreasing(names_))
        else:
            k = draw(st.integers(1, len(groups) - 1))
            target = groups[order[k]]
            before = tuple(f for j in order[:k] for f in groups[j])
            stmts.append(Implication(draw(bool_expr(before)), draw(bool_expr(target))))
    return Program(tuple(stmts))


def value_of(f: str, draw):
    if f in CATS:
        return draw(st.sampled_from(CATS[f]))
    v = draw(st.sampled_from(NUM_VALUES))
    return int(v) if f == "b" else float(v)


@st.composite
def rows(draw, n: int):
    return [{f: value_of(f, draw) for f in FEATURES} for _ in range(n)]


def _frame(rs: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rs)
    df["o"] = pd.Categorical(df["o"], categories=list(CATS["o"]), ordered=True)
    df["c"] = pd.Categorical(df["c"], categories=list(CATS["c"]))
    df["b"] = df["b"].astype(np.int64)
    return df[list(FEATURES)]


def _cols(df: pd.DataFrame) -> dict[str, np.ndarray]:
    enc = SCHEMA.encode(df)
    return {n: enc[:, j] for j, n in enumerate(SCHEMA.names)}


def _reference(program, x, cands) -> list[bool]:
    return [holds(program, x, c) for c in cands]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(programs(), rows(1), rows(25))
def test_vectorised_predicates_agree_with_reference(program, xs, cands):
    try:
        p = load(str(program), SCHEMA)
    except PLAFError:  # e.g. a rule whose cf features all fell into x refs
        assume(False)
    x = xs[0]
    df = _frame(cands)
    cols = _cols(df)
    g = p.ground(x)
    want = _reference(p, x, cands)
    assert g.check(cols).tolist() == want, str(p)
    assert g.check(df).tolist() == want  # user-form DataFrame input
    # each statement alone: its single piece (group filter, implication or cross rule) agrees
    groups_text = "".join(f"{s}\n" for s in p.statements if isinstance(s, Group))
    for s in p.statements:
        if isinstance(s, Group):
            continue
        sub = load(groups_text + f"{s}\n", SCHEMA)
        gs = sub.ground(x)
        want_s = _reference(sub, x, cands)
        pieces = [f(cols) for f in gs.group_filters if f is not None]
        pieces += [r(cols) for r in gs.cross_rules]
        pieces += [~i.condition(cols) | i.consequence(cols) for i in gs.implications]
        got = np.ones(len(cands), dtype=bool)
        for piece in pieces:
            assert piece.shape == (len(cands),) and piece.dtype == bool
            got &= piece
        assert got.tolist() == want_s, f"{s}\n{gs}"
        for i in gs.implications:  # the consequence reads only its group's columns
            group_cols = {n: cols[n] for n in sub.groups[i.group]}
            assert (i.consequence(group_cols) == i.consequence(cols)).all()
        for gi, f in enumerate(gs.group_filters):
            if f is not None:
                group_cols = {n: cols[n] for n in sub.groups[gi]}
                assert (f(group_cols) == f(cols)).all()
