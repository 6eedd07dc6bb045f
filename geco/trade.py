"""Trading distance between groups: a local move for the best counterfactuals.

Selective mutation moves one changed group towards ``x`` at a time and keeps the child only if it
stays a counterfactual. Under l1 on many numeric columns the nearest counterfactual often spreads
its move over several groups (raise three amounts a little rather than one a lot), which no
sequence of such single moves reaches from a one-group answer: the first move towards ``x`` loses
the desired class. A trade child moves one changed group of a counterfactual towards ``x`` and,
in the same child, another group (changed or not) a little away from ``x``, so the desired class
can be kept while the total distance falls.
"""

from __future__ import annotations

import numpy as np

from geco.operators import Context
from geco.population import Candidates

__all__ = ["step_in", "trade"]

#: the group moving away from x goes 1..MAX_AWAY positions further, in distance order
MAX_AWAY = 8


def _log_uniform(rng: np.random.Generator, high: np.ndarray) -> np.ndarray:
    """Integers in ``[1, high]`` with a log-uniform law (small steps as likely as big ones)."""
    return np.clip(np.floor(np.exp(rng.random(len(high)) * np.log(high + 1.0))), 1, high).astype(np.intp)


def _sides(space, dist_spec, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a one-feature numeric group: the side of ``x`` (-1 / +1) of each value of the space
    and of each row's value; 0 everywhere for other groups (no order to keep to)."""
    feats = space.features
    if len(feats) == 1 and not dist_spec.categorical[feats[0]]:
        x = dist_spec.x[feats[0]]
        return np.sign(space.values[:, 0] - x), np.sign(rows[:, feats[0]] - x)
    return np.zeros(len(space)), np.zeros(len(rows))


def _on_side(space_sides: np.ndarray, side: float) -> np.ndarray:
    """Positions (in distance order) of the values on ``side``; every position for side 0."""
    return np.arange(len(space_sides)) if side == 0 else np.flatnonzero(space_sides == side)


def _step_towards(ctx: Context, dist_spec, rows: np.ndarray, changed: np.ndarray, who: np.ndarray,
                  group: int, steps) -> None:
    """Move ``group`` of rows ``who`` (in place) ``steps(count)`` positions towards ``x`` among
    the strictly closer values on the row's side of ``x`` (``count`` of them per row); a step
    past the last one puts ``x``'s own value back and clears the group's changed flag."""
    space = ctx.spaces[group]
    feats = space.features
    closer = np.searchsorted(space.distance, dist_spec(feats, rows[np.ix_(who, feats)]), side="left")
    space_sides, row_sides = _sides(space, dist_spec, rows[who])
    for side in np.unique(row_sides):
        part = row_sides == side
        positions = _on_side(space_sides, side)
        count = np.searchsorted(positions, closer[part])  # same-side values closer than the row's
        rank = count - steps(count)  # -1: back to x's own value
        w, back = who[part], rank < 0
        rows[np.ix_(w[back], feats)] = ctx.x[feats]
        changed[w[back], group] = False
        rows[np.ix_(w[~back], feats)] = space.values[positions[rank[~back]]]


def trade(ctx: Context, parents: Candidates, dist_spec, per_parent: int) -> Candidates:
    """``per_parent`` children of each parent (counterfactuals, best first): a random changed
    group ``g`` steps towards ``x`` (to a strictly closer value on the same side of ``x``, or
    back to ``x``'s own, by a log-uniform number of positions) and a random other group ``h`` with
    a feasible space moves 1..``MAX_AWAY`` positions beyond its current distance (on the same side
    of ``x`` if it is already changed). Children whose ``h`` has nowhere to go are dropped."""
    d, G = len(ctx.x), ctx.n_groups
    if len(parents) == 0 or per_parent < 1:
        return Candidates.empty(d, G)
    rng = ctx.rng
    src = np.repeat(np.arange(len(parents)), per_parent)
    n = len(src)
    rows, changed = parents.rows[src].copy(), parents.changed[src].copy()
    at = np.arange(n)
    g = np.where(changed, rng.random((n, G)), -1.0).argmax(axis=1)
    has_space = np.array([len(s) > 0 for s in ctx.spaces])
    keys_h = np.where(has_space[None, :], rng.random((n, G)), -1.0)
    keys_h[at, g] = -1.0
    h = keys_h.argmax(axis=1)
    ok = changed[at, g] & (keys_h[at, h] >= 0)
    for group in np.unique(g[ok]):
        _step_towards(ctx, dist_spec, rows, changed, np.flatnonzero(ok & (g == group)), group,
                      lambda count: _log_uniform(rng, count + 1))  # fmt: skip
    for group in np.unique(h[ok]):
        who = np.flatnonzero(ok & (h == group))
        space = ctx.spaces[group]
        feats = space.features
        was = changed[who, group]
        own = np.where(was, dist_spec(feats, rows[np.ix_(who, feats)]), 0.0)
        beyond = np.searchsorted(space.distance, own, side="right")
        space_sides, row_sides = _sides(space, dist_spec, rows[who])
        row_sides = np.where(was, row_sides, 0.0)
        for side in np.unique(row_sides):
            part = row_sides == side
            positions = _on_side(space_sides, side)
            rank = np.searchsorted(positions, beyond[part]) + _log_uniform(rng, np.full(part.sum(), MAX_AWAY)) - 1
            fits = rank < len(positions)
            w = who[part]
            ok[w[~fits]] = False
            rows[np.ix_(w[fits], feats)] = space.values[positions[rank[fits]]]
            changed[w[fits], group] = True
    keep = ok & changed.any(axis=1)
    return Candidates(rows[keep], changed[keep])


def step_in(ctx: Context, parents: Candidates, dist_spec) -> Candidates:
    """For every parent and every group it changes, one child with that group on the next value
    towards ``x`` on the same side of ``x`` (``x``'s own value when there is none), and one child
    with every changed group stepped so at once. Selective mutation steps by 1, 2, 4, ... positions
    in distance order, which mixes both sides of ``x``; this lands a group exactly on the nearest
    value of its side that still works (a threshold), all groups in one round."""
    d, G = len(ctx.x), ctx.n_groups
    if len(parents) == 0:
        return Candidates.empty(d, G)
    together, together_changed = parents.rows.copy(), parents.changed.copy()
    parts = []
    for group in np.flatnonzero(parents.changed.any(axis=0)):
        who = np.flatnonzero(parents.changed[:, group])
        rows, changed = parents.rows[who], parents.changed[who]  # copies of the rows that step
        _step_towards(ctx, dist_spec, rows, changed, np.arange(len(who)), group, lambda count: 1)
        parts.append(Candidates(rows, changed))
        feats = ctx.spaces[group].features
        together[np.ix_(who, feats)] = rows[:, feats]
        together_changed[who, group] = changed[:, group]
    parts.append(Candidates(together, together_changed))
    out = Candidates.concat(parts, d, G)
    keep = out.changed.any(axis=1)
    return Candidates(out.rows[keep], out.changed[keep])
