"""One instance's problem, built once and used by the search, the baselines and the diagnosis.

An :class:`Instance` is ``x`` encoded and checked, with the engine bound to it and the model's
P(desired) for it: enough to tell that there is nothing to explain. A :class:`Problem` adds what
a search needs: the PLAF program grounded on ``x``, the distance to ``x`` (priced by the
program's ``cost`` statements), every group's feasible values (sorted by distance, weighted by frequency) and the groups every counterfactual must
change because ``x`` breaks one of their rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from geco.problem.distance import DistanceSpec
from geco.problem.feasible_space import GroupSpace
from plaf_grammar import GroundProgram

if TYPE_CHECKING:
    from geco.problem.setting import Setting

__all__ = ["Instance", "Problem"]


@dataclass(frozen=True)
class Instance:
    """``x`` encoded (``x``) and in the user's form (``frame``), the engine bound to it
    (``scorer``, a ``codegen.InstanceScorer``) and the model's own P(desired) of it."""

    x: np.ndarray
    frame: pd.DataFrame
    scorer: Any
    probability: float


@dataclass(frozen=True)
class Problem:
    """One instance and everything the rules allow for it (see the module docstring)."""

    setting: Setting
    instance: Instance
    grounded: GroundProgram
    #: what the search minimises: the priced distance, divided by its largest cost above 1
    #: (``DistanceSpec.for_search``); the feasible spaces are sorted by it
    distance: DistanceSpec
    spaces: list[GroupSpace]
    #: (G,) groups whose value in x breaks one of the group's own rules
    required: np.ndarray
    #: the distance reported (:meth:`distances`): priced by the program's costs; None: ``distance``
    priced: DistanceSpec | None = None

    @property
    def x(self) -> np.ndarray:
        return self.instance.x

    @property
    def frame(self) -> pd.DataFrame:
        return self.instance.frame

    @property
    def probability(self) -> float:
        return self.instance.probability

    @property
    def scorer(self) -> Any:
        return self.instance.scorer

    @property
    def names(self) -> tuple[str, ...]:
        return self.setting.schema.names

    def satisfies(self, rows: np.ndarray) -> np.ndarray:
        """Whether each encoded full row satisfies the whole program for this instance."""
        if len(rows) == 0:
            return np.zeros(0, dtype=bool)
        return np.asarray(self.grounded.check(dict(zip(self.names, rows.T))), dtype=bool)

    @property
    def reported_distance(self) -> DistanceSpec:
        """The distance :meth:`distances` computes (priced by the program's costs)."""
        return self.distance if self.priced is None else self.priced

    def distances(self, rows: np.ndarray, kernels: Any = None) -> np.ndarray:
        """GeCo's distance of each encoded full row to ``x``, priced by the program's costs;
        ``kernels``: :mod:`geco.search.kernels`, which compute the same numbers in one pass."""
        spec = self.reported_distance
        if kernels is not None and len(rows):
            return kernels.row_distances(rows, spec.cell_terms())
        return spec(np.arange(len(self.x)), rows)

    def model_proba(self, rows: np.ndarray) -> np.ndarray:
        """The model's own P(desired) for encoded full rows (see ``Setting.model_proba``), by
        the engine bound to ``x`` where that is exact."""
        return self.setting.model_proba(rows, self.scorer)

    def score_rows(self, rows: np.ndarray) -> np.ndarray:
        """The engine's P(desired) for encoded full rows (compiled where the model allows)."""
        if len(rows) == 0:
            return np.empty(0)
        return np.asarray(self.setting.scorer.score_rows(np.ascontiguousarray(rows)), dtype=np.float64)
