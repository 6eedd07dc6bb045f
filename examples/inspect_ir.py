"""Look at the code geco compiles: the model specialised to one instance and a Δ.

Every feature outside Δ is folded in as a constant from x; only Δ's columns remain as inputs.
Run: python examples/inspect_ir.py   (or: geco ir --dataset compas --row 0 --delta PriorsCount)
"""

from sklearn.ensemble import RandomForestClassifier

import geco

data = geco.datasets.load_compas()
model = RandomForestClassifier(5, max_depth=3, random_state=0).fit(data.X, data.y)
explainer = geco.Explainer(model, data.X, data.constraints, desired_class=data.desired_class)

x = data.X.iloc[[0]]
print(explainer.ir(x, delta=["PriorsCount"]))                   # as emitted, readable
print(explainer.ir(x, delta=["PriorsCount"], optimized=True))   # after LLVM's passes
