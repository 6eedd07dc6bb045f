"""Explanations recorded on the bundled data, replayed to prove a refactoring changed nothing.

``python tests/e2e/recorded.py`` rewrites ``recorded_explanations.json`` from the current code;
``test_recorded.py`` replays the same runs and compares. Rewrite it only when a change to the
search is meant to change its answers (and say so in the commit).

Each entry also keeps ``baseline_first_distance``: the first counterfactual's distance as the
paper's search (before seeding, walk-back and stagnation stops) found it, ``None`` where it found
none. A rewrite carries it over unchanged; the replay asserts the search never does worse.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import geco
from geco.models import categorical_columns

PATH = Path(__file__).with_name("recorded_explanations.json")
DATASETS = ("adult", "credit", "compas")
MODELS = ("rf", "hgb", "mlp")
ROWS_PER_SETTING = 4
TRAIN_ROWS = 4000


def make_model(kind: str, X) -> Pipeline:
    """A small model of each family, in a pipeline that takes the user's DataFrame."""
    cats = categorical_columns(X)
    nums = [c for c in X.columns if c not in cats]
    if kind == "rf":
        est, scale = RandomForestClassifier(30, max_depth=8, random_state=0, n_jobs=1), False
    elif kind == "hgb":
        est, scale = HistGradientBoostingClassifier(max_iter=30, random_state=0), False
    else:
        est, scale = MLPClassifier((20,), max_iter=300, random_state=0), True
    steps = [("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), cats)] if cats else []
    steps.append(("num", StandardScaler() if scale else "passthrough", nums))
    pre = ColumnTransformer(steps, verbose_feature_names_out=False)
    return Pipeline([("encode", pre), ("model", est)])


def settings() -> list[tuple[str, str]]:
    return [(d, m) for d in DATASETS for m in MODELS]


def explainer_for(dataset: str, kind: str) -> tuple[Any, Any, list[int]]:
    """(dataset, explainer, rows to explain) for one setting, deterministic."""
    ds = geco.datasets.load_dataset(dataset)
    with warnings.catch_warnings():  # the recorded MLP stops at max_iter on Adult: the model the recordings hold
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = make_model(kind, ds.X).fit(ds.X.iloc[:TRAIN_ROWS], ds.y.iloc[:TRAIN_ROWS])
    explainer = geco.Explainer(model, ds.X, ds.constraints, ds.desired_class)
    col = list(model.classes_).index(ds.desired_class)
    p = model.predict_proba(ds.X.iloc[:500])[:, col]
    rows = [int(r) for r in np.flatnonzero(p <= 0.5)[:ROWS_PER_SETTING]]
    return ds, explainer, rows


def record_one(explainer, X, row: int) -> dict[str, Any]:
    """What must not change: success, and every counterfactual's values, probability, distance."""
    result = explainer.explain(X.iloc[[row]], random_state=row)
    cfs = result.counterfactuals
    return {
        "row": row,
        "success": bool(result.success),
        "values": [[str(v) for v in r] for r in cfs[list(X.columns)].itertuples(index=False)],
        "probability": [float(v) for v in cfs["probability"]],
        "distance": [float(v) for v in cfs["distance"]],
    }


def baseline(old: dict[str, Any]) -> float | None:
    """The entry's baseline first distance: kept from an earlier rewrite, else its own."""
    if "baseline_first_distance" in old:
        return old["baseline_first_distance"]
    return old["distance"][0] if old["success"] else None


def record(previous: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for dataset, kind in settings():
        ds, explainer, rows = explainer_for(dataset, kind)
        before = {e["row"]: e for e in previous.get(f"{dataset}/{kind}", [])}
        entries = []
        for r in rows:
            entry = record_one(explainer, ds.X, r)
            entry["baseline_first_distance"] = baseline(before[r]) if r in before else None
            entries.append(entry)
        out[f"{dataset}/{kind}"] = entries
    return out


if __name__ == "__main__":
    previous = json.loads(PATH.read_text()) if PATH.exists() else {}
    PATH.write_text(json.dumps(record(previous), indent=1) + "\n")
    print(f"wrote {PATH}")
