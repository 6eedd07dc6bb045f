"""geco: counterfactual explanations in real time (GeCo, VLDB 2021).

``geco.Explainer(model, X, constraints).explain(x)`` returns the few smallest, feasible changes to
``x`` that flip the model's decision. See README.md.

The public names are imported on first use (PEP 562), so that ``import geco.cli`` - the command
line's ``--help`` - does not pay for numpy, pandas, scikit-learn and llvmlite.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codegen import ENGINES, BlackBoxScorer
    from codegen import UnsupportedModel as UnsupportedModelError
    from geco import datasets
    from geco.explainer import Explainer, load
    from geco.fitted_state import ModelChangedError
    from geco.laws import suggest
    from geco.report import report
    from geco.result import Explanation
    from geco.search.exact import ExactBudget

__all__ = [
    "ENGINES", "BlackBoxScorer", "ExactBudget", "Explainer", "Explanation", "ModelChangedError", "UnsupportedModelError", "datasets",
    "load", "report", "suggest",
]  # fmt: skip
__version__ = "0.1.0"

#: public name -> (module, attribute; None: the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "ENGINES": ("codegen", "ENGINES"),
    "BlackBoxScorer": ("codegen", "BlackBoxScorer"),
    "UnsupportedModelError": ("codegen", "UnsupportedModel"),
    "datasets": ("geco.datasets", None),
    "Explainer": ("geco.explainer", "Explainer"),
    "ExactBudget": ("geco.search.exact", "ExactBudget"),
    "load": ("geco.explainer", "load"),
    "ModelChangedError": ("geco.fitted_state", "ModelChangedError"),
    "report": ("geco.report", "report"),
    "Explanation": ("geco.result", "Explanation"),
    "suggest": ("geco.laws", "suggest"),
}


def __getattr__(name: str) -> Any:
    try:
        module_name, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'geco' has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """The ``geco`` module's type: ``geco.report`` stays the report function. (Importing the
    ``geco.report`` package sets the attribute to the package; ``from geco.report import ...``
    reads the package from ``sys.modules`` either way.)"""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "report" and isinstance(value, types.ModuleType):
            self.__dict__.pop("report", None)  # the function again, on next use
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
