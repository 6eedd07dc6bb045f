"""The ``geco`` command line, run in-process."""

import json

import joblib
import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

import geco
from geco.cli import main


@pytest.fixture(scope="module")
def compas_undesired_row():
    ds = geco.datasets.load_compas()
    from geco.models import default_model

    p = default_model(ds.X, ds.y, cache=True).predict_proba(ds.X)[:, 0]
    return int(np.flatnonzero(p <= 0.5)[0]), int(np.flatnonzero(p > 0.5)[0])


def test_explain_bundled_dataset(capsys, compas_undesired_row):
    row, _ = compas_undesired_row
    assert main(["explain", "--dataset", "compas", "--row", str(row), "--engine", "blackbox"]) == 0
    out = capsys.readouterr().out
    assert f"compas, row {row}" in out
    assert "Counterfactuals found" in out and "->" in out


def test_explain_json(capsys, compas_undesired_row):
    row, _ = compas_undesired_row
    assert main(["explain", "--dataset", "compas", "--row", str(row), "--json", "--k", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["success"] and 1 <= len(data["counterfactuals"]) <= 2
    cf = data["counterfactuals"][0]
    assert cf["probability"] > 0.5 and cf["changes"]
    assert "Race" not in cf["changes"] and "Sex" not in cf["changes"]  # fixed in compas.plaf


def test_explain_already_good_row(capsys, compas_undesired_row):
    _, good = compas_undesired_row
    assert main(["explain", "--dataset", "compas", "--row", str(good)]) == 0
    assert "already classified as the desired class" in capsys.readouterr().out


def test_explain_csv_with_saved_model(tmp_path, capsys):
    ds = geco.datasets.load_credit()
    frame = ds.X.iloc[:3000].assign(label=ds.y.iloc[:3000])
    csv = tmp_path / "credit.csv"
    frame.to_csv(csv, index=False)
    model = DecisionTreeClassifier(max_depth=6, random_state=0).fit(frame.drop(columns="label"), frame["label"])
    joblib.dump(model, tmp_path / "model.joblib")
    row = int(np.flatnonzero(model.predict(frame.drop(columns="label")) == 0)[0])
    rules = tmp_path / "rules.plaf"
    rules.write_text("fixed isMale, isMarried\nincreasing AgeGroup\n")
    argv = ["explain", "--data", str(csv), "--target", "label", "--model", str(tmp_path / "model.joblib"),
            "--constraints", str(rules), "--row", str(row), "--json"]  # fmt: skip
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["success"]
    for cf in data["counterfactuals"]:
        assert cf["values"]["isMale"] == data["x"]["isMale"]
        assert cf["values"]["AgeGroup"] >= data["x"]["AgeGroup"]


def test_check_good_and_bad_files(tmp_path, capsys):
    assert main(["check", str(geco.datasets.load_adult().constraints), "--dataset", "adult"]) == 0
    out = capsys.readouterr().out
    assert "OK" in out and "education, education_num" in out and "implications" in out
    bad = tmp_path / "bad.plaf"
    bad.write_text("fixed sex\ncf.agee > 3\n")
    assert main(["check", str(bad), "--dataset", "adult"]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:2:1:" in err and "did you mean 'age'" in err
    assert main(["check", str(geco.datasets.load_adult().constraints), "--dataset", "adult", "--row", "99999999"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--row 99999999 is out of range" in err  # refused before any report


def test_user_errors_exit_2(tmp_path, capsys):
    assert main(["explain", "--dataset", "compas", "--row", "999999"]) == 2
    assert "out of range" in capsys.readouterr().err
    assert main(["explain", "--data", str(tmp_path / "none.csv"), "--target", "y"]) == 2
    assert "no such file" in capsys.readouterr().err
    csv = tmp_path / "d.csv"
    csv.write_text("a,b,y\n1,2,0\n3,4,1\n")
    assert main(["explain", "--data", str(csv), "--target", "label"]) == 2
    assert "--target 'label' is not a column" in capsys.readouterr().err
    junk = tmp_path / "model.joblib"
    junk.write_bytes(b"not a pickle")
    assert main(["explain", "--data", str(csv), "--target", "y", "--model", str(junk)]) == 2
    assert "cannot load model" in capsys.readouterr().err


def test_data_summary(capsys):
    assert main(["data", "--dataset", "credit"]) == 0
    flag = capsys.readouterr().out
    assert "NoDefaultNextMonth" in flag
    assert main(["data", "credit"]) == 0  # the name alone, as users type it
    assert capsys.readouterr().out == flag
    assert main(["data", "adult", "--dataset", "credit"]) == 2
    assert "two data sets named: adult and --dataset credit" in capsys.readouterr().err


def test_ir_command(capsys):
    assert main(["ir", "--dataset", "compas", "--row", "0", "--delta", "PriorsCount,AgeGroup"]) == 0
    ir = capsys.readouterr().out
    assert "define" in ir and "@tree_" in ir and "PriorsCount" in ir
    assert main(["ir", "--dataset", "compas", "--row", "0", "--delta", "PriorsCount", "--asm"]) == 0
    asm = capsys.readouterr().out
    assert "ret" in asm
    assert main(["ir", "--dataset", "compas", "--row", "0", "--delta", "Priors"]) == 2
    assert "unknown feature" in capsys.readouterr().err


def test_explain_without_row_picks_the_first_undesired(capsys, compas_undesired_row):
    row, _ = compas_undesired_row
    assert main(["explain", "--dataset", "compas", "--json"]) == 0
    captured = capsys.readouterr()
    assert f"row {row} is the first" in captured.err
    assert json.loads(captured.out)["success"]


def test_counterfactuals_are_numbered_from_one_everywhere(tmp_path, capsys, compas_undesired_row):
    """The table's index (rank), the printed #n, changes()' counterfactual and the CSV's rank
    column are one numbering, from 1; a result read back from its dict keeps it."""
    row, _ = compas_undesired_row
    ds = geco.datasets.load_compas()
    from geco.models import default_model

    explainer = geco.Explainer(default_model(ds.X, ds.y, cache=True), ds.X, ds.constraints, ds.desired_class)
    e = explainer.explain(ds.X.iloc[[row]], k=3, random_state=0)
    ranks = list(e.counterfactuals.index)
    assert e.counterfactuals.index.name == "rank" and ranks == list(range(1, len(e) + 1)) and len(e) >= 2
    printed = [int(line.split()[0][1:]) for line in str(e).splitlines() if line.startswith("#")]
    assert printed == ranks
    assert set(e.changes()["counterfactual"]) == set(ranks)
    assert list(type(e).from_dict(e.to_dict()).counterfactuals.index) == ranks
    out = tmp_path / "r.csv"
    assert main(["explain", "--dataset", "compas", "--rows", str(row), "--k", "3", "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    import pandas as pd

    assert list(pd.read_csv(out)["rank"]) == ranks
    assert geco.Explanation.empty(e.x, "none", 1).counterfactuals.index.name == "rank"
