"""Groups tied by a cross-group rule move together.

A grounded cross rule that mentions columns of two or more groups (``abs(cf.a - cf.b) <= 0.01``)
holds at ``x`` but breaks as soon as an operator moves one of its groups alone: the initial
population (each group changed alone), mutation and selective mutation then produce nothing but
candidates the rule drops, and only a crossover that happens to pair matching values reaches the
region where both groups moved. :func:`repair_ties` is the cross rules' part of the action
cascade: a candidate breaking a tie gets one of the tie's groups (one it left at ``x``'s value
when there is one, else a random one) redrawn among that group's feasible values that make the
rule hold with the candidate's other values, weighted by frequency as every draw is. A candidate
no value repairs is left as it is (the cascade's check drops it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geco.problem.feasible_space import GroupSpace

__all__ = ["Tie", "repair_ties", "ties_of"]

#: (candidates x values) evaluated per call of a rule while repairing
CHUNK_CELLS = 1 << 20


@dataclass(frozen=True)
class Tie:
    """A cross rule (index ``rule`` among the grounded cross rules) and the groups it mentions."""

    rule: int
    groups: np.ndarray  # (t,) ascending group indices, t >= 2


def ties_of(cross_rules: Sequence, names: Sequence[str], group_of_feature: np.ndarray) -> list[Tie]:
    """The cross rules that tie two or more groups, with those groups."""
    index = {n: j for j, n in enumerate(names)}
    out = []
    for i, rule in enumerate(cross_rules):
        groups = np.unique([group_of_feature[index[f]] for f in getattr(rule, "features", ()) if f in index])
        if len(groups) >= 2:
            out.append(Tie(i, groups.astype(np.intp)))
    return out


def _holding(rule, names: Sequence[str], rows: np.ndarray, space: GroupSpace) -> np.ndarray:
    """(len(rows), len(space)): whether the rule holds on each row with the group of ``space``
    set to each of its values."""
    k = len(space)
    own = {int(f): j for j, f in enumerate(space.features)}
    out = np.empty((len(rows), k), dtype=bool)
    step = max(1, CHUNK_CELLS // max(k, 1))
    for lo in range(0, len(rows), step):
        part = rows[lo : lo + step]
        cols = {}
        for f in rule.features:
            j = names.index(f)
            if j in own:
                cols[f] = np.tile(space.values[:, own[j]], len(part))
            else:
                cols[f] = np.repeat(part[:, j], k)
        out[lo : lo + len(part)] = np.asarray(rule(cols), dtype=bool).reshape(len(part), k)
    return out


def repair_ties(ctx, rows: np.ndarray, changed: np.ndarray, alive: np.ndarray, ties: Sequence[Tie]) -> None:
    """In place: every ``alive`` candidate breaking a tie's rule gets one of the tie's groups
    redrawn (see the module docstring) and marked changed. Ties in order, each once."""
    for tie in ties:
        rule = ctx.cross_rules[tie.rule]
        bad = np.flatnonzero(alive & ~np.asarray(rule(ctx.columns(rows)), dtype=bool))
        if len(bad) == 0:
            continue
        tied = changed[np.ix_(bad, tie.groups)]
        # one of the tie's groups per candidate: a random one still at x's value, else any
        keys = ctx.rng.random(tied.shape) + np.where(tied.all(axis=1, keepdims=True), 0.0, tied * 2.0)
        target = tie.groups[keys.argmin(axis=1)]
        for g in np.unique(target):
            space = ctx.spaces[g]
            if len(space) == 0:
                continue
            who = bad[target == g]
            weights = _holding(rule, ctx.names, rows[who], space) * np.asarray(space.weights)[None, :]
            cum = np.cumsum(weights, axis=1)
            total = cum[:, -1]
            can = total > 0
            u = ctx.rng.random(int(can.sum())) * total[can]
            pick = (cum[can] <= u[:, None]).sum(axis=1)
            who = who[can]
            rows[np.ix_(who, space.features)] = space.values[pick]
            changed[who, g] = True
