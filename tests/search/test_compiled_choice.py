"""Which search runs (geco.search.compiled): the switch, the first-use estimate, the batch's pay
rule and the rent-or-buy rule; in fresh processes, the default runs the numpy reference without
importing numba until a batch finds the compiled search pays, or the searches so far have earned
it (never under a time budget), then runs it, with the same explanations; and ``geco serve``'s
warm-up."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import geco
import geco.batch
from geco.search import compiled, kernels
from geco.search.compiled import compiled_kernels, first_use_seconds, kernels_pay
from geco.search.config import SearchConfig


@pytest.mark.parametrize(
    "native, switch, expected",
    [
        (True, "", kernels), (False, "", None), (None, "", kernels),  # loaded: this module imports them
        (True, "0", None), (None, "0", None), (False, "1", kernels), (None, "1", kernels),
    ],
)  # fmt: skip
def test_switch(monkeypatch, native, switch, expected):
    monkeypatch.setenv("GECO_SEARCH_NATIVE", switch)
    assert compiled_kernels(native) is expected


def test_default_leaves_the_choice_to_the_process():
    assert SearchConfig().native is None
    SearchConfig(native=None).validate()
    with pytest.raises(ValueError, match="native must be True, False or None"):
        SearchConfig(native="yes").validate()


def test_first_use_is_a_load_where_the_cache_holds_the_kernels(tmp_path):
    assert first_use_seconds(tmp_path) == compiled.FIRST_USE_SECONDS[1]
    (tmp_path / "bookkeeping._selection-150.py311.nbi").write_bytes(b"")
    assert first_use_seconds(tmp_path) == compiled.FIRST_USE_SECONDS[0]


def test_pay_rule(monkeypatch):
    monkeypatch.setattr(compiled, "first_use_seconds", lambda cache=None: 1.0)
    saved = compiled.KERNELS_SAVE
    assert not kernels_pay(10, 0.05)  # 0.1 s saved: less than the load
    assert kernels_pay(1.01 / (0.05 * saved), 0.05)
    assert not kernels_pay(0.99 / (0.05 * saved), 0.05)
    monkeypatch.setenv("GECO_SEARCH_NATIVE", "0")
    assert not kernels_pay(1e6, 1.0)


SETUP = """
import json, sys, warnings
import numpy as np
from sklearn.ensemble import RandomForestClassifier
import geco
import geco.batch
from geco.search import compiled
from geco.datasets import load_dataset
from geco.models import one_hot_pipeline
warnings.simplefilter("ignore")
ds = load_dataset("adult")
X, y = ds.X.iloc[:3000], ds.y.iloc[:3000]
model = one_hot_pipeline(X, RandomForestClassifier(20, max_depth=6, random_state=0, n_jobs=1)).fit(X, y)
explainer = geco.Explainer(model, X, ds.constraints)
rows = X.iloc[np.flatnonzero(model.predict_proba(X)[:, 1] < 0.5)[:8]]
out = {"reference": [e.counterfactuals.to_csv() for e in explainer.explain_many(rows, random_state=1, native=False, progress=False)]}
out["numba_after_reference"] = "numba" in sys.modules
"""

BATCH = SETUP + """
single = explainer.explain(rows.iloc[[0]], random_state=5)
out["single_compiled"] = single.stats["compiled_search"]
out["numba_after_single"] = "numba" in sys.modules
geco.batch.kernels_pay = lambda rows_left, per_row: True  # this batch pays from its first check on
batch = explainer.explain_many(rows, random_state=1, progress=False)
out["batch"] = [e.counterfactuals.to_csv() for e in batch]
out["batch_compiled"] = [e.stats["compiled_search"] for e in batch]
print(json.dumps(out))
"""

SINGLES = SETUP + """
compiled.FIRST_USE_SECONDS = (0.01, 0.01)  # earned after about 0.05 s of reference searches
seeds = geco.batch.row_seeds(1, len(rows))
budgeted = [explainer.explain(rows.iloc[[i]], random_state=seeds[i], time_budget=30.0) for i in range(3)]
out["budgeted_compiled"] = [e.stats["compiled_search"] for e in budgeted]
out["numba_after_budgeted"] = "numba" in sys.modules
out["earned"] = compiled.kernels_earned()
singles = [explainer.explain(rows.iloc[[i]], random_state=seeds[i]) for i in range(len(rows))]
out["singles"] = [e.counterfactuals.to_csv() for e in singles]
out["singles_compiled"] = [e.stats["compiled_search"] for e in singles]
print(json.dumps(out))
"""


def _fresh_process(script: str) -> dict:
    if not compiled.kernels_available():
        pytest.skip("numba is not installed")
    env = {k: v for k, v in os.environ.items() if k != "GECO_SEARCH_NATIVE"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert not out["numba_after_reference"]  # native=False neither loads nor counts towards them
    assert all("counterfactual" in csv for csv in out["reference"])
    return out


def test_a_batch_loads_the_compiled_search_once_it_pays_with_the_same_answers():
    out = _fresh_process(BATCH)
    assert not out["numba_after_single"] and out["single_compiled"] is False
    # rows timed before the choice (one check per _TIMED_ROWS rows) run the reference, the rest compiled
    timed = geco.batch._TIMED_ROWS
    assert out["batch_compiled"] == [False] * timed + [True] * (len(out["batch"]) - timed)
    assert out["batch"] == out["reference"]


def test_single_explanations_load_it_once_earned_never_under_a_budget():
    """Rent or buy: the reference runs until what the kernels would have saved reaches their
    first use; a search with a time budget never pays the load; the answers stay the same."""
    out = _fresh_process(SINGLES)
    assert out["budgeted_compiled"] == [False] * 3 and not out["numba_after_budgeted"]
    assert out["earned"]  # the budgeted searches counted
    assert all(out["singles_compiled"])  # the first search without a budget loaded them
    assert out["singles"] == out["reference"]


def test_rent_or_buy_rule(monkeypatch):
    monkeypatch.setattr(compiled, "_reference_seconds", [0.0])
    monkeypatch.setattr(compiled, "first_use_seconds", lambda cache=None: 1.0)
    assert not compiled.kernels_earned()
    compiled.note_reference_search(0.99 / compiled.KERNELS_SAVE)
    assert not compiled.kernels_earned()
    compiled.note_reference_search(0.02 / compiled.KERNELS_SAVE)
    assert compiled.kernels_earned()
    monkeypatch.setenv("GECO_SEARCH_NATIVE", "0")
    assert not compiled.kernels_earned()


def test_a_failed_import_runs_the_reference_and_is_not_retried(monkeypatch):
    """numba installed but broken (the kernels' import raises): the searches run the numpy
    reference, asked for the kernels or not, and the import is not tried again."""
    monkeypatch.setattr(compiled, "_import_failed", [False])
    monkeypatch.setitem(sys.modules, "geco.search.kernels", None)  # importing it raises ImportError
    monkeypatch.delenv("GECO_SEARCH_NATIVE", raising=False)
    assert compiled.load_kernels() is None
    assert not compiled.kernels_available() and not compiled.kernels_pay(1e6, 1.0)
    assert compiled_kernels(True) is None and compiled_kernels(None, may_load=True) is None


def test_serve_warm_up_runs_the_compiled_search(monkeypatch):
    from geco.datasets import load_dataset
    from geco.models import default_model
    from geco.serve.app import warm_up_search

    ds = load_dataset("compas")
    model = default_model(ds.X.iloc[:2000], ds.y.iloc[:2000])
    explainer = geco.Explainer(model, ds.X.iloc[:2000], ds.constraints)
    probability = explainer.setting.model_proba(explainer.table.take(slice(0, 256)))
    assert warm_up_search(explainer, probability) == "compiled search loaded and warmed"
    assert "no undesired row" in warm_up_search(explainer, np.ones(256))

    def broken(*args, **kwargs):
        raise RuntimeError("the model is unreachable")

    monkeypatch.setattr(explainer, "explain", broken)  # the service starts anyway and says why
    assert warm_up_search(explainer, probability) == (
        "compiled search loaded; warm-up failed (RuntimeError: the model is unreachable)")
    monkeypatch.setenv("GECO_SEARCH_NATIVE", "0")
    assert warm_up_search(explainer, probability).startswith("numpy search")
