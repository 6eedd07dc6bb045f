"""The few smallest values in stable order, without a full sort."""

import numpy as np
import pytest

from geco.search.ranking import nearest


@pytest.mark.parametrize("count", [1, 3, 8, 40, 500])
def test_nearest_is_the_stable_sorts_head(count):
    rng = np.random.default_rng(count)
    values = rng.integers(0, 20, 300) / 4.0  # many ties, at the cut too
    values[7] = np.inf
    np.testing.assert_array_equal(nearest(values, count), np.argsort(values, kind="stable")[:count])
