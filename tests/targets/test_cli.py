"""``geco explain --threshold`` and ``--desired-range``."""

from __future__ import annotations

import json

from geco.cli import main


def test_desired_range_on_a_csv(tmp_path, capsys, hours):
    X, y = hours
    path = tmp_path / "adult_hours.csv"
    X.iloc[:1500].assign(hours_per_week=y.iloc[:1500]).to_csv(path, index=False)
    status = main(["explain", "--data", str(path), "--target", "hours_per_week", "--desired-range", "45:",
                   "--k", "2", "--json"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert status in (0, 1)
    assert out["stats"]["target"] == {"kind": "range", "desired_range": [45.0, None]}  # an open end: null
    if out["success"]:
        assert all(c["probability"] >= 45 for c in out["counterfactuals"])


def test_threshold_flag(capsys):
    status = main(["explain", "--dataset", "credit", "--threshold", "0.6", "--k", "2", "--json", "--max-generations", "10"])
    out = json.loads(capsys.readouterr().out)
    assert out["stats"]["target"]["threshold"] == 0.6
    assert status in (0, 1)
    assert all(c["probability"] > 0.6 for c in out["counterfactuals"] if c["counterfactual"])


def test_bad_range_is_a_usage_error(capsys):
    try:
        main(["explain", "--dataset", "credit", "--desired-range", "5"])
    except SystemExit as exc:
        assert exc.code == 2
    assert "LO:HI" in capsys.readouterr().err


def test_desired_range_with_a_saved_mlp_regressor(tmp_path, capsys, hours):
    """``--model`` an MLPRegressor pipeline: compiled, and every counterfactual in the range."""
    import joblib
    from sklearn.neural_network import MLPRegressor
    from target_models import scaled

    X, y = hours
    model = scaled(X, y, MLPRegressor(hidden_layer_sizes=(16,), max_iter=200, random_state=0))
    joblib.dump(model, tmp_path / "mlp.joblib")
    path = tmp_path / "adult_hours.csv"
    X.iloc[:1500].assign(hours_per_week=y.iloc[:1500]).to_csv(path, index=False)
    status = main(["explain", "--data", str(path), "--target", "hours_per_week", "--model", str(tmp_path / "mlp.joblib"),
                   "--desired-range", "45:60", "--row", "3", "--k", "2", "--json"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and out["success"] and out["stats"]["engine"] == "mlp-jit"
    import pandas as pd

    rows = pd.DataFrame([cf["values"] for cf in out["counterfactuals"]])[list(X.columns)].astype(X.dtypes.to_dict())
    own = model.predict(rows)
    assert all(45 <= c["probability"] <= 60 for c in out["counterfactuals"])
    assert [c["probability"] for c in out["counterfactuals"]] == own.tolist()
