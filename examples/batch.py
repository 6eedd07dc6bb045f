"""Explain a batch of declined applications and collect the answers in one table.

Run: python examples/batch.py
"""

import pandas as pd
from sklearn.ensemble import RandomForestClassifier

import geco

data = geco.datasets.load_credit()
model = RandomForestClassifier(100, max_depth=10, random_state=0).fit(data.X, data.y)
explainer = geco.Explainer(model, data.X, data.constraints, desired_class=data.desired_class)

declined = data.X[model.predict(data.X) != data.desired_class].iloc[:20]
results = explainer.explain_many(declined, random_state=0)

rows = []
for instance, result in zip(declined.index, results):
    changes = result.changes()
    best = changes[changes["counterfactual"] == 1]  # numbered as printed: #1 is the best
    rows.append({
        "instance": instance,
        "found": result.success,
        "seconds": result.stats["seconds_total"],
        "best change": "; ".join(f"{r.feature}: {r['from']} -> {r.to}" for _, r in best.iterrows()),
    })  # fmt: skip
print(pd.DataFrame(rows).to_string(index=False))
