"""The polishing's trade, step-in and concentration compiled: which groups each child moves and
where, then the children, in a pass or two over the parents instead of some forty numpy calls
on (children x groups) arrays.

:func:`geco.search.trade.trade`, :func:`geco.search.trade.step_in` and
:func:`geco.search.trade.concentrate` stay the reference.
The draws stay the caller's: the keys are passed in, and the log-uniform steps between the two
passes are drawn and rounded by numpy (``np.exp``/``np.log`` on the same arrays as the
reference), so the children and the random stream are the reference's bit for bit (the
concentration's keys are ranked by a stable sort where numpy's argsort, past 16 groups, is
not: equal keys E / own, two exponential draws alike, never met in practice)."""

from __future__ import annotations

import numpy as np

from geco.search.kernels.common import (
    copy_row,
    jit,
    reset_group,
    search_left,
    search_right,
    set_group,
    stable_order,
)

__all__ = ["concentrate_plan", "place", "step_in", "sweep_grid", "trade_children", "trade_plan"]


@jit
def _side(numeric, feature, x, row, g):
    """The side of ``x`` of ``row``'s value in group ``g`` (``np.sign``; 0 where the group has
    no sides, NaN where the value is NaN), as ``_Sides.of_rows``."""
    if not numeric[g]:
        return 0.0
    v = row[feature[g]] - x[feature[g]]
    if v > 0:
        return 1.0
    if v < 0:
        return -1.0
    return v  # 0 (or -0, or NaN): as np.sign gives it


@jit
def _side_count(before_lo, before_hi, start, g, side, limit):
    """Values of ``side`` among group ``g``'s first ``limit`` (``limit`` for side 0), as
    ``_Sides.count``."""
    if side == -1.0:
        return before_lo[start[g] + limit] - before_lo[start[g]]
    if side == 1.0:
        return before_hi[start[g] + limit] - before_hi[start[g]]
    return limit


@jit
def _side_position(before_lo, before_hi, where_lo, where_hi, start, g, side, rank):
    """The position of group ``g``'s ``rank``-th value of ``side``, as ``_Sides.position``."""
    if side == -1.0:
        return where_lo[before_lo[start[g]] + rank] - start[g]
    if side == 1.0:
        return where_hi[before_hi[start[g]] + rank] - start[g]
    return rank


@jit
def _count_below(ranks, rank_key, start, g, distance, right):
    """``StackedSpaces.closer`` (``right`` False) or ``not_farther`` (True) for one pair."""
    r = search_right(ranks, distance) if right else search_left(ranks, distance)
    return search_left(rank_key, g * len(ranks) + r) - start[g]


@jit
def _trade_plan(changed, rows, own, per_parent, keys, has_space, x, start, size, ranks, rank_key, numeric, feature,
                before_lo, before_hi):  # fmt: skip
    n_parents, n_groups = changed.shape
    n = n_parents * per_parent
    g_of = np.empty(n, dtype=np.intp)
    h_of = np.empty(n, dtype=np.intp)
    ok = np.zeros(n, dtype=np.bool_)
    count = 0
    for i in range(n):
        p = i // per_parent
        best, g = -np.inf, 0
        for c in range(n_groups):
            key = keys[0, i, c] if changed[p, c] else -1.0
            if key > best:
                best, g = key, c
        best, h = -np.inf, 0
        for c in range(n_groups):
            key = keys[1, i, c] if has_space[c] and c != g else -1.0
            if key > best:
                best, h = key, c
        g_of[i], h_of[i] = g, h
        ok[i] = changed[p, g] and best >= 0
        count += ok[i]
    w = np.empty(count, dtype=np.intp)
    out_g = np.empty(count, dtype=np.intp)
    out_h = np.empty(count, dtype=np.intp)
    side_g = np.empty(count)
    count_g = np.empty(count, dtype=np.intp)
    side_h = np.empty(count)
    near_h = np.empty(count, dtype=np.intp)
    total_h = np.empty(count, dtype=np.intp)
    t = 0
    for i in range(n):
        if not ok[i]:
            continue
        p, g, h = i // per_parent, g_of[i], h_of[i]
        w[t], out_g[t], out_h[t] = i, g, h
        sg = _side(numeric, feature, x, rows[p], g)
        side_g[t] = sg
        closer = _count_below(ranks, rank_key, start, g, own[p, g], False)
        count_g[t] = _side_count(before_lo, before_hi, start, g, sg, closer)
        was = changed[p, h]
        sh = _side(numeric, feature, x, rows[p], h) if was else 0.0
        side_h[t] = sh
        beyond = _count_below(ranks, rank_key, start, h, own[p, h] if was else 0.0, True)
        near_h[t] = _side_count(before_lo, before_hi, start, h, sh, beyond)
        total_h[t] = _side_count(before_lo, before_hi, start, h, sh, size[h])
        t += 1
    return w, out_g, out_h, side_g, count_g, side_h, near_h, total_h


def trade_plan(rows: np.ndarray, changed: np.ndarray, own: np.ndarray, per_parent: int, keys: np.ndarray,
               has_space: np.ndarray, x: np.ndarray, stacked, sides) -> tuple[np.ndarray, ...]:  # fmt: skip
    """What :func:`geco.search.trade.trade` decides before its step draws, for its
    ``per_parent`` children of each parent (``own``: the parents' group distances; ``keys``:
    its two (children, G) key draws, stacked): the children with a group to trade (indices),
    their group ``g`` stepping towards ``x`` and group ``h`` moving away, ``g``'s side of ``x``
    and count of same-side values strictly closer, and ``h``'s side (0 when the parent leaves
    it at ``x``) with its values of that side no farther than the parent's (``near``) and in
    all (``total``). ``stacked``: the StackedSpaces; ``sides``: the ``_Sides`` tables."""
    st = stacked
    numeric, feature, before_lo, before_hi, _, _ = sides
    return _trade_plan(
        np.ascontiguousarray(changed), np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(own),
        int(per_parent), np.ascontiguousarray(keys), np.ascontiguousarray(has_space), x, st.start, st.size,
        st.ranks, st.rank_key, numeric, feature, before_lo, before_hi,
    )  # fmt: skip


@jit
def _trade_children(rows, changed, per_parent, w, g_of, h_of, side_g, rank_g, side_h, rank_h, total_h, x, start,
                    n_features, feature_start, features, value_start, values, before_lo, before_hi, where_lo,
                    where_hi):  # fmt: skip
    n_groups = changed.shape[1]
    count = 0
    for t in range(len(w)):
        count += rank_h[t] < total_h[t]
    out = np.empty((count, rows.shape[1]))
    out_changed = np.empty((count, n_groups), dtype=np.bool_)
    o = 0
    for t in range(len(w)):
        if not rank_h[t] < total_h[t]:  # h has nowhere to go that far: no child
            continue
        p, g, h = w[t] // per_parent, g_of[t], h_of[t]
        copy_row(out, o, rows, p)
        for c in range(n_groups):
            out_changed[o, c] = changed[p, c]
        if rank_g[t] < 0:  # g back to x's own value
            reset_group(out, o, g, x, n_features, feature_start, features)
            out_changed[o, g] = False
        else:
            pos = _side_position(before_lo, before_hi, where_lo, where_hi, start, g, side_g[t], rank_g[t])
            set_group(out, o, g, pos, n_features, feature_start, features, value_start, values)
        pos = _side_position(before_lo, before_hi, where_lo, where_hi, start, h, side_h[t], rank_h[t])
        set_group(out, o, h, pos, n_features, feature_start, features, value_start, values)
        out_changed[o, h] = True
        o += 1
    return out, out_changed


def trade_children(rows: np.ndarray, changed: np.ndarray, per_parent: int, plan: tuple[np.ndarray, ...],
                   rank_g: np.ndarray, rank_h: np.ndarray, x: np.ndarray, stacked,
                   sides) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The children :func:`geco.search.trade.trade` keeps, from :func:`trade_plan`'s ``plan``
    and the ranks its draws gave: ``g`` to its ``rank_g``-th same-side value (back to ``x``
    below 0), ``h`` to its ``rank_h``-th (no child where that is past its ``total``), in the
    reference's order."""
    st = stacked
    w, g, h, side_g, _, side_h, _, total_h = plan
    _, _, before_lo, before_hi, where_lo, where_hi = sides
    return _trade_children(
        np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(changed), int(per_parent), w, g, h,
        side_g, np.asarray(rank_g, dtype=np.intp), side_h, np.asarray(rank_h, dtype=np.intp), total_h, x, st.start,
        st.n_features, st.feature_start, st.features, st.value_start, st.values, before_lo, before_hi, where_lo,
        where_hi,
    )  # fmt: skip


@jit
def _concentrate_plan(rows, changed, own, src, size, exp, x, gof, start, st_size, ranks, rank_key, numeric, feature,
                      before_lo, before_hi):  # fmt: skip
    n, n_groups = len(src), changed.shape[1]
    out = np.empty((n, rows.shape[1]))
    keep = np.zeros((n, n_groups), dtype=np.bool_)
    key = np.empty(n_groups)
    order = np.empty(n_groups, dtype=np.intp)
    count = 0
    for i in range(n):
        p = src[i]
        m = 0
        for c in range(n_groups):  # the changed groups by key E / own (ties: the earlier group)
            if changed[p, c]:
                key[c] = exp[i, c] / max(own[p, c], 1e-12)
                t = m
                while t > 0 and key[c] < key[order[t - 1]]:
                    order[t] = order[t - 1]
                    t -= 1
                order[t] = c
                m += 1
        for t in range(min(size[i], m)):
            keep[i, order[t]] = True
            count += 1
        for j in range(rows.shape[1]):
            g = gof[j]
            out[i, j] = x[j] if changed[p, g] and not keep[i, g] else rows[p, j]
    w = np.empty(count, dtype=np.intp)
    g_of = np.empty(count, dtype=np.intp)
    side = np.empty(count)
    at = np.empty(count, dtype=np.intp)
    room = np.empty(count, dtype=np.intp)
    t = 0
    for i in range(n):
        p = src[i]
        for g in range(n_groups):
            if not keep[i, g]:
                continue
            s = _side(numeric, feature, x, out[i], g)
            w[t], g_of[t], side[t] = i, g, s
            at[t] = _side_count(before_lo, before_hi, start, g, s, _count_below(ranks, rank_key, start, g, own[p, g], True))
            room[t] = _side_count(before_lo, before_hi, start, g, s, st_size[g]) - at[t]
            t += 1
    return out, keep, w, g_of, side, at, room


def concentrate_plan(rows: np.ndarray, changed: np.ndarray, own: np.ndarray, src: np.ndarray, size: np.ndarray,
                     exp: np.ndarray, x: np.ndarray, gof: np.ndarray, stacked, sides) -> tuple[np.ndarray, ...]:  # fmt: skip
    """What :func:`geco.search.trade.concentrate` makes before its last draws, from its draws
    ``size`` and ``exp`` (children of parents ``src``; ``own``: the parents' group
    distances): the children's rows with the groups they drop back at ``x``, the groups each
    keeps (its ``size`` changed groups of smallest ``exp / own``), and per kept (child,
    group): the child, the group, its side of ``x``, its values of that side no farther than
    the parent's (``at``) and beyond (``room``)."""
    st = stacked
    numeric, feature, before_lo, before_hi, _, _ = sides
    return _concentrate_plan(
        np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(changed), np.ascontiguousarray(own),
        np.asarray(src, dtype=np.intp), np.asarray(size, dtype=np.intp), np.ascontiguousarray(exp), x, gof, st.start,
        st.size, st.ranks, st.rank_key, numeric, feature, before_lo, before_hi,
    )  # fmt: skip


@jit
def _place(rows, who, group, side, rank, start, n_features, feature_start, features, value_start, values, before_lo,
           before_hi, where_lo, where_hi):  # fmt: skip
    for t in range(len(who)):
        pos = _side_position(before_lo, before_hi, where_lo, where_hi, start, group[t], side[t], rank[t])
        set_group(rows, who[t], group[t], pos, n_features, feature_start, features, value_start, values)


def place(rows: np.ndarray, who: np.ndarray, group: np.ndarray, side: np.ndarray, rank: np.ndarray, stacked,
          sides) -> None:  # fmt: skip
    """In place: row ``who[i]`` of ``rows`` takes the ``rank[i]``-th value of ``side[i]`` of
    ``group[i]`` (``StackedSpaces.assign`` at ``_Sides.position``)."""
    st = stacked
    _, _, before_lo, before_hi, where_lo, where_hi = sides
    _place(rows, np.asarray(who, dtype=np.intp), np.asarray(group, dtype=np.intp), np.asarray(side, dtype=np.float64),
           np.asarray(rank, dtype=np.intp), st.start, st.n_features, st.feature_start, st.features, st.value_start,
           st.values, before_lo, before_hi, where_lo, where_hi)  # fmt: skip


@jit
def _step_in(rows, changed, own, x, start, n_features, feature_start, features, value_start, values, ranks, rank_key,
             numeric, feature, before_lo, before_hi, where_lo, where_hi):  # fmt: skip
    n_parents, n_groups = changed.shape
    d = rows.shape[1]
    n_pairs = 0
    for p in range(n_parents):
        for g in range(n_groups):
            n_pairs += changed[p, g]
    out = np.empty((n_pairs + n_parents, d))
    out_changed = np.empty((n_pairs + n_parents, n_groups), dtype=np.bool_)
    for p in range(n_parents):  # every changed group stepped at once: the last n_parents rows
        copy_row(out, n_pairs + p, rows, p)
        copy_row(out_changed, n_pairs + p, changed, p)
    t = 0
    for g in range(n_groups):  # group by group, each group's parents in order
        for p in range(n_parents):
            if not changed[p, g]:
                continue
            copy_row(out, t, rows, p)
            copy_row(out_changed, t, changed, p)
            side = _side(numeric, feature, x, rows[p], g)
            rank = _side_count(before_lo, before_hi, start, g, side,
                               _count_below(ranks, rank_key, start, g, own[p, g], False)) - 1  # fmt: skip
            if rank < 0:  # no value nearer on its side: back to x's own
                reset_group(out, t, g, x, n_features, feature_start, features)
                out_changed[t, g] = False
            else:
                pos = _side_position(before_lo, before_hi, where_lo, where_hi, start, g, side, rank)
                set_group(out, t, g, pos, n_features, feature_start, features, value_start, values)
            for f in range(n_features[g]):
                j = features[feature_start[g] + f]
                out[n_pairs + p, j] = out[t, j]
            out_changed[n_pairs + p, g] = out_changed[t, g]
            t += 1
    n = 0
    for i in range(n_pairs + n_parents):  # a row back at x everywhere is no child
        moved = False
        for g in range(n_groups):
            moved = moved or out_changed[i, g]
        if moved:
            if n != i:
                copy_row(out, n, out, i)
                copy_row(out_changed, n, out_changed, i)
            n += 1
    return out[:n], out_changed[:n]


def step_in(rows: np.ndarray, changed: np.ndarray, own: np.ndarray, x: np.ndarray, stacked,
            sides) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """What :func:`geco.search.trade.step_in` makes of its parents (``own``: their group
    distances), in its order: per (group, parent) the group on the next value towards ``x`` on
    its side (``x``'s own where none is nearer), then per parent every changed group so, rows
    back at ``x`` left out."""
    st = stacked
    numeric, feature, before_lo, before_hi, where_lo, where_hi = sides
    return _step_in(
        np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(changed), np.ascontiguousarray(own), x,
        st.start, st.n_features, st.feature_start, st.features, st.value_start, st.values, st.ranks, st.rank_key,
        numeric, feature, before_lo, before_hi, where_lo, where_hi,
    )  # fmt: skip


@jit
def _spread_ranks(groups, fracs, size, start, numeric, before_lo, before_hi, where_lo, where_hi):
    """``geco.search.trade._spread_ranks``: (group, side, rank) of each group's values at the
    fractions ``fracs`` of its values on each side of ``x`` (side 0: of all of them, for a group
    without sides), once each, in (group, position) order."""
    n_fracs = len(fracs)
    cap = 3 * len(groups) * n_fracs
    g_of = np.empty(cap, dtype=np.intp)
    s_of = np.empty(cap)
    r_of = np.empty(cap, dtype=np.intp)
    key = np.empty(cap)
    span = 1
    for g in range(len(size)):
        span = max(span, size[g])
    span += 1
    n = 0
    for side in (-1.0, 1.0, 0.0):  # the reference lists side -1, then +1, then the groups without sides
        for a in range(len(groups)):
            g = groups[a]
            if (side == 0.0) == numeric[g]:
                continue
            total = _side_count(before_lo, before_hi, start, g, side, size[g])
            if total <= 0:
                continue
            for c in range(n_fracs):
                r = max(np.int64(np.ceil(fracs[c] * total)) - 1, 0)
                g_of[n], s_of[n], r_of[n] = g, side, r
                key[n] = g * span + _side_position(before_lo, before_hi, where_lo, where_hi, start, g, side, r)
                n += 1
    order = stable_order(key[:n])
    keep = np.empty(n, dtype=np.intp)
    m = 0
    for t in range(n):  # np.unique's first occurrence of each key, keys ascending
        if t == 0 or key[order[t]] != key[order[t - 1]]:
            keep[m] = order[t]
            m += 1
    return g_of[keep[:m]], s_of[keep[:m]], r_of[keep[:m]]


@jit
def _sweep_grid(rows, changed, own, x, keep_fracs, reach_fracs, has_space, start, size, n_features, feature_start,
                features, value_start, values, ranks, rank_key, numeric, feature, before_lo, before_hi, where_lo,
                where_hi):  # fmt: skip
    n_parents, n_groups = changed.shape
    d = rows.shape[1]
    n_keep = len(keep_fracs)
    # the parents with one group stepped in: every (changed group, parent, fraction) kept
    cap = 0
    for p in range(n_parents):
        for g in range(n_groups):
            cap += changed[p, g]
    cap *= n_keep
    stepped = np.empty((cap, d))
    stepped_changed = np.empty((cap, n_groups), dtype=np.bool_)
    m = 0
    for g in range(n_groups):
        for p in range(n_parents):
            if not changed[p, g]:
                continue
            side = _side(numeric, feature, x, rows[p], g)
            count = _side_count(before_lo, before_hi, start, g, side,
                                _count_below(ranks, rank_key, start, g, own[p, g], False))  # fmt: skip
            if count <= 0:
                continue
            for c in range(n_keep):
                rank = np.int64(np.floor(keep_fracs[c] * count))
                copy_row(stepped, m, rows, p)
                copy_row(stepped_changed, m, changed, p)
                pos = _side_position(before_lo, before_hi, where_lo, where_hi, start, g, side, rank)
                set_group(stepped, m, g, pos, n_features, feature_start, features, value_start, values)
                m += 1
    stepped, stepped_changed = stepped[:m], stepped_changed[:m]
    with_space = np.empty(n_groups, dtype=np.intp)
    k = 0
    for g in range(n_groups):
        if has_space[g]:
            with_space[k] = g
            k += 1
    h, hs, hr = _spread_ranks(with_space[:k], reach_fracs, size, start, numeric, before_lo, before_hi, where_lo,
                              where_hi)  # fmt: skip
    # beside every partner value the stepped row does not change yet
    n = 0
    for v in range(m):
        for t in range(len(h)):
            n += not stepped_changed[v, h[t]]
    parent = np.empty(n, dtype=np.intp)
    group = np.empty(n, dtype=np.intp)
    side_of = np.empty(n)
    rank_of = np.empty(n, dtype=np.intp)
    i = 0
    for v in range(m):
        for t in range(len(h)):
            if not stepped_changed[v, h[t]]:
                parent[i], group[i], side_of[i], rank_of[i] = v, h[t], hs[t], hr[t]
                i += 1
    return stepped, stepped_changed, parent, group, side_of, rank_of


def sweep_grid(rows: np.ndarray, changed: np.ndarray, own: np.ndarray, x: np.ndarray, keep_fracs: np.ndarray,
               reach_fracs: np.ndarray, has_space: np.ndarray, stacked, sides) -> tuple[np.ndarray, ...]:  # fmt: skip
    """What :func:`geco.search.trade.sweep_grid` makes of its parents (those changing one or
    two groups; ``own``: their group distances): the stepped rows and their changed groups,
    and per child its stepped row, partner group, side and rank, in its order."""
    st = stacked
    numeric, feature, before_lo, before_hi, where_lo, where_hi = sides
    return _sweep_grid(
        np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(changed), np.ascontiguousarray(own), x,
        np.asarray(keep_fracs, dtype=np.float64), np.asarray(reach_fracs, dtype=np.float64),
        np.ascontiguousarray(has_space, dtype=np.bool_), st.start, st.size, st.n_features, st.feature_start,
        st.features, st.value_start, st.values, st.ranks, st.rank_key, numeric, feature, before_lo, before_hi,
        where_lo, where_hi,
    )  # fmt: skip
