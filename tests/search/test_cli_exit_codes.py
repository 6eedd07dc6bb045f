"""``geco explain`` exit status: 0 found, 3 none found, 4 proven none, 1 bad constraints, 2 bad
usage or data."""

import json

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from geco.cli import (
    EXIT_BAD_CONSTRAINTS,
    EXIT_BAD_USAGE,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_PROVEN_NONE,
    build_parser,
    main,
)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"id": np.arange(400), "age": rng.integers(20, 65, 400), "income": rng.integers(0, 100, 400),
         "hours": rng.integers(10, 60, 400)}
    )  # fmt: skip
    frame["label"] = (frame["income"] + frame["hours"] > 100).astype(int)
    csv = tmp / "people.csv"
    frame.to_csv(csv, index=False)
    features = ["age", "income", "hours"]  # the model never saw "id"
    model = DecisionTreeClassifier(max_depth=5, random_state=0).fit(frame[features], frame["label"])
    joblib.dump(model, tmp / "model.joblib")
    row = int(np.flatnonzero(model.predict(frame[features]) == 0)[0])
    good = int(np.flatnonzero(model.predict(frame[features]) == 1)[0])
    base = ["explain", "--data", str(csv), "--target", "label", "--model", str(tmp / "model.joblib")]
    return tmp, base, row, good


def test_found_is_0_and_prints_the_engine_and_the_ignored_column(files, capsys):
    _, base, row, _ = files
    assert main([*base, "--row", str(row)]) == EXIT_OK == 0
    out, err = capsys.readouterr()
    assert "Counterfactuals found" in out
    assert "geco: warning: ignoring column(s) ['id'] of X" in err
    assert "(engine: compiled engine" in err


def test_already_desired_is_0(files, capsys):
    _, base, _, good = files
    assert main([*base, "--row", str(good)]) == 0
    assert "already classified as the desired class" in capsys.readouterr().out


def test_none_found_is_3_with_the_reason(files, capsys):
    tmp, base, row, _ = files
    frozen = tmp / "frozen.plaf"
    frozen.write_text("fixed income, hours\n")
    # the black box has no bound: none found, none proven
    cmd = [*base, "--row", str(row), "--constraints", str(frozen), "--json"]
    assert main([*cmd, "--engine", "blackbox"]) == EXIT_NOT_FOUND == 3
    data = json.loads(capsys.readouterr().out)
    assert not data["success"] and f"`fixed income, hours` ({frozen}:1)" in data["reason"]


def test_proven_none_is_4_with_the_reason(files, capsys):
    tmp, base, row, _ = files
    frozen = tmp / "frozen.plaf"
    frozen.write_text("fixed income, hours\n")
    assert main([*base, "--row", str(row), "--constraints", str(frozen), "--json"]) == EXIT_PROVEN_NONE == 4
    data = json.loads(capsys.readouterr().out)
    assert not data["success"] and data["outcome"] == "proven_none"
    assert f"`fixed income, hours` ({frozen}:1) makes it so" in data["reason"]


def test_bad_constraints_is_1_and_bad_usage_is_2(files, capsys):
    tmp, base, row, _ = files
    bad = tmp / "bad.plaf"
    bad.write_text("fixed age\ncf.incme > 3\n")
    assert main([*base, "--row", str(row), "--constraints", str(bad)]) == EXIT_BAD_CONSTRAINTS == 1
    assert f"{bad}:2:" in capsys.readouterr().err
    assert main([*base, "--row", "100000"]) == EXIT_BAD_USAGE == 2
    assert "out of range" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main(["explain", "--k"])  # argparse: a missing value
    assert stop.value.code == 2


def test_exit_codes_are_documented():
    help_text = build_parser()._subparsers._group_actions[0].choices["explain"].format_help()
    for text in ("exit status: 0 counterfactuals found", "3 no counterfactual found", "4 proven that none exists",
                 "1 invalid constraints", "2 bad usage"):  # fmt: skip
        assert text in " ".join(help_text.split())
    import geco.cli

    for text in ("* 0 - success", "* 3 - ``explain`` found no counterfactual", "* 4 - ``explain`` proved",
                 "* 1 - the constraints", "* 2 - bad usage"):  # fmt: skip
        assert text in geco.cli.__doc__
