"""What every baseline shares: construction like ``geco.Explainer``, the per-instance setup, and
one way to turn its answers into a ``geco.Explanation`` with violations counted, not hidden.

A baseline builds a ``geco.Explainer`` (for its schema, data, PLAF program, group domains and
ranges) and takes each instance's problem from it (``Explainer.problem``: encoded, grounded,
GeCo's distance, the feasible spaces, the engine bound to it), so the same inputs fail with the
same errors and distances mean the same thing. Its ``_propose`` returns the rows the method
proposes; :meth:`Baseline.explain` scores them with the
model's own ``predict_proba``, measures GeCo's distance and checks each one against the whole
program with the reference evaluator ``plaf_grammar.holds``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import plaf_grammar
from geco.explainer import Explainer
from geco.problem.feasible_space import GroupSpace
from geco.problem.hashing import row_hashes
from geco.problem.problem import Problem
from geco.result import Explanation, ranked_index
from geco.seeding import random_generator
from plaf_grammar import Schema

__all__ = ["Baseline", "Instance", "Proposal"]


@dataclass
class Instance:
    """One instance to explain, as a baseline sees it: its problem (``geco.problem.Problem``),
    the random stream and how many answers are wanted."""

    problem: Problem
    rng: np.random.Generator
    k: int

    @property
    def x(self) -> np.ndarray:
        return self.problem.x

    @property
    def frame(self) -> pd.DataFrame:
        return self.problem.frame

    @property
    def probability(self) -> float:
        return self.problem.probability

    @property
    def spaces(self) -> list[GroupSpace]:
        """Per group: the value tuples seen in the data, minus ``x``'s own, that satisfy the
        group's own rules for ``x`` (sorted by distance, with their frequencies as ``weights``)."""
        return self.problem.spaces

    def satisfies(self, rows: np.ndarray) -> np.ndarray:
        """Whether each encoded full row satisfies the whole program for this instance."""
        return self.problem.satisfies(rows)

    def distances(self, rows: np.ndarray) -> np.ndarray:
        return self.problem.distances(rows)

    def score_rows(self, rows: np.ndarray) -> np.ndarray:
        """The explainer's engine's P(desired) for encoded full rows."""
        return self.problem.score_rows(rows)


@dataclass
class Proposal:
    """A method's answer: encoded rows best first; ``counterfactual`` says which ones the method
    offers as counterfactuals (the rest are its best attempts when it failed)."""

    rows: np.ndarray
    counterfactual: np.ndarray
    reason: str = ""
    stats: dict[str, Any] = field(default_factory=dict)


def distinct_first(rows: np.ndarray, order: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` entries of ``order`` whose rows differ from every earlier one."""
    if len(order) == 0:
        return order
    h = row_hashes(rows[order])
    _, first = np.unique(h, return_index=True)
    return order[np.sort(first)[:k]]


class Baseline:
    """Base of the baselines; constructed like ``geco.Explainer``.

    ``engine`` chooses how a method scores its candidate rows (as in ``geco.Explainer``: "auto"
    compiles supported models, "blackbox" calls ``predict_proba``); the probabilities reported
    always come from the model's own ``predict_proba``."""

    name = "baseline"
    #: whether the method needs the model's class for every data row (scored at construction)
    uses_data_scores = False

    def __init__(
        self,
        model: Any,
        X: pd.DataFrame,
        constraints: str | Path | plaf_grammar.Program | None = None,
        desired_class: Any = 1,
        *,
        engine: str = "auto",
        schema: Schema | None = None,
        k: int = 5,
        threshold: float = 0.5,
        norm_weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
    ):
        self.explainer = Explainer(
            model, X, constraints, desired_class, engine=engine, schema=schema, k=k,
            q=max(k, 100), threshold=threshold, norm_weights=norm_weights,
        )  # fmt: skip
        self.model = model
        self.desired_class = desired_class
        self.k = k
        self.threshold = float(threshold)
        self.norm_weights = tuple(float(w) for w in norm_weights)
        self._data_desired: np.ndarray | None = None
        if self.uses_data_scores:
            self.data_desired()

    # ------------------------------------------------------------------ shared attributes
    @property
    def schema(self) -> Schema:
        return self.explainer.schema

    @property
    def data(self) -> np.ndarray:
        return self.explainer.data

    @property
    def program(self) -> plaf_grammar.Program:
        return self.explainer.program

    @property
    def groups(self) -> list[tuple[str, ...]]:
        return self.explainer.groups

    @property
    def engine(self) -> str:
        return self.explainer.engine

    def data_desired(self) -> np.ndarray:
        """Which rows of the data the model classifies as desired (one model call, cached)."""
        if self._data_desired is None:
            self._data_desired = self.explainer.setting.model_proba(self.data) > self.threshold
        return self._data_desired

    def __repr__(self) -> str:
        return f"{type(self).__name__}({type(self.model).__name__}, {len(self.data)} rows, engine={self.engine!r})"

    # ------------------------------------------------------------------ explain
    def explain(self, x: Any, *, random_state: Any = None, k: int | None = None) -> Explanation:
        """Counterfactuals for one instance (a one-row DataFrame, Series or dict), best first."""
        t_start = time.perf_counter()
        k = self.k if k is None else int(k)
        if k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        problem = self.explainer.problem(x)
        if problem.probability > self.threshold:
            reason = (
                f"the instance is already classified as the desired class {self.desired_class!r} "
                f"(p = {problem.probability:.3f} > threshold {self.threshold}); there is nothing to explain"
            )
            empty = Proposal(np.empty((0, len(problem.x))), np.zeros(0, dtype=bool), reason)
            return self._explanation(problem, empty, None, t_start)
        inst = Instance(problem, random_generator(random_state), k)
        return self._explanation(problem, self._propose(inst), inst, t_start)

    def _propose(self, inst: Instance) -> Proposal:
        raise NotImplementedError

    def _explanation(self, problem: Problem, proposal: Proposal, inst: Instance | None, t_start: float) -> Explanation:
        rows, frame, x_enc = proposal.rows, problem.frame, problem.x
        prob = problem.model_proba(rows)
        flags = np.asarray(proposal.counterfactual, dtype=bool) & (prob > self.threshold)
        # counterfactuals first, each part in the method's order (a row the model does not score
        # as desired is never reported ahead of one it does)
        order = np.concatenate([np.flatnonzero(flags), np.flatnonzero(~flags)])
        rows, prob, flags = rows[order], prob[order], flags[order]
        out = self.schema.decode(rows)
        holds = np.array(
            [plaf_grammar.holds(self.program, frame, out.iloc[[i]]) for i in range(len(out))],
            dtype=bool,
        )
        out["probability"] = prob
        out["distance"] = problem.distances(rows) if inst is not None and len(rows) else np.zeros(len(rows))
        out["n_changed"] = np.count_nonzero(rows != x_enc, axis=1).astype(int)
        out["counterfactual"] = flags
        out.index = ranked_index(len(out))
        violations = int(np.count_nonzero(flags & ~holds))
        reason = proposal.reason
        if violations:
            note = f"{violations} of {int(flags.sum())} counterfactual(s) break the constraints"
            reason = f"{reason}; {note}" if reason else note
        if not flags.any() and not reason:
            reason = f"{self.name} found no counterfactual"
        stats = dict(proposal.stats)
        stats.update(
            method=self.name,
            engine=self.engine,
            violations=violations,
            seconds_total=time.perf_counter() - t_start,
        )
        return Explanation(frame, out, bool(flags.any()), reason, self.desired_class, problem.probability, stats)
