"""The example programs (the GeCo paper's constraints) against the bundled data sets, the CLI,
and a fuzz test: mutations of the examples raise nothing but PLAFError."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geco import datasets
from plaf_grammar import PLAFError, holds, load, parse
from plaf_grammar.__main__ import main
from plaf_grammar.ast import Fixed
from plaf_grammar.predicates import encode_columns

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("adult", "credit", "compas")


@functools.cache
def data(name: str):
    return datasets.load_dataset(name)


@pytest.mark.parametrize("name", NAMES)
def test_example_copies_are_identical(name):
    shipped = data(name).constraints
    assert shipped.read_bytes() == (ROOT / "examples" / f"{name}.plaf").read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_examples_load_and_agree_with_reference_on_real_rows(name):
    ds = data(name)
    p = load(ds.constraints, ds.X)
    assert sorted(n for g in p.groups for n in g) == sorted(ds.X.columns)
    fixed = [n for s in p.statements if isinstance(s, Fixed) for n in s.names]
    for i in (0, 17, 123):
        x = ds.X.iloc[i]
        sample = ds.X.sample(400, random_state=i).reset_index(drop=True)
        for f in fixed:  # half the candidates keep x's fixed features, so some satisfy them
            sample.loc[::2, f] = x[f]
        cols = encode_columns(p.schema, sample)
        got = p.ground(x).check(cols)
        want = [holds(p, x, sample.iloc[j]) for j in range(len(sample))]
        assert got.tolist() == want
        assert any(want) and not all(want)


def test_adult_example_means_the_papers_constraints():
    ds = data("adult")
    p = load(ds.constraints, ds.X)
    assert p.groups[0] == ("education", "education_num")
    x = ds.X.iloc[0].to_dict()
    cf = dict(x)
    assert holds(p, x, cf)
    for f, v in [("sex", "Female"), ("race", "Black"), ("native_country", "Cuba"),
                 ("marital_status", "Divorced"), ("relationship", "Wife")]:  # fmt: skip
        assert x[f] != v and not holds(p, x, {**cf, f: v}), f
    assert not holds(p, x, {**cf, "age": x["age"] - 1})
    assert not holds(p, x, {**cf, "education_num": x["education_num"] - 1})
    more_edu = {**cf, "education_num": x["education_num"] + 1}
    assert not holds(p, x, {**more_edu, "age": x["age"] + 3})
    assert holds(p, x, {**more_edu, "age": x["age"] + 4})
    g = p.ground(x)
    (imp,) = g.implications
    assert imp.group == p.group_of("age") and imp.condition_groups == {p.group_of("education")}


def test_credit_example_means_the_papers_constraints():
    ds = data("credit")
    p = load(ds.constraints, ds.X)
    assert len(p.groups) == 14 and all(len(g) == 1 for g in p.groups)
    assert [i.consequence_features for i in p.analysis.implications] == [
        ("AgeGroup",),
        ("MonthsWithHighSpendingOverLast6Months",),
    ]
    x = ds.X[ds.X["AgeGroup"] == 1].iloc[0].to_dict()
    edu = {**x, "EducationLevel": x["EducationLevel"] + 2}
    assert not holds(p, x, edu)
    assert holds(p, x, {**edu, "AgeGroup": 2})


# ------------------------------------------------------------------------------ CLI
def test_cli_check_prints_groups_grounding_and_order(capsys):
    assert main(["check", str(ROOT / "examples" / "adult.plaf"), "--dataset", "adult", "--row", "3"]) == 0
    out = capsys.readouterr().out
    assert "groups:\n  [0] education, education_num" in out
    x = data("adult").X.iloc[3]
    assert f"cf.age >= {x['age'] + 4}" in out  # grounded on row 3
    assert "implication order" in out
    assert "1. if cf.education_num > x.education_num then cf.age >= x.age + 4" in out


def test_cli_bad_file_exits_nonzero_with_formatted_error(tmp_path, capsys):
    bad = tmp_path / "bad.plaf"
    bad.write_text("fixed sex\ncf.hours_per_week <= 80 80\n")
    assert main(["check", str(bad), "--dataset", "adult"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:2:25: unexpected number 80")
    assert "    cf.hours_per_week <= 80 80\n" + " " * 28 + "^" in err


def test_cli_missing_file_and_format(tmp_path, capsys):
    assert main(["check", str(tmp_path / "none.plaf"), "--dataset", "compas"]) == 1
    f = tmp_path / "r.plaf"
    f.write_text("# c\nfixed Race ; increasing AgeGroup\n")
    assert main(["format", str(f)]) == 0
    assert capsys.readouterr().out == "fixed Race\nincreasing AgeGroup\n"


def test_cli_as_module_subprocess():
    r = subprocess.run(
        [sys.executable, "-m", "plaf_grammar", "check", str(ROOT / "examples" / "compas.plaf"),
         "--dataset", "compas"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "[0] AgeGroup" in r.stdout
    r = subprocess.run(
        [sys.executable, "-m", "plaf_grammar", "check", "-", "--dataset", "nope"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 2


# ------------------------------------------------------------------------------ fuzz
TOKENS = [
    "cf.", "x.", "(", ")", "{", "}", ",", ";", "\n", '"', "if ", " then ", " and ", " or ",
    "not ", " in ", "==", "<", ">=", "!=", "-", "+", "*", "/", "0", "4", "1e3", "abs(",
    "group ", "fixed ", "increasing ", "true", "age", "sex", '"Male"', "AgeGroup", "#", "\\",
    "education", "Race", "x.age", "cf.age", "isMale", "@", "\t", "é",
]  # fmt: skip


@st.composite
def mutations(draw):
    name = draw(st.sampled_from(NAMES))
    text = data(name).constraints.read_text()
    for _ in range(draw(st.integers(1, 4))):
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


@settings(max_examples=300, deadline=None)
@given(mutations())
def test_fuzz_mutated_examples_raise_only_plaf_error(case):
    name, text = case
    ds = data(name)
    try:
        p = load(text, ds.X)
    except PLAFError as e:
        str(e)  # formatting never fails either
        return
    assert parse(str(p)) == p
    rows = ds.X.iloc[:30]
    g = p.ground(rows.iloc[0])
    got = g.check(encode_columns(p.schema, rows))
    assert got.dtype == np.bool_ and got.shape == (30,)
    assert got.tolist() == [holds(p, rows.iloc[0], rows.iloc[j]) for j in range(30)]
