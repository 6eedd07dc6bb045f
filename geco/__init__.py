"""geco: counterfactual explanations in real time (GeCo, VLDB 2021).

``geco.Explainer(model, X, constraints).explain(x)`` returns the few smallest, feasible changes to
``x`` that flip the model's decision. See README.md.
"""

from codegen import ENGINES, BlackBoxScorer
from codegen import UnsupportedModel as UnsupportedModelError
from geco import datasets
from geco.explainer import Explainer, load
from geco.laws import suggest as suggest  # draft a PLAF program from the data's laws
from geco.report import report
from geco.result import Explanation

__all__ = ["ENGINES", "BlackBoxScorer", "Explainer", "Explanation", "UnsupportedModelError", "datasets", "load", "report"]
__version__ = "0.1.0"
