"""PLAF static checks (names, types, groups, implication graph) and grounding semantics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plaf_grammar import (
    PLAFCycleError,
    PLAFError,
    PLAFNameError,
    PLAFTypeError,
    PLAFValueError,
    Schema,
    SchemaError,
    holds,
    load,
    parse,
)


def frame() -> pd.DataFrame:
    """A small data set with every kind of feature (and a name that needs quoting)."""
    return pd.DataFrame(
        {
            "age": [30, 40, 50, 20],
            "income": [1.5, 2.0, 0.0, 3.0],
            "edu": pd.Categorical(
                ["lo", "mid", "hi", "lo"], categories=["lo", "mid", "hi"], ordered=True
            ),
            "color": pd.Categorical(["red", "green", "blue", "red"]),
            "job": ["a", "b", "c", "a"],
            "capital-gain": [0, 10, 20, 30],
            "flag": [True, False, True, False],
        }
    )


@pytest.fixture(scope="module")
def schema() -> Schema:
    return Schema.from_dataframe(frame())


# ------------------------------------------------------------------------------ check errors
@pytest.mark.parametrize(
    "text, cls, line, column, fragments",
    [
        ("fixed age\ncf.agee > 3", PLAFNameError, 2, 1, ["unknown feature 'agee'", "did you mean 'age'"]),
        ("fixed Age", PLAFNameError, 1, 7, ["did you mean 'age'"]),
        ("cf.zzz > 3", PLAFNameError, 1, 1, ["unknown feature 'zzz'", "features: age"]),
        ('cf.color == "rde"', PLAFValueError, 1, 13, ['unknown category "rde"', 'did you mean "red"', "valid:"]),
        ('cf.color in {"red", "pink"}', PLAFValueError, 1, 21, ['"pink"']),
        ("group age, edu\ngroup color, edu", PLAFNameError, 2, 14, ["already in group (age, edu) (line 1)"]),
        ("group age, income, age", PLAFNameError, 1, 20, ["named twice"]),
        ("fixed age, color, age", PLAFNameError, 1, 19, ["named twice"]),
        ('cf.color < "red"', PLAFTypeError, 1, 1, ["unordered categorical feature 'color'"]),
        ("cf.color >= x.color", PLAFTypeError, 1, 1, ["unordered"]),
        ("increasing color", PLAFTypeError, 1, 12, ["unordered categorical feature 'color'"]),
        ('cf.age + "a" > 1', PLAFTypeError, 1, 10, ["arithmetic (+) on the string"]),
        ("cf.color * 2 > 1", PLAFTypeError, 1, 1, ["arithmetic (*) on categorical feature 'color'"]),
        ('cf.age == "old"', PLAFTypeError, 1, 11, ["comparing numeric feature 'age' with a string"]),
        ("cf.color == 3", PLAFTypeError, 1, 13, ["comparing categorical feature 'color' with a number"]),
        ("cf.color == cf.edu", PLAFTypeError, 1, 1, ["different categories"]),
        ("cf.age > 1 and cf.income", PLAFTypeError, 1, 16, ["needs a condition", "numeric feature 'income'"]),
        ("cf.age + 1", PLAFTypeError, 1, 1, ["a rule needs a condition"]),
        ("(cf.age > 1) == (cf.income > 2)", PLAFTypeError, 1, 2, ["cannot compare a condition"]),
        ('cf.age in {1, "a"}', PLAFTypeError, 1, 15, ["contains"]),
        ("cf.color == true", PLAFTypeError, 1, 13, ["write a category"]),
        ("x.age > 3", PLAFValueError, 1, 1, ["mentions no cf feature"]),
        ("fixed age\n  x.age > 3 or x.income < 1", PLAFValueError, 2, 3, ["no cf feature"]),
        ("if cf.age > 3 then x.age > 1", PLAFValueError, 1, 20, ["consequence mentions no cf"]),
        (
            "if cf.age > x.age then cf.income > 1 and cf.color == \"red\"",
            PLAFCycleError,
            1,
            24,
            ["must constrain one group", "income and color"],
        ),
        (
            "group age, income\nif cf.age > x.age then cf.income > 1",
            PLAFCycleError,
            2,
            1,
            ["cannot depend on itself", "(age, income) -> (age, income)"],
        ),
        (
            "if cf.age > x.age then cf.income > 1\nfixed edu\nif cf.income > 2 then cf.age > 40",
            PLAFCycleError,
            3,
            1,
            ["cycle", "age -> income -> age"],
        ),
        (
            "group edu, job\nif cf.age > 1 then cf.income > 1\nif cf.income > 1 then cf.edu > \"lo\"\n"
            "if cf.job == \"a\" then cf.age > 30",
            PLAFCycleError,
            4,
            1,
            ["(edu, job) -> age -> income -> (edu, job)"],
        ),
    ],
)
def test_check_errors(schema, text, cls, line, column, fragments):
    with pytest.raises(cls) as ei:
        load(text, schema)
    e = ei.value
    assert (e.line, e.column) == (line, column), str(e)
    for frag in fragments:
        assert frag in e.message, str(e)
    assert str(e).count("\n") == 2  # message, source line, caret


def test_file_errors_name_the_file(tmp_path, schema):
    f = tmp_path / "bad.plaf"
    f.write_text("fixed age\nfixed agge\n")
    with pytest.raises(PLAFError) as ei:
        load(f, schema)
    assert str(ei.value).startswith(f"{f}:2:7: unknown feature 'agge'")
    with pytest.raises(PLAFError) as ei:
        load(str(f), schema)
    assert ei.value.filename == str(f)


def test_missing_plaf_path_is_not_parsed_as_text(schema):
    with pytest.raises(FileNotFoundError):
        load("no/such/rules.plaf", schema)


def test_load_accepts_dataframe_and_text(schema):
    p = load("fixed age", frame())
    assert p.schema == schema
    assert load("fixed age", schema) == parse("fixed age")


def test_bool_feature_compares_with_true_false(schema):
    p = load("cf.flag == true or cf.flag in {false}", schema)
    assert holds(p, frame().iloc[0], frame().iloc[1])


# ------------------------------------------------------------------------------ groups
def test_groups_declared_first_then_singletons_in_schema_order(schema):
    p = load('group color, edu\ngroup "capital-gain", age\nfixed job', schema)
    assert p.groups == [("color", "edu"), ("capital-gain", "age"), ("income",), ("job",), ("flag",)]
    assert [p.group_of(n) for n in schema.names] == [1, 2, 0, 0, 3, 1, 4]
    flat = [n for g in p.groups for n in g]
    assert sorted(flat) == sorted(schema.names)


def test_groups_before_load_are_the_declared_ones():
    p = parse("group a, b\nfixed c")
    assert p.groups == [("a", "b")]
    with pytest.raises(PLAFError):
        p.group_of("a")
    with pytest.raises(PLAFError):
        p.ground({"a": 1})


def test_implication_order_is_topological(schema):
    text = (
        'if cf.income > 1 then cf.edu > "lo"\n'  # income -> edu   (needs the age->income one first)
        "if cf.age > x.age then cf.income >= x.income\n"  # age -> income
        'if x.age > 3 then cf.color == "red"\n'  # no condition group
        'if cf.edu == "hi" then cf.job == "a"\n'  # edu -> job
    )
    p = load(text, schema)
    order = [str(i) for i in p.implication_order]
    lines = [str(s) for s in parse(text).statements]
    assert order == [lines[1], lines[0], lines[2], lines[3]]
    g = p.ground(frame().iloc[0])
    assert [i.group for i in g.implications] == [p.group_of(n) for n in ("income", "edu", "job")]
    assert [i.condition_groups for i in g.implications] == [
        frozenset({p.group_of("age")}),
        frozenset({p.group_of("income")}),
        frozenset({p.group_of("edu")}),
    ]


# ------------------------------------------------------------------------------ grounding
def columns(df: pd.DataFrame, schema: Schema) -> dict[str, np.ndarray]:
    enc = schema.encode(df)
    return {n: enc[:, j] for j, n in enumerate(schema.names)}


def candidates() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 200
    return pd.DataFrame(
        {
            "age": rng.integers(10, 70, n),
            "income": rng.choice([0.0, 0.5, 1.5, 2.0, 3.0], n),
            "edu": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"], ordered=True),
            "color": pd.Categorical(rng.choice(["blue", "green", "red"], n), categories=["blue", "green", "red"]),
            "job": rng.choice(["a", "b", "c"], n),
            "capital-gain": rng.integers(0, 40, n),
            "flag": rng.choice([True, False], n),
        }
    )


def test_fixed_increasing_decreasing_semantics(schema):
    p = load('fixed color\nincreasing edu, age\ndecreasing "capital-gain"', schema)
    x = frame().iloc[1]  # age 40, edu mid, color green, capital-gain 10
    cands = candidates()
    g = p.ground(x)
    got = g.check(columns(cands, schema))
    want = (
        (cands["color"] == "green")
        & (cands["edu"].cat.codes >= 1)
        & (cands["age"] >= 40)
        & (cands["capital-gain"] <= 10)
    ).to_numpy()
    assert (got == want).all()
    assert want.any() and not want.all()
    assert g.group_filters[p.group_of("color")] is not None
    assert g.group_filters[p.group_of("job")] is None


def test_group_filters_cross_rules_and_implications_are_placed(schema):
    text = (
        "group age, income\n"
        "cf.age + cf.income > 40\n"  # within one group -> group filter
        'cf.age > 30 or cf.color == "red"\n'  # spans groups -> candidate-level rule
        'if cf.edu > x.edu then cf.age >= x.age + 4\n'
        "if x.age > 100 then cf.income < 1\n"  # false for this x: dropped
        "if x.age < 100 then cf.job != \"c\"\n"  # true for this x: a filter of job
        "x.age > 100 or cf.flag == true\n"  # folds to a one-group rule
    )
    p = load(text, schema)
    x = frame().iloc[0]
    g = p.ground(x)
    gi = p.group_of
    assert g.groups == p.groups
    assert str(g.group_filters[gi("age")]) == "cf.age + cf.income > 40"
    assert str(g.group_filters[gi("job")]) == 'cf.job != "c"'
    assert str(g.group_filters[gi("flag")]) == "cf.flag == true"
    assert g.group_filters[gi("color")] is None
    assert len(g.cross_rules) == 1
    assert g.cross_rules[0].groups == frozenset({gi("age"), gi("color")})
    assert g.cross_rules[0].features == ("age", "color")
    assert "cf.color" in g.cross_rules[0].source
    (imp,) = g.implications
    assert str(imp) == 'if cf.edu > "lo" then cf.age >= 34'
    assert imp.group == gi("age") and imp.condition_groups == frozenset({gi("edu")})
    assert imp.source == "if cf.edu > x.edu then cf.age >= x.age + 4"
    cands = candidates()
    cols = columns(cands, schema)
    cond = imp.condition(cols)
    assert (cond == (cands["edu"] != "lo").to_numpy()).all()
    cons = imp.consequence({"age": cols["age"], "income": cols["income"]})
    assert (cons == (cands["age"] >= 34).to_numpy()).all()
    # the vectorised check agrees with the reference evaluator, candidate by candidate
    got = g.check(cols)
    want = [holds(p, x, cands.iloc[i]) for i in range(len(cands))]
    assert got.tolist() == want
    # a DataFrame in user form gives the same answers
    assert (g.check(cands) == got).all()
    assert (imp.condition(cands) == cond).all()


def test_ground_accepts_series_dataframe_dict_and_encoded_array(schema):
    p = load('cf.age >= x.age\ncf.color != x.color\ncf.edu >= x.edu', schema)
    df = frame()
    cols = columns(candidates(), schema)
    ref = p.ground(df.iloc[2]).check(cols)
    assert (p.ground(df.iloc[[2]]).check(cols) == ref).all()
    assert (p.ground(df.iloc[2].to_dict()).check(cols) == ref).all()
    assert (p.ground(schema.encode(df)[2]).check(cols) == ref).all()
    g = p.ground(df.iloc[2])
    assert g.x_values["color"] == "blue" and g.x_values["age"] == 50


def test_ground_rejects_bad_instances(schema):
    p = load("fixed age", schema)
    row = frame().iloc[0].to_dict()
    with pytest.raises(SchemaError, match="color"):
        p.ground({**row, "color": "purple"})
    with pytest.raises(SchemaError, match="missing column 'age'"):
        p.ground({k: v for k, v in row.items() if k != "age"})
    with pytest.raises(SchemaError):
        p.ground(np.zeros(3))


def test_constant_false_rule_empties_its_group_and_is_not_an_error(schema):
    p = load("cf.age > x.age * 0 + 1000", schema)
    g = p.ground(frame().iloc[0])
    f = g.group_filters[p.group_of("age")]
    assert not f({"age": np.array([1.0, 50.0, 999.0])}).any()
    assert f({"age": np.array([1001.0])}).all()


def test_division_by_zero_agrees_with_reference(schema):
    p = load("cf.income / (cf.age - 40) > 0 or cf.income / 0 < 0", schema)
    x = frame().iloc[0]
    cands = candidates()
    got = p.ground(x).check(cands).tolist()
    assert got == [holds(p, x, cands.iloc[i]) for i in range(len(cands))]


def test_predicates_need_their_columns(schema):
    p = load("cf.age > 3", schema)
    f = p.ground(frame().iloc[0]).group_filters[p.group_of("age")]
    with pytest.raises(KeyError, match="age"):
        f({"income": np.zeros(2)})


def test_holds_needs_a_checked_program():
    with pytest.raises(ValueError):
        holds(parse("cf.a > 1"), {"a": 1}, {"a": 2})
