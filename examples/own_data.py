"""Your own data, model and rules: a small loan table, a gradient-boosted model, PLAF as text.

Run: python examples/own_data.py
"""

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

import geco

rng = np.random.default_rng(0)
n = 5000
X = pd.DataFrame({
    "age": rng.integers(18, 70, n),
    "income": rng.gamma(2.0, 20_000, n).round(-2),
    "debt": rng.gamma(1.5, 10_000, n).round(-2),
    "employment": pd.Categorical(rng.choice(["none", "part-time", "full-time"], n, p=[0.1, 0.3, 0.6])),
    "home": pd.Categorical(rng.choice(["rent", "own", "mortgage"], n)),
})  # fmt: skip
score = X["income"] / 1000 - X["debt"] / 800 + 10 * (X["employment"] == "full-time") + X["age"] / 5
y = (score + rng.normal(0, 5, n) > 40).astype(int)

model = HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=0).fit(X, y)

rules = """
fixed home                                  # not something to ask of an applicant
increasing age
cf.debt <= x.debt                           # paying debt down, not up
cf.income <= x.income + 30000              # a raise, not a new life
if cf.employment != x.employment then cf.age >= x.age + 1
"""
explainer = geco.Explainer(model, X, rules, desired_class=1)
print(explainer)

declined = X[model.predict(X) == 0]
for i in range(3):
    result = explainer.explain(declined.iloc[[i]], random_state=i)
    print(result, end="\n\n")
