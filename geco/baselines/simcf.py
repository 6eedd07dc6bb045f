"""SimCF: a greedy search that changes one feature group at a time.

From the current row (first ``x``), every group not changed yet gets a few values sampled from its
feasible values (frequency-weighted, as GeCo samples); all these one-group changes are scored in
one model call. If some are counterfactuals that satisfy the program, the nearest ones are the
answer; otherwise the change that raises the desired class's probability most is kept and the
next round starts from it. The search stops at a counterfactual, when no change improves the
probability, or when every group has been changed.
"""

from __future__ import annotations

import numpy as np

from geco.baselines.base import Baseline, Instance, Proposal, distinct_first

__all__ = ["SimCF"]


class SimCF(Baseline):
    """Greedy one-group-at-a-time search; ``samples`` values per group and round."""

    name = "SimCF"

    def __init__(self, *args, samples: int = 5, **kwargs):
        super().__init__(*args, **kwargs)
        if not isinstance(samples, (int, np.integer)) or samples < 1:
            raise ValueError(f"samples must be a positive integer, got {samples!r}")
        self.samples = int(samples)

    def _propose(self, inst: Instance) -> Proposal:
        spaces = inst.spaces
        score = inst.score_rows
        current, p_current = inst.x.copy(), inst.probability
        changed = np.zeros(len(spaces), dtype=bool)
        stats = {"steps": 0, "candidates_scored": 0, "model_calls": 0}
        while True:
            parts, owner = [], []
            for g, space in enumerate(spaces):
                if changed[g] or len(space) == 0:
                    continue
                n = min(self.samples, len(space))
                idx = inst.rng.choice(len(space), size=n, replace=False, p=space.weights / space.weights.sum())
                rows = np.tile(current, (n, 1))
                rows[:, space.features] = space.values[idx]
                parts.append(rows)
                owner.append(np.full(n, g))
            if not parts:
                reason = "every feature group was changed without reaching the desired class"
                break
            rows, owner = np.concatenate(parts), np.concatenate(owner)
            prob = score(rows)
            stats["steps"] += 1
            stats["candidates_scored"] += len(rows)
            stats["model_calls"] += 1
            good = np.flatnonzero((prob > self.threshold) & inst.satisfies(rows))
            if len(good):
                order = good[np.argsort(inst.distances(rows[good]), kind="stable")]
                picked = distinct_first(rows, order, inst.k)
                return Proposal(rows[picked], np.ones(len(picked), dtype=bool), "", stats)
            best = int(np.argmax(prob))
            if prob[best] <= p_current:
                reason = f"no single group change raised the probability above {p_current:.3f}"
                break
            current, p_current = rows[best], float(prob[best])
            changed[owner[best]] = True
        shown = current[None] if np.any(current != inst.x) else np.empty((0, len(inst.x)))
        return Proposal(shown, np.zeros(len(shown), dtype=bool), f"SimCF found no counterfactual: {reason}", stats)
