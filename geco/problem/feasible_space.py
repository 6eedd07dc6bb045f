"""Where GeCo may move each feature group: the value tuples observed in the data.

A candidate takes, for every group it changes, a tuple of values that occurs together in the data
(its *active domain*), sampled in proportion to its frequency. The domains depend only on the data
and the groups, so an Explainer computes them once (:func:`group_domains`); per instance ``x`` the
tuple equal to ``x`` is removed and the grounded rules of the group filter the rest
(:func:`feasible_space`). :func:`project` moves whole data rows onto that space, group by group.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from geco.problem.distance import DistanceSpec
from geco.problem.hashing import row_hashes
from plaf_grammar.table import EncodedTable, as_table

__all__ = [
    "GroupDomain", "GroupSpace", "SingleDomains", "SpaceMemo", "feasible_space", "group_domains", "implication_spaces",
    "project", "restrict", "spaces_of_singles",
]  # fmt: skip


@dataclass(frozen=True)
class GroupDomain:
    """Distinct value tuples of one group over the data, with their frequencies."""

    index: int
    names: tuple[str, ...]
    features: np.ndarray  # feature indices (sorted ascending)
    values: np.ndarray  # (K, len(features)) encoded
    counts: np.ndarray  # (K,) float64


@dataclass(frozen=True)
class GroupSpace:
    """A group's feasible values for one instance, sorted by their distance to ``x``."""

    index: int
    names: tuple[str, ...]
    features: np.ndarray
    values: np.ndarray  # (K, f)
    weights: np.ndarray  # (K,)
    cumulative: np.ndarray  # (K,) cumulative weights
    distance: np.ndarray  # (K,) distance of "x with only this group changed", ascending
    #: every tuple of the group's domain but x's own is feasible (no rule removed any)
    whole_domain: bool = False
    #: (K,) each value's row in the group's domain (``GroupDomain.values``); None: not known
    domain_index: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.values)

    def columns(self) -> dict[str, np.ndarray]:
        return {n: self.values[:, j] for j, n in enumerate(self.names)}


def group_domains(
    groups: Sequence[tuple[str, ...]], names: Sequence[str], data: EncodedTable | np.ndarray
) -> list[GroupDomain]:
    """Group-by-count of every group's columns over the (encoded) data: the distinct value
    tuples in lexicographic order (as ``np.unique(..., axis=0)`` gives them, which seeded
    sampling depends on) with their counts. One pass per column, never a sort of whole rows:
    a multi-column group combines its columns' ranks into one integer key."""
    data = as_table(data)
    index = {n: i for i, n in enumerate(names)}
    out = []
    for gi, group in enumerate(groups):
        order = sorted(group, key=index.__getitem__)
        feats = np.array([index[n] for n in order], dtype=np.intp)
        values, counts = _distinct_tuples(data, feats)
        out.append(GroupDomain(gi, tuple(order), feats, values, counts.astype(np.float64)))
    return out


#: a combined key stays below this bound; beyond, it is re-ranked before the next column joins
_KEY_LIMIT = 1 << 62


def _distinct_values(col: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of one column (ascending) and their counts; category codes (an integer
    column) are counted with ``bincount`` instead of a sort."""
    if col.dtype.kind == "i" and len(col) and col.min() >= 0:
        counts = np.bincount(col)
        values = np.flatnonzero(counts)
        return values, counts[values]
    return np.unique(col, return_counts=True)


def _distinct_tuples(data: EncodedTable, feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``data[:, feats]`` (lexicographic order, float64) and their counts, by
    ranking each column alone and counting one int64 key per row (ranks combined in mixed radix
    keep the lexicographic order)."""
    if len(feats) == 1:
        values, counts = _distinct_values(data.column(feats[0]))
        return values.astype(np.float64)[:, None], counts
    key, card = np.zeros(len(data), dtype=np.int64), 1
    for f in feats:
        col = data.column(f)
        u = _distinct_values(col)[0]
        if card * len(u) >= _KEY_LIMIT:  # re-rank the key so far (order kept)
            _, key = np.unique(key, return_inverse=True)
            key, card = key.reshape(-1).astype(np.int64), int(key.max()) + 1
        key = key * len(u) + np.searchsorted(u, col)
        card *= len(u)
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    return data.take(first)[:, feats], counts


def _space(domain: GroupDomain, keep: np.ndarray, dist_spec: DistanceSpec, whole_domain: bool) -> GroupSpace:
    """The domain's tuples where ``keep`` holds, sorted by distance (ties in domain order)."""
    rows = np.flatnonzero(keep)
    dist = dist_spec(domain.features, domain.values[rows])
    order = np.argsort(dist, kind="stable")
    rows, dist = rows[order], dist[order]
    weights = domain.counts[rows]
    return GroupSpace(
        domain.index, domain.names, domain.features, domain.values[rows], weights, np.cumsum(weights),
        dist, whole_domain, rows,
    )  # fmt: skip


@dataclass(frozen=True)
class SingleDomains:
    """The domains of the one-feature groups laid end to end (built once per Explainer), so
    that an instance's feasible spaces of all of them are a few passes over one flat array
    instead of a dozen array operations per group."""

    groups: np.ndarray  # (S,) the one-feature groups' indices
    starts: np.ndarray  # (S + 1,) where each one's values start in the flat arrays
    feature: np.ndarray  # (T,) each value's feature
    values: np.ndarray  # (T,) the domains' values, a group's ascending
    counts: np.ndarray  # (T,)

    @classmethod
    def of(cls, domains: Sequence[GroupDomain]) -> SingleDomains:
        single = [dom for dom in domains if len(dom.features) == 1]
        sizes = [len(dom.values) for dom in single]
        return cls(
            np.array([dom.index for dom in single], dtype=np.intp),
            np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp),
            np.repeat(np.array([dom.features[0] for dom in single], dtype=np.intp), sizes),
            np.concatenate([dom.values[:, 0] for dom in single]) if single else np.zeros(0),
            np.concatenate([dom.counts for dom in single]) if single else np.zeros(0),
        )  # fmt: skip


def _one_feature_distances(dist_spec: DistanceSpec, features: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per value, the distance of x with only its feature set to it: what ``dist_spec`` gives
    for the one-column block of that feature (the same operations, value by value)."""
    d = dist_spec.per_feature(features, values)
    w0, w1, w2, w3 = dist_spec.weights
    n = dist_spec.n
    out = np.zeros(len(values))
    if dist_spec.priced:
        d, l0 = d[..., 0], d[..., 1]
        if w0:
            out += w0 * l0 / n
    elif w0:
        out += w0 * (d != 0) / n
    if w1:
        out += w1 * d / n
    if w2:
        out += w2 * np.sqrt(d * d / n)
    if w3:
        out += w3 * d
    return out


class SpaceMemo:
    """Feasible spaces computed before, per group: a group's space depends on ``x``'s tuple of
    the group, the group's grounded filter and the distance alone, so an instance sharing them
    with an earlier one (explaining rows of one table: the same codes and counts again) takes
    the same space. The filter is known by the identity of its predicates (grounded once per
    rule and ``x`` values by :class:`plaf_grammar.GroundingMemo`), held here so that no other
    object can take their identities; the spaces' arrays are made read-only. Bounded by the
    bytes of the spaces held (a wide table's groups hold thousands of values each, and every
    distinct ``x`` value of a group is a space): emptied when the next space would pass
    ``max_bytes``; a space of more than a sixteenth of it is not kept."""

    def __init__(self, max_bytes: int = 32 << 20) -> None:
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._spaces: dict[tuple, tuple[tuple, GroupSpace]] = {}

    @staticmethod
    def _parts(flt: Callable | None) -> tuple:
        return () if flt is None else tuple(getattr(flt, "parts", None) or (flt,))

    def get(self, key: tuple, flt: Callable | None) -> GroupSpace | None:
        """The space stored under ``key`` (the caller's: group, x's tuple, distance) for the
        filter ``flt``, None if there is none."""
        parts = self._parts(flt)
        hit = self._spaces.get((key, tuple(map(id, parts))))
        if hit is None:
            return None
        return hit[1] if all(a is b for a, b in zip(hit[0], parts)) else None

    def put(self, key: tuple, flt: Callable | None, space: GroupSpace) -> None:
        """Store ``space`` under ``key`` and the filter ``flt`` (its arrays made read-only)."""
        arrays = [a for a in (space.values, space.weights, space.cumulative, space.distance, space.domain_index)
                  if a is not None]  # fmt: skip
        size = sum(a.nbytes for a in arrays)
        if 16 * size > self.max_bytes:
            return
        if self.nbytes + size > self.max_bytes:
            self._spaces.clear()
            self.nbytes = 0
        for a in arrays:
            a.flags.writeable = False
        parts = self._parts(flt)
        self._spaces[(key, tuple(map(id, parts)))] = (parts, space)
        self.nbytes += size


def feasible_space(
    domains: Sequence[GroupDomain],
    x: np.ndarray,
    group_filters: Sequence[Callable[[dict], np.ndarray] | None],
    dist_spec: DistanceSpec,
    singles: SingleDomains | None = None,
    memo: SpaceMemo | None = None,
    memo_key: Hashable = (),
) -> list[GroupSpace]:
    """Per group: its domain minus ``x``'s own tuple, filtered by the group's grounded rules.
    ``singles``: the one-feature groups' domains end to end (:class:`SingleDomains`; built
    here when not given), whose spaces come from one pass over them all. ``memo``: spaces
    computed before (:class:`SpaceMemo`) for the same domains, under ``memo_key`` (what else
    ``dist_spec`` depends on than ``x``: its weights, say)."""
    spaces: list[GroupSpace | None] = [None] * len(domains)
    keys: list[tuple] = []
    if memo is not None:
        for dom in domains:
            keys.append((memo_key, dom.index, x[dom.features].tobytes()))
            spaces[dom.index] = memo.get(keys[-1], group_filters[dom.index])
    todo = np.array([space is None for space in spaces], dtype=bool)
    singles = SingleDomains.of(domains) if singles is None else singles
    if len(singles.groups) and todo[singles.groups].any():
        spaces_of_singles(spaces, domains, singles, x, group_filters, dist_spec, todo)
    for dom in domains:
        if spaces[dom.index] is not None:
            continue
        differs = np.any(dom.values != x[dom.features], axis=1)
        keep = differs
        flt = group_filters[dom.index]
        if flt is not None and keep.any():
            cols = {n: dom.values[:, j] for j, n in enumerate(dom.names)}
            keep = differs & np.asarray(flt(cols), dtype=bool)
        whole = keep is differs or bool(np.array_equal(keep, differs))
        spaces[dom.index] = _space(dom, keep, dist_spec, whole)
    if memo is not None:
        for g in np.flatnonzero(todo).tolist():
            memo.put(keys[g], group_filters[g], spaces[g])
    return spaces


def spaces_of_singles(
    spaces: list, domains: Sequence[GroupDomain], singles: SingleDomains, x: np.ndarray,
    group_filters: Sequence[Callable[[dict], np.ndarray] | None], dist_spec: DistanceSpec,
    todo: np.ndarray | None = None,
) -> None:  # fmt: skip
    """Fill ``spaces`` for the one-feature groups (those ``todo`` marks, (G,) bool; default
    all): what :func:`_space` gives for each, from flat passes (differences, distances, one
    stable sort by group then distance)."""
    differs = singles.values != x[singles.feature]
    mine = np.ones(len(singles.groups), dtype=bool) if todo is None else todo[singles.groups]
    if not mine.all():  # the others' values out of every pass
        differs &= np.repeat(mine, np.diff(singles.starts))
    keep = differs.copy()
    whole = np.ones(len(singles.groups), dtype=bool)
    for s, g in enumerate(singles.groups):
        flt = group_filters[g]
        lo, hi = singles.starts[s], singles.starts[s + 1]
        if mine[s] and flt is not None and keep[lo:hi].any():
            keep[lo:hi] &= np.asarray(flt({domains[g].names[0]: singles.values[lo:hi]}), dtype=bool)
            whole[s] = bool(np.array_equal(keep[lo:hi], differs[lo:hi]))
    at = np.flatnonzero(keep)
    dist = _one_feature_distances(dist_spec, singles.feature[at], singles.values[at])
    owner = np.searchsorted(singles.starts, at, side="right") - 1  # ascending, as ``at`` is
    bounds = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=len(singles.groups)))])
    # by group, then distance, ties in domain order: a stable sort of each group's run (a
    # numeric domain in order is two runs of distances, which the stable sort merges in one
    # pass; one lexsort over every group measured twice the time)
    order = np.arange(len(at))
    for s in np.flatnonzero(np.diff(bounds) > 1).tolist():
        lo, hi = bounds[s], bounds[s + 1]
        order[lo:hi] = lo + np.argsort(dist[lo:hi], kind="stable")
    at, dist = at[order], dist[order]
    for s, g in enumerate(singles.groups):
        if not mine[s]:
            continue
        lo, hi = bounds[s], bounds[s + 1]
        rows = at[lo:hi]
        dom = domains[g]
        weights = singles.counts[rows]
        spaces[g] = GroupSpace(
            dom.index, dom.names, dom.features, singles.values[rows][:, None], weights, np.cumsum(weights),
            dist[lo:hi], bool(whole[s]), rows - singles.starts[s],
        )  # fmt: skip


def restrict(space: GroupSpace, keep: np.ndarray) -> GroupSpace:
    """The part of a feasible space where ``keep`` holds (order and distances preserved)."""
    w = space.weights[keep]
    rows = None if space.domain_index is None else space.domain_index[keep]
    return GroupSpace(
        space.index, space.names, space.features, space.values[keep], w, np.cumsum(w),
        space.distance[keep], False, rows,
    )  # fmt: skip


def project(
    spaces: Sequence[GroupSpace], x: np.ndarray, rows: np.ndarray, required: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Data rows moved onto the feasible space of ``x``: every group takes the row's own value
    tuple where that tuple is feasible and stays at ``x`` where it is not (or where the row
    agrees with ``x``). A ``required`` group (``x`` breaks one of its rules) takes its feasible
    tuple closest to ``x`` instead of staying. Returns the projected rows and their changed-group
    matrix. ``rows`` come from the data, so their tuples lie in each group's domain: in a space
    that is the ``whole_domain`` a differing tuple is feasible without a lookup (on wide data the
    lookups were most of the seeds' cost)."""
    differs = rows != x
    changed = np.empty((len(rows), len(spaces)), dtype=bool)
    gof = np.empty(rows.shape[1], dtype=np.intp)
    for g, space in enumerate(spaces):
        gof[space.features] = g
        if len(space) == 0:
            changed[:, g] = False
            continue
        feats = space.features
        keep = differs[:, feats[0]] if len(feats) == 1 else differs[:, feats].any(axis=1)
        if not space.whole_domain and keep.any():
            own = rows[:, feats]
            keep = keep & np.isin(row_hashes(own), row_hashes(space.values))
        changed[:, g] = keep
    out = np.where(changed[:, gof], rows, x)  # x wherever a group stays
    for g in np.flatnonzero(required):
        space = spaces[g]
        if len(space):  # x breaks its rules: the closest feasible tuple instead of staying
            out[np.ix_(~changed[:, g], space.features)] = space.values[0]
            changed[:, g] = True
    return out, changed


def implication_spaces(spaces: Sequence[GroupSpace], implications: Sequence) -> list[GroupSpace]:
    """For each implication: its consequence group's feasible values that satisfy it."""
    out = []
    for imp in implications:
        space = spaces[imp.group]
        if len(space):
            keep = np.asarray(imp.consequence(space.columns()), dtype=bool)
        else:
            keep = np.zeros(0, dtype=bool)
        out.append(restrict(space, keep))
    return out
