"""WIT: the What-If Tool's nearest counterfactual, restricted to the PLAF program.

The answer is the row of the data nearest to ``x`` (GeCo's distance) that the model classifies as
desired and that satisfies the constraints for ``x``; the ``k`` nearest distinct such rows are
returned. The model scores the data once per baseline object; per instance the constraint check
and the distances are one vectorised pass over the data.
"""

from __future__ import annotations

import numpy as np

from geco.baselines.base import Baseline, Instance, Proposal, distinct_first

__all__ = ["WIT"]


class WIT(Baseline):
    """Nearest data row classified as desired that satisfies the constraints."""

    name = "WIT"
    uses_data_scores = True

    def _propose(self, inst: Instance) -> Proposal:
        desired = np.flatnonzero(self.data_desired())
        rows = self.data[desired]
        ok = inst.satisfies(rows)
        rows = rows[ok]
        stats = {"rows_searched": len(self.data), "rows_feasible": len(rows), "model_calls": 0}
        if len(rows) == 0:
            return Proposal(
                np.empty((0, len(inst.x))), np.zeros(0, dtype=bool),
                "no row of the data is classified as desired and satisfies the constraints",
                stats,
            )  # fmt: skip
        order = np.argsort(inst.distances(rows), kind="stable")
        picked = distinct_first(rows, order, inst.k)
        return Proposal(rows[picked], np.ones(len(picked), dtype=bool), "", stats)
