"""Trading distance between groups: a local move for the best counterfactuals.

Selective mutation moves one changed group towards ``x`` at a time and keeps the child only if it
stays a counterfactual. Under l1 on many numeric columns the nearest counterfactual often spreads
its move over several groups (raise three amounts a little rather than one a lot), which no
sequence of such single moves reaches from a one-group answer: the first move towards ``x`` loses
the desired class. A trade child moves one changed group of a counterfactual towards ``x`` and,
in the same child, another group (changed or not) a little away from ``x``, so the desired class
can be kept while the total distance falls.

On wide data the search's answers spread over many groups; :func:`concentrate` goes the other
way, keeping one to three of a counterfactual's changed groups and moving them farther, so a
sparse answer the single reverts of selective mutation cannot reach (each loses the class) is
tried too. :func:`sweep` tries, for a sparse counterfactual, every other group as the partner
that lets one of its groups move less (a one-group answer is often beaten by a two-group one
whose second group moves far), on a fixed grid instead of a random draw. :func:`regroup` tries,
where the best answer is dense, every pair and triple of the groups that matter (those the best
answers change, and those whose lone move scores highest) on a grid from ``x``: a nearer sparse
answer may keep some of a dense one's groups and take a group it never changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from geco.search.operators import Context, group_distances
from geco.search.population import Candidates

__all__ = ["REGROUP_MIN_CHANGED", "SweepGrid", "bisect_sweep", "concentrate", "regroup", "single_grid", "step_in", "sweep",
           "sweep_children_to_score", "sweep_grid", "trade"]

#: the group moving away from x goes 1..MAX_AWAY positions further, in distance order, or (a
#: FAR_SHARE of the children) 1..all the positions left on its side
MAX_AWAY = 8
FAR_SHARE = 0.5
#: a concentrated child keeps at most this many of its parent's changed groups
MAX_KEPT = 3
#: the sweep's partner group takes the values at these fractions of its values on each side of
#: x (in distance order: the nearest first), and the parent's group keeps these fractions of the
#: values closer to x than its own
SWEEP_REACH = (0.0625, 0.125, 0.25, 0.5, 0.75, 1.0)
SWEEP_KEEP = (0.5, 0.75, 0.9)
#: :func:`bisect_sweep` tries this many ranks between a child that misses the target and a
#: farther one that meets it
SWEEP_BISECT = 7
#: :func:`regroup` works for a best counterfactual changing at least this many groups
REGROUP_MIN_CHANGED = 3


def _log_uniform(rng: np.random.Generator, high: np.ndarray) -> np.ndarray:
    """Integers in ``[1, high]`` with a log-uniform law (small steps as likely as big ones)."""
    steps = np.floor(np.exp(rng.random(len(high)) * np.log(high + 1.0)))
    return np.minimum(np.maximum(steps, 1), high).astype(np.intp)  # np.clip's values, without its overhead


class _Sides:
    """For every stacked value: its side of ``x`` (-1 / +1) in a one-feature numeric group, 0
    elsewhere (no order to keep to), and where each side's values sit in distance order, so
    that "how many values of side s among the first c of group g" and "the r-th value of side
    s of group g" are one lookup each, for all rows at once."""

    def __init__(self, ctx: Context, dist_spec):
        st = ctx.stacked
        self.stacked = st
        self.feature = st.features[st.feature_start]  # each group's first feature
        self.numeric = (st.n_features == 1) & ~dist_spec.categorical[self.feature]
        owner = np.repeat(np.arange(len(st.size)), st.size)
        first = st.values[st.value_start[owner] + (np.arange(len(owner)) - st.start[owner]) * st.n_features[owner]]
        side = np.where(self.numeric[owner], np.sign(first - ctx.x[self.feature[owner]]), 0.0)
        self.before = {s: np.concatenate([[0], np.cumsum(side == s)]) for s in (-1.0, 1.0)}
        self.where = {s: np.flatnonzero(side == s) for s in (-1.0, 1.0)}
        self.x = ctx.x
        #: the same in flat arrays, for the compiled trade: numeric, feature, before and where
        #: of side -1, then of side +1
        self.tables = (self.numeric, self.feature.astype(np.intp), self.before[-1.0], self.before[1.0],
                       self.where[-1.0], self.where[1.0])  # fmt: skip

    def of_rows(self, group: np.ndarray, rows: np.ndarray, who: np.ndarray) -> np.ndarray:
        """The side of ``x`` of each row's value in ``group`` (0 where the group has no sides)."""
        value = rows[who, self.feature[group]]
        return np.where(self.numeric[group], np.sign(value - self.x[self.feature[group]]), 0.0)

    def count(self, group: np.ndarray, side: np.ndarray, limit: np.ndarray) -> np.ndarray:
        """Values of ``side`` among each group's first ``limit`` (all of them for side 0)."""
        out = np.array(limit, dtype=np.intp)
        for s, before in self.before.items():
            m = side == s
            first = self.stacked.start[group[m]]
            out[m] = before[first + out[m]] - before[first]
        return out

    def position(self, group: np.ndarray, side: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """The position (in the group's distance order) of its ``rank``-th value of ``side``."""
        out = np.array(rank, dtype=np.intp)
        for s, before in self.before.items():
            m = side == s
            first = self.stacked.start[group[m]]
            out[m] = self.where[s][before[first] + out[m]] - first
        return out


def _sides_of(ctx: Context, dist_spec) -> _Sides:
    """``ctx``'s :class:`_Sides` under ``dist_spec``, built once per context (every polishing
    operator of every round reads the same table)."""
    held = ctx.tables.get("sides")
    if held is None or held[0] is not dist_spec:
        held = ctx.tables["sides"] = (dist_spec, _Sides(ctx, dist_spec))
    return held[1]


def _step_towards(ctx: Context, sides: _Sides, rows: np.ndarray, changed: np.ndarray, who: np.ndarray,
                  group: np.ndarray, own: np.ndarray, steps) -> None:
    """Move ``group[i]`` of row ``who[i]`` (in place; distance ``own[i]``) ``steps(count)``
    positions towards ``x`` among the strictly closer values on the row's side of ``x``
    (``count`` of them per row); a step past the last one puts ``x``'s own value back and
    clears the group's changed flag."""
    st = ctx.stacked
    side = sides.of_rows(group, rows, who)
    count = sides.count(group, side, st.closer(group, own))  # same-side values closer than the row's
    rank = count - steps(count)  # -1: back to x's own value
    back = rank < 0
    st.reset(rows, who[back], group[back], ctx.x)
    changed[who[back], group[back]] = False
    on = ~back
    st.assign(rows, who[on], group[on], sides.position(group[on], side[on], rank[on]))


def trade(ctx: Context, parents: Candidates, dist_spec, per_parent: int) -> Candidates:
    """``per_parent`` children of each parent (counterfactuals, best first): a random changed
    group ``g`` steps towards ``x`` (to a strictly closer value on the same side of ``x``, or
    back to ``x``'s own, by a log-uniform number of positions) and a random other group ``h`` with
    a feasible space moves 1..``MAX_AWAY`` positions beyond its current distance (on the same side
    of ``x`` if it is already changed). Children whose ``h`` has nowhere to go are dropped."""
    d, G = len(ctx.x), ctx.n_groups
    if len(parents) == 0 or per_parent < 1:
        return Candidates.empty(d, G)
    rng, st = ctx.rng, ctx.stacked
    sides = _sides_of(ctx, dist_spec)
    own = group_distances(ctx, parents.rows, parents.changed, dist_spec)
    if ctx.kernels is not None:
        return _trade_compiled(ctx, sides, parents, own, per_parent)
    src = np.repeat(np.arange(len(parents)), per_parent)
    n = len(src)
    rows, changed = parents.rows[src], parents.changed[src]
    at = np.arange(n)
    g = np.where(changed, rng.random((n, G)), -1.0).argmax(axis=1)
    keys_h = np.where(ctx.has_space[None, :], rng.random((n, G)), -1.0)
    keys_h[at, g] = -1.0
    h = keys_h.argmax(axis=1)
    ok = changed[at, g] & (keys_h[at, h] >= 0)
    w = np.flatnonzero(ok)
    _step_towards(ctx, sides, rows, changed, w, g[w], own[src[w], g[w]],
                  lambda count: _log_uniform(rng, count + 1))  # fmt: skip
    hw = h[w]
    was = changed[w, hw]  # h is not g: still the parent's
    side = np.where(was, sides.of_rows(hw, rows, w), 0.0)
    beyond = st.not_farther(hw, np.where(was, own[src[w], hw], 0.0))
    near, total = sides.count(hw, side, beyond), sides.count(hw, side, st.size[hw])
    rank = _away_ranks(rng, near, total)
    fits = rank < total
    ok[w[~fits]] = False
    w, hw, side, rank = w[fits], hw[fits], side[fits], rank[fits]
    st.assign(rows, w, hw, sides.position(hw, side, rank))
    changed[w, hw] = True
    keep = ok & changed.any(axis=1)
    return Candidates(rows[keep], changed[keep])


def _away_ranks(rng: np.random.Generator, near: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Where each trade child's group ``h`` goes among the values of its side (``near`` of
    them no farther than its own): half the children step at most MAX_AWAY positions, the
    others anywhere beyond (a long numeric column needs big steps for a group to take over
    much of another's change)."""
    far = rng.random(len(near)) < FAR_SHARE
    reach = np.where(far, np.maximum(total - near, 1), MAX_AWAY)
    return near + _log_uniform(rng, reach) - 1


def _trade_compiled(ctx: Context, sides: _Sides, parents: Candidates, own: np.ndarray, per_parent: int) -> Candidates:
    """:func:`trade`'s children in two compiled passes (:mod:`geco.search.kernels.polish`),
    with its draws in its order: the two key tables, then ``g``'s steps, then ``h``'s."""
    rng, kernels = ctx.rng, ctx.kernels
    keys = rng.random((2, len(parents) * per_parent, ctx.n_groups))  # g's keys, then h's: two draws
    plan = kernels.trade_plan(parents.rows, parents.changed, own, per_parent, keys, ctx.has_space, ctx.x,
                              ctx.stacked, sides.tables)  # fmt: skip
    _, _, _, _, count_g, _, near_h, total_h = plan
    rank_g = count_g - _log_uniform(rng, count_g + 1)  # -1: back to x's own value
    rank_h = _away_ranks(rng, near_h, total_h)
    return Candidates(*kernels.trade_children(parents.rows, parents.changed, per_parent, plan, rank_g, rank_h, ctx.x,
                                              ctx.stacked, sides.tables))  # fmt: skip


def step_in(ctx: Context, parents: Candidates, dist_spec) -> Candidates:
    """For every parent and every group it changes, one child with that group on the next value
    towards ``x`` on the same side of ``x`` (``x``'s own value when there is none), and one child
    with every changed group stepped so at once. Selective mutation steps by 1, 2, 4, ... positions
    in distance order, which mixes both sides of ``x``; this lands a group exactly on the nearest
    value of its side that still works (a threshold), all groups in one round."""
    d, G = len(ctx.x), ctx.n_groups
    if len(parents) == 0:
        return Candidates.empty(d, G)
    sides = _sides_of(ctx, dist_spec)
    own = group_distances(ctx, parents.rows, parents.changed, dist_spec)
    if ctx.kernels is not None:  # the same children in one compiled pass
        return Candidates(*ctx.kernels.step_in(parents.rows, parents.changed, own, ctx.x, ctx.stacked, sides.tables))
    group, src = np.nonzero(parents.changed.T)  # group by group, as the children come
    rows, changed = parents.rows[src], parents.changed[src]
    pair = np.arange(len(src))
    _step_towards(ctx, sides, rows, changed, pair, group, own[src, group], lambda count: 1)
    together, together_changed = parents.rows.copy(), parents.changed.copy()
    rep, cols, _ = ctx.stacked.cells(group)
    together[src[rep], cols] = rows[rep, cols]
    together_changed[src, group] = changed[pair, group]
    out = Candidates.concat([Candidates(rows, changed), Candidates(together, together_changed)], d, G)
    keep = out.changed.any(axis=1)
    return Candidates(out.rows[keep], out.changed[keep])


def concentrate(ctx: Context, parents: Candidates, dist_spec, per_parent: int) -> Candidates:
    """``per_parent`` children of each parent that changes two groups or more, each keeping
    1..``MAX_KEPT`` of them (fewer than the parent; drawn with probability growing with the
    group's own distance: the big moves are the ones that matter) and reverting the rest to
    ``x``, each kept group moved a log-uniform number of positions (0 .. all) beyond its value,
    on its side of ``x``. On wide data the search's answers spread over many groups; a sparse
    answer, when one exists, moves a few of the same groups farther, which no sequence of single
    reverts reaches (each loses the desired class). :func:`step_in` then lands the kept groups on
    the threshold."""
    d, G = len(ctx.x), ctx.n_groups
    n_changed = parents.changed.sum(axis=1)
    who = np.flatnonzero(n_changed >= 2)
    if len(who) == 0 or per_parent < 1:
        return Candidates.empty(d, G)
    rng, st = ctx.rng, ctx.stacked
    sides = _sides_of(ctx, dist_spec)
    own = group_distances(ctx, parents.rows, parents.changed, dist_spec)
    src = np.repeat(who, per_parent)
    n = len(src)
    size = rng.integers(1, np.minimum(MAX_KEPT, n_changed[src] - 1) + 1)
    if ctx.kernels is not None:  # the same children in two compiled passes, the same draws
        rows, keep, w, g, side, at, room = ctx.kernels.concentrate_plan(
            parents.rows, parents.changed, own, src, size, rng.exponential(size=(n, G)), ctx.x, ctx.group_of_feature,
            st, sides.tables,
        )  # fmt: skip
        extra = _log_uniform(rng, room + 1) - 1
        push = (extra > 0) & (at >= 1)
        ctx.kernels.place(rows, w[push], g[push], side[push], at[push] - 1 + extra[push], st, sides.tables)
        return Candidates(rows, keep)
    rows, changed = parents.rows[src], parents.changed[src]
    # weighted draw without replacement by exponential keys E / w
    with np.errstate(divide="ignore"):
        keys = np.where(changed, rng.exponential(size=(n, G)) / np.maximum(own[src], 1e-12), np.inf)
    rank = np.argsort(np.argsort(keys, axis=1), axis=1)
    keep = changed & (rank < size[:, None])
    revert = changed & ~keep
    rows = np.where(revert[:, ctx.group_of_feature], ctx.x, rows)
    w, g = np.nonzero(keep)
    side = sides.of_rows(g, rows, w)
    at = sides.count(g, side, st.not_farther(g, own[src[w], g]))  # the value itself and nearer
    room = sides.count(g, side, st.size[g]) - at
    extra = _log_uniform(rng, room + 1) - 1  # 0 .. room
    push = (extra > 0) & (at >= 1)
    st.assign(rows, w[push], g[push], sides.position(g[push], side[push], at[push] - 1 + extra[push]))
    return Candidates(rows, keep)


def _spread_ranks(ctx: Context, sides: _Sides, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(group, side, rank) triples: each group's values at the :data:`SWEEP_REACH` fractions of
    its values on each side of ``x`` (side 0: of all its values, for a group without sides),
    once each, in (group, position) order."""
    st = ctx.stacked
    fracs = np.asarray(SWEEP_REACH)
    h = np.repeat(groups, len(fracs))
    frac = np.tile(fracs, len(groups))
    out_g, out_s, out_r = [], [], []
    numeric = sides.numeric[h]
    for s in (-1.0, 1.0):
        total = sides.count(h, np.full(len(h), s), st.size[h])
        ok = numeric & (total > 0)
        out_g.append(h[ok])
        out_s.append(np.full(int(ok.sum()), s))
        out_r.append(np.maximum(np.ceil(frac[ok] * total[ok]).astype(np.intp) - 1, 0))
    other = ~numeric & (st.size[h] > 0)
    out_g.append(h[other])
    out_s.append(np.zeros(int(other.sum())))
    out_r.append(np.maximum(np.ceil(frac[other] * st.size[h[other]]).astype(np.intp) - 1, 0))
    g, s, r = np.concatenate(out_g), np.concatenate(out_s), np.concatenate(out_r)
    pos = sides.position(g, s, r)
    span = int(st.size.max(initial=1)) + 1  # (group, position) -> one sortable key, once each
    _, first = np.unique(g * span + pos, return_index=True)
    return g[first], s[first], r[first]


@dataclass
class SweepGrid:
    """The sweep's children as a grid, so that they can be refined: the parents with one group
    stepped in, and per child its stepped parent, partner group, side of ``x`` (0: a group
    without sides) and rank among the partner's values on that side (distance order: a higher
    rank is farther from ``x``), read with ``sides``."""

    sides: _Sides
    stepped: np.ndarray  # (m, d) rows
    stepped_changed: np.ndarray  # (m, G)
    parent: np.ndarray  # per child: its row of ``stepped``
    group: np.ndarray
    side: np.ndarray
    rank: np.ndarray

    def __len__(self) -> int:
        return len(self.parent)

    def take(self, idx: np.ndarray) -> SweepGrid:
        return SweepGrid(self.sides, self.stepped, self.stepped_changed, self.parent[idx], self.group[idx],
                         self.side[idx], self.rank[idx])  # fmt: skip

    def neighbours(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each child's line (stepped parent, partner group, side), and the pairs of children
        next to each other in (line, rank) order: (line, nearer, farther); a pair may span two
        lines."""
        line = (self.parent * (int(self.group.max(initial=0)) + 1) + self.group) * 3 + (self.side + 1).astype(np.intp)
        order = np.lexsort((self.rank, line))
        return line, order[:-1], order[1:]

    def children(self, ctx: Context) -> Candidates:
        """The children: each stepped parent with its partner group at its value."""
        rows, changed = self.stepped[self.parent], self.stepped_changed[self.parent]
        at = np.arange(len(self.parent))
        ctx.stacked.assign(rows, at, self.group, self.sides.position(self.group, self.side, self.rank))
        changed[at, self.group] = True
        return Candidates(rows, changed)


def sweep_grid(ctx: Context, parents: Candidates, dist_spec, max_changed: int = 2) -> SweepGrid | None:
    """The grid of :func:`sweep`; None where no parent qualifies."""
    n_changed = parents.changed.sum(axis=1)
    parents = parents.take(np.flatnonzero((n_changed >= 1) & (n_changed <= max_changed)))
    if len(parents) == 0:
        return None
    st = ctx.stacked
    sides = _sides_of(ctx, dist_spec)
    own = group_distances(ctx, parents.rows, parents.changed, dist_spec)
    if ctx.kernels is not None:  # the same grid in one compiled pass
        stepped, stepped_changed, *grid = ctx.kernels.sweep_grid(
            parents.rows, parents.changed, own, ctx.x, np.asarray(SWEEP_KEEP), np.asarray(SWEEP_REACH), ctx.has_space, st,
            sides.tables,
        )  # fmt: skip
        return SweepGrid(sides, stepped, stepped_changed, *grid) if len(stepped) else None
    # the parents with one group stepped in: every (parent, changed group, fraction)
    group, src = np.nonzero(parents.changed.T)
    side = sides.of_rows(group, parents.rows, src)
    count = sides.count(group, side, st.closer(group, own[src, group]))
    fracs = np.asarray(SWEEP_KEEP)
    group, src, count = (np.repeat(a, len(fracs)) for a in (group, src, count))
    rank = np.floor(np.tile(fracs, len(count) // len(fracs)) * count).astype(np.intp)
    ok = count > 0
    group, src, rank = group[ok], src[ok], rank[ok]
    if len(src) == 0:
        return None
    stepped, stepped_changed = parents.rows[src], parents.changed[src]
    at = np.arange(len(src))
    st.assign(stepped, at, group, sides.position(group, sides.of_rows(group, stepped, at), rank))
    # beside every partner value the stepped row does not change yet
    h, hs, hr = _spread_ranks(ctx, sides, np.flatnonzero(ctx.has_space))
    v = np.repeat(np.arange(len(stepped)), len(h))
    hh, ss, rr = np.tile(h, len(stepped)), np.tile(hs, len(stepped)), np.tile(hr, len(stepped))
    free = ~stepped_changed[v, hh]
    return SweepGrid(sides, stepped, stepped_changed, v[free], hh[free], ss[free], rr[free])


def sweep(ctx: Context, parents: Candidates, dist_spec, max_changed: int = 2) -> Candidates:
    """For each parent (a counterfactual) changing at most ``max_changed`` groups: each changed
    group stepped part of the way towards ``x`` (keeping :data:`SWEEP_KEEP` of the values on its
    side closer than its own), beside every other group with a feasible space at a few values
    spread over each side of ``x`` (:data:`SWEEP_REACH`). A one-group answer whose group moves a
    lot is often beaten by one that moves it less and a second group far, a pair the random trade
    steps rarely draw among tens of groups; this grid covers every partner at once (about
    30 children per partner group and changed group). :func:`bisect_sweep` refines it."""
    grid = sweep_grid(ctx, parents, dist_spec, max_changed)
    return Candidates.empty(len(ctx.x), ctx.n_groups) if grid is None else grid.children(ctx)


def bisect_sweep(grid: SweepGrid, met: np.ndarray, dist: np.ndarray, bound: float,
                 points: int = SWEEP_BISECT) -> tuple[SweepGrid, np.ndarray]:
    """Where the sweep's grid is too coarse: between two neighbouring children of one stepped
    parent and partner side (in rank order), the nearer missing the target and the farther
    meeting it, more than one rank apart, ``points`` ranks spread between them, where the nearer
    one's distance is below ``bound`` (every child between is at least as far from ``x``: the
    partner's distance grows with its rank). ``met``: per child 1 (meets the target), 0 (misses
    it), -1 (unknown: repaired or dropped by the rules); ``dist``: its distance. The next grid:
    the brackets' ends (the children ``carried``, indices into ``grid``) followed by the new
    children between them, so that the next round bisects further."""
    none = np.empty(0, dtype=np.intp)
    if len(grid) < 2:
        return grid.take(none), none
    span = int(grid.rank.max(initial=0)) + 2
    line, a, b = grid.neighbours()
    gap = grid.rank[b] - grid.rank[a]
    is_bracket = (line[a] == line[b]) & (met[a] == 0) & (met[b] == 1) & (gap > 1) & (dist[a] < bound)
    a, b, gap = a[is_bracket], b[is_bracket], gap[is_bracket]
    if len(a) == 0:
        return grid.take(none), none
    # ``points`` interior ranks of each bracket (fewer where the gap is smaller), once each
    step = np.arange(1, points + 1) / (points + 1)
    inner = grid.rank[a, None] + np.maximum(np.floor(step[None, :] * gap[:, None]).astype(np.intp), 1)
    inner = np.minimum(inner, grid.rank[b, None] - 1)
    key = np.unique(np.repeat(np.arange(len(a)), points) * span + inner.ravel())
    who, rank = key // span, key % span
    carried = np.unique(np.concatenate([a, b]))
    nxt = grid.take(np.concatenate([carried, a[who]]))  # the new children: their bracket's line
    nxt.rank = np.concatenate([grid.rank[carried], rank])
    return nxt, carried


def sweep_children_to_score(grid: SweepGrid, dist: np.ndarray, bound: float) -> np.ndarray:
    """Which of the sweep's children :func:`bisect_sweep` may read (a mask): those nearer than
    ``bound`` and, on each line (stepped parent, partner group, side), the first at or past it.
    A bracket's nearer end lies below the bound the bisection is given, which is at most this
    one (the best option's distance before the children are scored), and its farther end is
    the next child of its line; every other child is no bracket's end, and, no nearer than the
    best option, no answer either: it need not be scored. ``dist``: the children's distances."""
    nearer = dist < bound
    if len(grid) == 0:
        return nearer
    line, a, b = grid.neighbours()
    out = nearer.copy()
    out[b[(line[a] == line[b]) & nearer[a]]] = True
    return out


def _side_grid(ctx: Context, sides: _Sides, group: np.ndarray, side: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pair, position): for each (group, side) pair, the group's values at the
    :data:`SWEEP_REACH` fractions of its values on that side of ``x`` (of all its values for a
    group without sides), once each; pairs with no value there get none."""
    st = ctx.stacked
    fracs = np.asarray(SWEEP_REACH)
    pair = np.repeat(np.arange(len(group)), len(fracs))
    g, s = group[pair], side[pair]
    total = sides.count(g, s, st.size[g])
    rank = np.maximum(np.ceil(np.tile(fracs, len(group)) * total).astype(np.intp) - 1, 0)
    ok = total > 0
    pair, g, s, rank = pair[ok], g[ok], s[ok], rank[ok]
    span = int(st.size.max(initial=1)) + 1
    key = np.unique(pair * span + rank)  # equal ranks (a short side) once
    pair, rank = key // span, key % span
    return pair, sides.position(group[pair], side[pair], rank)


def single_grid(ctx: Context, dist_spec) -> Candidates:
    """Every group with a feasible space moved alone on a grid of its values on each side of
    ``x`` (:data:`SWEEP_REACH`): :func:`regroup`'s probes of which groups move the score."""
    G = ctx.n_groups
    sides = _sides_of(ctx, dist_spec)
    groups = np.flatnonzero(ctx.has_space)
    group = np.repeat(groups, 2)
    side = np.tile([-1.0, 1.0], len(groups))
    keep = sides.numeric[group] | (side < 0)  # a group without sides: one grid over all its values
    group, side = group[keep], np.where(sides.numeric[group[keep]], side[keep], 0.0)
    pair, pos = _side_grid(ctx, sides, group, side)
    rows = np.repeat(ctx.x[None, :], len(pair), axis=0)
    at = np.arange(len(pair))
    ctx.stacked.assign(rows, at, group[pair], pos)
    changed = np.zeros((len(pair), G), dtype=bool)
    changed[at, group[pair]] = True
    return Candidates(rows, changed)


def regroup(ctx: Context, parents: Candidates, dist_spec, probes: tuple[np.ndarray, np.ndarray, np.ndarray],
            max_groups: int = 8, from_probes: int = 4, max_kept: int = MAX_KEPT) -> Candidates:  # fmt: skip
    """When the best parent (a counterfactual; parents best first) changes three groups or more:
    every subset of two to ``max_kept`` of a few groups, moved from ``x`` on a grid of their
    values (:data:`SWEEP_REACH`) on one side of ``x``, every combination. The groups: the
    ``from_probes`` whose lone move (``probes`` = rows, changed, P(desired) of
    :func:`single_grid`'s children) scores highest, on that move's side, then those most
    parents change, on the side the best parent changing them takes, ``max_groups`` in all.
    A sparse answer of wide data often moves a few of the groups that matter most alone, one of
    them farther and one less far than a dense answer does, which neither :func:`concentrate`
    (the parent's own groups, farther only) nor single steps reach; the grid is coarse, the
    polishing rounds after it land on the thresholds. At most 28 pairs x 36 + 56 triples x 216
    children."""
    d, G = len(ctx.x), ctx.n_groups
    if len(parents) == 0 or parents.changed[0].sum() < REGROUP_MIN_CHANGED:
        return Candidates.empty(d, G)
    sides = _sides_of(ctx, dist_spec)
    p_rows, p_changed, p_prob = probes
    alone = p_changed.sum(axis=1) == 1
    p_group = p_changed.argmax(axis=1)
    order = np.flatnonzero(alone)[np.argsort(-p_prob[alone], kind="stable")]
    probed = list(dict.fromkeys(p_group[order].tolist()))[:from_probes]  # best probe first
    probe_side = {int(g): float(sides.of_rows(np.array([g]), p_rows, order[p_group[order] == g][:1])[0]) for g in probed}
    votes = parents.changed.sum(axis=0)
    voted = np.flatnonzero((votes > 0) & ctx.has_space)
    voted = voted[np.argsort(-votes[voted], kind="stable")].tolist()
    groups = np.array(list(dict.fromkeys(probed + voted))[:max_groups], dtype=np.intp)
    first = parents.changed.argmax(axis=0)  # the best parent changing each group
    side = sides.of_rows(groups, parents.rows, first[groups])
    side = np.array([s if parents.changed[:, g].any() else probe_side[int(g)] for g, s in zip(groups, side)])
    pair, pos = _side_grid(ctx, sides, groups, side)
    grid = [pos[pair == i] for i in range(len(groups))]
    out: list[Candidates] = []
    for size in range(2, min(max_kept, len(groups)) + 1):
        for subset in combinations(range(len(groups)), size):
            mesh = np.stack(np.meshgrid(*(grid[i] for i in subset), indexing="ij"), axis=-1).reshape(-1, size)
            if len(mesh) == 0:
                continue
            rows = np.repeat(ctx.x[None, :], len(mesh), axis=0)
            changed = np.zeros((len(mesh), G), dtype=bool)
            at = np.arange(len(mesh))
            for j, i in enumerate(subset):
                ctx.stacked.assign(rows, at, np.full(len(mesh), groups[i]), mesh[:, j])
                changed[:, groups[i]] = True
            out.append(Candidates(rows, changed))
    return Candidates.concat(out, d, G)
