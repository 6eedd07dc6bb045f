"""Compiled code reads by index: every index it could be handed is checked first. A short ``x``,
a Δ that is not increasing indices in range, a block narrower than Δ and values that are no
category code are errors or defined results in every tier - never a read outside a buffer."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import differential as diff

from codegen.registry import scorer_for
from codegen.trees.kernel import run_kernel

INVALID = np.array([-1.0, 99.0, 0.5, np.nan, 1e300, -1e300, 2.0**63])


@pytest.fixture(scope="module")
def tree_case():
    return diff.make_case(5, "hgb-cat", "bare", n=160)  # native categorical splits (code sets)


@pytest.fixture(scope="module")
def mlp_case():
    return diff.make_case(3, "mlp", "onehot", n=160)  # one-hot codes -> tables


@pytest.mark.parametrize("which", ["tree", "mlp"])
def test_bad_x_and_delta_are_refused(which, tree_case, mlp_case):
    case = tree_case if which == "tree" else mlp_case
    d = len(case.schema)
    engines = ("numpy", "jit", "auto")
    assert d >= 2
    for engine in engines:
        scorer = scorer_for(case.model, case.schema, case.desired, engine)
        with pytest.raises(ValueError, match="expected an encoded vector"):
            scorer.bind(case.data[0][:-1])
        bound = scorer.bind(case.data[0])
        for delta in [(-1,), (d,), (1, 0), (0, 0)]:
            with pytest.raises(ValueError, match="strictly increasing"):
                bound.score_block(delta, np.zeros((3, len(delta))))
        with pytest.raises(ValueError):  # a block narrower than its Δ
            bound.score_block((0, 1), np.zeros((3, 1)))


def test_tree_kernels_refuse_rows_narrower_than_they_read(tree_case):
    scorer = scorer_for(tree_case.model, tree_case.schema, tree_case.desired, "auto")
    full = scorer.full
    assert 0 < full.width <= len(tree_case.schema)  # the largest column a split reads, plus one
    with pytest.raises(ValueError, match="columns"):
        run_kernel(full, np.zeros((4, full.width - 1)))


def test_invalid_category_codes_every_tier(tree_case, mlp_case):
    """Trees: such a code goes right in every tier (the numpy reference defines it); MLP: NaN."""
    for case in (tree_case, mlp_case):
        j = next(i for i, f in enumerate(case.schema.features) if f.categories is not None)
        tiers = diff.mlp_tiers(case) if case.family == "mlp" else diff.tree_tiers(case)
        cols = INVALID[:, None]
        rows = diff.full_rows(case.data[0], (j,), cols)
        for tier, scorer in tiers.items():
            if case.family == "mlp":
                got = scorer.bind(case.data[0]).score_block((j,), cols)
                assert np.isnan(got).all(), tier
            else:
                want = scorer.forest.predict(rows)
                for got in diff.score_tree_tier(tier, scorer, case.data[0], (j,), cols):
                    np.testing.assert_array_equal(got, want, err_msg=tier)
