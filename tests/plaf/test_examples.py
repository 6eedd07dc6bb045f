"""The example programs (the GeCo paper's constraints) against the bundled data sets, and the
two command lines that check a file: ``python -m plaf_grammar check`` (syntax, or against a CSV)
and ``geco check`` (against a bundled data set). Bad files print ``file:line:col`` and a caret,
never a traceback."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import pytest

from geco import datasets
from geco.cli import main as geco_main
from plaf_grammar import holds, load
from plaf_grammar.__main__ import main
from plaf_grammar.ast import Fixed

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("adult", "credit", "compas")


@functools.cache
def data(name: str):
    return datasets.load_dataset(name)


@pytest.mark.parametrize("name", NAMES)
def test_examples_load_and_agree_with_reference_on_real_rows(name):
    ds = data(name)
    p = load(ds.constraints, ds.X)
    assert sorted(n for g in p.groups for n in g) == sorted(ds.X.columns)
    fixed = [n for s in p.program.statements if isinstance(s, Fixed) for n in s.names]
    assert fixed
    for i in (0, 17, 123):
        x = ds.X.iloc[i]
        sample = ds.X.sample(400, random_state=i).reset_index(drop=True)
        for f in fixed:  # half the candidates keep x's fixed features, so some satisfy them
            sample.loc[::2, f] = x[f]
        enc = p.schema.encode(sample)
        got = p.ground(x).check(dict(zip(p.schema.names, enc.T)))
        want = [holds(p, x, sample.iloc[j]) for j in range(len(sample))]
        assert got.tolist() == want
        assert any(want) and not all(want)


def test_adult_example_means_the_papers_constraints():
    ds = data("adult")
    p = load(ds.constraints, ds.X)
    gi = p.analysis.group_index
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
    (info,) = p.analysis.implications
    assert info.condition_groups == {gi["education"]}
    (imp,) = p.ground(x).implications
    assert imp.group == gi["age"]
    lines = ds.constraints.read_text().split("\n")
    line = next(i for i, t in enumerate(lines, 1) if t.startswith("if cf.education_num"))
    assert imp.rule.location == f"{ds.constraints}:{line}" and imp.rule.text == lines[line - 1]


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


# ------------------------------------------------------------------------------ CLIs
@pytest.fixture(scope="module")
def credit_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("data") / "credit.csv"
    ds = data("credit")
    ds.X.assign(label=ds.y).to_csv(path, index=False)
    return path


def test_cli_check_against_a_csv_prints_groups_grounding_and_order(credit_csv, capsys):
    argv = ["check", str(data("credit").constraints), "--data", str(credit_csv),
            "--target", "label", "--row", "3"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "groups:\n  [0] isMale\n  [1] isMarried\n" in out
    x = data("credit").X.iloc[3]
    assert f"[3] EducationLevel: cf.EducationLevel >= {x['EducationLevel']}" in out  # row 3
    high = x["MonthsWithHighSpendingOverLast6Months"]
    assert f"then cf.MonthsWithHighSpendingOverLast6Months < {high}" in out
    assert "implication order" in out
    assert "1. if cf.EducationLevel > x.EducationLevel + 1 and x.AgeGroup < 2 then" in out


def test_cli_check_without_data_checks_syntax_only(tmp_path, capsys):
    f = tmp_path / "r.plaf"
    f.write_text("fixed nosuchfeature\ncf.whatever > 1\n")
    assert main(["check", str(f)]) == 0
    assert "syntax OK (2 statements" in capsys.readouterr().out
    f.write_text("fixed a\ncf.b > 1 1\n")
    assert main(["check", str(f)]) == 1
    assert capsys.readouterr().err.startswith(f"{f}:2:10: unexpected number 1")


def test_cli_bad_file_exits_nonzero_with_formatted_error(tmp_path, credit_csv, capsys):
    bad = tmp_path / "bad.plaf"
    bad.write_text("fixed sex\ncf.hours_per_week <= 80 80\n")
    assert main(["check", str(bad), "--data", str(credit_csv)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:2:25: unexpected number 80")
    assert "    cf.hours_per_week <= 80 80\n" + " " * 28 + "^" in err


def test_cli_bad_data_and_missing_file(tmp_path, credit_csv, capsys):
    f = tmp_path / "r.plaf"
    f.write_text("fixed AgeGroup\n")
    assert main(["check", str(tmp_path / "none.plaf")]) == 1
    assert "none.plaf" in capsys.readouterr().err
    assert main(["check", str(f), "--data", str(tmp_path / "none.csv")]) == 1
    assert "cannot read CSV" in capsys.readouterr().err
    assert main(["check", str(f), "--data", str(credit_csv), "--target", "nope"]) == 1
    assert "--target 'nope'" in capsys.readouterr().err
    assert main(["check", str(f), "--data", str(credit_csv), "--row", "-1"]) == 1
    assert "--row -1 is out of range" in capsys.readouterr().err
    inf = tmp_path / "inf.csv"
    inf.write_text("age,job\n1,a\ninf,b\n")
    f.write_text("increasing age\n")
    assert main(["check", str(f), "--data", str(inf), "--row", "1"]) == 1
    assert "column 'age' has a non-finite value" in capsys.readouterr().err


def test_cli_format(tmp_path, capsys):
    f = tmp_path / "r.plaf"
    f.write_text("# c\nfixed Race ; increasing AgeGroup\n")
    assert main(["format", str(f)]) == 0
    assert capsys.readouterr().out == "fixed Race\nincreasing AgeGroup\n"


HOSTILE = {
    "latin1.plaf": (b"fixed sex\ncf.workclass != \"caf\xe9\"\n", "2:21: the text is not valid UTF-8"),
    "huge.plaf": (b"fixed sex\ncf.age > " + b"9" * 5000 + b"\n", "2:10: number 9999"),
    "inf.plaf": (b"cf.age > 1e400", "1:10: number 1e400 is out of range"),
    "deep.plaf": (b"cf.age > " + b"-" * 500 + b"1", "nested too deeply"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_both_check_commands_report_hostile_files_without_traceback(tmp_path, capsys, name):
    content, expected = HOSTILE[name]
    f = tmp_path / name
    f.write_bytes(content)
    for run in (lambda: main(["check", str(f)]),
                lambda: geco_main(["check", str(f), "--dataset", "adult"])):  # fmt: skip
        assert run() == 1
        err = capsys.readouterr().err
        assert err.startswith(f"{f}:") and expected in err, err
        assert err.count("\n") == 3 and err.rstrip("\n").endswith(("^", "~"))  # message, line, caret


def test_cli_as_module_imports_no_geco_and_prints_no_traceback(tmp_path):
    f = tmp_path / "latin1.plaf"
    f.write_bytes(HOSTILE["latin1.plaf"][0])
    code = (
        "import sys, plaf_grammar.__main__ as m; rc = m.main(sys.argv[1:]); "
        "assert not [n for n in sys.modules if n.split('.')[0] == 'geco'], 'imported geco'; "
        "sys.exit(rc)"
    )
    r = subprocess.run([sys.executable, "-c", code, "check", str(f)],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"{f}:2:21:") and "Traceback" not in r.stderr


def test_cli_has_no_bundled_data_sets_and_names_the_command_that_does(capsys):
    with pytest.raises(SystemExit) as ei:  # geco check FILE --dataset adult does that
        main(["check", "rules.plaf", "--dataset", "adult"])
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert "--dataset is not available here (the bundled data sets belong to geco)" in err
    assert "run 'geco check rules.plaf --dataset adult', or pass --data FILE.csv" in err
    main_help = subprocess.run([sys.executable, "-m", "plaf_grammar", "check", "--help"],
                               capture_output=True, text=True, timeout=120).stdout  # fmt: skip
    assert "--dataset NAME" in main_help and "geco check" in main_help


def test_cli_names_duplicate_csv_header_names(tmp_path, capsys):
    f = tmp_path / "r.plaf"
    f.write_text("fixed a\n")
    csv = tmp_path / "dup.csv"
    csv.write_text("a,b,a,b,c\n1,2,3,4,5\n")  # pandas alone would read a, b, a.1, b.1, c
    assert main(["check", str(f), "--data", str(csv)]) == 1
    assert capsys.readouterr().err == f"error: {csv}: duplicate column name(s) ['a', 'b'] in the header row\n"


# ------------------------------------------------------------------------------ the Explainer
@pytest.fixture(scope="module")
def compas_explainer_inputs():
    from sklearn.tree import DecisionTreeClassifier

    ds = data("compas")
    model = DecisionTreeClassifier(max_depth=5, random_state=0).fit(ds.X, ds.y)
    p = model.predict_proba(ds.X)[:, list(model.classes_).index(ds.desired_class)]
    return ds, model, ds.X.iloc[[int(next(i for i, v in enumerate(p) if v <= 0.5))]]


def test_explainer_takes_constraints_as_path_text_program_or_checked_program(compas_explainer_inputs):
    import geco
    from plaf_grammar import check, parse

    ds, model, x = compas_explainer_inputs
    text = ds.constraints.read_text()
    other_schema = load(text, ds.X.iloc[:50].astype({"AgeGroup": "float64"})).schema
    forms = [ds.constraints, str(ds.constraints), text, parse(text), load(text, ds.X),
             check(parse(text), other_schema)]  # fmt: skip
    found = []
    for constraints in forms:
        ex = geco.Explainer(model, ds.X, constraints, ds.desired_class, engine="blackbox",
                            max_generations=5)  # fmt: skip
        assert ex.program.schema == ex.schema  # re-checked when the schema differed
        found.append(ex.explain(x, random_state=3).counterfactuals)
    assert len(found) == 6 and len(found[0]) > 0
    for other in found[1:]:
        assert other.equals(found[0])


def test_explainer_names_the_rule_x_breaks(compas_explainer_inputs, tmp_path):
    import geco

    ds, model, x = compas_explainer_inputs
    f = tmp_path / "strict.plaf"
    f.write_text("fixed Race\n\ncf.PriorsCount > 1000  # no row has that many\n")
    ex = geco.Explainer(model, ds.X, f, ds.desired_class, engine="blackbox", max_generations=5)
    result = ex.explain(x, random_state=0)
    assert not result.success
    assert result.reason.startswith(f"x breaks `cf.PriorsCount > 1000` ({f}:3) on PriorsCount")
    assert result.reason.endswith(f"`cf.PriorsCount > 1000` ({f}:3) removes every other value of it")
