"""PLAF static checks against a schema (names, types, groups, implication graph), and what
``check`` / ``load`` return."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from plaf_grammar import (
    CheckedProgram,
    PLAFCycleError,
    PLAFError,
    PLAFFileNotFoundError,
    PLAFNameError,
    PLAFSyntaxError,
    PLAFTypeError,
    PLAFValueError,
    Program,
    Schema,
    check,
    holds,
    load,
    parse,
)
from plaf_grammar.parser import MAX_DEPTH


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
        ("if cf.flag then cf.age > 3", PLAFTypeError, 1, 4, ["got bool feature 'flag'; compare it, e.g. cf.flag == true"]),
        ("cf.age + 1", PLAFTypeError, 1, 1, ["a rule needs a condition"]),
        ("(cf.age > 1) == (cf.income > 2)", PLAFTypeError, 1, 2, ["cannot compare a condition"]),
        ('cf.age in {1, "a"}', PLAFTypeError, 1, 15, ["contains"]),
        ("cf.color == true", PLAFTypeError, 1, 13, ["write a category"]),
        ("x.age > 3", PLAFValueError, 1, 1, ["mentions no cf feature"]),
        ("cf.age <= x.age / 0", PLAFValueError, 1, 19, ["division by zero"]),
        ("cf.income / (2 - 2.0) > 1", PLAFValueError, 1, 14, ["division by zero: `2 - 2.0` is 0"]),
        ("cf.age * 2 >= 3 / -0.0 + x.age", PLAFValueError, 1, 19, ["division by zero"]),
        ("fixed age\n  x.age > 3 or x.income < 1", PLAFValueError, 2, 3, ["no cf feature"]),
        ("if cf.age > 3 then x.age > 1", PLAFValueError, 1, 20, ["consequence mentions no cf"]),
        (  # a spanning implication adds no edge, but the cascade's cycle is still found
            "if cf.age > x.age then cf.income > 1\nif cf.income > 1 then cf.age + cf.\"capital-gain\" > 3\n"
            "if cf.income > 2 then cf.age > 40",
            PLAFCycleError,
            3,
            1,
            ["cycle", "age -> income -> age"],
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


@pytest.mark.parametrize(
    "given",
    ["rules.txt", "./my_rules", "conf/adult_rules", "missing.plaf", "~/no/such/rules",
     "C:\\rules\\adult.txt", "my rules.txt", " rules.txt "],
)  # fmt: skip
def test_a_string_that_looks_like_a_path_is_never_parsed(tmp_path, monkeypatch, schema, given):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PLAFFileNotFoundError) as ei:
        load(given, schema)
    e = ei.value
    assert isinstance(e, PLAFError) and isinstance(e, FileNotFoundError)
    assert str(e).startswith(f"no such file: {given} (it looks like a path")
    assert e.filename == given
    again = pickle.loads(pickle.dumps(e))  # a worker reports errors by pickling them
    assert type(again) is PLAFFileNotFoundError and str(again) == str(e)


def test_a_path_object_naming_no_file_says_so(tmp_path, schema):
    with pytest.raises(PLAFFileNotFoundError, match=r"^no such file: .*rules\.txt \(the constraints file given\)$"):
        load(tmp_path / "rules.txt", schema)
    with pytest.raises(PLAFFileNotFoundError, match=r"\(it is a directory; give a \.plaf file in it\)$"):
        load(tmp_path, schema)


def test_an_existing_file_of_any_suffix_is_read(tmp_path, monkeypatch, schema):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "adult_rules").write_text("fixed age\nfixed agge\n")
    (tmp_path / "rules.txt").write_text("fixed age\n")
    assert load("rules.txt", schema).program.filename == "rules.txt"
    with pytest.raises(PLAFNameError) as ei:
        load("conf/adult_rules", schema)
    assert str(ei.value).startswith("conf/adult_rules:2:7: unknown feature 'agge'")
    with pytest.raises(PLAFFileNotFoundError, match=r"no such file: conf \(it is a directory"):
        load("conf", schema)


@pytest.mark.parametrize(
    "text",
    ["fixed age", "increasing age, income", "cf.age >= x.age", "cf.age/2 >= x.age",
     'cf.job in {"a.txt"}', "cf.flag == true", "", "fixed age # see conf/rules.txt"],
)  # fmt: skip
def test_one_line_programs_stay_programs(tmp_path, monkeypatch, text):
    from plaf_grammar.source import resolve

    monkeypatch.chdir(tmp_path)
    assert resolve(text) == (text, None)
    parse(text)


def test_path_like_text_is_decided_before_parsing():
    from plaf_grammar.source import looks_like_path

    assert looks_like_path("rules.txt") and looks_like_path("./my_rules")
    assert looks_like_path("conf/adult_rules") and looks_like_path("x.plaf")
    assert not looks_like_path("cf.flag") and not looks_like_path("fixed age")
    assert not looks_like_path("cf.a / x.b") and not looks_like_path("a\nb.txt")


def test_load_accepts_dataframe_text_and_bytes(schema):
    p = load("fixed age", frame())
    assert isinstance(p, CheckedProgram) and p.schema == schema
    assert load("fixed age", schema).program == parse("fixed age")
    assert load(b"fixed age", schema).program == parse("fixed age")
    assert str(load("fixed   age # c", schema)) == "fixed age\n"


def test_check_pairs_a_parsed_program_with_a_schema(schema):
    program = parse("group age, income\nfixed job", filename="r.plaf")
    checked = check(program, schema)
    assert isinstance(checked, CheckedProgram) and checked.program is program
    assert checked.schema is schema
    assert checked.groups[0] == ("age", "income")
    assert check(program, frame()).schema == schema
    assert repr(checked) == "<CheckedProgram r.plaf: 2 statements, 6 groups>"
    with pytest.raises(PLAFNameError) as ei:
        check(parse("fixed agee", filename="r.plaf"), schema)
    assert str(ei.value).startswith("r.plaf:1:7: unknown feature 'agee'")
    with pytest.raises(TypeError):
        check("fixed age", schema)  # type: ignore[arg-type]


def test_a_byte_order_mark_is_dropped_from_text_bytes_and_files(tmp_path, schema):
    """Windows editors save UTF-8 with a byte-order mark, which ``open(path).read()`` keeps."""
    text = "\ufefffixed age\ncf.income >= 2\n"
    f = tmp_path / "bom.plaf"
    f.write_bytes(text.encode("utf-8"))
    want = load(text[1:], schema)
    for given in (text, text.encode("utf-8"), f, str(f), f.read_text(encoding="utf-8")):
        assert str(load(given, schema)) == str(want)
    with pytest.raises(PLAFSyntaxError) as ei:  # positions count from after the mark
        load("\ufefffixed age\ncf.income >= >", schema)
    assert (ei.value.line, ei.value.column) == (2, 14)


def test_non_utf8_file_is_a_plaf_error_naming_the_file(tmp_path, schema):
    f = tmp_path / "latin1.plaf"
    f.write_bytes("fixed age\ncf.job == \"caf\u00e9\"\n".encode("latin-1"))
    for path in (f, str(f)):
        with pytest.raises(PLAFSyntaxError) as ei:
            load(path, schema)
        assert (ei.value.filename, ei.value.line, ei.value.column) == (str(f), 2, 15)
        assert str(ei.value).startswith(f"{f}:2:15: the text is not valid UTF-8 (byte e9)")


def test_strings_that_cannot_be_paths_are_text(schema):
    with pytest.raises(PLAFSyntaxError, match="unexpected character"):
        load("fixed age\x00", schema)  # an embedded NUL: no file, so text
    with pytest.raises(FileNotFoundError):
        load("rules\x00.plaf", schema)


def test_bool_feature_compares_with_true_false(schema):
    p = load("cf.flag == true or cf.flag in {false}", schema)
    assert holds(p, frame().iloc[0], frame().iloc[1])


# ------------------------------------------------------------------------------ groups
def test_groups_declared_first_then_singletons_in_schema_order(schema):
    p = load('group color, edu\ngroup "capital-gain", age\nfixed job', schema)
    assert p.groups == [("color", "edu"), ("capital-gain", "age"), ("income",), ("job",), ("flag",)]
    assert [p.analysis.group_index[n] for n in schema.names] == [1, 2, 0, 0, 3, 1, 4]
    flat = [n for g in p.groups for n in g]
    assert sorted(flat) == sorted(schema.names)


def test_rules_know_their_statement_text_and_line(schema):
    text = 'fixed age,  job\n\ncf.income > 1  # why\nif (cf.age > 1 and\n    cf.edu > "lo") then cf.job == "a"'
    p = load(text, schema)
    assert [(r.source.text, r.source.line) for r in p.analysis.rules] == [
        ("fixed age,  job", 1), ("fixed age,  job", 1), ("cf.income > 1", 3)
    ]  # fmt: skip
    (imp,) = p.analysis.implications
    assert imp.source.location == "<string>:4"
    assert str(imp.source) == '`if (cf.age > 1 and cf.edu > "lo") then cf.job == "a"` (<string>:4)'


def test_implication_order_is_topological(schema):
    text = (
        'if cf.income > 1 then cf.edu > "lo"\n'  # income -> edu   (needs the age->income one first)
        "if cf.age > x.age then cf.income >= x.income\n"  # age -> income
        'if x.age > 3 then cf.color == "red"\n'  # no condition group
        'if cf.edu == "hi" then cf.job == "a"\n'  # edu -> job
    )
    p = load(text, schema)
    order = [str(i.statement) for i in p.analysis.implications]
    lines = [str(s) for s in parse(text).statements]
    assert order == [lines[1], lines[0], lines[2], lines[3]]
    gi = p.analysis.group_index
    assert [i.condition_groups for i in p.analysis.implications] == [
        frozenset({gi["age"]}), frozenset({gi["income"]}), frozenset(), frozenset({gi["edu"]})
    ]  # fmt: skip
    g = p.ground(frame().iloc[0])
    assert [i.group for i in g.implications] == [gi[n] for n in ("income", "edu", "job")]  # x.age > 3 holds: a rule


def test_a_consequence_spanning_groups_acts_as_a_rule(schema):
    """``if C then Q`` with Q over two groups (one of them C's): accepted, outside the cascade,
    grounded as the candidate-level rule ``not C or Q``; the grounded check agrees with holds."""
    text = (
        "if cf.age > x.age then cf.income >= x.income + cf.age / 100\n"
        "if cf.age > x.age then cf.edu > \"lo\"\n"
    )
    p = load(text, schema)
    assert [str(i.statement) for i in p.analysis.implications] == [str(parse(text).statements[1])]
    spanning = [r for r in p.analysis.rules if r.source.line == 1]
    assert len(spanning) == 1 and spanning[0].features == ("age", "income")
    gi = p.analysis.group_index
    assert spanning[0].groups == frozenset({gi["age"], gi["income"]})
    x = frame().iloc[0]
    g = p.ground(x)
    assert len(g.cross_rules) == 1 and [i.group for i in g.implications] == [gi["edu"]]
    rng = np.random.default_rng(1)
    cands = pd.DataFrame([x] * 300).reset_index(drop=True)
    cands["age"] = rng.integers(20, 50, len(cands))
    cands["income"] = rng.choice([1.0, 1.5, 1.6, 2.0], len(cands))
    cands["edu"] = pd.Categorical(
        rng.choice(["lo", "mid", "hi"], len(cands)), categories=["lo", "mid", "hi"], ordered=True
    )
    enc = p.schema.encode(cands)
    got = g.check({n: enc[:, j] for j, n in enumerate(p.schema.names)})
    want = [holds(p, x, cands.iloc[i]) for i in range(len(cands))]
    assert list(got) == want and 0 < sum(want) < len(want)


def test_a_spanning_implication_adds_no_cascade_edge(schema):
    """It is checked after the cascade (not repaired in its order), so it closes no cycle."""
    p = load("if cf.age > x.age then cf.income > 1\nif cf.income > 1 then cf.age + cf.\"capital-gain\" > 3", schema)
    assert len(p.analysis.implications) == 1 and len(p.analysis.rules) == 1


def test_holds_needs_a_checked_program():
    with pytest.raises(ValueError, match="checked program"):
        holds(parse("cf.a > 1"), {"a": 1}, {"a": 2})
    assert isinstance(parse("cf.a > 1"), Program)




@pytest.mark.parametrize(
    "make",
    [
        lambda k: "not " * k + "cf.age > 1",
        lambda k: "cf.age > " + "-" * k + "x.age",
        lambda k: "(" * k + "cf.age" + "".join(f" + {i})" for i in range(k)) + " > 0",
        lambda k: " or ".join(['cf.color == "red"'] * k),
        lambda k: "cf.age > " + "abs(" * k + "x.income" + ")" * k,
    ],
    ids=["not", "neg", "sum", "or", "abs"],
)
def test_the_deepest_accepted_expression_goes_through_every_pass(schema, make):
    k = MAX_DEPTH + 2
    with pytest.raises(PLAFSyntaxError, match="nested too deeply"):
        parse(make(k))
    while True:  # down to the deepest nesting the parser accepts
        k -= 1
        try:
            parse(make(k))
            break
        except PLAFSyntaxError as e:
            assert "nested too deeply" in e.message
    assert k >= MAX_DEPTH // 2
    x, cf = frame().iloc[0], frame().iloc[1]

    def every_pass(depth: int) -> None:  # with part of the stack already used
        if depth:
            return every_pass(depth - 1)
        p = load(make(k), schema)
        g = p.ground(x)
        got = g.check(dict(zip(schema.names, schema.encode(frame().iloc[[1]]).T)))
        assert got.tolist() == [holds(p, x, cf)]
        assert parse(str(p)) == p.program and str(g)

    every_pass(300)


@pytest.mark.parametrize(
    "text, column",
    [("increasing color", 12), ("fixed age\ndecreasing job", 12), ("cf.job < x.job", 1), ('cf.color >= "red"', 1)],
)
def test_order_on_an_unordered_categorical_says_how_to_give_it_an_order(schema, text, column):
    with pytest.raises(PLAFTypeError) as ei:
        load(text, schema)
    e = ei.value
    assert (e.line, e.column) == (text.count("\n") + 1, column)
    assert "unordered categorical feature" in e.message
    assert "pd.Categorical(X[" in e.message and "ordered=True)" in e.message


def test_a_category_written_with_or_without_the_quotes_it_needs_is_named():
    """Categories that are numbers (a code column made categorical) are written without quotes,
    categories that are strings with them: the suggestion says which, not the same text again."""
    X = pd.DataFrame({"grade": pd.Categorical([1, 2, 3, 1]), "band": pd.Categorical(["1", "2", "3", "1"]), "age": [1, 2, 3, 4]})
    schema = Schema.from_dataframe(X)
    with pytest.raises(PLAFValueError, match=r'unknown category "2" for feature \'grade\'; did you mean 2 \(without quotes\)\? \(valid: 1, 2, 3\)'):
        check(parse('cf.grade == "2"'), schema)
    with pytest.raises(PLAFTypeError, match="comparing categorical feature 'band' with a number; write the category as a string"):
        check(parse("cf.band == 2"), schema)
