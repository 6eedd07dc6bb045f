"""Fixtures of the service tests: small saved Explainers and a running server (see
serve_helpers.py). Without fastapi / uvicorn / httpx only test_dependencies.py is collected, and it
skips saying what is missing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from serve_helpers import HERE, KEYS, MISSING, start_server

collect_ignore = [p.name for p in HERE.glob("test_*.py") if p.name != "test_dependencies.py"] if MISSING else []


@pytest.fixture(scope="session")
def adult_small():
    import geco

    ds = geco.datasets.load_adult()
    return ds, ds.X.iloc[:3000], ds.y.iloc[:3000]


@pytest.fixture(scope="session")
def forest(adult_small):
    from sklearn.ensemble import RandomForestClassifier

    from geco.models import one_hot_pipeline

    _, X, y = adult_small
    return one_hot_pipeline(X, RandomForestClassifier(20, max_depth=6, random_state=0)).fit(X, y)


@pytest.fixture(scope="session")
def explainer_file(adult_small, forest, tmp_path_factory) -> Path:
    import geco

    ds, X, _ = adult_small
    path = tmp_path_factory.mktemp("serve") / "rf20.joblib"
    geco.Explainer(forest, X, ds.constraints, ds.desired_class).save(path)
    return path


@pytest.fixture(scope="session")
def faulty_file(adult_small, forest, tmp_path_factory) -> Path:
    from faulty_model import FaultyModel

    import geco

    ds, X, _ = adult_small
    X = X.astype({"age": "float64"})
    path = tmp_path_factory.mktemp("serve") / "faulty.joblib"
    geco.Explainer(FaultyModel(forest), X, ds.constraints, ds.desired_class, engine="blackbox").save(path)
    return path


@pytest.fixture(scope="session")
def keys_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("keys") / "keys.json"
    path.write_text(json.dumps({"keys": KEYS}))
    return path


@pytest.fixture(scope="session")
def server(explainer_file, keys_file, tmp_path_factory):
    """The RF-20 service with API keys (alice: everything; bob: /model; carol: 2 rows)."""
    s = start_server(explainer_file, tmp_path_factory.mktemp("srv"), "--keys", str(keys_file),
                     "--max-rows", "5", "--max-body", "20000")  # fmt: skip
    yield s
    s.stop()


@pytest.fixture(scope="session")
def records(adult_small):
    """The first rows of the data as JSON records (plain Python values)."""
    _, X, _ = adult_small
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in X.iloc[i].items()} for i in range(10)]
