"""From one instance's problem to a search: the operators' context, the seeds, the loop.

Seeds are the data's rows of the desired class, nearest to ``x`` first: rows that satisfy every
rule for ``x`` as they are (proven counterfactuals), and rows moved onto the feasible space group
by group, then repaired by the action cascade. The first batch holds half of each kind (the
nearest of each); the search takes a batch per restart, so only the nearest
``seeds * (1 + MAX_RESTARTS)`` of each kind are kept.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from geco.problem.feasible_space import implication_spaces, project
from geco.problem.problem import Problem
from geco.search.config import SearchConfig, SearchOutcome
from geco.search.loop import MAX_RESTARTS, run_search
from geco.search.operators import Context, action_cascade
from geco.search.population import Candidates

__all__ = ["context", "nearest", "search", "seed_candidates"]


def context(problem: Problem, rng: np.random.Generator) -> Context:
    """What the operators need about the problem, with this search's random stream."""
    grounded = problem.grounded
    return Context(
        x=problem.x, names=problem.names, spaces=problem.spaces,
        group_of_feature=problem.setting.group_of_feature, implications=list(grounded.implications),
        implication_spaces=implication_spaces(problem.spaces, grounded.implications),
        cross_rules=list(grounded.cross_rules), rng=rng,
    )  # fmt: skip


def nearest(dist: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` smallest of ``dist`` in stable sorted order: what
    ``np.argsort(dist, kind="stable")[:count]`` gives, without sorting everything."""
    if len(dist) <= count:
        return np.argsort(dist, kind="stable")
    bound = np.partition(dist, count - 1)[count - 1]
    within = np.flatnonzero(dist <= bound)  # ties at the bound included, in index order
    return within[np.argsort(dist[within], kind="stable")][:count]


def seed_candidates(problem: Problem, ctx: Context, config: SearchConfig) -> Candidates:
    """The seeds of the search, nearest first (see the module docstring)."""
    d, G = len(ctx.x), ctx.n_groups
    pool = problem.setting.seed_pool
    desired = pool.rows[config.goal.meets(pool.proba)]
    if config.seeds == 0 or len(desired) == 0:
        return Candidates.empty(d, G)
    rows, changed = project(ctx.spaces, ctx.x, desired, problem.required)
    intact = np.all(rows == desired, axis=1) & problem.satisfies(desired)
    moved = Candidates(rows[~intact], changed[~intact])
    moved = action_cascade(ctx, moved.take(np.flatnonzero(moved.changed.any(axis=1))))
    proven = Candidates(rows[intact], changed[intact])
    usable = config.seeds * (1 + MAX_RESTARTS)
    parts, dists = [], []
    for c in (proven, moved):
        dist = problem.distances(c.rows)  # projected data rows change most groups
        order = nearest(dist, usable)
        parts.append(c.take(order))
        dists.append(dist[order])
    half = max(1, config.seeds // 2)
    n_head = [min(half, len(parts[0]))]
    n_head.append(min(config.seeds - n_head[0], len(parts[1])))
    head = [part.take(np.arange(n)) for part, n in zip(parts, n_head)]
    rest = Candidates.concat([part.take(np.arange(n, len(part))) for part, n in zip(parts, n_head)], d, G)
    rest_dist = np.concatenate([dist[n:] for dist, n in zip(dists, n_head)])
    rest = rest.take(np.argsort(rest_dist, kind="stable"))
    return Candidates.concat([*head, rest], d, G)


def search(problem: Problem, config: SearchConfig, rng: np.random.Generator) -> tuple[SearchOutcome, Context, dict[str, Any]]:
    """Run the genetic search on ``problem``: the outcome, the operators' context (what the
    rules rejected) and the seconds the seeds took. A compiled engine scores tiny Δ blocks
    together as full rows when a generation has hundreds (its own merge policy); the same seed
    still gives the same blocks, so the same explanation."""
    ctx = context(problem, rng)
    t0 = time.perf_counter()
    seeds = seed_candidates(problem, ctx, config)
    stats = {"seconds_seeds": time.perf_counter() - t0}
    if config.time_budget is not None:  # the seeds spend the budget too
        config = replace(config, time_budget=max(0.0, config.time_budget - stats["seconds_seeds"]))
    scorer = problem.setting.scorer
    outcome = run_search(
        ctx, problem.scorer, problem.distance, config, problem.required, seeds,
        merge_below=scorer.merge_below, merge_min_blocks=scorer.merge_min_blocks,
    )  # fmt: skip
    return outcome, ctx, stats
