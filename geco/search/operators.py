"""GeCo's genetic operators, each vectorised over all candidates of a generation.

Every operator returns new :class:`~geco.search.population.Candidates` (full rows + changed groups,
``x``'s values outside them). The draws for all (candidate, group) pairs of a call are one
vectorised call on the stacked spaces (:mod:`geco.search.stacked`): no Python step per group, which on
a wide table (a hundred groups) cost more than the draws.

Differences from the reference implementation (GeCo.jl), following the paper's intent:

* the initial population is repaired by the action cascade (the Δ path of GeCo.jl skipped it);
* a crossover child is added once, and only if the cascade can repair it;
* the population is deduplicated (by the search loop);
* selective mutation uses the user's distance weights.

Added to reach counterfactuals that need many features to move together (the paper's operators
start from one-group changes and add one group per generation):

* :func:`walk_back` reverts random halves, quarters, ... of a counterfactual's changes at once,
  so a far counterfactual (a projected data row changing dozens of groups) sheds the changes
  that do not matter in a logarithmic number of generations;
* :func:`grow` adds several groups at once, used when the population stagnates short of the
  desired class.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from geco.problem.feasible_space import GroupSpace
from geco.search.population import Candidates, positions_within
from geco.search.rule_tables import CascadeTables
from geco.search.sampling import sample_with_replacement
from geco.search.stacked import StackedSpaces
from geco.search.ties import Tie, repair_ties, ties_of

__all__ = [
    "WALK_BACK_ROUNDS", "Context", "action_cascade", "cascade_in_place", "crossover", "grow", "initial_population", "mutation",
    "selective_mutation", "walk_back",
]  # fmt: skip


#: walk-back's independent subsets per size (:func:`walk_back`)
WALK_BACK_ROUNDS = 2


@dataclass
class Context:
    """What the operators need about one explanation: x, the spaces, the grounded rules."""

    x: np.ndarray
    names: tuple[str, ...]
    spaces: list[GroupSpace]
    group_of_feature: np.ndarray  # (d,) group index of each feature
    implications: list  # grounded implications, topological order
    implication_spaces: list[GroupSpace]  # consequence group's space filtered by the consequence
    cross_rules: list
    rng: np.random.Generator
    #: candidates each rule dropped in the cascade: ("implication" | "cross", rule index) -> count
    rejected: dict[tuple[str, int], int] = field(default_factory=dict)
    #: the compiled kernels (geco.search.kernels) the operators may use, None for numpy only
    kernels: object | None = None
    #: tables an operator derives from the context once and reads in every later call (by name)
    tables: dict[str, object] = field(default_factory=dict)

    @property
    def n_groups(self) -> int:
        return len(self.spaces)

    @cached_property
    def stacked(self) -> StackedSpaces:
        """The spaces in flat arrays: the operators draw for all groups in one call."""
        return StackedSpaces.of(self.spaces)

    @cached_property
    def ties(self) -> list[Tie]:
        """The cross rules that tie groups together (:mod:`geco.search.ties`)."""
        return ties_of(self.cross_rules, self.names, self.group_of_feature)

    @cached_property
    def has_space(self) -> np.ndarray:
        """(G,) whether each group has a feasible value to move to."""
        return self.stacked.size > 0

    @cached_property
    def cascade_groups(self) -> list[int]:
        """The groups the action cascade may redraw (ascending): every implication's
        consequence group and every group a cross rule ties."""
        return sorted({imp.group for imp in self.implications} | {int(g) for t in self.ties for g in t.groups})

    @cached_property
    def cascade_free(self) -> np.ndarray:
        """(d,) the features the action cascade never changes: those of no
        :attr:`cascade_groups` group (a candidate's distance over its changed cells there is a
        lower bound of its distance after the cascade)."""
        free = np.ones(self.n_groups, dtype=bool)  # a mask by group, read by feature (np.isin: 20 us)
        free[self.cascade_groups] = False
        return free[self.group_of_feature]

    @cached_property
    def rule_features(self) -> tuple[tuple[str, int], ...]:
        """(name, column) of every feature the implications and the cross rules read."""
        used = {f for imp in self.implications for p in (imp.condition, imp.consequence) for f in p.features}
        used |= {f for rule in self.cross_rules for f in rule.features}
        return tuple((n, j) for j, n in enumerate(self.names) if n in used)

    @cached_property
    def cascade_tables(self) -> CascadeTables:
        """The implications as programs, with their repair values, in the flat arrays the
        compiled cascade reads."""
        return CascadeTables.of(self.implications, self.implication_spaces)

    def columns(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The columns of ``rows`` the rules read, by name (views: in-place repairs show)."""
        return {n: rows[:, j] for n, j in self.rule_features}


def _children(ctx: Context, parents: Candidates, src: np.ndarray, group: np.ndarray,
              index: np.ndarray) -> Candidates:
    """Copies of parents ``src`` with ``group`` set to its value ``index`` (and marked changed)."""
    rows, changed = parents.rows[src], parents.changed[src]
    ctx.stacked.assign(rows, np.arange(len(src)), group, index)
    changed[np.arange(len(src)), group] = True
    return Candidates(rows, changed)


def _distinct_children(ctx: Context, parents: Candidates, src: np.ndarray, group: np.ndarray,
                       m: int, limit: np.ndarray | None = None) -> Candidates:
    """For each pair (parent ``src[i]``, ``group[i]``): children with ``m`` distinct weighted
    samples of the group (among its first ``limit[i]`` values when given)."""
    if ctx.kernels is not None:  # the draws and the children in one compiled pass
        lim = ctx.stacked.size[group] if limit is None else limit
        return Candidates(*ctx.kernels.distinct_children(ctx.rng, parents.rows, parents.changed, src, group, m, lim, ctx.stacked))
    idx, valid = ctx.stacked.draw_distinct(ctx.rng, group, m, limit)
    width = idx.shape[1]
    keep = valid.reshape(-1)
    return _children(ctx, parents, np.repeat(src, width)[keep], np.repeat(group, width)[keep], idx[valid])


def _at_random(rng: np.random.Generator, allowed: np.ndarray, count: int, kernels=None) -> np.ndarray:
    """Per row, ``count`` random ones of the ``allowed`` columns (all of them if fewer)."""
    if kernels is not None:
        return kernels.smallest(rng.random(allowed.shape), allowed, count)
    keys = np.where(allowed, rng.random(allowed.shape), np.inf)
    return allowed & (np.argsort(np.argsort(keys, axis=1), axis=1) < count)


def initial_population(ctx: Context, m_init: int) -> Candidates:
    """For each group, ``m_init`` distinct weighted samples of changing that group alone."""
    d, G = len(ctx.x), ctx.n_groups
    groups = np.flatnonzero(ctx.has_space)
    origin = Candidates(ctx.x[None, :], np.zeros((1, G), dtype=bool))
    if len(groups) == 0:
        return Candidates.empty(d, G)
    return _distinct_children(ctx, origin, np.zeros(len(groups), dtype=np.intp), groups, m_init)


def mutation(ctx: Context, parents: Candidates, m_mut: int, breadth: int | None = None) -> Candidates:
    """Each parent gets ``m_mut`` distinct samples of every group it has not changed yet - of at
    most ``breadth`` of them, drawn at random per parent, when given (on wide data, trying every
    group of every parent in every generation costs more than it finds). Children come group by
    group, each group's parents in order."""
    d, G = len(ctx.x), ctx.n_groups
    if ctx.kernels is not None:  # every child in one compiled pass, the same draws
        return Candidates(*ctx.kernels.mutation(ctx.rng, parents.rows, parents.changed, ctx.has_space, m_mut, breadth, ctx.stacked))
    open_ = ~parents.changed & ctx.has_space[None, :]
    if breadth is not None and len(parents) and open_.sum(axis=1).max() > breadth:
        open_ = _at_random(ctx.rng, open_, breadth, ctx.kernels)
    group, src = np.nonzero(open_.T)
    if len(src) == 0:
        return Candidates.empty(d, G)
    return _distinct_children(ctx, parents, src, group, m_mut)


def crossover(ctx: Context, parents: Candidates) -> Candidates:
    """One child per pair of parents (the best of two distinct Δ): the union of their changes;
    a group changed by both takes either parent's values at random."""
    p = len(parents)
    d, G = len(ctx.x), ctx.n_groups
    if p < 2:
        return Candidates.empty(d, G)
    if ctx.kernels is not None:  # the same draws, made in the kernel
        return Candidates(*ctx.kernels.crossover_rows(ctx.rng, np.ascontiguousarray(parents.rows),
                                                      np.ascontiguousarray(parents.changed), ctx.x, ctx.group_of_feature))  # fmt: skip
    i, j = np.triu_indices(p, k=1)
    mi, mj = parents.changed[i], parents.changed[j]
    pick_i = mi & (~mj | (ctx.rng.random(mi.shape) < 0.5))
    gof = ctx.group_of_feature
    from_i = pick_i[:, gof]
    from_j = mj[:, gof] & ~from_i
    rows = np.where(from_i, parents.rows[i], np.where(from_j, parents.rows[j], ctx.x))
    return Candidates(rows, mi | mj)


def group_distances(ctx: Context, rows: np.ndarray, changed: np.ndarray, dist_spec) -> np.ndarray:
    """(rows, G): the distance of "x with only group g changed as in the row", for every row
    and group it changes (0 elsewhere), from the cells where the rows differ from x. Equal to
    the feasible spaces' ``distance`` for the same values."""
    if ctx.kernels is not None:
        return ctx.kernels.group_distances(rows, changed, ctx.group_of_feature, dist_spec.cell_terms())
    G = ctx.n_groups
    r, c, _, diff = dist_spec.cells(rows, changed[:, ctx.group_of_feature])
    key = r * G + ctx.group_of_feature[c]
    order = np.argsort(key, kind="stable")  # within a (row, group) the columns stay in order
    return dist_spec.of_cells(key[order], diff[order], len(rows) * G).reshape(len(rows), G)


def selective_mutation(
    ctx: Context, parents: Candidates, dist_spec, m: int, parent_is_cf: np.ndarray | None = None,
    breadth: int | None = None,
) -> Candidates:
    """Move parents towards ``x``. For every group a parent changed:

    * ``m`` distinct weighted samples among the group's values strictly closer to ``x`` than the
      parent's own value (one child each), as in the paper;
    * children that step towards ``x`` by 1, 2, 4, ... positions in the group's values sorted by
      distance (counterfactual parents; others take the single step): random draws get near the
      decision boundary, these steps then land on it exactly in O(log K) generations;
    * one child with the group reverted to ``x`` (if the parent changes other groups too), which
      removes changes that do not help;

    plus one child per parent with all its changed groups resampled at once.

    The reference implementation draws a single value among those closer than the parent's
    *whole* distance; the steps and reverts above are what let the search recover the exact
    optimum in the paper's ground-truth experiment (tests/search/test_ground_truth.py).

    ``breadth``: a parent changing more groups than this gets the per-group children for a
    random ``breadth`` of them (the resampling child still covers all; :func:`walk_back` sheds
    many changes faster). All (parent, group) pairs are handled at once, not group by group."""
    d, G = len(ctx.x), ctx.n_groups
    if len(parents) == 0:
        return Candidates.empty(d, G)
    if ctx.kernels is not None:  # every child in one compiled pass, the same draws
        is_cf = np.ones(len(parents), dtype=bool) if parent_is_cf is None else parent_is_cf
        return Candidates(*ctx.kernels.selective_mutation(
            ctx.rng, parents.rows, parents.changed, is_cf, ctx.has_space, breadth, m, ctx.group_of_feature,
            dist_spec.cell_terms(), ctx.stacked,
        ))  # fmt: skip
    stacked = ctx.stacked
    focus = parents.changed
    if breadth is not None and focus.sum(axis=1).max() > breadth:
        focus = _at_random(ctx.rng, focus, breadth, ctx.kernels)
    own = group_distances(ctx, parents.rows, parents.changed, dist_spec)
    src, group = np.nonzero(parents.changed & ctx.has_space[None, :])
    near = focus[src, group]
    n_changed = parents.changed.sum(axis=1)
    parts = []
    # revert the group to x
    back = near & (n_changed[src] > 1)
    rows, changed = parents.rows[src[back]], parents.changed[src[back]]
    stacked.reset(rows, np.arange(len(rows)), group[back], ctx.x)
    changed[np.arange(len(rows)), group[back]] = False
    parts.append(Candidates(rows, changed))
    # the values strictly closer to x than the parent's own
    limit = stacked.closer(group, own[src, group])
    ok = limit > 0
    src, group, near, limit = src[ok], group[ok], near[ok], limit[ok]
    pick = stacked.draw(ctx.rng, group, limit)
    wn, gn, ln = src[near], group[near], limit[near]
    # steps of 1, 2, 4, ... positions (one step for a parent that is no counterfactual)
    cf = np.ones(len(wn), dtype=bool) if parent_is_cf is None else parent_is_cf[wn]
    n_steps = np.where(cf, np.floor(np.log2(np.maximum(ln, 1))).astype(np.intp) + 1, 1)
    at = np.repeat(np.arange(len(wn)), n_steps)
    offset = 1 << positions_within(n_steps)
    steps = _children(ctx, parents, wn[at], gn[at], ln[at] - offset)
    parts.append(steps)
    parts.append(_distinct_children(ctx, parents, wn, gn, m, ln))
    # every changed group resampled at once
    together = parents.rows.copy()
    stacked.assign(together, src, group, pick)
    moved = np.zeros(len(parents), dtype=bool)
    moved[src] = True
    parts.append(Candidates(together[moved], parents.changed[moved]))
    return Candidates.concat(parts, d, G)


def walk_back(ctx: Context, parents: Candidates, rounds: int = WALK_BACK_ROUNDS) -> Candidates:
    """Children of parents that change at least two groups, each reverting a random subset of
    the parent's changed groups to ``x``: half of them, a quarter, ... down to one, ``rounds``
    independent subsets per size. Reverting one group at a time (selective mutation) needs a
    generation per group; this needs a generation per halving."""
    d, G = len(ctx.x), ctx.n_groups
    if ctx.kernels is not None:  # the same draws, made in the kernel
        return Candidates(*ctx.kernels.walk_back_rows(ctx.rng, np.ascontiguousarray(parents.rows),
                                                      np.ascontiguousarray(parents.changed), ctx.x,
                                                      ctx.group_of_feature, rounds))  # fmt: skip
    n_changed = parents.changed.sum(axis=1)
    who = np.flatnonzero(n_changed >= 2)
    if len(who) == 0:
        return Candidates.empty(d, G)
    rows, changed, count = parents.rows[who], parents.changed[who], n_changed[who]
    sizes = []
    size = count // 2
    while (size >= 1).any():
        sizes.append(size)
        size = size // 2
    parts = []
    for _ in range(rounds):
        keys = np.where(changed, ctx.rng.random(changed.shape), np.inf)
        rank = np.argsort(np.argsort(keys, axis=1), axis=1)
        for size in sizes:
            ok = size >= 1
            revert = (rank < size[:, None]) & changed & ok[:, None]
            child = np.where(revert[:, ctx.group_of_feature], ctx.x, rows)
            parts.append(Candidates(child[ok], (changed & ~revert)[ok]))
    return Candidates.concat(parts, d, G)


def grow(ctx: Context, parents: Candidates, n_new: int) -> Candidates:
    """One child per parent that changes ``n_new`` more groups at once (random unchanged groups
    with a non-empty space, each with one weighted sample)."""
    d, G = len(ctx.x), ctx.n_groups
    if len(parents) == 0 or n_new < 1:
        return Candidates.empty(d, G)
    pick = _at_random(ctx.rng, ~parents.changed & ctx.has_space[None, :], n_new, ctx.kernels)
    ok = pick.any(axis=1)
    rows, changed, pick = parents.rows[ok], parents.changed[ok], pick[ok]
    who, group = np.nonzero(pick)
    ctx.stacked.assign(rows, who, group, ctx.stacked.draw(ctx.rng, group))
    changed |= pick
    return Candidates(rows, changed)


def action_cascade(ctx: Context, cands: Candidates) -> Candidates:
    """Repair implications in topological order: where a condition holds and its consequence
    fails, resample the consequence group from its values that satisfy the consequence; drop the
    candidate when there are none. Then repair the cross rules that tie groups
    (:func:`~geco.search.ties.repair_ties`: a tied group is redrawn so the rule holds), and drop
    candidates still violating an implication or a cross-group rule. An implication whose
    consequence spans several groups is one of those cross rules (``not C or Q``), not one of
    ``ctx.implications``."""
    if len(cands) == 0:
        return cands
    if ctx.kernels is not None and not ctx.cross_rules:
        alive = cascade_in_place(ctx, cands)
        return cands if alive.all() else Candidates(cands.rows[alive], cands.changed[alive])
    rows, changed = cands.rows, cands.changed
    alive = np.ones(len(rows), dtype=bool)
    repaired = np.zeros(len(rows), dtype=bool) if not ctx.ties else None
    for i, (imp, space) in enumerate(zip(ctx.implications, ctx.implication_spaces)):
        cols = ctx.columns(rows)
        bad = np.asarray(imp.condition(cols), dtype=bool) & ~np.asarray(
            imp.consequence(cols), dtype=bool
        )
        bad &= alive
        if not bad.any():
            continue
        if len(space) == 0:
            ctx.rejected[("implication", i)] = ctx.rejected.get(("implication", i), 0) + int(bad.sum())
            alive &= ~bad
            continue
        who = np.flatnonzero(bad)
        pick = sample_with_replacement(ctx.rng, space.cumulative, len(who))
        rows[np.ix_(who, space.features)] = space.values[pick]
        changed[who, imp.group] = True
        if repaired is not None:
            repaired[who] = True
    if ctx.ties:
        repair_ties(ctx, rows, changed, alive, ctx.ties)
    if ctx.implications:
        # a repair may have re-violated an earlier rule (only possible for unusual programs);
        # only a repaired row can have (the others are as their first check saw them, breaking
        # nothing), so only those are read again, unless ties redrew rows too
        again = np.flatnonzero(alive) if repaired is None else np.flatnonzero(repaired & alive)
        cols = ctx.columns(rows[again]) if len(again) < len(rows) else ctx.columns(rows)
        for i, imp in enumerate(ctx.implications):
            broken = alive[again] & np.asarray(imp.condition(cols), dtype=bool) & ~np.asarray(
                imp.consequence(cols), dtype=bool
            ) if len(again) else np.zeros(0, dtype=bool)
            ctx.rejected[("implication", i)] = ctx.rejected.get(("implication", i), 0) + int(broken.sum())
            alive[again[broken]] = False
    if ctx.cross_rules:
        cols = ctx.columns(rows)
        for i, rule in enumerate(ctx.cross_rules):
            broken = alive & ~np.asarray(rule(cols), dtype=bool)
            ctx.rejected[("cross", i)] = ctx.rejected.get(("cross", i), 0) + int(broken.sum())
            alive &= ~broken
    return cands if alive.all() else Candidates(rows[alive], changed[alive])


def cascade_in_place(ctx: Context, cands: Candidates) -> np.ndarray:
    """:func:`action_cascade` in one compiled pass (:func:`geco.search.kernels.cascade`; the
    kernels and a program without cross rules): the same repairs, in place, and rejection
    counts; which rows survive (the caller drops the others)."""
    if not ctx.implications or len(cands) == 0:  # no rows: nothing counted, as the numpy cascade
        return np.ones(len(cands), dtype=bool)
    t = ctx.cascade_tables
    alive, first, second = ctx.kernels.cascade(
        ctx.rng, cands.rows, cands.changed, t.code, t.constants, t.starts, t.depth, len(ctx.implications), t.groups,
        t.feat_starts, t.features, t.value_starts, t.values, t.cum_starts, t.cumulative,
    )  # fmt: skip
    rejected = ctx.rejected
    for i in np.flatnonzero(first):  # counted as the numpy cascade counts them, key order too
        rejected[("implication", int(i))] = rejected.get(("implication", int(i)), 0) + int(first[i])
    for i, n in enumerate(second.tolist()):
        rejected[("implication", i)] = rejected.get(("implication", i), 0) + n
    return alive
