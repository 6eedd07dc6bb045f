"""A model that fails for one value, to drive the service's 500 path: it raises for any row whose
``age`` is 33.5 (a value inside the data's range that the data does not hold, so geco's own
checks let it through to the model)."""

import numpy as np

FAILING_AGE = 33.5


class FaultyModel:
    """Wraps a fitted classifier; ``predict_proba`` raises RuntimeError for age == 33.5."""

    def __init__(self, model):
        self.model = model
        self.classes_ = model.classes_
        self.feature_names_in_ = model.feature_names_in_

    def predict_proba(self, X):
        if np.any(np.asarray(X["age"], dtype=float) == FAILING_AGE):
            raise RuntimeError(f"the model cannot score age {FAILING_AGE}")
        return self.model.predict_proba(X)
