"""The GeCo search loop: initial population, then crossover + mutation + selection until stable.

Score (lower is better): ``dist`` for a counterfactual (``p > threshold``), otherwise
``1 + dist + (1 - p)``, so every counterfactual ranks before every non-counterfactual.

The initial population is the paper's (``m_init`` samples of every group changed alone) plus
*seeds*: the rows of the data the model scores as desired that are nearest to ``x`` once
projected onto the feasible space (see :func:`geco.problem.feasible_space.project`). A seed that is still
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
every Δ it has seen, from which distinct options are picked (:mod:`geco.search.diversity`).

All new candidates of a generation are scored in one pass (``score_blocks``), one block per Δ, so
a black-box model is called once per generation and a compiled model once per Δ.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from geco.problem.distance import DistanceSpec
from geco.problem.hashing import cell_hashes
from geco.search.operators import (
    Context,
    action_cascade,
    crossover,
    grow,
    initial_population,
    mutation,
    selective_mutation,
    walk_back,
)
from geco.search.population import (
    Candidates,
    Pool,
    block_starts,
    interleave,
    key_order,
    key_words,
)
from geco.search.trade import step_in, trade

__all__ = ["MERGE_BELOW", "SearchConfig", "SearchOutcome", "run_search", "score_pool"]


#: restarts (fresh seeds and samples) before a search without counterfactual gives up
MAX_RESTARTS = 2
#: mutation (selective mutation) tries at most this many unchanged (changed) groups per parent
#: and generation, random ones
MUTATION_BREADTH = 8
#: crossover pairs the best rows of at most this many Δ (the best ones): a child per pair, and
#: nearly every child is a Δ of its own
CROSSOVER_PARENTS = 32
#: with a compiled scorer, the Δ blocks of a generation smaller than this many rows are scored
#: together as one block of full rows when there are at least MERGE_MIN_BLOCKS of them: a tiny
#: block costs the engine far more per row in per-Δ bookkeeping than walking full rows does (a
#: tree engine walks each from x's binding, only where it differs from x) once there are hundreds
#: (wide data); with a few dozen (Adult, Credit) the per-Δ tiers are cheaper (RF-500 on Adult:
#: 1.5x slower when merged); merging larger blocks measured slower on wide data too
MERGE_BELOW = 32
MERGE_MIN_BLOCKS = 128

#: polishing, once the search has stopped with a counterfactual: trade children (geco.search.trade)
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


class _Archive:
    """The best counterfactual of every Δ seen, in the order the Δ were first archived: rows,
    changed groups (also as key words), row hashes, probability, distance and score in growing
    arrays (one slot per Δ)."""

    def __init__(self, d: int, g: int):
        self.slot: dict = {}
        self.keys: list = []
        self.n = 0
        self.rows, self.changed = np.empty((16, d)), np.zeros((16, g), dtype=bool)
        self.words = key_words(self.changed)
        self.hashes = np.zeros(16, dtype=np.uint64)
        self.prob, self.dist, self.score = np.empty(16), np.empty(16), np.empty(16)

    def __len__(self) -> int:
        return self.n

    def offer(self, keys: list, rows: np.ndarray, changed: np.ndarray, hashes: np.ndarray,
              prob: np.ndarray, dist: np.ndarray, score: np.ndarray) -> None:
        """Keep each row (of distinct Δ ``keys``) that is its Δ's first or beats its best."""
        slots = np.array([self.slot.get(key, -1) for key in keys], dtype=np.intp)
        old = np.flatnonzero(slots >= 0)
        better = old[score[old] < self.score[slots[old]]]
        fresh = np.flatnonzero(slots < 0)
        if len(fresh):
            n = self.n + len(fresh)
            if n > len(self.score):
                size = max(n, 2 * len(self.score))
                for name in ("rows", "changed", "words", "hashes", "prob", "dist", "score"):
                    a = getattr(self, name)
                    b = np.zeros((size, *a.shape[1:]), dtype=a.dtype)
                    b[: self.n] = a[: self.n]
                    setattr(self, name, b)
            slots[fresh] = np.arange(self.n, n)
            for i in fresh.tolist():
                self.slot[keys[i]] = len(self.keys)
                self.keys.append(keys[i])
            self.n = n
        take = np.concatenate([fresh, better])
        at = slots[take]
        self.rows[at], self.changed[at] = rows[take], changed[take]
        self.words[at], self.hashes[at] = key_words(changed[take]), hashes[take]
        self.prob[at], self.dist[at], self.score[at] = prob[take], dist[take], score[take]


def score_pool(
    scorer, pool: Pool, starts: np.ndarray, group_of_feature: np.ndarray, merge_below: int,
    min_blocks: int = MERGE_MIN_BLOCKS,
) -> np.ndarray:
    """P(desired) of every row of ``pool`` (Δ starting at ``starts``), in one ``score_blocks``
    call, one block per Δ on its own columns; the Δ smaller than ``merge_below`` rows travel as
    one block of full rows (all features as Δ), when there are at least ``min_blocks``. With an
    exact scorer the numbers do not depend on the Δ a row is scored under; with an inexact one
    (MLP) they may differ by rounding, within the engine's error bound."""
    sizes = np.diff(np.append(starts, len(pool)))
    small = sizes < merge_below
    merge = int(small.sum()) >= max(2, min_blocks)
    alone = np.flatnonzero(~small) if merge else np.arange(len(starts))
    blocks = []
    for i in alone.tolist():
        lo, hi = int(starts[i]), int(starts[i]) + int(sizes[i])
        cols = np.flatnonzero(pool.changed[lo, group_of_feature])
        blocks.append((tuple(cols.tolist()), pool.rows[lo:hi, cols]))
    if merge:  # the rows hold x outside their Δ: a small Δ's full rows are the pool's own
        in_small = np.repeat(small, sizes)
        rows = pool.rows if len(alone) == 0 else pool.rows[in_small]
        blocks.append((tuple(range(pool.rows.shape[1])), rows))
    parts = scorer.score_blocks(blocks)
    if not merge:
        return np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])
    prob = np.empty(len(pool))
    if len(alone):
        prob[~in_small] = np.concatenate([np.asarray(p, dtype=np.float64) for p in parts[:-1]])
    prob[in_small] = np.asarray(parts[-1], dtype=np.float64)
    return prob


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
    see :func:`score_pool` (0: every block is scored under its own Δ)."""
    timer = _Timer()
    full = config.representation == "full"
    d, G = len(ctx.x), ctx.n_groups
    gof = ctx.group_of_feature
    stats = {"scored": 0, "blocks": 0, "peak": 0, "best_prob": 0.0, "seeds": 0}
    # bytes a row takes in the Δ-representation: its Δ's columns, prob, dist, score, established
    row_cols = None if full else np.bincount(gof, minlength=G)
    archive = _Archive(d, G)
    seed_pool = seeds if seeds is not None else Candidates.empty(d, G)

    def next_seeds() -> Candidates:
        start = stats["seeds"]
        stop = min(len(seed_pool), start + config.seeds)
        stats["seeds"] = stop
        return seed_pool.take(np.arange(start, stop))

    def evaluate(new: Pool) -> None:
        if len(new) == 0:
            return
        starts = new.starts()
        sizes = np.diff(np.append(starts, len(new)))
        with timer("scoring"):
            if full:
                prob = np.asarray(scorer.score_block(tuple(range(d)), new.rows), dtype=np.float64)
            else:
                prob = score_pool(scorer, new, starts, gof, merge_below)
        with timer("score"):
            dist = new.dist
            may = new.changed[:, required_groups].all(axis=1)
            ok = may & (prob > config.threshold)
            score = np.where(ok, dist, 1.0 + dist + (1.0 - prob))
            new.prob, new.score = prob, score
            stats["best_prob"] = max(stats["best_prob"], float(prob.max()))
            if ok.any():  # the archive: best counterfactual of every Δ seen
                cf_score = np.where(ok, score, np.inf)
                owner = np.repeat(np.arange(len(starts)), sizes)
                first = np.lexsort((cf_score, owner))[starts]
                has = np.flatnonzero(np.isfinite(cf_score[first]))
                best = first[has]
                archive.offer(new.block_keys(starts[has]), new.rows[best], new.changed[best], new.hashes[best], prob[best],
                              dist[best], score[best])  # fmt: skip
        stats["scored"] += len(new)
        stats["blocks"] += len(starts)

    def select(population: Pool, new: Pool) -> tuple[Pool, bool]:
        with timer("selection"):
            # decided on the merged keys and scores; only the kept rows are copied
            n = len(population) + len(new)
            if n == 0:
                return Pool.empty(d, G), False
            merged = Pool.merge_order(population, new)
            words = np.concatenate([population.words, new.words])[merged]
            scores = np.concatenate([population.score, new.score])[merged]
            estab = np.concatenate([population.established, new.established])[merged]
            is_cf = scores == np.concatenate([population.dist, new.dist])[merged]
            starts = block_starts(words)
            sizes = np.diff(np.append(starts, n))
            owner = np.repeat(np.arange(len(starts)), sizes)
            order = np.argsort(scores, kind="stable")
            top = order[: config.q]
            kk = min(config.k, len(top))
            head = top[:kk]
            converged = bool(kk > 0 and np.all(estab[head]) and np.all(is_cf[head]))
            keep = np.zeros(n, dtype=bool)
            keep[top] = True
            # the niche: the best counterfactual of each Δ the top q leave out (of the best 2k
            # such Δ), so that other kinds of change survive a population full of variants of one
            rest = order[config.q :]
            if len(rest):
                seen = np.zeros(len(starts), dtype=bool)
                seen[owner[top]] = True
                cf_rest = rest[is_cf[rest]]
                _, first = np.unique(owner[cf_rest], return_index=True)
                best_rest = cf_rest[np.sort(first)]  # in score order
                keep[best_rest[~seen[owner[best_rest]]][: 2 * config.k]] = True
            # the niche: the best row of each Δ the top q leave out (of the best q/4 such Δ), so
            # that other kinds of change survive a population full of variants of one
            rest = order[config.q :]
            if len(rest):
                seen = np.zeros(len(starts), dtype=bool)
                seen[owner[top]] = True
                _, first = np.unique(owner[rest], return_index=True)
                best_rest = rest[np.sort(first)]  # in score order
                keep[best_rest[~seen[owner[best_rest]]][: config.q // 4]] = True
            out = Pool.gather(population, new, merged[keep])
            out.established = np.ones(len(out), dtype=bool)
            if full:
                width = d * n
            else:
                width = int((population.changed @ row_cols).sum() + (new.changed @ row_cols).sum())
            stats["peak"] = max(stats["peak"], 8 * width + 25 * n)
        return out, converged

    def best_per_delta(population: Pool, top: int = 1) -> tuple[Candidates, np.ndarray]:
        """The ``top`` best rows of every Δ, and whether each is a counterfactual."""
        if len(population) == 0:
            return Candidates.empty(d, G), np.empty(0, dtype=bool)
        starts = population.starts()
        sizes = np.diff(np.append(starts, len(population)))
        owner = np.repeat(np.arange(len(starts)), sizes)
        order = np.lexsort((population.score, owner))
        idx = order[np.arange(len(population)) - np.repeat(starts, sizes) < top]
        is_cf = population.score[idx] == population.dist[idx]
        return Candidates(population.rows[idx], population.changed[idx]), is_cf

    def best_scores(population: Pool) -> np.ndarray:
        """The best score of every Δ, in key order."""
        return np.minimum.reduceat(population.score, population.starts())

    def differing_cells(rows: np.ndarray, changed: np.ndarray):
        """Where each row differs from x: its Δ's columns (the rest is x's by construction),
        or every column in the full representation (rows as the operators made them)."""
        return dist_spec.cells(rows, (rows != ctx.x) if full else changed[:, gof])

    def make_pool(cands: Candidates, population: Pool) -> Pool:
        with timer("cascade"):
            cands = action_cascade(ctx, cands)
        with timer("dedupe"):
            # drop candidates equal to an earlier new one or to a population member
            r, c, v, diff = differing_cells(cands.rows, cands.changed)
            n = len(cands)
            hashes = cell_hashes(r, c, v, n)
            n_old = len(population)
            _, first = np.unique(np.concatenate([population.hashes, hashes]), return_index=True)
            first = first[first >= n_old] - n_old
            first.sort()
        with timer("distance"):
            # from the cells where each candidate differs from x: Δ's columns, not all of them
            dist = dist_spec.of_cells(r, diff, n)
        with timer("blocks"):
            words = key_words(cands.changed)
            keep = first[key_order(words[first])]
            # rows hold x outside their changed groups, as the Δ-representation stores them: every
            # operator builds them so (tests/search check each), so no pass restores it here
            rows, changed = cands.rows[keep], cands.changed[keep]
            m = len(keep)
            return Pool(rows, changed, words[keep], hashes[keep], np.empty(m), dist[keep], np.empty(m),
                        np.zeros(m, dtype=bool))  # fmt: skip

    def top_scores(population: Pool) -> np.ndarray:
        if len(population) == 0:
            return np.full(config.k, np.inf)
        scores = np.sort(population.score)[: config.k]
        return np.pad(scores, (0, config.k - len(scores)), constant_values=np.inf)

    def options(count: int) -> tuple[np.ndarray, list[int]]:
        """The best ``count`` archived counterfactuals whose changed groups do not include those
        of a better one (distinct kinds of change): their scores (padded with inf) and Δ keys.
        Greedy in score order (ties: archive order) over the best archived Δ only, widened when
        they run out: the picks are among the best, and the archive grows to thousands of Δ."""
        out, keys = np.full(count, np.inf), []
        if not archive:
            return out, keys
        scores = archive.score[: len(archive)]
        by_score = np.argsort(scores, kind="stable")
        picks: list[int] = []
        start, width = 0, 8 * count
        while len(picks) < count and start < len(by_score):
            cand = by_score[start : start + width]
            start, width = start + width, 4 * width
            words = archive.words[cand]  # changed groups as bit words: w ⊇ p iff w & p == p
            alive = np.ones(len(cand), dtype=bool)
            for p in archive.words[picks]:  # drop supersets of the picks so far (earlier chunks)
                alive &= ~np.all(words & p == p, axis=1)
            while len(picks) < count:
                left = np.flatnonzero(alive)
                if len(left) == 0:
                    break
                j = left[0]  # candidates are in score order
                picks.append(int(cand[j]))
                alive &= ~np.all(words & words[j] == words[j], axis=1)  # supersets of the pick, and it
        for i, j in enumerate(picks):
            out[i] = scores[j]
            keys.append(archive.keys[j])
        return out, keys

    def keep_options(population: Pool, keys: list[int]) -> Pool:
        """Put the distinct options back into a population that lost them (a niche): variants
        of one change can fill all q places and end the search for other kinds of change."""
        present = set(population.block_keys(population.starts()))
        lost = np.array([archive.slot[key] for key in keys if key not in present], dtype=np.intp)
        if len(lost) == 0:
            return population
        rows, changed = archive.rows[lost], archive.changed[lost]
        back = Pool(
            rows, changed, key_words(changed), archive.hashes[lost], archive.prob[lost], archive.dist[lost],
            archive.score[lost], np.ones(len(lost), dtype=bool),
        )  # fmt: skip
        return Pool.merge(population, back.take(key_order(back.words)))

    def add(population: Pool, cands: Candidates) -> Pool:
        new = make_pool(cands, population)
        evaluate(new)
        return select(population, new)[0]

    with timer("initial"):
        init = Candidates.concat([initial_population(ctx, config.m_init), next_seeds()], d, G)
    population = add(Pool.empty(d, G), init)

    generation, converged, stop = 0, False, "max_generations"
    restarts, growth, stalled = 0, 1, 0
    best, best_options = top_scores(population), options(config.k)[0]
    if len(population) == 0:
        stop = "no_candidates"
    while len(population) and generation < max(config.min_generations, config.max_generations):
        parents, parent_is_cf = best_per_delta(population)
        with timer("crossover"):
            best_first = np.argsort(best_scores(population), kind="stable")[:CROSSOVER_PARENTS]
            children = crossover(ctx, parents.take(np.sort(best_first)))
            moved = selective_mutation(ctx, parents, dist_spec, config.m_mut, parent_is_cf, MUTATION_BREADTH)
            back = walk_back(ctx, parents.take(np.flatnonzero(parent_is_cf)))
        with timer("mutation"):
            if config.mutate_top is None:
                # every row short of the desired class; of the counterfactuals only the best of
                # each Δ (an added change makes a counterfactual farther, so near-copies of one
                # add nothing but cost)
                short = population.take(np.flatnonzero(population.score != population.dist))
                short = Candidates(short.rows, short.changed)
                kept = Candidates.concat([short, parents.take(np.flatnonzero(parent_is_cf))], d, G)
            else:
                kept, _ = best_per_delta(population, config.mutate_top)
            mutants = mutation(ctx, kept, config.m_mut, MUTATION_BREADTH)
            grown = grow(ctx, kept, growth) if growth > 1 else Candidates.empty(d, G)
        new = Candidates.concat([children, moved, back, mutants, grown], d, G)
        pool = make_pool(new, population)
        evaluate(pool)
        population, converged = select(population, pool)
        generation += 1
        option_scores, option_keys = options(2 * config.k)
        population = keep_options(population, option_keys)
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
    if len(archive) and stop in ("converged", "stagnated"):
        # the genetic search ends at a local optimum of its moves; polishing trades distance
        # between groups (see geco.search.trade), which the search's own moves cannot, and never makes
        # the result worse (the archive keeps every Δ's best)
        best_options, stalled = options(config.k)[0], 0
        while stalled < POLISH_PATIENCE and polished < POLISH_ROUNDS:
            parents, parent_is_cf = best_per_delta(population)
            by_score = np.argsort(best_scores(population), kind="stable")
            best_cf = parents.take(by_score[parent_is_cf[by_score]][:TRADE_PARENTS])
            with timer("polish"):
                new = Candidates.concat([
                    trade(ctx, best_cf, dist_spec, TRADE_CHILDREN),
                    step_in(ctx, best_cf, dist_spec),
                    selective_mutation(ctx, best_cf, dist_spec, config.m_mut, None, MUTATION_BREADTH),
                ], d, G)  # fmt: skip
            population = add(population, new)
            polished += 1
            option_scores, option_keys = options(2 * config.k)
            population = keep_options(population, option_keys)
            option_scores = option_scores[: config.k]
            # any gain counts here: the last steps onto a threshold are small ones
            improved = bool(np.any(option_scores < best_options * (1 - 1e-9)))
            best_options = np.minimum(best_options, option_scores)
            stalled = 0 if improved else stalled + 1

    # the population and the archive's best per Δ (where the population lost it), each row once,
    # by score; only the rows kept are copied
    n = len(archive)
    own = (population.rows, population.changed, population.prob, population.dist, population.score)
    kept = (archive.rows[:n], archive.changed[:n], archive.prob[:n], archive.dist[:n], archive.score[:n])
    _, first = np.unique(np.concatenate([population.hashes, archive.hashes[:n]]), return_index=True)
    first.sort()
    first = first[np.argsort(np.concatenate([population.score, archive.score[:n]])[first], kind="stable")]
    rows, changed, prob, dist, score = (interleave(a, b, first) for a, b in zip(own, kept))
    return SearchOutcome(
        rows=rows, changed=changed, prob=prob, dist=dist, score=score, generations=generation, converged=stop == "converged",
        candidates_scored=stats["scored"], stop=stop, restarts=restarts,
        seeds_used=stats["seeds"], best_prob=stats["best_prob"], seconds=dict(timer.seconds),
        peak_population_bytes=stats["peak"], blocks_scored=stats["blocks"], polish_rounds=polished,
    )  # fmt: skip
