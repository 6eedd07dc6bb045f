"""Grounding a checked program on an instance, and the vectorised predicates it compiles to,
against the reference evaluator; which source rules each group filter came from."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plaf_grammar import PLAFTypeError, Schema, SchemaError, SourceRule, holds, load
from plaf_grammar.ast import Category, Compare, Ref


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


def reference(p, x, cands: pd.DataFrame) -> list[bool]:
    return [holds(p, x, cands.iloc[i]) for i in range(len(cands))]


def test_fixed_increasing_decreasing_semantics(schema):
    p = load('fixed color\nincreasing edu, age\ndecreasing "capital-gain"', schema)
    gi = p.analysis.group_index
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
    assert g.group_filters[gi["color"]] is not None
    assert g.group_filters[gi["job"]] is None


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
    gi = p.analysis.group_index
    x = frame().iloc[0]
    g = p.ground(x)
    assert g.groups == p.groups
    assert str(g.group_filters[gi["age"]]) == "cf.age + cf.income > 40"
    assert str(g.group_filters[gi["job"]]) == 'cf.job != "c"'
    assert str(g.group_filters[gi["flag"]]) == "cf.flag == true"
    assert g.group_filters[gi["color"]] is None
    (cross,) = g.cross_rules
    assert cross.features == ("age", "color")
    assert cross.rules == (SourceRule('cf.age > 30 or cf.color == "red"', None, 3),)
    (imp,) = g.implications
    assert str(imp) == 'if cf.edu > "lo" then cf.age >= 34'
    assert imp.group == gi["age"]
    assert imp.rule.text == "if cf.edu > x.edu then cf.age >= x.age + 4" and imp.rule.line == 4
    cands = candidates()
    cols = columns(cands, schema)
    cond = imp.condition(cols)
    assert (cond == (cands["edu"] != "lo").to_numpy()).all()
    cons = imp.consequence({"age": cols["age"], "income": cols["income"]})
    assert (cons == (cands["age"] >= 34).to_numpy()).all()
    # the vectorised check agrees with the reference evaluator, candidate by candidate
    got = g.check(cols)
    assert got.tolist() == reference(p, x, cands)
    assert got.any() and not got.all()


def test_group_rules_name_the_source_statements(schema):
    text = (
        "group age, income\n"
        "fixed color, age\n"
        "cf.income <= x.income + 1\n"
        "if x.age < 100 then cf.age > 35\n"  # holds for this x: a rule of the age group
        'cf.job != "c"\n'
    )
    p = load(text, schema)
    gi = p.analysis.group_index
    g = p.ground(frame().iloc[0])  # age 30, income 1.5, color red, job a
    fixed = SourceRule("fixed color, age", None, 2)
    income = SourceRule("cf.income <= x.income + 1", None, 3)
    older = SourceRule("if x.age < 100 then cf.age > 35", None, 4)
    assert g.group_rules[gi["age"]] == [fixed, income, older]
    assert g.group_rules[gi["color"]] == [fixed]
    assert g.group_rules[gi["edu"]] == []
    assert g.group_filters[gi["age"]].rules == (fixed, income, older)
    # x itself breaks "cf.age > 35" (its age is 30); it keeps its colour and income
    assert g.violated_rules(gi["age"]) == [older]
    assert g.violated_rules(gi["color"]) == [] and g.violated_rules(gi["edu"]) == []
    other = g.x.copy()
    other[schema.index("color")] = schema.category_code("color", "blue")
    other[schema.index("age")] = 40.0
    other[schema.index("income")] = 9.0
    assert g.violated_rules(gi["color"], other) == [fixed]
    assert g.violated_rules(gi["age"], other) == [fixed, income]
    assert str(older) == "`if x.age < 100 then cf.age > 35` (<string>:4)"


def test_grounding_reads_the_encoded_instance(schema):
    p = load("cf.color != x.color\ncf.age >= x.age\nif x.edu == \"hi\" then cf.flag == x.flag", schema)
    df = frame()
    enc = schema.encode(df)
    g = p.ground(enc[2])  # age 50, edu hi, color blue, flag True
    assert np.array_equal(g.x, enc[2])
    f = g.group_filters[p.analysis.group_index["color"]]
    assert f.expr == Compare("!=", Ref("cf", "color"), Category("color", 0, "blue"))
    assert str(f) == 'cf.color != "blue"'
    assert str(g.group_filters[p.analysis.group_index["flag"]]) == "cf.flag == true"
    cands = candidates()
    assert g.check(columns(cands, schema)).tolist() == reference(p, df.iloc[2], cands)


def test_ground_accepts_series_dataframe_dict_and_encoded_array(schema):
    p = load('cf.age >= x.age\ncf.color != x.color\ncf.edu >= x.edu', schema)
    df = frame()
    cols = columns(candidates(), schema)
    ref = p.ground(df.iloc[2]).check(cols)
    assert ref.any() and not ref.all()
    assert (p.ground(df.iloc[[2]]).check(cols) == ref).all()
    assert (p.ground(df.iloc[2].to_dict()).check(cols) == ref).all()
    assert (p.ground(schema.encode(df)[2]).check(cols) == ref).all()
    assert np.array_equal(p.ground(df.iloc[2]).x, schema.encode(df)[2])


def test_ground_rejects_bad_instances(schema):
    p = load("fixed age", schema)
    row = frame().iloc[0].to_dict()
    enc = schema.encode(frame())[0]
    with pytest.raises(SchemaError, match="color"):
        p.ground({**row, "color": "purple"})
    with pytest.raises(SchemaError, match="missing column 'age'"):
        p.ground({k: v for k, v in row.items() if k != "age"})
    with pytest.raises(SchemaError, match="shape"):
        p.ground(np.zeros(3))
    bad_code = enc.copy()
    bad_code[schema.index("color")] = 7.0
    with pytest.raises(SchemaError, match="'color': 7.0 is not a category code"):
        p.ground(bad_code)
    bad_age = enc.copy()
    bad_age[schema.index("age")] = np.inf
    with pytest.raises(SchemaError, match="'age' has a non-finite value"):
        p.ground(bad_age)
    with pytest.raises(SchemaError, match="'age' has a non-finite value"):
        p.ground({**row, "age": float("inf")})
    with pytest.raises(SchemaError, match=r"'age' \(dtype int64\) cannot hold"):
        p.ground({**row, "age": 1e308})


def test_constant_false_rule_empties_its_group_and_is_not_an_error(schema):
    p = load("cf.age > x.age * 0 + 1000", schema)
    g = p.ground(frame().iloc[0])
    f = g.group_filters[p.analysis.group_index["age"]]
    assert not f({"age": np.array([1.0, 50.0, 999.0])}).any()
    assert f({"age": np.array([1001.0])}).all()


def test_division_by_zero_agrees_with_reference(schema):
    p = load("cf.income / (cf.age - 40) > 0 or cf.income / (x.age - x.age) < 0", schema)  # zero once grounded
    x = frame().iloc[0]
    cands = candidates()
    got = p.ground(x).check(columns(cands, schema)).tolist()
    assert got == reference(p, x, cands)
    assert any(got) and not all(got)


def test_predicates_need_their_columns(schema):
    p = load("cf.age > 3", schema)
    f = p.ground(frame().iloc[0]).group_filters[p.analysis.group_index["age"]]
    with pytest.raises(KeyError, match="age"):
        f({"income": np.zeros(2)})


def test_category_codes_come_from_the_schema():
    df = pd.DataFrame({"b": [True, False], "n": pd.Categorical([1, 2]), "s": ["1", "x"]})
    schema = Schema.from_dataframe(df)
    assert schema.category_code("b", True) == 1 and schema.category_code("n", 2.0) == 1
    assert schema.category_code("s", "1") == 0
    for name, value in (("b", 1), ("n", True), ("s", 1), ("n", "1")):  # a kind is not a category
        with pytest.raises(SchemaError, match="not one of its categories"):
            schema.category_code(name, value)
    p = load('cf.b == true and cf.n in {2} and cf.s != "1"', schema)
    g = p.ground(df.iloc[0])
    cols = {"b": np.array([1.0, 1.0, 0.0]), "n": np.array([1.0, 0.0, 1.0]), "s": np.array([1.0, 1.0, 1.0])}
    assert g.cross_rules[0](cols).tolist() == [True, False, False]


def test_negated_int_zero_keeps_its_sign_through_division():
    """-x.b with x.b == 0 is -0.0 in float64 arithmetic, so -2 / -x.b is +inf, as the reference
    evaluator and the vectorised predicates compute it."""
    import pandas as pd

    from plaf_grammar import holds, load

    df = pd.DataFrame({"a": [1.0, 5.0], "b": [0, 3]})
    program = load("cf.a < -2 / -x.b", df)
    x, cf = {"a": 1.0, "b": 0}, {"a": 5.0, "b": 3}
    assert holds(program, x, cf)
    ground = program.ground(df.iloc[0])
    assert ground.check({"a": df["a"].to_numpy(), "b": df["b"].to_numpy(float)}).tolist() == [True, True]


@pytest.mark.parametrize("text", ["increasing flag", "decreasing flag", "cf.flag > x.flag", "cf.flag <= false or cf.age > 40",
                                  "if cf.flag < x.flag then cf.age >= x.age + 5"])  # fmt: skip
def test_a_bool_feature_is_ordered_false_before_true(schema, text):
    """``increasing has_degree``: a bool orders False < True (its codes' order), in the grounded
    predicates as in the reference evaluator; an unordered categorical still refuses '<'."""
    p = load(text, schema)
    cands = candidates()
    for x in (frame().iloc[0], frame().iloc[1]):  # flag True, then False
        got = p.ground(x).check(columns(cands, schema)).tolist()
        assert got == reference(p, x, cands), text
        if text == "increasing flag":
            assert got == (cands["flag"] | (not x["flag"])).tolist()  # from True: only True
        if text == "decreasing flag":
            assert got == (~cands["flag"] | x["flag"]).tolist()  # from False: only False
    with pytest.raises(PLAFTypeError, match="unordered categorical feature 'color'"):
        load("increasing color", schema)
