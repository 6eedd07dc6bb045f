"""Differential test in CI: random models of every family (XGBoost and LightGBM included), bare and
in pipelines, scored through every engine tier on values at the split thresholds, their
float32/float64 neighbours, huge magnitudes, NaN and invalid category codes, against
``predict_proba`` - trees bit for bit, MLPs within :func:`codegen.mlp.bound.error_bound`. The same checks at scale (10^6 rows, each model in
its own process so a crash is counted): ``benchmarks/differential.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import differential as diff

BLOCKS = 3
ROWS = 60


def check_model(case: diff.Case, seed: int) -> diff.Tally:
    tiers = diff.mlp_tiers(case) if diff.is_mlp(case) else diff.tree_tiers(case)
    forest = None if diff.is_mlp(case) else tiers["numpy"].forest
    rng = np.random.default_rng(seed)
    tally = diff.Tally()
    for b in range(BLOCKS):
        x, delta, cols = diff.draw_block(case, rng, ROWS, forest, invalid_codes=b == BLOCKS - 1)
        diff.check_block(case, tiers, x, delta, cols, tally)
    return tally


@pytest.mark.parametrize("family", (*diff.FAMILIES, *diff.MLP_OUTPUTS))
@settings(
    max_examples=2,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(pipeline=st.sampled_from(diff.PIPELINES), seed=st.integers(0, 2**31 - 1))
def test_every_tier_agrees_with_predict_proba(family, pipeline, seed):
    if family in ("xgb", "lgb"):
        pytest.importorskip({"xgb": "xgboost", "lgb": "lightgbm"}[family])
    case = diff.make_case(seed, family, "bare" if family == "hgb-cat" else pipeline, n=160)
    tally = check_model(case, seed)
    assert tally.rows == BLOCKS * ROWS
    assert not tally.mismatches, tally.examples[:2]


@pytest.mark.parametrize("family", ["rf", "gb", "hgb", "mlp"])
def test_pipelines_with_simple_imputers_compile_and_agree(family):
    """A SimpleImputer before the encoders and scalers is read as the identity (no row holds a
    missing value): the model compiles and every tier agrees with predict_proba."""
    case = diff.make_case(3, family, "imputed", n=160)
    assert any(type(s).__name__ == "SimpleImputer" for _, t, _ in case.model[0].transformers_ for s in getattr(t, "named_steps", {}).values())
    tally = check_model(case, 3)
    assert tally.rows == BLOCKS * ROWS and not tally.mismatches, tally.examples[:2]


def test_values_the_model_refuses_are_counted_not_compared():
    """A forest behind a StandardScaler refuses 1e300 (inf after scaling): such rows are left
    out of the comparison (the Explainer refuses them up front), the rest still compared."""
    case = diff.make_case(7, "rf", "standard", n=160)
    rows = np.tile(case.data[0], (3, 1))
    j = next(i for i, f in enumerate(case.schema.features) if f.categories is None)
    rows[1, j] = 1e300
    ref, took = diff.reference(case, rows)
    assert took.tolist() == [True, False, True] and np.isnan(ref[1]) and np.isfinite(ref[[0, 2]]).all()


def test_hot_delta_compiles_in_the_background_and_agrees():
    """The auto tier compiles a hot Δ on a background thread while the kernel keeps scoring;
    every result before and after the switch equals predict_proba."""
    case = diff.make_case(11, "gb", "onehot", n=160)
    scorer = diff.tree_tiers(case)["auto"]
    checked, bad, compiled = diff.hot_delta(case, scorer, np.random.default_rng(0), n=50, seconds=30.0)
    assert checked > 0 and compiled and bad == 0


@pytest.mark.parametrize("family", ["rf", "gb", "hgb", "mlp", "mlp-reg"])
def test_pipelines_with_feature_selection_compile_and_agree(family):
    """Feature selectors after the encoders and scalers keep the columns their support marks:
    the model compiles and every tier agrees with predict_proba."""
    case = diff.make_case(5, family, "selected", n=160)
    assert type(case.model[2]).__name__ == "SelectKBest"
    tally = check_model(case, 5)
    assert tally.rows == BLOCKS * ROWS and not tally.mismatches, tally.examples[:2]
