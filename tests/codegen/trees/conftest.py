import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from tree_cases import fitted_models


@pytest.fixture(scope="session")
def fitted():
    """(name, model, schema, X_encoded, desired_class) for every model, bare and in a pipeline."""
    return fitted_models()


@pytest.fixture(scope="session")
def forests(fitted):
    from codegen.trees.fold import read_forest

    return {name: read_forest(model, schema, desired) for name, model, schema, _, desired in fitted}
