"""CERT (CERTIFAI): a plain genetic algorithm over full rows.

The population is seeded with rows of the data that the model classifies as desired and that
satisfy the constraints for ``x``. Every generation, tournament-selected parents exchange whole
feature groups (uniform crossover) and each child's groups mutate, with probability
``mutation_rate``, to a value tuple drawn from the group's feasible values or ``x``'s own
(frequency-weighted). Fitness ranks counterfactuals that satisfy the program by their distance to
``x``, ahead of every other row (ranked by ``1 + distance + (1 - p)``, as GeCo ranks them); the
best ``population`` distinct rows of parents and children survive. It runs a fixed number of
generations (300, as in the paper) and does not use GeCo's Δ-representation or its operators.
"""

from __future__ import annotations

import numpy as np

from geco.baselines.base import Baseline, Instance, Proposal, distinct_first
from geco.problem.hashing import row_hashes

__all__ = ["CERT"]


class CERT(Baseline):
    """Genetic algorithm on full rows seeded with desired-class rows of the data."""

    name = "CERT"
    uses_data_scores = True

    def __init__(
        self,
        *args,
        population: int = 100,
        generations: int = 300,
        mutation_rate: float | None = None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        for label, v in (("population", population), ("generations", generations)):
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{label} must be a positive integer, got {v!r}")
        if mutation_rate is not None and not 0.0 <= mutation_rate <= 1.0:
            raise ValueError(f"mutation_rate must be in [0, 1], got {mutation_rate!r}")
        self.population = int(population)
        self.generations = int(generations)
        self.mutation_rate = mutation_rate

    def _mutation_pools(self, inst: Instance):
        """Per group: the feature indices and the value tuples a mutation may draw (the feasible
        ones plus ``x``'s own) with their cumulative frequencies."""
        spaces = inst.spaces
        pools = []
        for space, domain in zip(spaces, self.explainer.domains):
            own = inst.x[space.features][None]
            seen = float(domain.counts[np.all(domain.values == own, axis=1)].sum())
            values = np.concatenate([own, space.values])
            weights = np.concatenate([[max(seen, 1.0)], space.weights])
            pools.append((space.features, values, np.cumsum(weights)))
        return pools

    def _propose(self, inst: Instance) -> Proposal:
        rng = inst.rng
        seeds = self.data[self.data_desired()]
        seeds = seeds[inst.satisfies(seeds)]
        stats = {"generations": 0, "candidates_scored": 0, "model_calls": 0, "seed_rows": len(seeds)}
        if len(seeds) == 0:
            return Proposal(
                np.empty((0, len(inst.x))), np.zeros(0, dtype=bool),
                "no row of the data is classified as desired and satisfies the constraints, so "
                "CERT has no initial population", stats,
            )  # fmt: skip
        score = inst.score_rows
        pools = self._mutation_pools(inst)
        n_groups = len(pools)
        rate = self.mutation_rate if self.mutation_rate is not None else 1.0 / n_groups
        seen_h = np.empty(0, dtype=np.uint64)
        seen_p = np.empty(0)

        def fitness(rows: np.ndarray) -> np.ndarray:
            nonlocal seen_h, seen_p
            h = row_hashes(rows)
            pos = np.minimum(np.searchsorted(seen_h, h), max(len(seen_h) - 1, 0))
            known = (seen_h[pos] == h) if len(seen_h) else np.zeros(len(h), dtype=bool)
            new_h, first = np.unique(h[~known], return_index=True)
            if len(new_h):
                new_p = score(rows[~known][first])
                stats["candidates_scored"] += len(new_h)
                stats["model_calls"] += 1
                allh = np.concatenate([seen_h, new_h])
                order = np.argsort(allh, kind="stable")
                seen_h, seen_p = allh[order], np.concatenate([seen_p, new_p])[order]
            prob = seen_p[np.searchsorted(seen_h, h)]
            dist = inst.distances(rows)
            good = (prob > self.threshold) & inst.satisfies(rows)
            return np.where(good, dist, 1.0 + dist + (1.0 - prob)), good

        pop = seeds[rng.integers(0, len(seeds), size=self.population)]
        fit, good = fitness(pop)
        group_of_feature = self.explainer.group_of_feature
        for _ in range(self.generations):
            n = self.population
            # tournament selection of two parents per child
            a = rng.integers(0, len(pop), size=(2, n))
            b = rng.integers(0, len(pop), size=(2, n))
            pa = np.where(fit[a[0]] <= fit[b[0]], a[0], b[0])
            pb = np.where(fit[a[1]] <= fit[b[1]], a[1], b[1])
            take_a = rng.random((n, n_groups)) < 0.5
            children = np.where(take_a[:, group_of_feature], pop[pa], pop[pb])
            mutate = rng.random((n, n_groups)) < rate
            for g, (feats, values, cum) in enumerate(pools):
                who = np.flatnonzero(mutate[:, g])
                if len(who):
                    pick = np.searchsorted(cum, rng.random(len(who)) * cum[-1], side="right")
                    children[np.ix_(who, feats)] = values[np.minimum(pick, len(values) - 1)]
            cfit, cgood = fitness(children)
            merged = np.concatenate([pop, children])
            mfit = np.concatenate([fit, cfit])
            mgood = np.concatenate([good, cgood])
            keep = distinct_first(merged, np.argsort(mfit, kind="stable"), self.population)
            pop, fit, good = merged[keep], mfit[keep], mgood[keep]
            stats["generations"] += 1
        order = np.argsort(fit, kind="stable")
        cf = order[good[order]][: inst.k]
        if len(cf):
            return Proposal(pop[cf], np.ones(len(cf), dtype=bool), "", stats)
        best = order[: inst.k]
        return Proposal(
            pop[best], np.zeros(len(best), dtype=bool),
            f"CERT found no counterfactual in {self.generations} generations", stats,
        )  # fmt: skip
