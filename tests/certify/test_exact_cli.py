"""``geco explain --exact`` (one row and a batch) and ``explain_many(exact=True)``: the same
answers as ``explain(exact=True)``, proven optimal (gap 0.0) and never farther than the brute
force over one or two changed groups."""

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import geco
from geco.batch import row_seeds
from geco.cli import main
from geco.models import default_model

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_exact.py"


@pytest.fixture(scope="module")
def compas():
    ds = geco.datasets.load_compas()
    model = default_model(ds.X, ds.y, cache=True)
    col = list(model.classes_).index(ds.desired_class)
    rows = np.flatnonzero(model.predict_proba(ds.X)[:, col] <= 0.5)[:3]
    explainer = geco.Explainer(model, ds.X, ds.constraints, desired_class=ds.desired_class)
    return ds, explainer, [int(r) for r in rows]


def _brute_force():
    spec = importlib.util.spec_from_file_location("bench_exact", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.brute_force


def test_cli_exact_one_row(compas, capsys):
    ds, explainer, rows = compas
    row = rows[0]
    assert (
        main(["explain", "--dataset", "compas", "--row", str(row), "--exact", "--json", "--k", "1"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["gap"] == 0.0 and data["outcome"] == "found"
    assert "proven, gap 0" in data["reason"]
    x = ds.X.iloc[[row]]
    optimum = _brute_force()(explainer.problem(x))
    assert data["counterfactuals"][0]["distance"] <= optimum * (1 + 1e-9)
    same = explainer.explain(x, random_state=0, k=1, exact=True)
    assert data["counterfactuals"][0]["distance"] == pytest.approx(
        same.counterfactuals["distance"].iloc[0]
    )


def test_explain_many_exact_matches_explain(compas):
    ds, explainer, rows = compas
    X = ds.X.iloc[rows]
    many = explainer.explain_many(X, random_state=3, exact=True, k=1, progress=False)
    seeds = row_seeds(3, len(X))
    for i, e in enumerate(many):
        one = explainer.explain(X.iloc[[i]], random_state=seeds[i], exact=True, k=1)
        assert e.outcome == one.outcome and e.gap == one.gap
        if e.success:
            assert e.gap == 0.0
            assert e.counterfactuals["distance"].iloc[0] == one.counterfactuals["distance"].iloc[0]


def test_cli_exact_batch(compas, capsys):
    _, _, rows = compas
    spec = ",".join(map(str, rows))
    code = main(
        ["explain", "--dataset", "compas", "--rows", spec, "--exact", "--json", "--no-progress"]
    )
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    found = [d for d in lines if d.get("outcome") == "found"]
    assert found and all(d["gap"] == 0.0 for d in found)
