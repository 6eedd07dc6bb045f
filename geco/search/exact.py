"""Exact mode: branch and bound over the active domain to the closest counterfactual.

An allowed row changes a set S of groups (every required group among them), each to one of its
feasible tuples, and satisfies the whole grounded program. The search walks the sets S best
first by a lower bound on the distance of any row changing S or a superset of it: GeCo's
distance mixes l0, l1, l2 and linf, each a sum (or max) over groups of nonnegative parts, so the
smallest part of every group of S bounds all of them, and adding groups only adds parts.

A node is a set S and the groups it may still add (those after its last one). It is cut when its
bound is not below the best counterfactual found (the incumbent; the heuristic search's best
seeds it), or when the engine's sound upper bound on P(desired) over the box "S's groups at
their feasible tuples, the groups it may add at any allowed tuple, the rest at x" is below the
threshold. Otherwise the rows changing exactly S (unless their own box cannot reach the
threshold) are enumerated in vectorised blocks: the cross product of the groups' tuples, its
distances from per-group parts, only those closer than the incumbent kept, sorted, and scored
by the instance's scorer (compiled per Δ) block by block, closest first; the first block with a
row that reaches the target, satisfies the program and is confirmed by the model's own
probabilities gives S's best. When no node is left the incumbent is the optimum (gap 0); at a
time or node budget it is the best found, with the relative gap to the smallest bound left.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from geco.problem.certificate import allowed_tuples

if TYPE_CHECKING:
    from geco.problem.problem import Problem
    from geco.search.target import Target

__all__ = ["ExactBudget", "ExactResult", "exact_search", "relative_gap"]

#: candidates whose distances are computed at once (memory: a few arrays of this length)
CHUNK = 1 << 18
#: candidates scored per engine call, closest first
SCORE_BLOCK = 4096
#: relative slack on distance comparisons (parts summed in another order round differently)
SLACK = 1e-9


@dataclass(frozen=True)
class ExactBudget:
    """How far exact mode may go: ``seconds`` (None: no limit), ``nodes`` (sets of changed
    groups examined; None: no limit) and ``max_groups`` (only rows changing at most this many
    groups are enumerated; None: any number; a cut set keeps its bound in the gap)."""

    seconds: float | None = None
    nodes: int | None = None
    max_groups: int | None = None

    def __post_init__(self) -> None:
        for name in ("seconds", "nodes", "max_groups"):
            v = getattr(self, name)
            if v is not None and not v > 0:
                raise ValueError(f"ExactBudget.{name} must be positive or None, got {v!r}")


@dataclass
class ExactResult:
    """What exact mode found: ``row`` the closest counterfactual found (None: none) at
    ``distance`` (the search's distance), ``prob`` its model probability, ``floor`` the smallest
    distance bound left open (inf: none left: ``row`` is the optimum, or none exists), ``proven``
    whether nothing is left open, ``improved`` whether ``row`` beats the incumbent given, ``reach`` an upper bound on P(desired) over the allowed rows
    when none was found and nothing is left, ``stop`` why it ended ("optimal", "time", "nodes"),
    ``nodes``/``candidates``/``bound_calls``/``seconds`` what it cost."""

    row: np.ndarray | None
    distance: float
    prob: float
    floor: float
    proven: bool
    reach: float = 0.0
    stop: str = "optimal"
    improved: bool = False
    nodes: int = 0
    candidates: int = 0
    bound_calls: int = 0
    seconds: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)


def relative_gap(distance: float, floor: float) -> float:
    """``(distance - floor) / distance`` clipped to [0, 1]; 0.0 once no bound is left open."""
    if not np.isfinite(floor) or distance <= 0:
        return 0.0
    return float(min(1.0, max(0.0, (distance - floor) / distance)))


class _Parts:
    """Per group and feasible tuple, the parts of GeCo's distance: l0 weight, l1 sum, squared l2
    sum and linf max of its normalised differences from ``x`` (priced by the problem's costs)."""

    def __init__(self, problem: Problem):
        spec = problem.distance
        self.w = spec.weights
        self.n = spec.n
        self.parts: list[np.ndarray] = []  # per group: (K, 4)
        for space in problem.spaces:
            d = (
                spec.per_feature(space.features, space.values)
                if len(space)
                else np.zeros((0, len(space.features)))
            )
            if spec.priced:
                diff, l0 = d[..., 0], d[..., 1].sum(axis=1)
            else:
                diff, l0 = d, np.count_nonzero(d, axis=1).astype(np.float64)
            p = np.empty((len(space), 4))
            p[:, 0] = l0
            p[:, 1] = diff.sum(axis=1)
            p[:, 2] = (diff * diff).sum(axis=1)
            p[:, 3] = diff.max(axis=1) if diff.shape[1] else 0.0
            self.parts.append(p)
        self.least = np.array([p.min(axis=0) if len(p) else np.full(4, np.inf) for p in self.parts])

    def combine(self, total: np.ndarray) -> np.ndarray:
        """Distance from summed parts (..., 4) (the linf part a max, not a sum)."""
        w0, w1, w2, w3 = self.w
        return (
            w0 * total[..., 0] / self.n
            + w1 * total[..., 1] / self.n
            + w2 * np.sqrt(total[..., 2] / self.n)
            + w3 * total[..., 3]
        )

    def within(self, groups: tuple[int, ...], limit: float) -> list[np.ndarray] | None:
        """Per group of ``groups``, the indices of its tuples that can be part of a row closer
        than ``limit`` (the tuple's parts with every other group's least; None: some group has
        none): the cross product shrinks before it is formed."""
        if not np.isfinite(limit):
            return [np.arange(len(self.parts[g])) for g in groups]
        least = self.least[list(groups)]
        out = []
        for i, g in enumerate(groups):
            rest = np.delete(least, i, axis=0)
            total = self.parts[g].copy()
            total[:, :3] += rest[:, :3].sum(axis=0)
            if len(rest):
                np.maximum(total[:, 3], rest[:, 3].max(), out=total[:, 3])
            keep = np.flatnonzero(self.combine(total) < limit)
            if not len(keep):
                return None
            out.append(keep)
        return out

    def floor(self, groups: tuple[int, ...]) -> float:
        """A lower bound on the distance of any row changing (at least) ``groups``."""
        if not groups:
            return 0.0
        least = self.least[list(groups)]
        total = np.r_[least[:, :3].sum(axis=0), least[:, 3].max()]
        return float(self.combine(total))


class _Exact:
    """One run of the branch and bound: the incumbent, the bounds and the walk."""

    def __init__(self, problem: Problem, goal: Target, threshold: float, budget: ExactBudget,
                 incumbent: tuple[np.ndarray, float] | None):  # fmt: skip
        self.problem = problem
        self.goal = goal
        self.threshold = threshold
        self.budget = budget
        self.scorer = problem.scorer  # bound to x: scores Δ blocks
        self.engine = problem.setting.scorer
        self.parts = _Parts(problem)
        self.spaces = problem.spaces
        self.required = tuple(int(g) for g in np.flatnonzero(problem.required))
        self.allowed = allowed_tuples(problem)
        self.best_row: np.ndarray | None = None
        self.best = np.inf
        self.best_prob = float("nan")
        self.reach = 0.0
        self.nodes = self.candidates = self.bound_calls = 0
        self.improved = False
        if incumbent is not None:
            self.best_row, self.best_prob = incumbent[0].copy(), float(incumbent[1])
            self.best = float(problem.distance(np.arange(len(problem.x)), incumbent[0][None])[0])

    # ---------------------------------------------------------------- bounds
    def upper(self, changed: tuple[int, ...], free: tuple[int, ...]) -> float | None:
        """The engine's bound on P(desired) over: ``changed`` groups at their feasible tuples,
        ``free`` groups at any allowed tuple, the others at x (None: no bound)."""
        bound = getattr(self.engine, "upper_bound", None)
        if bound is None or not self.engine.compiled:
            return None
        box: list[np.ndarray | None] = [None] * len(self.problem.x)
        for g in (*changed, *free):
            tuples = self.spaces[g].values if g in changed else self.allowed[g]
            for j, f in enumerate(self.spaces[g].features):
                box[int(f)] = np.unique(tuples[:, j])
        self.bound_calls += 1
        b = bound(self.problem.x, box)
        return None if b is None else float(b)

    # ---------------------------------------------------------------- one set
    def enumerate(self, groups: tuple[int, ...]) -> bool:
        """The rows changing exactly ``groups``: the closest that is a counterfactual, if closer
        than the incumbent, becomes the incumbent (see the module docstring). False when the
        time budget ran out before every row was seen."""
        limit = self.best * (1 + SLACK)
        kept = self.parts.within(groups, limit)
        if kept is None:
            return True
        sizes = np.array([len(k) for k in kept], dtype=np.int64)
        total = int(np.prod(sizes))
        feats = np.concatenate([self.spaces[g].features for g in groups])
        order = np.argsort(feats, kind="stable")
        delta = tuple(int(f) for f in feats[order])
        for start in range(0, total, CHUNK):
            if start and self.deadline is not None and time.perf_counter() >= self.deadline:
                return False
            flat = np.arange(start, min(total, start + CHUNK), dtype=np.int64)
            picks = [k[pick] for k, pick in zip(kept, np.unravel_index(flat, tuple(sizes)))]
            summed = np.zeros((len(flat), 4))
            for g, pick in zip(groups, picks):
                p = self.parts.parts[g][pick]
                summed[:, :3] += p[:, :3]
                np.maximum(summed[:, 3], p[:, 3], out=summed[:, 3])
            dist = self.parts.combine(summed)
            keep = np.flatnonzero(dist < limit)
            if not len(keep):
                continue
            keep = keep[np.argsort(dist[keep], kind="stable")]
            if self._score_sorted(groups, [pk[keep] for pk in picks], delta, order):
                limit = self.best * (1 + SLACK)
        return True

    def _score_sorted(self, groups: tuple[int, ...], picks: list[np.ndarray], delta: tuple[int, ...],
                      order: np.ndarray) -> bool:  # fmt: skip
        """Score the candidates ``picks`` (closest first) block by block until one block has a
        counterfactual; whether the incumbent improved."""
        x = self.problem.x
        n = len(picks[0])
        for start in range(0, n, SCORE_BLOCK):
            sl = slice(start, min(n, start + SCORE_BLOCK))
            cols = np.concatenate(
                [self.spaces[g].values[pk[sl]] for g, pk in zip(groups, picks)], axis=1
            )[:, order]
            self.candidates += len(cols)
            prob = np.asarray(
                self.scorer.score_block(delta, np.ascontiguousarray(cols)), dtype=np.float64
            )
            rows = np.tile(x, (len(cols), 1))
            rows[:, list(delta)] = cols
            hit = self._confirmed(rows, prob)
            if hit is not None:
                dist = float(self.problem.distance(np.arange(len(x)), rows[hit][None])[0])
                if dist < self.best:
                    self.best, self.best_row, self.best_prob = (
                        dist,
                        rows[hit],
                        float(self._model_prob),
                    )
                    self.improved = True
                    return True
                return False
        return False

    def _confirmed(self, rows: np.ndarray, prob: np.ndarray) -> int | None:
        """The first row that meets the target by the model's own numbers and satisfies the
        program (None: none); tracks the highest probability of the allowed rows that do not."""
        meets = self.goal.meets(prob)
        exact = self.engine.exact
        if not exact:
            err = np.asarray(self.engine.error_bound(rows), dtype=np.float64)
            unsure = ~(self.goal.edge_distance(prob) > err)
        else:
            err, unsure = np.zeros(len(rows)), np.zeros(len(rows), dtype=bool)
        candidates = np.flatnonzero(meets | unsure)
        below = np.ones(len(rows), dtype=bool)
        below[candidates] = False
        if below.any():
            self.reach = max(self.reach, float(np.max(prob[below] + err[below])))
        if not len(candidates):
            return None
        ok = self.problem.satisfies(rows[candidates])
        candidates = candidates[ok]
        if not len(candidates):
            return None
        model = self.problem.model_proba(rows[candidates]) if not exact else prob[candidates]
        good = self.goal.meets(model)
        if (~good).any():
            self.reach = max(self.reach, float(np.max(model[~good])) + 1e-12)
        if not good.any():
            return None
        first = int(np.argmax(good))
        self._model_prob = float(model[first])
        return int(candidates[first])

    # ---------------------------------------------------------------- the walk
    def run(self, t_start: float) -> ExactResult:
        seconds = self.budget.seconds
        self.deadline = None if seconds is None else t_start + seconds
        G = len(self.spaces)
        optional = [g for g in range(G) if g not in self.required and len(self.spaces[g])]
        if any(len(self.spaces[g]) == 0 for g in self.required):
            return self._result(np.inf, "optimal", t_start)  # a required group with nowhere to go
        root = self.required
        if not root:
            self.reach = max(self.reach, float(self.problem.probability))  # x itself is allowed
        # (floor, tie, groups, index into optional of the first group it may add)
        heap: list[tuple[float, int, tuple[int, ...], int]] = [(self.parts.floor(root), 0, root, 0)]
        tie = 1
        cut_floor = np.inf  # smallest floor of sets cut by max_groups
        stop = "optimal"
        limit_groups = self.budget.max_groups
        while heap:
            floor, _, groups, nxt = heap[0]
            if floor * (1 + SLACK) >= self.best:
                break
            if self.budget.nodes is not None and self.nodes >= self.budget.nodes:
                stop = "nodes"
                break
            if (
                self.budget.seconds is not None
                and time.perf_counter() - t_start >= self.budget.seconds
            ):
                stop = "time"
                break
            heapq.heappop(heap)
            self.nodes += 1
            free = tuple(optional[nxt:])
            if limit_groups is not None and len(groups) >= limit_groups:
                free = ()
            sub = self.upper(groups, free)
            if sub is not None and sub < self.threshold:
                self.reach = max(self.reach, sub)
                continue  # nothing in this subtree reaches the threshold
            if groups:
                alone = self.upper(groups, ()) if free else sub
                if alone is not None and alone < self.threshold:
                    self.reach = max(self.reach, alone)
                elif not self.enumerate(groups):  # out of time within this set: it stays open
                    heapq.heappush(heap, (floor, -1, groups, len(optional)))
                    stop = "time"
                    break
            for i in range(nxt, len(optional)):
                child = tuple(sorted((*groups, optional[i])))
                f = self.parts.floor(child)
                if f * (1 + SLACK) >= self.best:
                    continue
                if limit_groups is not None and len(child) > limit_groups:
                    cut_floor = min(cut_floor, f)
                    continue
                heapq.heappush(heap, (f, tie, child, i + 1))
                tie += 1
        left = heap[0][0] if heap and stop != "optimal" else np.inf
        left = min(left, cut_floor)
        if left * (1 + SLACK) >= self.best:
            left = np.inf
        return self._result(left, stop, t_start)

    def _result(self, left: float, stop: str, t_start: float) -> ExactResult:
        return ExactResult(
            self.best_row, self.best, self.best_prob, left, not np.isfinite(left), self.reach, stop,
            self.improved, self.nodes, self.candidates, self.bound_calls, time.perf_counter() - t_start,
        )  # fmt: skip


def exact_search(problem: Problem, goal: Target, threshold: float, budget: ExactBudget | None = None,
                 incumbent: tuple[np.ndarray, float] | None = None) -> ExactResult:  # fmt: skip
    """Branch and bound to the closest counterfactual of ``problem`` (see the module
    docstring). ``incumbent``: a counterfactual already known (an encoded full row that
    satisfies the program, and its model probability), the search's best."""
    t_start = time.perf_counter()
    return _Exact(problem, goal, threshold, budget or ExactBudget(), incumbent).run(t_start)
