"""Property tests: the round trip on generated programs; the vectorised predicates agreeing
with the reference evaluator on random programs and random candidates; and fuzzing: mutated
example programs, bytes that are not UTF-8, huge numbers and long lines raise nothing but
PLAFError."""

from __future__ import annotations

import functools
from collections import Counter

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from geco import datasets
from geco.search import kernels
from plaf_grammar import PLAFError, PLAFSyntaxError, Schema, holds, load, parse
from plaf_grammar.ast import (
    Abs,
    BinOp,
    Bool,
    BoolOp,
    Compare,
    Cost,
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
from plaf_grammar.ground import ground
from plaf_grammar.programs import RulePrograms, evaluate

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
#: features of a cost statement, among them names that are words of that statement
cost_names = st.lists(st.one_of(names, st.sampled_from(["up", "down", "cost"])), min_size=1, max_size=3).map(tuple)
statements = st.one_of(
    st.builds(Group, name_lists),
    st.builds(Fixed, name_lists),
    st.builds(Increasing, name_lists),
    st.builds(Decreasing, name_lists),
    st.builds(Cost, cost_names, direction=st.sampled_from([None, "up", "down"]), value=numbers),
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


def test_vectorised_predicates_agree_with_reference():
    seen: Counter[str] = Counter()  # what the examples exercised, asserted at the end

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(programs(), rows(1), rows(25))
    def agree(program, xs, cands):
        try:
            p = load(str(program), SCHEMA)
        except PLAFError:  # e.g. a rule whose cf features all fell into x refs
            assume(False)
        x = xs[0]
        cols = _cols(_frame(cands))
        g = p.ground(x)
        want = _reference(p, x, cands)
        assert g.check(cols).tolist() == want, str(p)
        seen["programs"] += 1
        # every grounded test as a rule program: the numpy run and the compiled one agree with it
        tests = [f for f in g.group_filters if f is not None] + list(g.cross_rules)
        tests += [t for i in g.implications for t in (i.condition, i.consequence)]
        if tests:
            rows_ = SCHEMA.encode(_frame(cands))
            progs = RulePrograms.of([t.expr for t in tests], SCHEMA)
            for j, t in enumerate(tests):
                assert evaluate(progs, j, rows_).tolist() == t(cols).tolist(), str(t)
                got = kernels.holds(progs.code, progs.constants, progs.starts, progs.depth, j, rows_)
                assert got.tolist() == t(cols).tolist(), str(t)
                seen["rule programs"] += 1
        seen["mixed verdicts"] += any(want) and not all(want)
        # each statement alone: its single piece (group filter, implication or cross rule) agrees
        statements = p.program.statements
        groups_text = "".join(f"{s}\n" for s in statements if isinstance(s, Group))
        for s in (s for s in statements if not isinstance(s, Group)):
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
            seen["statements"] += 1
            for i in gs.implications:  # the consequence reads only its group's columns
                group_cols = {n: cols[n] for n in sub.groups[i.group]}
                assert (i.consequence(group_cols) == i.consequence(cols)).all()
                seen["implications"] += 1
            for gi, f in enumerate(gs.group_filters):
                if f is not None:
                    group_cols = {n: cols[n] for n in sub.groups[gi]}
                    assert (f(group_cols) == f(cols)).all()
                    seen["group filters"] += 1
            seen["cross rules"] += len(gs.cross_rules)

    agree()
    kinds = ("programs", "mixed verdicts", "statements", "implications", "group filters", "cross rules", "rule programs")
    assert all(seen[k] > 0 for k in kinds), seen


def _pieces(g, cols) -> list[tuple[str, list[bool]]]:
    """Every piece of a grounded program, printed and evaluated on ``cols``, in order."""
    out = [(f"group {i}: {f}", f(cols).tolist()) for i, f in enumerate(g.group_filters) if f is not None]
    out += [(f"cross: {r}", r(cols).tolist()) for r in g.cross_rules]
    out += [(f"implication -> {i.group}: {i}", (~i.condition(cols) | i.consequence(cols)).tolist()) for i in g.implications]
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(programs(), st.lists(st.tuples(st.sampled_from([*NUM_VALUES, -0.0]), st.sampled_from([-1, 0, 2]),
                                      st.sampled_from(CATS["o"]), st.sampled_from(CATS["c"])), min_size=2, max_size=8),
       rows(12))  # fmt: skip
def test_grounding_memo_gives_what_grounding_again_gives(program, xs, cands):
    """A checked program grounds rules met before with the same x values from its memo: every
    instance, in any order (values repeating, 0.0 and -0.0 among them), grounds to the pieces
    grounding from scratch gives - the same printed rules in the same places, the same verdicts."""
    try:
        p = load(str(program), SCHEMA)
    except PLAFError:
        assume(False)
    cols = _cols(_frame(cands))
    for a, b, o, c in xs:
        x = {"a": float(a), "b": b, "o": o, "c": c, "n-q": -float(a)}
        fresh = ground(p.analysis, x)
        assert _pieces(p.ground(x), cols) == _pieces(fresh, cols), str(p)


# ------------------------------------------------------------------------------ fuzz
NAMES = ("adult", "credit", "compas")
TOKENS = [
    "cf.", "x.", "(", ")", "{", "}", ",", ";", "\n", '"', "if ", " then ", " and ", " or ",
    "not ", " in ", "==", "<", ">=", "!=", "-", "+", "*", "/", "0", "4", "1e3", "abs(",
    "group ", "fixed ", "increasing ", "true", "age", "sex", '"Male"', "AgeGroup", "#", "\\",
    "education", "Race", "x.age", "cf.age", "isMale", "@", "\t", "é", "\r", "\x0c", "\u2028",
    "9" * 400, "1e999", "0" * 5000 + "1", "-" * 150,
]  # fmt: skip
NOT_UTF8 = [b"\xff", b"\xfe", b"\xc0", b"\x80", b"\xc3", b"\xe9", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]


@functools.cache
def data(name: str):
    return datasets.load_dataset(name)


@functools.cache
def example_text(name: str) -> str:
    return data(name).constraints.read_text(encoding="utf-8")


@st.composite
def mutations(draw, max_steps: int = 4):
    """An example program with a few random edits (deletions, tokens, bytes, duplications)."""
    name = draw(st.sampled_from(NAMES))
    text = example_text(name)
    for _ in range(draw(st.integers(1, max_steps))):
        i = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["delete", "insert", "byte", "dup"]))
        if kind == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 12)) :]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        elif kind == "byte":
            b = bytes([draw(st.integers(0, 255))]).decode("latin-1")
            text = text[:i] + b + text[i + 1 :]
        else:
            j = draw(st.integers(i, min(len(text), i + 40)))
            text = text[:j] + text[i:j] + text[j:]
    return name, text


def _loads_or_plaf_error(source, name: str, rows: int = 30) -> bool:
    """Load ``source`` against the data set; a good program round-trips and its vectorised
    check agrees with the reference evaluator. Returns whether it loaded."""
    ds = data(name)
    try:
        p = load(source, ds.X)
    except PLAFError as e:
        assert str(e).startswith("<string>")  # formatting never fails either
        return False
    assert parse(str(p)) == p.program
    sample = ds.X.iloc[:rows]
    g = p.ground(sample.iloc[0])
    got = g.check(dict(zip(p.schema.names, p.schema.encode(sample).T)))
    assert got.dtype == np.bool_ and got.shape == (rows,)
    assert got.tolist() == [holds(p, sample.iloc[0], sample.iloc[j]) for j in range(rows)]
    return True


def test_fuzz_mutated_examples_raise_only_plaf_error():
    outcomes: Counter[bool] = Counter()

    @settings(max_examples=100, deadline=None)
    @given(mutations())
    def fuzz(case):
        name, text = case
        outcomes[_loads_or_plaf_error(text, name)] += 1

    fuzz()
    assert outcomes[True] > 0 and outcomes[False] > 0, outcomes


def test_fuzz_bytes_that_are_not_utf8_fail_where_they_are():
    @settings(max_examples=100, deadline=None)
    @given(mutations(max_steps=2), st.data())
    def fuzz(case, draw):
        name, text = case
        i = draw.draw(st.integers(0, len(text)))
        bad = draw.draw(st.sampled_from(NOT_UTF8))
        data_ = text[:i].encode() + bad + text[i:].encode()
        try:
            load(data_, data(name).X)
        except PLAFSyntaxError as e:
            prefix = text[:i]
            assert (e.line, e.column) == (prefix.count("\n") + 1, len(prefix) - prefix.rfind("\n"))
            assert "not valid UTF-8" in e.message and str(e).startswith("<string>")
            return
        raise AssertionError("bytes that are not UTF-8 were accepted")

    fuzz()


def test_fuzz_random_bytes_and_long_lines_raise_only_plaf_error():
    outcomes: Counter[str] = Counter()

    @settings(max_examples=40, deadline=None)
    @given(
        st.one_of(
            st.binary(max_size=300),
            st.lists(st.sampled_from(TOKENS), max_size=40).map(lambda ts: "".join(ts).encode()),
            st.tuples(st.sampled_from(TOKENS), st.integers(200, 2000)).map(
                lambda t: ("cf.age > 1 " + t[0] * t[1]).encode()  # one long line
            ),
        )
    )
    def fuzz(source):
        try:
            parse(source)
        except PLAFError as e:
            assert str(e).startswith("<string>") and max(map(len, str(e).split("\n")[1:]), default=0) < 120
            outcomes["error"] += 1
            return
        outcomes["parsed"] += 1
        _loads_or_plaf_error(source, "adult", rows=5)

    fuzz()
    assert outcomes["error"] > 0 and outcomes["parsed"] > 0, outcomes
