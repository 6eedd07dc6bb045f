"""The same seed gives the same explanations as recorded (see ``recorded.py``), and the first
counterfactual is never farther than the paper's search found it."""

import json

import numpy as np
import pytest
from recorded import PATH, explainer_for, record_one, settings

RECORDED = json.loads(PATH.read_text())


@pytest.mark.parametrize(("dataset", "kind"), settings())
def test_explanations_unchanged(dataset, kind):
    expected = RECORDED[f"{dataset}/{kind}"]
    ds, explainer, rows = explainer_for(dataset, kind)
    assert rows == [e["row"] for e in expected]
    assert any(e["success"] for e in expected)
    for want in expected:
        got = record_one(explainer, ds.X, want["row"])
        assert got["success"] == want["success"], want["row"]
        assert got["values"] == want["values"], want["row"]
        # trees are bit-exact; the MLP's reported probabilities come from predict_proba (BLAS)
        rtol = 0 if kind != "mlp" else 1e-9
        np.testing.assert_allclose(got["probability"], want["probability"], rtol=rtol)
        np.testing.assert_allclose(got["distance"], want["distance"], rtol=1e-12)
        base = want["baseline_first_distance"]
        if base is not None:  # as close as the paper's search, or closer
            assert got["success"], want["row"]
            assert got["distance"][0] <= base * (1 + 1e-12), (want["row"], got["distance"][0], base)
