"""From one instance's problem to a search: the operators' context, the seeds, the loop.

Seeds are the data's rows of the desired class, nearest to ``x`` first: rows that satisfy every
rule for ``x`` as they are (proven counterfactuals), and rows moved onto the feasible space group
by group, then repaired by the action cascade. The first batch holds half of each kind (the
nearest of each); the search takes a batch per restart, so only the nearest
``seeds * (1 + MAX_RESTARTS)`` of each kind are kept. :func:`seed_candidates` finds them from
the Explainer's seed index without building every projected row; :func:`reference_seed_candidates`
builds them all (its reference in the tests).
"""

from __future__ import annotations

import time
from dataclasses import replace
from itertools import pairwise
from typing import Any

import numpy as np

from geco.problem.feasible_space import implication_spaces, project
from geco.problem.problem import Problem
from geco.problem.seed_index import CHANGES, NOT_AS_IS, Projection, nearest_bounded
from geco.search.compiled import compiled_kernels, note_reference_search
from geco.search.config import SearchConfig, SearchOutcome
from geco.search.loop import MAX_RESTARTS, run_search
from geco.search.operators import Context, action_cascade
from geco.search.population import Candidates
from geco.search.ranking import nearest

__all__ = ["context", "reference_seed_candidates", "search", "seed_candidates"]


def context(problem: Problem, rng: np.random.Generator) -> Context:
    """What the operators need about the problem, with this search's random stream."""
    grounded = problem.grounded
    return Context(
        x=problem.x, names=problem.names, spaces=problem.spaces,
        group_of_feature=problem.setting.group_of_feature, implications=list(grounded.implications),
        implication_spaces=implication_spaces(problem.spaces, grounded.implications),
        cross_rules=list(grounded.cross_rules), rng=rng,
    )  # fmt: skip


def seed_candidates(problem: Problem, ctx: Context, config: SearchConfig) -> Candidates:
    """The seeds of the search, nearest first (see the module docstring): what
    :func:`reference_seed_candidates` gives, random draws and rejection counts included, from
    the Explainer's seed index (:mod:`geco.problem.seed_index`). Rows are classified and
    bounded from their domain codes, the cascade runs on the rows it can change (see
    :func:`_cascade`) and only the rows the distance bound cannot rule out are built and priced."""
    d, G = len(ctx.x), ctx.n_groups
    setting = problem.setting
    desired = config.goal.meets(setting.seed_pool.proba)
    if config.seeds == 0 or not desired.any():
        return Candidates.empty(d, G)
    proj = Projection(
        setting.seed_index(desired), setting.domains, ctx.spaces, ctx.x, problem.required,
        problem.reported_distance, setting.one_feature_domains(), compiled_kernels(config.native),
    )  # fmt: skip
    if ctx.kernels is not None:  # one compiled pass: the classes, the bounds and the sums
        proven, lower_proven, moved, first_moved, lower, sums = proj.classify(
            ctx.implications, ctx.cross_rules, ctx.names, lambda: _first_broken_rule(proj, ctx, len(proj.index))
        )  # fmt: skip
    else:
        status, sums = proj.status_and_sums()
        first_broken = _first_broken_rule(proj, ctx, len(status))
        as_is = ((status & NOT_AS_IS) == 0) & (first_broken < 0)
        proven = np.flatnonzero(as_is)
        moved = np.flatnonzero(~as_is & ((status & CHANGES) != 0))
        first_moved = first_broken[moved]
        lower_all = proj.lower_bounds(sums)
        lower_proven, lower = lower_all[proven], lower_all[moved]
    state, rejected = ctx.rng.bit_generator.state, dict(ctx.rejected)
    cascaded = _cascade(ctx, proj, moved, first_moved)
    if cascaded is None:  # the cascade did not repair in place: start again the long way
        ctx.rng.bit_generator.state = state
        ctx.rejected.clear()
        ctx.rejected.update(rejected)
        return reference_seed_candidates(problem, ctx, config)
    dead, fixed, repaired = cascaded  # positions in ``moved``, ascending
    if len(dead):
        moved, lower = _without(moved, dead), _without(lower, dead)
        repaired = repaired - np.searchsorted(dead, repaired)  # their positions once the dead are out
    from_cascade = np.zeros(len(moved), dtype=bool)
    from_cascade[repaired] = True
    fixed_at = np.empty(len(moved), dtype=np.intp)  # row of ``fixed`` holding each repaired one
    fixed_at[repaired] = np.arange(len(repaired))
    tied = ctx.cascade_groups
    if len(repaired):  # their tied groups may have been redrawn: bounded without them
        mine = moved[repaired]
        lower[repaired] = proj.lower_bounds(sums[mine], mine, tied)

    def moved_rows(pos: np.ndarray) -> Candidates:
        rows, changed = proj.rows(moved[pos])
        mine = from_cascade[pos]
        rows[mine], changed[mine] = fixed.rows[fixed_at[pos[mine]]], fixed.changed[fixed_at[pos[mine]]]
        return Candidates(rows, changed)

    def moved_bounds(pos: np.ndarray) -> np.ndarray:
        out, mine = np.empty(len(pos)), from_cascade[pos]
        out[~mine] = proj.tight_bounds(moved[pos[~mine]])
        out[mine] = proj.tight_bounds(moved[pos[mine]], tied)
        return out

    def proven_rows(pos: np.ndarray) -> Candidates:
        return Candidates(*proj.rows(proven[pos]))

    usable = config.seeds * (1 + MAX_RESTARTS)
    parts, dists = [], []
    kinds = (
        (lower_proven, proven_rows, lambda pos: proj.tight_bounds(proven[pos])),
        (lower, moved_rows, moved_bounds),
    )
    for lower_kind, build, tighter in kinds:
        pos, dist = nearest_bounded(lower_kind, lambda p, b=build: problem.distances(b(p).rows, ctx.kernels), usable, tighter)
        parts.append(build(pos))
        dists.append(dist)
    return _ordered(parts, dists, config.seeds, d, G)


def _first_broken_rule(proj: Projection, ctx: Context, n: int) -> np.ndarray:
    """(N,) per desired row, projected: the first implication it breaks (its index), else
    ``len(implications)`` when it breaks a cross rule only, else -1 (:meth:`Projection.holds`:
    a rule on one group read per tuple)."""
    first = np.full(n, -1, dtype=np.intp)
    for i, imp in enumerate(ctx.implications):
        broken = proj.holds(imp.condition, ctx.names)
        if broken.any():
            broken &= ~proj.holds(imp.consequence, ctx.names)
            first[broken & (first < 0)] = i
    for rule in ctx.cross_rules:
        first[~proj.holds(rule, ctx.names) & (first < 0)] = len(ctx.implications)
    return first


def _cascade(ctx: Context, proj: Projection, moved: np.ndarray, first_broken: np.ndarray) -> tuple[np.ndarray, Candidates, np.ndarray] | None:
    """The action cascade on the moved rows (desired rows ``moved``, projected), doing on
    ``ctx`` (its random stream, its rejection counts) what the cascade on all of them does:
    the positions in ``moved`` of the rows it drops (ascending), the survivors it repaired, and
    their positions (ascending, in the order of the survivors).

    A row that breaks no implication or cross rule passes the cascade untouched, drawing
    nothing: it is left out. A row whose first broken implication has no value satisfying
    its consequence is dropped by it before anything else touches it: it is counted, and
    left out but one (which keeps the rule's place in the counts). The rest run through the
    cascade, in order, so it draws what it draws on all rows for them. The cascade repairs
    rows in place and drops those still breaking a rule, so the survivors are the repaired
    rows that satisfy every implication and cross rule; None when its result says otherwise.
    Only the rows breaking a rule are read (on Credit, a few hundred of the 24,000 desired rows
    in most explanations; up to 14,000 where x's spending rule is easy to break)."""
    breaking = np.flatnonzero(first_broken >= 0)
    which = first_broken[breaking]
    run = np.ones(len(breaking), dtype=bool)
    dropped: list[np.ndarray] = []
    extra: dict[int, int] = {}
    for i, space in enumerate(ctx.implication_spaces):
        if len(space) == 0:
            at = np.flatnonzero(which == i)
            if len(at) > 1:
                dropped.append(breaking[at[1:]])
                run[at[1:]] = False
                extra[i] = len(at) - 1
    ran = breaking[run]
    if len(moved) and not len(ran):  # one clean row: the cascade's bookkeeping as on all
        ran = np.zeros(1, dtype=np.intp)
    rows, changed = proj.rows(moved[ran])
    out = action_cascade(ctx, Candidates(rows, changed))
    for i, n in extra.items():
        ctx.rejected[("implication", i)] += n
    if len(out) == len(rows):
        fixed_alive = np.ones(len(rows), dtype=bool)
    else:
        cols = ctx.columns(rows)
        fixed_alive = np.ones(len(rows), dtype=bool)
        for imp in ctx.implications:
            fixed_alive &= ~np.asarray(imp.condition(cols), dtype=bool) | np.asarray(imp.consequence(cols), dtype=bool)
        for rule in ctx.cross_rules:
            fixed_alive &= np.asarray(rule(cols), dtype=bool)
        if not (np.array_equal(rows[fixed_alive], out.rows) and np.array_equal(changed[fixed_alive], out.changed)):
            return None
    dead = np.sort(np.concatenate([ran[~fixed_alive], *dropped])) if dropped else ran[~fixed_alive]
    return dead, out, ran[fixed_alive]


def _without(a: np.ndarray, dead: np.ndarray) -> np.ndarray:
    """``np.delete(a, dead)`` for ascending positions ``dead``: a few are cut out by slices (a
    boolean mask over 24,000 rows costs 50 us an array, copying the pieces between a dozen
    positions a tenth of that)."""
    if len(dead) > 32:
        keep = np.ones(len(a), dtype=bool)
        keep[dead] = False
        return a[keep]
    edges = [-1, *dead.tolist(), len(a)]
    return np.concatenate([a[s + 1 : e] for s, e in pairwise(edges)])


def _ordered(parts: list[Candidates], dists: list[np.ndarray], seeds: int, d: int, G: int) -> Candidates:
    """Proven and moved seeds (each nearest first) in the order the search takes them: the
    first batch half of each kind, then the rest nearest first."""
    half = max(1, seeds // 2)
    n_head = [min(half, len(parts[0]))]
    n_head.append(min(seeds - n_head[0], len(parts[1])))
    head = [part.take(np.arange(n)) for part, n in zip(parts, n_head)]
    rest = Candidates.concat([part.take(np.arange(n, len(part))) for part, n in zip(parts, n_head)], d, G)
    rest_dist = np.concatenate([dist[n:] for dist, n in zip(dists, n_head)])
    rest = rest.take(np.argsort(rest_dist, kind="stable"))
    return Candidates.concat([*head, rest], d, G)


def reference_seed_candidates(problem: Problem, ctx: Context, config: SearchConfig) -> Candidates:
    """The seeds computed the long way: every desired row projected, repaired and priced (the
    reference :func:`seed_candidates` is tested against, and its fallback)."""
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
    return _ordered(parts, dists, config.seeds, d, G)


def search(problem: Problem, config: SearchConfig, rng: np.random.Generator) -> tuple[SearchOutcome, Context, dict[str, Any]]:
    """Run the genetic search on ``problem``: the outcome, the operators' context (what the
    rules rejected) and the seconds the seeds took, and whether the compiled search ran
    (:mod:`geco.search.compiled`). A compiled engine scores tiny Δ blocks
    together as full rows when a generation has hundreds (its own merge policy); the same seed
    still gives the same blocks, so the same explanation."""
    ctx = context(problem, rng)
    # which search runs is decided once: the seeds and the loop take the same (the default may
    # load the kernels here, once the reference searches have earned it, never under a budget)
    auto = config.native is None
    kernels = compiled_kernels(config.native, may_load=config.time_budget is None)
    config = replace(config, native=kernels is not None)
    ctx.kernels = kernels  # the seeds' cascade runs compiled too
    t0 = time.perf_counter()
    seeds = seed_candidates(problem, ctx, config)
    stats = {"seconds_seeds": time.perf_counter() - t0, "compiled_search": config.native}
    if config.time_budget is not None:  # the seeds spend the budget too
        config = replace(config, time_budget=max(0.0, config.time_budget - stats["seconds_seeds"]))
    scorer = problem.setting.scorer
    outcome = run_search(
        ctx, problem.scorer, problem.distance, config, problem.required, seeds,
        merge_below=scorer.merge_below, merge_min_blocks=scorer.merge_min_blocks,
        error_bound=None if scorer.exact else scorer.error_bound,
    )  # fmt: skip
    if auto and kernels is None:
        note_reference_search(time.perf_counter() - t0)
    return outcome, ctx, stats
