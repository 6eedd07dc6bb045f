"""Baselines of the GeCo paper's evaluation (Sec. 6), with geco's interface.

Each is constructed like ``geco.Explainer(model, X, constraints, desired_class)`` and its
``explain(x, random_state=...)`` returns a ``geco.Explanation`` (GeCo's distance, the model's own
probabilities, every answer checked against the PLAF program; ``stats["violations"]`` counts the
counterfactuals that break it):

* :class:`WIT` - the nearest row of the data classified as desired that satisfies the program;
* :class:`SimCF` - greedy, one feature group at a time;
* :class:`CERT` - CERTIFAI's plain genetic algorithm over full rows;
* :class:`DiCE` - the ``dice-ml`` package (extra ``geco-cf[compare]``), the program translated to
  DiCE's ``features_to_vary`` / ``permitted_range`` as far as it goes.
"""

from geco.baselines.base import Baseline
from geco.baselines.cert import CERT
from geco.baselines.dice import DiCE
from geco.baselines.simcf import SimCF
from geco.baselines.wit import WIT

BASELINES = {"WIT": WIT, "SimCF": SimCF, "CERT": CERT, "DiCE": DiCE}

__all__ = ["BASELINES", "CERT", "WIT", "Baseline", "DiCE", "SimCF"]
