"""The GeCo search loop: initial population, then crossover + mutation + selection until stable.

Score (lower is better): ``dist`` for a counterfactual (``p > threshold``), otherwise
``1 + dist + (1 - p)``, so every counterfactual ranks before every non-counterfactual. The loop
stops when, after ``min_generations``, the top ``k`` are all counterfactuals that were already in
the previous generation's selection, or after ``max_generations``.

All new candidates of a generation are scored in one pass (``score_blocks``), one block per Δ, so
a black-box model is called once per generation and a compiled model once per Δ.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from geco.distance import DistanceSpec
from geco.operators import (
    Context,
    action_cascade,
    crossover,
    initial_population,
    mutation,
    selective_mutation,
)
from geco.population import Block, Candidates, row_hashes, to_blocks

__all__ = ["SearchConfig", "SearchOutcome", "run_search"]


@dataclass(frozen=True)
class SearchConfig:
    """The paper's knobs with its defaults."""

    k: int = 5
    q: int = 100
    m_init: int = 20
    m_mut: int = 5
    min_generations: int = 3
    max_generations: int = 100
    threshold: float = 0.5
    norm_weights: tuple[float, float, float, float] = (0.25, 0.25, 0.25, 0.25)
    representation: str = "delta"
    mutate_top: int | None = None

    def validate(self) -> None:
        for name in ("k", "q", "m_init", "m_mut", "max_generations"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if not isinstance(self.min_generations, (int, np.integer)) or self.min_generations < 0:
            raise ValueError(f"min_generations must be >= 0, got {self.min_generations!r}")
        if self.k > self.q:
            raise ValueError(f"k ({self.k}) must not exceed q ({self.q})")
        if not 0.0 <= self.threshold < 1.0:
            raise ValueError(f"threshold must be in [0, 1), got {self.threshold!r}")
        if self.representation not in ("delta", "full"):
            raise ValueError(f"representation must be 'delta' or 'full', got {self.representation!r}")
        if self.mutate_top is not None and (
            not isinstance(self.mutate_top, (int, np.integer)) or self.mutate_top < 1
        ):
            raise ValueError(f"mutate_top must be None or a positive integer, got {self.mutate_top!r}")


@dataclass
class SearchOutcome:
    """The final population (best first) and what the run cost."""

    rows: np.ndarray  # (n, d) full encoded rows, sorted by score
    changed: np.ndarray  # (n, G)
    prob: np.ndarray
    dist: np.ndarray
    score: np.ndarray
    generations: int
    converged: bool
    candidates_scored: int
    seconds: dict[str, float] = field(default_factory=dict)
    peak_population_bytes: int = 0
    blocks_scored: int = 0


class _Timer:
    """Accumulates seconds per phase: ``with timer("mutation"): ...``."""

    def __init__(self):
        self.seconds: dict[str, float] = defaultdict(float)
        self._name = ""
        self._t0 = 0.0

    def __call__(self, name: str) -> _Timer:
        self._name = name
        return self

    def __enter__(self) -> None:
        self._t0 = time.perf_counter()

    def __exit__(self, *exc) -> None:
        self.seconds[self._name] += time.perf_counter() - self._t0


def _dedupe(new: Candidates, existing_rows: np.ndarray) -> Candidates:
    """Drop new candidates equal to another new one or to a population member."""
    if len(new) == 0:
        return new
    allrows = np.concatenate([existing_rows, new.rows]) if len(existing_rows) else new.rows
    _, first = np.unique(row_hashes(allrows), return_index=True)
    first = first[first >= len(existing_rows)] - len(existing_rows)
    first.sort()
    return new.take(first)


def run_search(
    ctx: Context,
    scorer,
    dist_spec: DistanceSpec,
    config: SearchConfig,
    required_groups: np.ndarray,
) -> SearchOutcome:
    """Run GeCo for one instance; ``scorer`` is bound to ``ctx.x``.

    ``required_groups``: groups whose value in ``x`` breaks a rule of that group, so every
    counterfactual must change them (a candidate that does not is never a counterfactual)."""
    timer = _Timer()
    full = config.representation == "full"
    d, G = len(ctx.x), ctx.n_groups
    score_blocks = getattr(scorer, "score_blocks", None)
    stats = {"scored": 0, "blocks": 0, "peak": 0}
    all_features = np.arange(d)

    def evaluate(blocks: list[Block]) -> None:
        if not blocks:
            return
        with timer("scoring"):
            if full:
                rows = np.concatenate([b.values for b in blocks])
                probs = scorer.score_block(tuple(range(d)), rows)
                bounds = np.cumsum([0] + [len(b) for b in blocks])
                parts = [probs[bounds[i] : bounds[i + 1]] for i in range(len(blocks))]
            elif score_blocks is not None:
                parts = score_blocks([(tuple(b.cols.tolist()), b.values) for b in blocks])
            else:
                parts = [scorer.score_block(tuple(b.cols.tolist()), b.values) for b in blocks]
        with timer("score"):
            for b, p in zip(blocks, parts):
                b.prob = np.asarray(p, dtype=np.float64)
                ok = (b.prob > config.threshold) & bool(np.all(b.groups[required_groups]))
                b.score = np.where(ok, b.dist, 1.0 + b.dist + (1.0 - b.prob))
        stats["scored"] += sum(len(b) for b in blocks)
        stats["blocks"] += len(blocks)

    def select(population: dict[int, Block], new_blocks: list[Block]) -> tuple[dict, bool]:
        with timer("selection"):
            merged: dict[int, Block] = dict(population)
            for b in new_blocks:
                old = merged.get(b.key)
                if old is None:
                    merged[b.key] = b
                else:
                    merged[b.key] = Block(
                        b.key, b.groups, b.cols,
                        np.concatenate([old.values, b.values]),
                        np.concatenate([old.prob, b.prob]),
                        np.concatenate([old.dist, b.dist]),
                        np.concatenate([old.score, b.score]),
                        np.concatenate([old.established, b.established]),
                    )  # fmt: skip
            keys = sorted(merged)
            scores = np.concatenate([merged[key].score for key in keys])
            estab = np.concatenate([merged[key].established for key in keys])
            is_cf = np.concatenate([merged[key].score == merged[key].dist for key in keys])
            owner = np.concatenate([np.full(len(merged[key]), i) for i, key in enumerate(keys)])
            local = np.concatenate([np.arange(len(merged[key])) for key in keys])
            order = np.argsort(scores, kind="stable")
            top = order[: config.q]
            kk = min(config.k, len(top))
            head = top[:kk]
            converged = bool(kk > 0 and np.all(estab[head]) and np.all(is_cf[head]))
            keep = np.zeros(len(scores), dtype=bool)
            keep[top] = True
            out = {}
            for i, key in enumerate(keys):
                sel = local[(owner == i) & keep]
                if len(sel):
                    blk = merged[key].take(np.sort(sel))
                    blk.established = np.ones(len(blk), dtype=bool)
                    out[key] = blk
            stats["peak"] = max(stats["peak"], sum(b.nbytes() for b in merged.values()))
        return out, converged

    def population_rows(population: dict[int, Block]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Full rows, changed groups and distances of the population, in key order."""
        if not population:
            return np.empty((0, d)), np.zeros((0, G), dtype=bool), np.empty(0)
        blocks = [population[k] for k in sorted(population)]
        rows = np.concatenate([b.full_rows(ctx.x) for b in blocks])
        changed = np.concatenate([np.tile(b.groups, (len(b), 1)) for b in blocks])
        dist = np.concatenate([b.dist for b in blocks])
        return rows, changed, dist

    def best_per_delta(population: dict[int, Block], top: int = 1) -> tuple[Candidates, np.ndarray]:
        """The ``top`` best rows of every Δ, and whether each is a counterfactual."""
        rows, changed, is_cf = [], [], []
        for key in sorted(population):
            b = population[key]
            idx = np.argsort(b.score, kind="stable")[:top]
            r = np.tile(ctx.x, (len(idx), 1))
            r[:, b.cols] = b.values[idx]
            rows.append(r)
            changed.append(np.tile(b.groups, (len(idx), 1)))
            is_cf.append(b.score[idx] == b.dist[idx])
        if not rows:
            return Candidates.empty(d, G), np.empty(0, dtype=bool)
        return Candidates(np.concatenate(rows), np.concatenate(changed)), np.concatenate(is_cf)

    def make_blocks(cands: Candidates, population: dict[int, Block]) -> list[Block]:
        with timer("cascade"):
            cands = action_cascade(ctx, cands)
        with timer("dedupe"):
            existing, _, _ = population_rows(population)
            cands = _dedupe(cands, existing)
        with timer("distance"):
            # one vectorised pass over every new candidate; each block keeps its slice
            dist = dist_spec(all_features, cands.rows)
        with timer("blocks"):
            return to_blocks(cands, ctx.group_of_feature, full=full, dist=dist)

    with timer("initial"):
        init = initial_population(ctx, config.m_init)
    blocks = make_blocks(init, {})
    evaluate(blocks)
    population, _ = select({}, blocks)

    generation, converged = 0, False
    while generation < config.min_generations or (
        not converged and generation < config.max_generations
    ):
        parents, parent_is_cf = best_per_delta(population)
        with timer("crossover"):
            children = crossover(ctx, parents)
            moved = selective_mutation(ctx, parents, dist_spec, config.m_mut, parent_is_cf)
        with timer("mutation"):
            if config.mutate_top is None:
                rows, changed, _ = population_rows(population)
                kept = Candidates(rows, changed)
            else:
                kept, _ = best_per_delta(population, config.mutate_top)
            mutants = mutation(ctx, kept, config.m_mut)
        new = Candidates.concat([children, moved, mutants], d, G)
        blocks = make_blocks(new, population)
        evaluate(blocks)
        population, converged = select(population, blocks)
        generation += 1

    keys = sorted(population)
    blocks = [population[k] for k in keys]
    rows, changed, _ = population_rows(population)
    prob = np.concatenate([b.prob for b in blocks]) if blocks else np.empty(0)
    dist = np.concatenate([b.dist for b in blocks]) if blocks else np.empty(0)
    score = np.concatenate([b.score for b in blocks]) if blocks else np.empty(0)
    order = np.argsort(score, kind="stable")
    return SearchOutcome(
        rows=rows[order], changed=changed[order], prob=prob[order], dist=dist[order],
        score=score[order], generations=generation, converged=converged,
        candidates_scored=stats["scored"], seconds=dict(timer.seconds),
        peak_population_bytes=stats["peak"], blocks_scored=stats["blocks"],
    )  # fmt: skip
