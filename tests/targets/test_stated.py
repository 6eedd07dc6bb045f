"""How the Explainer's arguments become a target, and what it refuses."""

from __future__ import annotations

import numpy as np
import pytest

from codegen.outputs import ModelOutput
from geco.search.target import Target
from geco.targets import checked_interval, stated_target


def test_one_class_is_the_papers_target():
    for given in (1, [1], (1,), {1}):
        st = stated_target(given)
        assert st.output == 1 and st.kind == "probability" and st.desired == 1


def test_a_set_of_classes_sums_their_probabilities():
    st = stated_target([3, "b", 3])
    assert st.output == ModelOutput("proba", (3, "b")) and st.desired == [3, "b"]
    with pytest.raises(ValueError, match="empty"):
        stated_target([])


def test_intervals():
    assert stated_target(1, desired_range=(2, 5)).output == ModelOutput("prediction")
    assert stated_target(1, margin_range=(-1, np.inf)).interval == (-1.0, np.inf)
    for bad in ((3, 2), (np.nan, 1), (1,), "ab", None):
        with pytest.raises(ValueError, match="desired_range"):
            checked_interval("desired_range", bad)
    with pytest.raises(ValueError, match="not both"):
        stated_target(1, margin_range=(0, 1), desired_range=(0, 1))


def test_probability_target_is_the_papers_formula():
    p = np.array([0.2, 0.5, 0.51, np.nan])
    t = Target.probability(0.5)
    assert t.meets(p).tolist() == [False, False, True, False]
    assert np.array_equal(t.shortfall(p), 1.0 - p, equal_nan=True)
    assert np.array_equal(t.closeness_key(p), -p, equal_nan=True)


def test_interval_target_meets_and_falls_short_by_its_distance():
    t = Target.interval("range", 10, 20, scale=5)
    s = np.array([5.0, 10.0, 15.0, 20.0, 30.0, np.nan])
    assert t.meets(s).tolist() == [False, True, True, True, False, False]
    assert t.shortfall(s)[:5].tolist() == [1.0, 0.0, 0.0, 0.0, 2.0]
    assert t.to_dict() == {"kind": "range", "desired_range": [10.0, 20.0]}
    assert Target.interval("range", 0, 1, scale=0).scale == 1.0  # a constant model: no division by 0
