"""The GeCo search loop: initial population, then crossover + mutation + selection until stable.

Score (lower is better): ``dist`` for a counterfactual (``p > threshold``), otherwise
``1 + dist + (1 - p)``, so every counterfactual ranks before every non-counterfactual.

The initial population is the paper's (``m_init`` samples of every group changed alone) plus
*seeds*: the rows of the data the model scores as desired that are nearest to ``x`` once
projected onto the feasible space (see :func:`geco.feasible_space.project`). A seed that is still
a counterfactual proves one exists from the first generation; walk-back, selective mutation and
crossover then move it towards ``x``. Without seeds the paper's operators, which grow a change
by one group per generation, rarely reach a desired region that needs many features to move
together.

The loop stops

* when, after ``min_generations``, the top ``k`` are all counterfactuals that were already in the
  previous generation's selection (the paper's rule), or
* on stagnation: ``patience`` generations without improvement of the best score (no
  counterfactual yet) or of the top ``k`` scores. Without a counterfactual it first restarts
  (up to twice): the next seeds, a fresh initial population, and mutants that change twice as many
  groups at once; or
* after ``max_generations``.

Besides the population (the ``q`` best) the loop keeps an archive of the best counterfactual of
every Δ it has seen, from which distinct options are picked (:mod:`geco.diversity`).

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
    grow,
    initial_population,
    mutation,
    selective_mutation,
    walk_back,
)
from geco.population import Block, Candidates, row_hashes, to_blocks
from geco.trade import trade

__all__ = ["MERGE_BELOW", "SearchConfig", "SearchOutcome", "run_search", "score_merged"]


#: restarts (fresh seeds and samples) before a search without counterfactual gives up
MAX_RESTARTS = 2
#: mutation (selective mutation) tries at most this many unchanged (changed) groups per parent
#: and generation, random ones
MUTATION_BREADTH = 8
#: crossover pairs the best rows of at most this many Δ (the best ones): a child per pair, and
#: nearly every child is a Δ of its own
CROSSOVER_PARENTS = 32
#: with an exact compiled scorer, the Δ blocks of a generation smaller than this many rows are
#: scored together as one block of full rows when there are at least MERGE_MIN_BLOCKS of them: a
#: tiny block costs the engine far more per row in per-Δ bookkeeping than walking the whole
#: forest does once there are hundreds (wide data); with a few dozen (Adult, Credit) the per-Δ
#: tiers are cheaper than the whole forest (RF-500 on Adult: 1.5x slower when merged)
MERGE_BELOW = 32
MERGE_MIN_BLOCKS = 128

#: polishing, once the search has stopped with a counterfactual: trade children (geco.trade)
#: and selective mutation of the best TRADE_PARENTS counterfactuals, TRADE_CHILDREN trades each,
#: until POLISH_PATIENCE rounds in a row improve no option (at most POLISH_ROUNDS)
TRADE_CHILDREN = 128
TRADE_PARENTS = 8
POLISH_PATIENCE = 1
POLISH_ROUNDS = 30


@dataclass(frozen=True)
class SearchConfig:
    """The paper's knobs with its defaults, plus ``seeds``, ``patience`` and ``diversity``
    (documented on :class:`geco.Explainer`)."""

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
    seeds: int = 10
    patience: int = 5
    diversity: float = 0.1

    def validate(self) -> None:
        for name in ("k", "q", "m_init", "m_mut", "max_generations", "patience"):
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
        if not isinstance(self.seeds, (int, np.integer)) or self.seeds < 0:
            raise ValueError(f"seeds must be >= 0, got {self.seeds!r}")
        if not isinstance(self.diversity, (int, float, np.number)) or not 0.0 <= self.diversity <= 1.0:
            raise ValueError(f"diversity must be in [0, 1], got {self.diversity!r}")


@dataclass
class SearchOutcome:
    """The final population and the archive of the best counterfactual per Δ (best first, no
    duplicates), how the run ended and what it cost.

    ``stop``: "converged" (the paper's rule), "stagnated", "max_generations" or "no_candidates"
    (no candidate survived the rules). ``best_prob``: the highest probability any scored
    candidate reached (engine's numbers)."""

    rows: np.ndarray  # (n, d) full encoded rows, sorted by score
    changed: np.ndarray  # (n, G)
    prob: np.ndarray
    dist: np.ndarray
    score: np.ndarray
    generations: int
    converged: bool
    candidates_scored: int
    stop: str = "converged"
    restarts: int = 0
    seeds_used: int = 0
    best_prob: float = 0.0
    seconds: dict[str, float] = field(default_factory=dict)
    peak_population_bytes: int = 0
    blocks_scored: int = 0
    polish_rounds: int = 0


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


def score_merged(
    scorer, blocks: list[Block], x: np.ndarray, merge_below: int, min_blocks: int = MERGE_MIN_BLOCKS
) -> list[np.ndarray]:
    """P(desired) of every block's rows, in one ``score_blocks`` call; blocks smaller than
    ``merge_below`` rows travel as one block of full rows (all features as Δ) when there are at
    least ``min_blocks`` of them. Only for a
    scorer whose numbers do not depend on the Δ a row is scored under (``exact``)."""
    small = [i for i, b in enumerate(blocks) if len(b) < merge_below]
    if len(small) < max(2, min_blocks):
        return scorer.score_blocks([(tuple(b.cols.tolist()), b.values) for b in blocks])
    is_small = np.zeros(len(blocks), dtype=bool)
    is_small[small] = True
    sizes = np.array([len(blocks[i]) for i in small])
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    rows = np.empty((int(bounds[-1]), len(x)))
    rows[:] = x
    for k, i in enumerate(small):
        rows[bounds[k] : bounds[k + 1], blocks[i].cols] = blocks[i].values
    big = np.flatnonzero(~is_small)
    parts = scorer.score_blocks(
        [(tuple(blocks[i].cols.tolist()), blocks[i].values) for i in big]
        + [(tuple(range(len(x))), rows)]
    )
    out: list[np.ndarray] = [np.empty(0)] * len(blocks)
    for k, i in enumerate(big):
        out[i] = parts[k]
    merged = np.asarray(parts[-1])
    for k, i in enumerate(small):
        out[i] = merged[bounds[k] : bounds[k + 1]]
    return out


def run_search(
    ctx: Context,
    scorer,
    dist_spec: DistanceSpec,
    config: SearchConfig,
    required_groups: np.ndarray,
    seeds: Candidates | None = None,
    merge_below: int = 0,
) -> SearchOutcome:
    """Run GeCo for one instance; ``scorer`` is bound to ``ctx.x``.

    ``required_groups``: groups whose value in ``x`` breaks a rule of that group, so every
    counterfactual must change them (a candidate that does not is never a counterfactual).
    ``seeds``: candidates built from data rows of the desired class, nearest first; the first
    ``config.seeds`` join the initial population, later ones each restart. ``merge_below``:
    see :func:`score_merged` (0: every block is scored under its own Δ)."""
    timer = _Timer()
    full = config.representation == "full"
    d, G = len(ctx.x), ctx.n_groups
    stats = {"scored": 0, "blocks": 0, "peak": 0, "best_prob": 0.0, "seeds": 0}
    all_features = np.arange(d)
    archive: dict[int, tuple[np.ndarray, float, float, float, np.ndarray]] = {}
    seed_pool = seeds if seeds is not None else Candidates.empty(d, G)

    def next_seeds() -> Candidates:
        start = stats["seeds"]
        stop = min(len(seed_pool), start + config.seeds)
        stats["seeds"] = stop
        return seed_pool.take(np.arange(start, stop))

    def evaluate(blocks: list[Block]) -> None:
        if not blocks:
            return
        with timer("scoring"):
            if full:
                rows = np.concatenate([b.values for b in blocks])
                probs = scorer.score_block(tuple(range(d)), rows)
                bounds = np.cumsum([0] + [len(b) for b in blocks])
                parts = [probs[bounds[i] : bounds[i + 1]] for i in range(len(blocks))]
            else:
                parts = score_merged(scorer, blocks, ctx.x, merge_below)
        with timer("score"):
            sizes = np.array([len(b) for b in blocks])
            bounds = np.concatenate([[0], np.cumsum(sizes)])
            prob = np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])
            dist = np.concatenate([b.dist for b in blocks])
            may = np.repeat(np.array([b.groups for b in blocks])[:, required_groups].all(axis=1), sizes)
            ok = may & (prob > config.threshold)
            score = np.where(ok, dist, 1.0 + dist + (1.0 - prob))
            for i, b in enumerate(blocks):
                b.prob, b.score = prob[bounds[i] : bounds[i + 1]], score[bounds[i] : bounds[i + 1]]
            if len(prob):
                stats["best_prob"] = max(stats["best_prob"], float(prob.max()))
            if ok.any():  # the archive: best counterfactual of every Δ seen
                cf_score = np.where(ok, score, np.inf)
                owner = np.repeat(np.arange(len(blocks)), sizes)
                order = np.lexsort((cf_score, owner))
                first = order[np.searchsorted(owner[order], np.arange(len(blocks)))]
                for i in np.flatnonzero(np.isfinite(cf_score[first])):
                    b, j = blocks[i], int(first[i] - bounds[i])
                    old = archive.get(b.key)
                    if old is None or b.score[j] < old[3]:
                        row = ctx.x.copy()
                        row[b.cols] = b.values[j]
                        archive[b.key] = (row, float(b.prob[j]), float(b.dist[j]), float(b.score[j]), b.groups)
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
            if not merged:
                return {}, False
            keys = sorted(merged)
            sizes = np.array([len(merged[key]) for key in keys])
            scores = np.concatenate([merged[key].score for key in keys])
            estab = np.concatenate([merged[key].established for key in keys])
            is_cf = np.concatenate([merged[key].score == merged[key].dist for key in keys])
            owner = np.repeat(np.arange(len(keys)), sizes)
            order = np.argsort(scores, kind="stable")
            top = order[: config.q]
            kk = min(config.k, len(top))
            head = top[:kk]
            converged = bool(kk > 0 and np.all(estab[head]) and np.all(is_cf[head]))
            keep = np.zeros(len(scores), dtype=bool)
            keep[top] = True
            # the niche: the best counterfactual of each Δ the top q leave out (of the best 2k
            # such Δ), so that other kinds of change survive a population full of variants of one
            rest = order[config.q :]
            if len(rest):
                seen = np.zeros(len(keys), dtype=bool)
                seen[owner[top]] = True
                cf_rest = rest[is_cf[rest]]
                _, first = np.unique(owner[cf_rest], return_index=True)
                best_rest = cf_rest[np.sort(first)]  # in score order
                keep[best_rest[~seen[owner[best_rest]]][: 2 * config.k]] = True
            # the niche: the best row of each Δ the top q leave out (of the best q/4 such Δ), so
            # that other kinds of change survive a population full of variants of one
            rest = order[config.q :]
            if len(rest):
                seen = np.zeros(len(keys), dtype=bool)
                seen[owner[top]] = True
                _, first = np.unique(owner[rest], return_index=True)
                best_rest = rest[np.sort(first)]  # in score order
                keep[best_rest[~seen[owner[best_rest]]][: config.q // 4]] = True
            bounds = np.concatenate([[0], np.cumsum(sizes)])
            kept_per_block = np.add.reduceat(keep, bounds[:-1]) if len(keys) else np.zeros(0, int)
            out = {}
            for i in np.flatnonzero(kept_per_block):
                key = keys[i]
                sel = np.flatnonzero(keep[bounds[i] : bounds[i + 1]])
                blk = merged[key] if len(sel) == sizes[i] else merged[key].take(sel)
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

    def top_scores(population: dict[int, Block]) -> np.ndarray:
        if not population:
            return np.full(config.k, np.inf)
        scores = np.sort(np.concatenate([b.score for b in population.values()]))[: config.k]
        return np.pad(scores, (0, config.k - len(scores)), constant_values=np.inf)

    def options(count: int) -> tuple[np.ndarray, list[int]]:
        """The best ``count`` archived counterfactuals whose changed groups do not include those
        of a better one (distinct kinds of change): their scores (padded with inf) and Δ keys."""
        out, keys = np.full(count, np.inf), []
        if not archive:
            return out, keys
        all_keys = list(archive)
        scores = np.array([archive[key][3] for key in all_keys])
        masks = np.array([archive[key][4] for key in all_keys])
        alive = np.ones(len(scores), dtype=bool)
        for i in range(count):
            left = np.flatnonzero(alive)
            if len(left) == 0:
                break
            j = left[np.argmin(scores[left])]
            out[i] = scores[j]
            keys.append(all_keys[j])
            alive &= ~np.all(masks | ~masks[j], axis=1)  # drop supersets of the pick (and it)
        return out, keys

    def keep_options(population: dict[int, Block], keys: list[int]) -> None:
        """Put the distinct options back into a population that lost them (a niche): variants
        of one change can fill all q places and end the search for other kinds of change."""
        for key in keys:
            if key not in population:
                row, prob, dist, score, groups = archive[key]
                cols = np.arange(d) if full else np.flatnonzero(groups[ctx.group_of_feature])
                population[key] = Block(
                    key, groups, cols, row[cols][None], np.array([prob]), np.array([dist]),
                    np.array([score]), np.ones(1, dtype=bool),
                )  # fmt: skip

    def add(population: dict[int, Block], cands: Candidates) -> dict[int, Block]:
        blocks = make_blocks(cands, population)
        evaluate(blocks)
        return select(population, blocks)[0]

    with timer("initial"):
        init = Candidates.concat([initial_population(ctx, config.m_init), next_seeds()], d, G)
    population = add({}, init)

    generation, converged, stop = 0, False, "max_generations"
    restarts, growth, stalled = 0, 1, 0
    best, best_options = top_scores(population), options(config.k)[0]
    if not population:
        stop = "no_candidates"
    while population and generation < max(config.min_generations, config.max_generations):
        parents, parent_is_cf = best_per_delta(population)
        with timer("crossover"):
            best_scores = np.array([population[key].score.min() for key in sorted(population)])
            best_first = np.argsort(best_scores, kind="stable")[:CROSSOVER_PARENTS]
            children = crossover(ctx, parents.take(np.sort(best_first)))
            moved = selective_mutation(ctx, parents, dist_spec, config.m_mut, parent_is_cf, MUTATION_BREADTH)
            back = walk_back(ctx, parents.take(np.flatnonzero(parent_is_cf)))
        with timer("mutation"):
            if config.mutate_top is None:
                # every row short of the desired class; of the counterfactuals only the best of
                # each Δ (an added change makes a counterfactual farther, so near-copies of one
                # add nothing but cost)
                rows, changed, _ = population_rows(population)
                is_cf = np.concatenate([population[key].score == population[key].dist for key in sorted(population)])
                short = Candidates(rows[~is_cf], changed[~is_cf])
                kept = Candidates.concat([short, parents.take(np.flatnonzero(parent_is_cf))], d, G)
            else:
                kept, _ = best_per_delta(population, config.mutate_top)
            mutants = mutation(ctx, kept, config.m_mut, MUTATION_BREADTH)
            grown = grow(ctx, kept, growth) if growth > 1 else Candidates.empty(d, G)
        new = Candidates.concat([children, moved, back, mutants, grown], d, G)
        blocks = make_blocks(new, population)
        evaluate(blocks)
        population, converged = select(population, blocks)
        generation += 1
        option_scores, option_keys = options(2 * config.k)
        keep_options(population, option_keys)
        option_scores = option_scores[: config.k]
        if converged and generation >= config.min_generations and np.isfinite(option_scores[-1]):
            stop = "converged"
            break

        now = top_scores(population)
        found = bool(np.isfinite(now[0]) and now[0] < 1.0)
        # improvement: of the best score while nothing is found, else of the distinct options
        improved = now[0] < best[0] if not found else bool(np.any(option_scores < best_options * (1 - 1e-3)))
        best, best_options = np.minimum(best, now), np.minimum(best_options, option_scores)
        stalled = 0 if improved else stalled + 1
        if generation < config.min_generations:
            continue
        if stalled < config.patience:
            continue
        if found or restarts >= MAX_RESTARTS:
            stop = "stagnated"
            break
        restarts, growth, stalled = restarts + 1, growth * 2, 0
        with timer("initial"):
            fresh = Candidates.concat([initial_population(ctx, config.m_init), next_seeds()], d, G)
        population = add(population, fresh)

    polished = 0
    if archive and stop in ("converged", "stagnated"):
        # the genetic search ends at a local optimum of its moves; polishing trades distance
        # between groups (see geco.trade), which the search's own moves cannot, and never makes
        # the result worse (the archive keeps every Δ's best)
        best_options, stalled = options(config.k)[0], 0
        while stalled < POLISH_PATIENCE and polished < POLISH_ROUNDS:
            parents, parent_is_cf = best_per_delta(population)
            best_scores = np.array([population[key].score.min() for key in sorted(population)])
            by_score = np.argsort(best_scores, kind="stable")
            best_cf = parents.take(by_score[parent_is_cf[by_score]][:TRADE_PARENTS])
            with timer("polish"):
                new = Candidates.concat([
                    trade(ctx, best_cf, dist_spec, TRADE_CHILDREN),
                    selective_mutation(ctx, best_cf, dist_spec, config.m_mut, None, MUTATION_BREADTH),
                ], d, G)  # fmt: skip
            population = add(population, new)
            polished += 1
            option_scores, option_keys = options(2 * config.k)
            keep_options(population, option_keys)
            option_scores = option_scores[: config.k]
            improved = bool(np.any(option_scores < best_options * (1 - 1e-3)))
            best_options = np.minimum(best_options, option_scores)
            stalled = 0 if improved else stalled + 1

    keys = sorted(population)
    blocks = [population[k] for k in keys]
    rows, changed, _ = population_rows(population)
    prob = np.concatenate([b.prob for b in blocks]) if blocks else np.empty(0)
    dist = np.concatenate([b.dist for b in blocks]) if blocks else np.empty(0)
    score = np.concatenate([b.score for b in blocks]) if blocks else np.empty(0)
    if archive:  # the archive's best per Δ, where the population lost it
        entries = list(archive.values())
        rows = np.concatenate([rows, np.array([e[0] for e in entries])])
        changed = np.concatenate([changed, np.array([e[4] for e in entries])])
        prob = np.concatenate([prob, [e[1] for e in entries]])
        dist = np.concatenate([dist, [e[2] for e in entries]])
        score = np.concatenate([score, [e[3] for e in entries]])
        _, first = np.unique(row_hashes(rows), return_index=True)
        first.sort()
        rows, changed, prob, dist, score = rows[first], changed[first], prob[first], dist[first], score[first]
    order = np.argsort(score, kind="stable")
    return SearchOutcome(
        rows=rows[order], changed=changed[order], prob=prob[order], dist=dist[order],
        score=score[order], generations=generation, converged=stop == "converged",
        candidates_scored=stats["scored"], stop=stop, restarts=restarts,
        seeds_used=stats["seeds"], best_prob=stats["best_prob"], seconds=dict(timer.seconds),
        peak_population_bytes=stats["peak"], blocks_scored=stats["blocks"], polish_rounds=polished,
    )  # fmt: skip
