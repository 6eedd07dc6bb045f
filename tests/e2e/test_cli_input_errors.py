"""What a newcomer meets at the command line: rows outside the data, missing values (--dropna),
files that are not what an option expects, a long --all-undesired batch (its count, estimate
and --limit), an id column the model never saw, and a --help that answers at once."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

import geco
from geco.cli import DATASET_NAMES, ENGINE_NAMES, main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A CSV of 3000 Credit rows with a customer_id column, a tree fitted without it, and a
    copy of the CSV with missing values in rows 3 and 7."""
    d = tmp_path_factory.mktemp("cli-input")
    ds = geco.datasets.load_credit()
    frame = ds.X.iloc[:3000].assign(label=ds.y.iloc[:3000])
    model = DecisionTreeClassifier(max_depth=6, random_state=0).fit(frame.drop(columns="label"), frame["label"])
    joblib.dump(model, d / "model.joblib")
    frame.insert(0, "customer_id", np.arange(100_000, 103_000))
    frame.to_csv(d / "credit.csv", index=False)
    holes = frame.copy()
    holes.iloc[3, holes.columns.get_loc("EducationLevel")] = np.nan
    holes.iloc[7, holes.columns.get_loc("label")] = np.nan
    holes.to_csv(d / "holes.csv", index=False)
    return d


def _argv(d, csv="credit.csv", *extra):
    return ["explain", "--data", str(d / csv), "--target", "label", "--model", str(d / "model.joblib"),
            "--k", "2", *extra]  # fmt: skip


def test_rows_outside_the_data_are_errors_naming_its_size(files, capsys):
    for spec in ("2990:3010", "3000", "-3001:", "0:3001"):
        assert main(_argv(files, "credit.csv", f"--rows={spec}")) == 2
        err = capsys.readouterr().err
        assert "out of range" in err and "the data has 3000 rows" in err and "Traceback" not in err
        assert err.count("\n") == 1


def test_a_seed_numpy_refuses_is_a_usage_error_naming_the_option(files, capsys):
    for seed in ("-1", "seven", "1.5"):
        with pytest.raises(SystemExit) as stop:
            main(_argv(files, "credit.csv", "--row", "0", "--seed", seed))
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "argument --seed: must be a non-negative integer, got" in err and seed in err
        assert "Traceback" not in err


def test_missing_values_are_named_and_dropna_drops_them(files, capsys):
    assert main(_argv(files, "holes.csv", "--row", "0")) == 2
    err = capsys.readouterr().err
    assert "2 of 3000 rows have missing values (rows 3, 7;" in err
    assert "'EducationLevel'" in err and "'label'" in err and "--dropna" in err
    assert main(_argv(files, "holes.csv", "--dropna", "--row", "7")) == 2
    assert "row(s) 7 have missing values (dropped by --dropna)" in capsys.readouterr().err
    assert main(_argv(files, "holes.csv", "--dropna", "--rows", "2:5")) == 2
    assert "row(s) 3 have missing values" in capsys.readouterr().err
    # the rows keep their numbers: row 8 of the file is row 8, whatever was dropped before it
    assert main(_argv(files, "holes.csv", "--dropna", "--rows", "5,8,9", "--json")) == 0
    captured = capsys.readouterr()
    assert "(--dropna: 2 of 3000 rows with missing values dropped)" in captured.err
    lines = [json.loads(line) for line in captured.out.splitlines()[1:]]
    assert [e["index"] for e in lines] == [5, 8, 9]
    original = pd.read_csv(files / "holes.csv")
    assert lines[1]["x"]["EducationLevel"] == original.loc[8, "EducationLevel"]
    assert main(_argv(files, "holes.csv", "--dropna", "--row", "8", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["index"] == 8


def test_a_column_without_any_value_is_named_with_or_without_dropna(files, tmp_path, capsys):
    """--dropna would drop every row: the column is named instead, for explain and suggest."""
    empty = pd.read_csv(files / "credit.csv").assign(EducationLevel=np.nan)
    empty.to_csv(tmp_path / "empty.csv", index=False)
    for extra in ((), ("--dropna",)):
        assert main(["explain", "--data", str(tmp_path / "empty.csv"), "--target", "label", "--model",
                     str(files / "model.joblib"), "--row", "0", *extra]) == 2  # fmt: skip
        err = capsys.readouterr().err
        assert "column(s) ['EducationLevel'] hold no value on any row" in err and "Traceback" not in err
        assert main(["suggest", "--data", str(tmp_path / "empty.csv"), "--target", "label", *extra]) == 2
        assert "column(s) ['EducationLevel'] hold no value on any row" in capsys.readouterr().err


def test_files_that_are_not_what_the_option_expects(files, tmp_path, capsys):
    text = tmp_path / "model.txt"
    text.write_text("hello, I am not a model\n", encoding="utf-8")
    assert main(["explain", "--data", str(files / "credit.csv"), "--target", "label", "--model", str(text)]) == 2
    err = capsys.readouterr().err
    assert f"{text}: cannot load model: not a joblib or pickle file" in err
    assert "fitted classifier saved with joblib.dump" in err and "Traceback" not in err
    joblib.dump({"not": "a model"}, tmp_path / "dict.joblib")
    assert main(["explain", "--data", str(files / "credit.csv"), "--target", "label", "--model",
                 str(tmp_path / "dict.joblib")]) == 2  # fmt: skip
    assert "it holds a dict, not a fitted classifier" in capsys.readouterr().err

    (tmp_path / "foreign.pkl").write_bytes(b"cnot_installed_geco_module\nModel\n.")  # a pickle of a missing class
    assert main(["explain", "--data", str(files / "credit.csv"), "--target", "label", "--model",
                 str(tmp_path / "foreign.pkl")]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "cannot load model: it needs what this Python lacks" in err and "not_installed_geco_module" in err

    (tmp_path / "r.csv").write_text("instance,rank\n0,0\n", encoding="utf-8")
    assert main(["report", str(tmp_path / "r.csv")]) == 2
    err = capsys.readouterr().err
    assert "reads a JSON Lines file (.jsonl), not CSV" in err and "--out RESULTS.jsonl" in err
    (tmp_path / "r.jsonl").write_text("instance,rank\n", encoding="utf-8")
    assert main(["report", str(tmp_path / "r.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "line 1: not JSON" in err and "JSON Lines (.jsonl" in err

    (tmp_path / "dup.csv").write_text("a,b,a,label\n1,2,3,0\n4,5,6,1\n", encoding="utf-8")
    assert main(["explain", "--data", str(tmp_path / "dup.csv"), "--target", "label"]) == 2
    assert "duplicate column name(s) ['a'] in the header" in capsys.readouterr().err

    for sep in (";", "\t"):  # a file separated by semicolons or tabs reads as one column
        (tmp_path / "semi.csv").write_text(f"a{sep}b{sep}label\n1{sep}2{sep}0\n4{sep}5{sep}1\n", encoding="utf-8")
        for argv in (["explain", "--data", str(tmp_path / "semi.csv"), "--target", "label"],
                     ["suggest", "--data", str(tmp_path / "semi.csv")]):  # fmt: skip
            assert main(argv) == 2
            err = capsys.readouterr().err
            assert f"the header reads as one column ('a{sep}b{sep}label')".replace("\t", "\\t") in err, err
            assert f"looks separated by {sep!r}; write it with commas" in err and "Traceback" not in err
            assert f"pandas.read_csv(path, sep={sep!r}).to_csv" in err
    (tmp_path / "semi.csv").write_text("a;b;label\n1,5;2;0\n4;5,25;1\n", encoding="utf-8")  # decimal commas
    assert main(["explain", "--data", str(tmp_path / "semi.csv"), "--target", "label"]) == 2
    assert "pandas.read_csv(path, sep=';', decimal=',').to_csv(path, index=False)" in capsys.readouterr().err
    rows = "\n".join(f'{i},"{i},5",{i % 2}' for i in range(40))  # quoted decimal commas: read as text
    (tmp_path / "comma.csv").write_text("a,b,label\n" + rows + "\n", encoding="utf-8")
    for argv in (["explain", "--data", str(tmp_path / "comma.csv"), "--target", "label", "--row", "0"],
                 ["suggest", "--data", str(tmp_path / "comma.csv")]):  # fmt: skip
        main(argv)
        err = capsys.readouterr().err
        assert "warning: column 'b' holds numbers written with a decimal comma ('0,5'): it is read as text" in err
    late = "\n".join(f'{i},"{i if i < 1500 else f"{i},5"}",{i % 2}' for i in range(1600))  # commas after row 1500
    (tmp_path / "late.csv").write_text("a,b,label\n" + late + "\n", encoding="utf-8")
    main(["suggest", "--data", str(tmp_path / "late.csv")])
    assert "warning: column 'b' holds numbers written with a decimal comma ('1500,5')" in capsys.readouterr().err


def test_a_file_not_utf8_without_rows_or_with_pandas_index(tmp_path, capsys):
    """A Latin-1 file names its first bad byte's line and how to re-encode it; a header without
    rows is named so; the index pandas writes by default (an unnamed first column 0, 1, 2, ...)
    is left out with a note, so it is no feature of the default model nor of the answer."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.integers(18, 70, 300), "city": rng.choice(["Paris", "Lyon"], 300)})
    frame["label"] = (frame.age > 40).astype(int)
    text = frame.to_csv(index=False).splitlines()
    text[4] = text[4].replace("Paris", "Nîmes").replace("Lyon", "Nîmes")
    (tmp_path / "latin.csv").write_bytes("\n".join(text).encode("latin-1"))
    assert main(["explain", "--data", str(tmp_path / "latin.csv"), "--target", "label"]) == 2
    err = capsys.readouterr().err
    assert "latin.csv: not UTF-8 text (byte 0xee on line 5); save it as UTF-8" in err and "Traceback" not in err
    (tmp_path / "mac.csv").write_bytes("\r".join(text).encode("latin-1"))  # classic Mac OS line ends
    assert main(["explain", "--data", str(tmp_path / "mac.csv"), "--target", "label"]) == 2
    assert "(byte 0xee on line 5)" in capsys.readouterr().err
    frame.iloc[:0].to_csv(tmp_path / "header.csv", index=False)
    assert main(["explain", "--data", str(tmp_path / "header.csv"), "--target", "label"]) == 2
    assert "header.csv: no data rows (a header only)" in capsys.readouterr().err
    frame.to_csv(tmp_path / "indexed.csv")  # pandas' default: the index as an unnamed first column
    assert main(["explain", "--data", str(tmp_path / "indexed.csv"), "--target", "label", "--json", "--k", "1"]) == 0
    out, err = capsys.readouterr()
    assert "the first column, unnamed and numbered 0, 1, 2, ..., is the index pandas wrote with the file: left out" in err
    assert list(json.loads(out)["x"]) == ["age", "city"]
    frame.set_index(frame.index + 7).to_csv(tmp_path / "other.csv")  # an unnamed column of other numbers stays
    main(["explain", "--data", str(tmp_path / "other.csv"), "--target", "label", "--json", "--k", "1"])
    assert "Unnamed: 0" in json.loads(capsys.readouterr().out)["x"]


def test_the_default_model_leaves_out_text_identifiers(tmp_path, capsys):
    """A text column with a different value on every row (an id, a timestamp) is no feature of
    the default model: one-hot encoded, each value is a column seen once. It is named on stderr,
    no answer changes it (the Explainer ignores what the model does not read), and the model
    finds counterfactuals (with them, it scored no row as desired)."""
    rng = np.random.default_rng(1)
    n = 3000
    frame = pd.DataFrame({"customer": [f"C{i:05d}" for i in range(n)],
                          "opened": pd.date_range("2015-01-01", periods=n, freq="D").strftime("%Y-%m-%d"),
                          "age": rng.integers(18, 70, n), "income": rng.normal(50, 15, n).round(1),
                          "city": rng.choice(["Paris", "Lyon", "Nice"], n)})  # fmt: skip
    frame["approved"] = ((frame.age > 40) & (frame.income > 50)).astype(int)
    frame.to_csv(tmp_path / "ids.csv", index=False)
    assert main(["explain", "--data", str(tmp_path / "ids.csv"), "--target", "approved", "--json", "--k", "2"]) == 0
    out, err = capsys.readouterr()
    assert "the default model leaves out 'customer', 'opened': a different text on every row" in err
    answer = json.loads(out)
    assert answer["success"] and set(answer["x"]) == {"age", "income", "city"}
    assert all(set(cf["changes"]) <= {"age", "income", "city"} for cf in answer["counterfactuals"])


def test_batches_ignore_the_id_column_as_one_row_does(files, capsys):
    assert main(_argv(files, "credit.csv", "--rows", "0:5", "--json")) == 0
    captured = capsys.readouterr()
    assert captured.err.count("ignoring column(s) ['customer_id']") == 1
    lines = captured.out.splitlines()
    assert len(lines) == 6 and "customer_id" not in json.loads(lines[1])["x"]


def test_all_undesired_prints_its_count_and_estimate_and_takes_a_limit(files, capsys):
    model = joblib.load(files / "model.joblib")
    X = pd.read_csv(files / "credit.csv").drop(columns=["customer_id", "label"])
    n_declined = int((model.predict_proba(X)[:, 1] <= 0.5).sum())
    assert main(_argv(files, "credit.csv", "--all-undesired", "--limit", "5", "--json")) == 0
    captured = capsys.readouterr()
    assert f"(--all-undesired: {n_declined} of 3000 rows are not scored 1; --limit 5: the first 5)" in captured.err
    assert "(first 3 rows:" in captured.err and "the 2 left: about" in captured.err
    assert len(captured.out.splitlines()) == 1 + 5
    assert main(_argv(files, "credit.csv", "--row", "0", "--limit", "5")) == 2
    assert "need a batch" in capsys.readouterr().err
    assert main(_argv(files, "credit.csv", "--rows", "0:3", "--limit", "0")) == 2
    assert "positive number" in capsys.readouterr().err


def test_help_imports_nothing_heavy_and_answers_at_once():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    probe = ("import sys, geco.cli; geco.cli.build_parser(); "
             "print(sorted(m for m in ('numpy', 'pandas', 'sklearn', 'llvmlite', 'geco.explainer', 'codegen') "
             "if m in sys.modules))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "geco", "--help"], capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode == 0 and "explain" in done.stdout
    assert time.perf_counter() - t0 < 2.0  # was 1-3.5 s of imports before any output


def test_the_parser_names_every_data_set_and_engine():
    from codegen import ENGINES
    from geco.datasets import DATASETS

    assert tuple(sorted(DATASETS)) == DATASET_NAMES
    assert tuple(ENGINES) == ENGINE_NAMES


def test_public_names_load_on_first_use():
    code = ("import geco.report.page, geco; assert callable(geco.report); "
            "from geco import Explainer, Explanation, load, report, datasets, ENGINES, BlackBoxScorer, "
            "UnsupportedModelError; assert callable(report) and datasets.DATASETS and 'auto' in ENGINES; "
            "assert set(geco.__all__) <= set(dir(geco))")  # fmt: skip
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        geco.nothing  # noqa: B018


def test_the_cli_names_a_missing_constraints_file(tmp_path, capsys):
    missing = tmp_path / "rules.txt"
    status = main(["explain", "--dataset", "compas", "--constraints", str(missing)])
    err = capsys.readouterr().err
    # bad usage, as a missing --data or --model file is: there is no program to be invalid
    assert status == 2 and err.strip().splitlines()[-1] == f"geco: error: no such file: {missing} (the constraints file given)"


def test_labels_without_a_1_ask_for_the_desired_class_and_bool_labels_read_any_case(tmp_path, capsys):
    """Text labels have no default desired class: the error lists them and shows the option; a
    bool target defaults to True, and --desired-class true / True / TRUE name it."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"income": rng.integers(0, 100, 300), "debt": rng.integers(0, 50, 300)})
    good = (X["income"] - X["debt"] > 30).to_numpy()
    for name, labels in (("text", np.where(good, "approved", "denied")), ("bool", good)):
        X.assign(outcome=labels).to_csv(tmp_path / f"{name}.csv", index=False)
        joblib.dump(DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, labels), tmp_path / f"{name}.joblib")
    row = str(int(np.flatnonzero(~good)[0]))

    def argv(name, *extra):
        return ["explain", "--data", str(tmp_path / f"{name}.csv"), "--target", "outcome", "--model",
                str(tmp_path / f"{name}.joblib"), "--row", row, "--k", "1", *extra]  # fmt: skip

    assert main(argv("text")) == 2
    err = capsys.readouterr().err
    assert "--desired-class is needed: the labels of 'outcome' are ['approved', 'denied']; e.g. --desired-class approved" in err
    (tmp_path / "rules.plaf").write_text("increasing income\n", encoding="utf-8")
    data = ["--data", str(tmp_path / "text.csv"), "--target", "outcome"]
    assert main(["check", *data, str(tmp_path / "rules.plaf")]) == 0  # no class needed to check or suggest
    assert main(["suggest", *data]) == 0
    capsys.readouterr()
    assert main(argv("text", "--desired-class", "approved")) == 0
    assert "for desired class 'approved'" in capsys.readouterr().out
    for written in (None, "true", "True", "TRUE"):
        assert main(argv("bool", *(["--desired-class", written] if written else []))) == 0, written
        assert "for desired class True" in capsys.readouterr().out


def test_a_regression_target_needs_no_desired_class(tmp_path, capsys):
    """A number target explained with --desired-range takes no class; without it, the error
    points at --desired-range instead of listing hundreds of values."""
    from sklearn.ensemble import RandomForestRegressor

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(18, 70, 300), "hours": rng.integers(10, 60, 300)})
    pay = X["age"] * 2.5 + X["hours"] * 10.25
    X.assign(pay=pay).to_csv(tmp_path / "pay.csv", index=False)
    joblib.dump(RandomForestRegressor(10, max_depth=5, random_state=0).fit(X, pay), tmp_path / "pay.joblib")
    argv = ["explain", "--data", str(tmp_path / "pay.csv"), "--target", "pay", "--model", str(tmp_path / "pay.joblib"), "--row", "3"]
    assert main([*argv, "--desired-range", "600:700", "--k", "1"]) == 0
    assert "#1  prediction=" in capsys.readouterr().out
    assert main([*argv[:-2], "--desired-range", "600:", "--k", "1"]) == 0  # no --row: the first row the range misses
    err = capsys.readouterr().err
    assert "(--row not given: row 0 is the first not 600 <= prediction <= inf)" in err, err
    assert main([*argv[:-2], "--desired-range", "600:", "--all-undesired", "--limit", "1", "--k", "1"]) == 0
    assert "rows are not 600 <= prediction <= inf;" in capsys.readouterr().err
    assert main([*argv[:-2], "--desired-range", "0:", "--k", "1"]) == 2  # every prediction is in range
    assert "every row is already 0 <= prediction <= inf: nothing to explain" in capsys.readouterr().err
    ir = ["ir", "--data", str(tmp_path / "pay.csv"), "--target", "pay", "--model", str(tmp_path / "pay.joblib"), "--row", "3",
          "--delta", "age"]  # fmt: skip
    assert main(ir) == 2 and "give --desired-range LO:HI" in capsys.readouterr().err  # what the hint says geco ir takes
    assert main([*ir, "--desired-range", "600:"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("; geco residual forest: RandomForestRegressor, the prediction\n; delta: age (col 0)"), out[:200]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "'pay' holds 282 labels (155.0, 175.0," in err and "give --desired-range LO:HI" in err and len(err) < 300
