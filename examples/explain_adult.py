"""Explain a declined Adult applicant through the Python API.

Run: python examples/explain_adult.py
"""

from sklearn.ensemble import RandomForestClassifier

import geco
from geco.models import one_hot_pipeline

data = geco.datasets.load_adult()
model = one_hot_pipeline(data.X, RandomForestClassifier(100, max_depth=10, random_state=0))
model.fit(data.X, data.y)

# the bundled constraints: sex, race, ... fixed; age only grows; more education takes years
explainer = geco.Explainer(model, data.X, data.constraints, desired_class=data.desired_class)
print(explainer, "-", explainer.engine_reason or "compiled engine")

declined = data.X[model.predict(data.X) != data.desired_class]
result = explainer.explain(declined.iloc[[0]], random_state=0)
print(result)
print(result.changes())  # one row per changed feature of each counterfactual
