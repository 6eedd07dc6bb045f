"""The GeCo search loop: initial population, then crossover + mutation + selection until stable.

Score (lower is better): ``dist`` for a counterfactual (``p > threshold``), otherwise
``1 + dist + (1 - p)``, so every counterfactual ranks before every non-counterfactual. Another
target (:mod:`geco.search.target`: a margin or a prediction interval) puts its own test and
shortfall in place of ``p > threshold`` and ``1 - p``.

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
  counterfactual yet) or of the top ``k`` scores; ``SETTLED_PATIENCE`` (fewer) while the top
  ``k`` are settled, the paper's rule met but fewer than ``k`` distinct options archived, as
  then only more options are sought, and where options are few (Adult: about four a row)
  most do not exist. Without a counterfactual it
  first restarts (up to twice): the next seeds, a fresh initial population, and mutants that
  change twice as many groups at once; or
* after ``max_generations``, or
* when what is left of ``time_budget`` would not fit the next generation or polishing round
  (predicted by the last one's cost; the first generation by the initial population's), with
  the best found so far; ``SearchOutcome.budget_cuts`` says what was left out.

Besides the population (the ``q`` best) the loop keeps an archive of the best counterfactual of
every Δ it has seen, from which distinct options are picked (:mod:`geco.search.diversity`).
Once it holds options, a generation or polishing round leaves unscored the candidates out of
their reach (:mod:`geco.search.reach`): those that could never be one of the ``k`` answers (as
far from ``x`` as the k-th option, or repeating a nearer option) and lie beyond ``REACH_SLACK``
(or ``REPEAT_SLACK``) times that bound, past where a stepping stone is worth its score.

All new candidates of a generation are scored in one pass (``score_blocks``), one block per Δ, so
a black-box model is called once per generation and a compiled model once per Δ.

:class:`GeneticSearch` holds one run's state and has one method per phase (initial population,
breed, evaluate, select, restart, polish, options); each takes and returns arrays,
:class:`~geco.search.population.Candidates` or :class:`~geco.search.population.Pool`, so a phase
can be replaced on its own. :func:`run_search` is the functional entry point.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from geco.problem.distance import DistanceSpec
from geco.problem.hashing import cell_hashes
from geco.search.archive import Archive
from geco.search.compiled import compiled_kernels
from geco.search.config import RestOfRows, SearchConfig, SearchOutcome
from geco.search.operators import (
    WALK_BACK_ROUNDS,
    Context,
    action_cascade,
    cascade_in_place,
    crossover,
    grow,
    mutation,
    selective_mutation,
    walk_back,
)
from geco.search.operators import initial_population as paper_initial_population
from geco.search.pool_scoring import score_pool
from geco.search.population import (
    Candidates,
    Pool,
    block_starts,
    interleave,
    key_order,
    key_words,
)
from geco.search.reach import Reach
from geco.search.scored_rows import ScoredRows
from geco.search.timing import PhaseTimer
from geco.search.trade import (
    REGROUP_MIN_CHANGED,
    SweepGrid,
    bisect_sweep,
    concentrate,
    regroup,
    single_grid,
    step_in,
    sweep_children_to_score,
    sweep_grid,
    trade,
)

if TYPE_CHECKING:
    from codegen.protocol import InstanceScorer

__all__ = ["MAX_RESTARTS", "SETTLED_PATIENCE", "AskedRows", "GeneticSearch", "Stagnation", "niche", "row_statuses", "run_search"]


#: below this many seconds an engine row (on a search's first scoring) the rows scored are not
#: kept for reuse: the lookup and the split of each new pool cost about what not scoring a tenth
#: of the rows again saves (XGBoost 120x4 and RF-100: 0.6-0.9 us a row; RF-500: 3-5)
REUSE_MIN_ROW_SECONDS = 2e-6

#: restarts (fresh seeds and samples) before a search without counterfactual gives up
MAX_RESTARTS = 2
#: generations without a better option after which a search whose top k are settled (the paper's
#: stop, short of k distinct options) ends, at most ``SearchConfig.patience``
SETTLED_PATIENCE = 2
#: mutation (selective mutation) tries at most this many unchanged (changed) groups per parent
#: and generation, random ones
MUTATION_BREADTH = 8
#: crossover pairs the best rows of at most this many Δ (the best ones): a child per pair, and
#: nearly every child is a Δ of its own
CROSSOVER_PARENTS = 32
#: a generation or polishing round leaves unscored the candidates that could be one of the k
#: answers only as stepping stones (:mod:`geco.search.reach`), except those within REACH_SLACK
#: times the k-th option's distance and, of those that repeat an option, within REPEAT_SLACK
#: times its distance (a tighter one left the first answer farther on more rows). At k = 1 about
#: a quarter of the candidates are left to score; quality: ``benchmarks/README.md``, "Versions"
#: and "Versions, k = 1"
REACH_SLACK = 2.0
REPEAT_SLACK = 3.0
#: ... and at k = 1 a polishing round leaves unscored every candidate at least as far from x as
#: the option (POLISH_REACH_SLACK times it): such a stepping stone serves only a further round,
#: which the first seldom earns (it improved no option on 35 to 40 of 40 rows of each bundled
#: setting). That leaves a tenth of the polishing candidates to score, 1-2 % of an explanation,
#: with the same answers on 280 of 280 explanations (Adult and Credit, seven models). With k > 1
#: nearly every candidate is nearer than the k-th option anyway, and the two answers of 280 it
#: changed there were farther (one first answer by 18 %): polishing keeps REACH_SLACK
POLISH_REACH_SLACK = 1.0

#: the outcome holds at most this many rows, the best (more on demand: SearchOutcome.widened):
#: an answer reads the first few; on wide data the archive holds tens of thousands of Δ, and
#: copying them all cost more than the search's last generations (1,000 features: 0.9 s, 370 MB)
OUTCOME_ROWS = 4096

#: polishing, once the search has stopped with a counterfactual: trade children (geco.search.trade)
#: and selective mutation of the best TRADE_PARENTS counterfactuals, TRADE_CHILDREN trades each,
#: until POLISH_PATIENCE rounds in a row improve no option (at most POLISH_ROUNDS)
TRADE_CHILDREN = 128
TRADE_PARENTS = 8
POLISH_PATIENCE = 1
POLISH_ROUNDS = 30
#: polishing also concentrates each of those counterfactuals' change on a few of its groups
#: (geco.search.trade.concentrate), CONCENTRATE_CHILDREN children each
CONCENTRATE_CHILDREN = 32
#: the first polishing round also sweeps a partner group past the best SWEEP_PARENTS
#: counterfactuals that change at most two groups (geco.search.trade.sweep)
SWEEP_PARENTS = 2
#: ... and, where the best counterfactual changes three groups or more, regroups them
#: (geco.search.trade.regroup: up to ~13k children, a few generations' worth), left out under a
#: time budget with less than REGROUP_ROOM times the last step's seconds left
REGROUP_ROOM = 4.0
#: ... and then bisects the sweep's grid where it jumps from missing the target to meeting it
#: (geco.search.trade.bisect_sweep), at most SWEEP_BISECT_ROUNDS rounds
SWEEP_BISECT_ROUNDS = 3


@dataclass(frozen=True)
class AskedRows:
    """Candidate rows as made, before the rules repaired any (a copy: the rules repair in
    place), their hashes, made as a pool's ``hashes`` are, and their distances
    (:meth:`GeneticSearch.asked`)."""

    rows: np.ndarray
    hashes: np.ndarray
    dist: np.ndarray


def row_statuses(asked: AskedRows, pools: tuple[Pool, ...], kernels: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """For candidate rows ``asked``: 1 where a row of ``pools`` equal to it meets the target, 0
    where it misses, -1 where none is equal (repaired or dropped); and that row's distance (inf
    where none). Matched by the hashes the pools hold, then checked value by value (only the
    rows a hash matched are read), so a collision reads as unknown, never as a status.
    ``kernels``: the same in one compiled pass for two pools (:func:`geco.search.kernels.row_statuses`)."""
    if kernels is not None and len(pools) == 2:
        return kernels.row_statuses(asked.rows, asked.hashes, *(
            (p.rows, p.hashes, (p.score == p.dist).astype(np.int8), p.dist) for p in pools))  # fmt: skip
    have = np.concatenate([p.hashes for p in pools])
    met, dist = np.full(len(asked.rows), -1, dtype=np.int8), np.full(len(asked.rows), np.inf)
    if len(have) == 0 or len(asked.rows) == 0:
        return met, dist
    order = np.argsort(have, kind="stable")
    hit = order[np.minimum(np.searchsorted(have[order], asked.hashes), len(have) - 1)]
    cand = np.flatnonzero(have[hit] == asked.hashes)
    at = hit[cand]
    ends = np.cumsum([len(p) for p in pools])
    rows = np.empty((len(cand), asked.rows.shape[1]))
    owner = np.searchsorted(ends, at, side="right")
    for k, pool in enumerate(pools):
        mine = np.flatnonzero(owner == k)
        rows[mine] = pool.rows[at[mine] - (ends[k] - len(pool))]
    found = cand[(rows == asked.rows[cand]).all(axis=1)]
    met_all = np.concatenate([p.score == p.dist for p in pools])
    dist_all = np.concatenate([p.dist for p in pools])
    met[found], dist[found] = met_all[hit[found]], dist_all[hit[found]]
    return met, dist


def niche(order: np.ndarray, owner: np.ndarray, n_blocks: int, q: int, count: int,
          qualifies: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    """Rows a selection keeps besides its top ``q``: the best row among those that ``qualifies``
    (all when None) of each Δ the top ``q`` leave out, for the best ``count`` such Δ, so that other
    kinds of change survive a population full of variants of one. ``order``: rows by score, best
    first; ``owner``: each row's Δ (0 .. n_blocks - 1). Indices in score order."""
    rest = order[q:]
    if len(rest) == 0:
        return rest
    seen = np.zeros(n_blocks, dtype=bool)
    seen[owner[order[:q]]] = True
    if qualifies is not None:
        rest = rest[qualifies[rest]]
    _, first = np.unique(owner[rest], return_index=True)
    best_rest = rest[np.sort(first)]  # in score order
    return best_rest[~seen[owner[best_rest]]][:count]


@dataclass
class Stagnation:
    """Generations in a row without improvement: of the best score while no counterfactual is
    found, else of some distinct option's score by more than 0.1 %."""

    best: np.ndarray  # the k best scores so far
    best_options: np.ndarray  # the best score so far of each of the k options
    stalled: int = 0

    def update(self, top: np.ndarray, options: np.ndarray) -> bool:
        """Take one generation's ``k`` best scores and option scores; whether a counterfactual
        is found."""
        found = bool(np.isfinite(top[0]) and top[0] < 1.0)
        if found:
            improved = bool(np.any(options < self.best_options * (1 - 1e-3)))
        else:
            improved = bool(top[0] < self.best[0])
        self.best, self.best_options = np.minimum(self.best, top), np.minimum(self.best_options, options)
        self.stalled = 0 if improved else self.stalled + 1
        return found


class GeneticSearch:
    """One GeCo run for one instance (``scorer`` bound to ``ctx.x``), phase by phase.

    ``required_groups``: groups whose value in ``x`` breaks a rule of that group, so every
    counterfactual must change them (a candidate that does not is never a counterfactual).
    ``seeds``: candidates built from data rows of the desired class, nearest first; the first
    ``config.seeds`` join the initial population, later ones each restart. ``merge_below``,
    ``merge_min_blocks``: see :func:`~geco.search.pool_scoring.score_pool` (``merge_below=0``:
    every block is scored under its own Δ). ``error_bound``: per full row, how far the scorer's
    number may lie from the model's own (``ModelScorer.error_bound``; None: nowhere, an exact
    engine); only options the model is sure to accept bound what is worth scoring (:attr:`reach`).

    The run's state: the archive, the seeds handed out so far, the phase timer and the counters
    reported in :class:`SearchOutcome`."""

    def __init__(
        self,
        ctx: Context,
        scorer: InstanceScorer,
        dist_spec: DistanceSpec,
        config: SearchConfig,
        required_groups: np.ndarray,
        seeds: Candidates | None = None,
        merge_below: int = 0,
        merge_min_blocks: int = 0,
        error_bound: Callable[[np.ndarray], np.ndarray] | None = None,
    ):
        self.ctx, self.scorer, self.dist_spec, self.config = ctx, scorer, dist_spec, config
        self.goal = config.goal
        self.required_groups = required_groups
        self.merge_below, self.merge_min_blocks = merge_below, merge_min_blocks
        self.error_bound = error_bound
        self.full = config.representation == "full"
        self.d, self.g = len(ctx.x), ctx.n_groups
        # bytes a row takes in the Δ-representation: its Δ's columns, prob, dist, score, established
        self.row_cols = None if self.full else np.bincount(ctx.group_of_feature, minlength=self.g)
        self.seed_pool = seeds if seeds is not None else Candidates.empty(self.d, self.g)
        self.seeds_used = 0
        self.kernels = compiled_kernels(config.native)
        self.archive = (Archive(self.d, self.g, self.kernels) if self.full  # rows as the operators made them
                        else Archive(self.d, self.g, self.kernels, ctx.x, ctx.group_of_feature))  # fmt: skip
        self.timer = PhaseTimer()
        self.candidates_scored = 0
        self.rows_reused = 0
        self.blocks_scored = 0
        self.peak_population_bytes = 0
        self.best_prob = 0.0
        self.deadline = None if config.time_budget is None else time.perf_counter() + config.time_budget
        self.timed_out = False
        self.budget_cuts: list[str] = []
        ctx.kernels = self.kernels
        #: the rows scored so far (compiled search, exact engine, Δ-representation): a row made
        #: again takes its number from here
        self.scored = ScoredRows(self.kernels) if self.kernels is not None and error_bound is None and not self.full else None
        self.cell_terms = dist_spec.cell_terms()
        #: which of a generation's candidates are worth scoring (:data:`REACH_SLACK`)
        self.reach = Reach.unbounded(ctx.x)

    def out_of_time(self, step: float = 0.0, what: str = "") -> bool:
        """Whether what is left of the run's time budget is less than ``step`` seconds, the
        predicted cost of the next step (never without a budget); remembered in ``timed_out``
        once so, and ``what`` (the step left out) noted in ``budget_cuts``."""
        if self.timed_out or self.deadline is None:
            return self.timed_out
        left = self.deadline - time.perf_counter()
        if left < step or left <= 0:
            self.timed_out = True
            if what:
                self.budget_cuts.append(f"{what} ({1e3 * max(left, 0.0):.1f} ms left, {1e3 * step:.1f} ms predicted)")
        return self.timed_out

    def run(self) -> SearchOutcome:
        """The paper's loop: breed, evaluate and select until the top k are established
        counterfactuals, keeping the distinct options in the population; on stagnation restart
        while nothing is found, else stop; then polish."""
        cfg = self.config
        t0 = time.perf_counter()
        population = self.add(self.empty(), self.initial_population())
        step = time.perf_counter() - t0  # the initial population's cost predicts the first generation's
        generation, stop, restarts, growth = 0, "max_generations", 0, 1
        option_scores, option_slots = self.archive.option_slots(cfg.k)
        progress = Stagnation(self.top_scores(population), option_scores)
        self.reach = self.reach_of_options(option_scores, option_slots)
        if len(population) == 0:
            stop = "no_candidates"
        while len(population) and generation < max(cfg.min_generations, cfg.max_generations):
            if self.out_of_time(step, f"generation {generation + 1}"):
                stop = "time_budget"
                break
            t0 = time.perf_counter()
            new = self.evaluate(self.to_pool(self.breed(population, growth), population, self.reach))
            population, converged = self.select(population, new)
            generation += 1
            population, option_scores = self.keep_options(population)
            step = time.perf_counter() - t0
            if converged and generation >= cfg.min_generations and np.isfinite(option_scores[-1]):
                stop = "converged"
                break
            with self.timer("options"):
                found = progress.update(self.top_scores(population), option_scores)
            patience = min(cfg.patience, SETTLED_PATIENCE) if converged and found else cfg.patience
            if generation < cfg.min_generations or progress.stalled < patience:
                continue
            if found or restarts >= MAX_RESTARTS:
                stop = "stagnated"
                break
            restarts, growth, progress.stalled = restarts + 1, growth * 2, 0
            population = self.restart(population)
            step = time.perf_counter() - t0
        polished = 0
        if len(self.archive) and stop in ("converged", "stagnated"):
            population, polished = self.polish(population, step)
            stop = "time_budget" if self.timed_out else stop
        return self.outcome(population, generation, stop, restarts, polished)

    # --- phases ---------------------------------------------------------------------------

    def initial_population(self) -> Candidates:
        """The paper's ``m_init`` samples of every group changed alone, plus the next seeds."""
        with self.timer("initial"):
            fresh = paper_initial_population(self.ctx, self.config.m_init)
            return Candidates.concat([fresh, self.next_seeds()], self.d, self.g)

    def breed(self, population: Pool, growth: int) -> Candidates:
        """One generation's new candidates: crossover of the best Δ, selective mutation of each
        Δ's best row, walk-back of each Δ's best counterfactual, mutation (and, after a restart,
        growth by ``growth`` groups at once) of the rows :meth:`mutation_parents` picks. The
        compiled search makes them in one call (:func:`geco.search.kernels.breed`) but after a
        restart, with ``mutate_top`` or with a NaN score."""
        ctx, cfg = self.ctx, self.config
        if self.kernels is not None and growth == 1 and cfg.mutate_top is None and not np.isnan(population.score).any():
            with self.timer("breed"):  # every operator in one compiled call, the same children
                return Candidates(*self.kernels.breed(
                    ctx.rng, population.rows, population.changed, population.words, population.score, population.dist,
                    population.starts(), ctx.x, ctx.group_of_feature, ctx.has_space, cfg.m_mut, MUTATION_BREADTH,
                    CROSSOVER_PARENTS, WALK_BACK_ROUNDS, self.cell_terms, ctx.stacked, self.reach, ctx.cascade_free,
                ))  # fmt: skip
        with self.timer("breed"):  # the parents, and below all the children in one array
            parents, parent_is_cf = self.best_per_delta(population)
        with self.timer("crossover"):
            best_first = np.argsort(self.best_scores(population), kind="stable")[:CROSSOVER_PARENTS]
            children = crossover(ctx, parents.take(np.sort(best_first)))
            moved = selective_mutation(ctx, parents, self.dist_spec, cfg.m_mut, parent_is_cf, MUTATION_BREADTH)
            back = walk_back(ctx, parents.take(np.flatnonzero(parent_is_cf)))
        with self.timer("mutation"):
            kept = self.mutation_parents(population, parents, parent_is_cf)
            mutants = self.reachable(mutation(ctx, kept, cfg.m_mut, MUTATION_BREADTH))
            grown = grow(ctx, kept, growth) if growth > 1 else Candidates.empty(self.d, self.g)
        with self.timer("breed"):
            return Candidates.concat([children, moved, back, mutants, grown], self.d, self.g)

    def reachable(self, mutants: Candidates) -> Candidates:
        """``mutants`` but those out of :attr:`reach` whatever the action cascade repairs: their
        distance over the changed cells the cascade never touches (``Context.cascade_free``, at
        most their distance after it) is already the k-th option's bound or more. The
        mutants of a generation are most of its children and, once k options are archived,
        mostly farther than that (nine in ten on Adult at k = 1): left out before the cascade,
        the hashes and the distances rather than after them."""
        kth = self.reach.kth
        if not np.isfinite(kth) or len(mutants) == 0:
            return mutants
        return mutants.take(np.flatnonzero(self.cascade_floor(mutants) < kth))

    def cascade_floor(self, cands: Candidates) -> np.ndarray:
        """Per candidate, its distance over the cells of its changed groups the action cascade
        never changes: at most its distance after the cascade (every norm grows with the cells
        and rounding keeps that order), and its distance itself where it changes no group the
        cascade may redraw."""
        gof, free = self.ctx.group_of_feature, self.ctx.cascade_free
        if self.kernels is not None:
            x, scale, cap, priced, up, down, w, n_feat = self.cell_terms
            return self.kernels.lower_distances(np.ascontiguousarray(cands.rows), np.ascontiguousarray(cands.changed),
                                                gof, free, x, scale, cap, priced, up, down, w, float(n_feat))  # fmt: skip
        r, _, _, diff = self.dist_spec.cells(cands.rows, cands.changed[:, gof] & free[None, :])
        return self.dist_spec.of_cells(r, diff, len(cands))

    def mutation_parents(self, population: Pool, parents: Candidates, parent_is_cf: np.ndarray) -> Candidates:
        """The rows mutation starts from: the best ``mutate_top`` of each Δ, or by default every
        row short of the desired class and, of the counterfactuals, only the best of each Δ (an
        added change makes a counterfactual farther, so near-copies of one add nothing but cost);
        none out of :attr:`reach`, as a mutant changes what its parent changes and more, farther
        from x."""
        if self.config.mutate_top is not None:
            return self.best_per_delta(population, self.config.mutate_top)[0]
        short, near = population.score != population.dist, parent_is_cf
        if self.reach.bounded:  # a counterfactual's score is its distance
            short = short & self.reach.within(population.dist, population.rows, population.words)
            near = near & self.reach.within(self.best_scores(population), parents.rows, key_words(parents.changed))
        short_rows = population.take(np.flatnonzero(short))
        best_cf = parents.take(np.flatnonzero(near))
        return Candidates.concat([Candidates(short_rows.rows, short_rows.changed), best_cf], self.d, self.g)

    def to_pool(self, cands: Candidates, population: Pool, reach: Reach | None = None,
                keep: np.ndarray | None = None) -> Pool:  # fmt: skip
        """New candidates as an unscored pool: repaired by the action cascade, without those
        equal to an earlier new one or to a population member and those out of ``reach`` (None:
        none is) but for those whose hash is one of ``keep``, with their distances, in Δ order."""
        if self.kernels is not None and not self.full:
            return self.to_pool_compiled(cands, population, reach, keep)
        with self.timer("cascade"):
            cands = action_cascade(self.ctx, cands)
        with self.timer("dedupe"):
            r, c, v, diff = self.differing_cells(cands.rows, cands.changed)
            n = len(cands)
            hashes = cell_hashes(r, c, v, n)
            n_old = len(population)
            _, first = np.unique(np.concatenate([population.hashes, hashes]), return_index=True)
            first = first[first >= n_old] - n_old
            first.sort()
        with self.timer("distance"):
            # from the cells where each candidate differs from x: Δ's columns, not all of them
            dist = self.dist_spec.of_cells(r, diff, n)
        with self.timer("blocks"):
            words = key_words(cands.changed)
            first = self.within(reach, first, dist, cands.rows, words, hashes, keep)
            kept = first[key_order(words[first])]
            # rows hold x outside their changed groups, as the Δ-representation stores them: every
            # operator builds them so (tests/search check each), so no pass restores it here
            m = len(kept)
            return Pool(cands.rows[kept], cands.changed[kept], words[kept], hashes[kept], np.empty(m), dist[kept],
                        np.empty(m), np.zeros(m, dtype=bool))  # fmt: skip

    def to_pool_compiled(self, cands: Candidates, population: Pool, reach: Reach | None = None,
                         keep: np.ndarray | None = None) -> Pool:  # fmt: skip
        """:meth:`to_pool` compiled: the cascade in place (rows it drops are only left out of
        what follows), then hashes, distances and key words in one pass (the "dedupe" phase
        then holds the distances too)."""
        ctx = self.ctx
        with self.timer("cascade"):
            if ctx.cross_rules:
                cands, alive = action_cascade(ctx, cands), None
            else:
                alive = cascade_in_place(ctx, cands)
        with self.timer("dedupe"):
            hashes, dist, first, words = self.kernels.new_rows(
                cands.rows, cands.changed, ctx.group_of_feature, self.cell_terms, population.hashes, alive
            )
        with self.timer("blocks"):
            first = self.within(reach, first, dist, cands.rows, words, hashes, keep)
            kept = first[key_order(words[first])]
            m = len(kept)
            return Pool(cands.rows[kept], cands.changed[kept], words[kept], hashes[kept], np.empty(m), dist[kept],
                        np.empty(m), np.zeros(m, dtype=bool))  # fmt: skip

    @staticmethod
    def within(reach: Reach | None, first: np.ndarray, dist: np.ndarray, rows: np.ndarray, words: np.ndarray,
               hashes: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
        """The candidates ``first`` (indices) that ``reach`` keeps, and those whose hash is one
        of ``keep``."""
        if reach is None or not reach.bounded:
            return first
        ok = reach.within(dist[first], rows, words[first], first)
        if keep is not None and len(keep):  # a sorted lookup: np.isin sorts both sides
            kept, h = np.sort(keep), hashes[first]
            ok |= kept[np.minimum(np.searchsorted(kept, h), len(kept) - 1)] == h
        return first[ok]

    def reach_of_options(self, scores: np.ndarray, slots: np.ndarray, slack: float = REACH_SLACK) -> Reach:
        """The reach (``slack``, :data:`REACH_SLACK` by default) of the best ``k`` options
        archived (their ``scores``, inf-padded to ``k``, and ``slots``, as
        :meth:`Archive.option_slots` gives them), of those the model is sure to accept: one whose
        score lies within the engine's error bound of the target's edge counts as missing (a
        looser bound)."""
        k = self.config.k
        scores, slots = scores[:k], slots[:k]
        a = self.archive
        rows = a.rows_of(slots)
        if self.error_bound is not None and len(slots):
            keep = np.flatnonzero(self.goal.edge_distance(a.prob[slots]) > self.error_bound(rows))
            slots, rows = slots[keep], rows[keep]
            scores = np.concatenate([scores[keep], np.full(k - len(keep), np.inf)])
        spec = self.dist_spec
        return Reach.of_options(scores, rows, a.words[slots], k, slack, REPEAT_SLACK, self.ctx.x,
                                self.config.diversity, spec.ranges, spec.categorical, self.kernels)  # fmt: skip

    def evaluate(self, new: Pool) -> Pool:
        """Score ``new`` (its ``prob`` and ``score``, set in place; returned) and offer each Δ's
        best counterfactual to the archive."""
        if len(new) == 0:
            return new
        with self.timer("blocks"):
            starts = new.starts()
        with self.timer("scoring"):
            prob = self.probabilities(new, starts)
        with self.timer("score"):
            may = new.changed[:, self.required_groups].all(axis=1)
            ok = may & self.goal.meets(prob)
            new.prob, new.score = prob, np.where(ok, new.dist, 1.0 + new.dist + self.goal.shortfall(prob))
            self.best_prob = max(self.best_prob, float(prob.max()))
            if ok.any():
                self.archive.offer_best(new, starts, ok)
        self.candidates_scored += len(new)
        self.blocks_scored += len(starts)
        return new

    def select(self, population: Pool, new: Pool) -> tuple[Pool, bool]:
        """The next population: the ``q`` best of both pools plus two niches (the best
        counterfactual of each of the best 2k Δ the top q leave out, the best row of each of the
        best q/4 such Δ), all marked established; and whether the run converged (the top k are
        established counterfactuals). Decided on the merged keys and scores; only the kept rows
        are copied."""
        cfg = self.config
        with self.timer("selection"):
            n = len(population) + len(new)
            if n == 0:
                return self.empty(), False
            if self.kernels is not None:  # merged, selected and gathered in one call
                made = self.kernels.select_pools(population.fields(), new.fields(), cfg.q, cfg.k)
                if made is not None:
                    self.note_peak(population, new)
                    return Pool(*made[0]), made[1]
            merged = self.merge_order(population, new)
            words = np.concatenate([population.words, new.words])[merged]
            scores = np.concatenate([population.score, new.score])[merged]
            estab = np.concatenate([population.established, new.established])[merged]
            dist = np.concatenate([population.dist, new.dist])[merged]
            if self.kernels is not None:
                kept, converged = self.kernels.selection(words, scores, dist, estab, cfg.q, cfg.k)
                out = self.gather(population, new, merged[kept])
                out.established = np.ones(len(out), dtype=bool)
                self.note_peak(population, new)
                return out, converged
            is_cf = scores == dist
            starts = block_starts(words)
            owner = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, n)))
            order = np.argsort(scores, kind="stable")
            top = order[: cfg.q]
            head = top[: cfg.k]
            converged = bool(len(head) > 0 and np.all(estab[head]) and np.all(is_cf[head]))
            keep = np.zeros(n, dtype=bool)
            keep[top] = True
            keep[niche(order, owner, len(starts), cfg.q, 2 * cfg.k, qualifies=is_cf)] = True
            keep[niche(order, owner, len(starts), cfg.q, cfg.q // 4)] = True
            out = self.gather(population, new, merged[keep])
            out.established = np.ones(len(out), dtype=bool)
            self.note_peak(population, new)
        return out, converged

    def restart(self, population: Pool) -> Pool:
        """A fresh initial population (the next seeds among it) added to ``population``."""
        return self.add(population, self.initial_population())

    def polish(self, population: Pool, step: float = 0.0) -> tuple[Pool, int]:
        """Trade distance between groups (:mod:`geco.search.trade`), which the search's own moves
        cannot, until a round improves no option (any gain counts: the last steps onto a
        threshold are small ones); the population and the rounds run. Never makes the result
        worse: the archive keeps every Δ's best. ``step``: the last generation's seconds, which
        predict the first round's under a time budget (each later round's: the round before)."""
        best_options, stalled, rounds = self.options(self.config.k)[0], 0, 0
        while stalled < POLISH_PATIENCE and rounds < POLISH_ROUNDS and not self.out_of_time(step, f"polishing round {rounds + 1}"):
            t0 = time.perf_counter()
            cands, swept = self.polish_candidates(population, first=rounds == 0, step=step)
            before = population
            # out of reach (POLISH_REACH_SLACK at k = 1, else the search's own, as keep_options
            # left it) a child is no answer; the sweep's are kept for the bisection to read
            reach = self.reach
            if self.config.k == 1:
                reach = self.reach_of_options(*self.archive.option_slots(1), POLISH_REACH_SLACK)
            keep = None
            if swept is not None:  # the bisection reads these of the sweep's children
                needed = sweep_children_to_score(swept[0], swept[1].dist, float(self.options(1)[0][0]))
                keep = swept[1].hashes[needed]
            population, new = self.add_scored(population, cands, reach, keep)
            if swept is not None:
                with self.timer("polish"):
                    status = row_statuses(swept[1], (before, new), self.kernels)
                population = self.bisect(population, swept[0], status)
            rounds += 1
            population, option_scores = self.keep_options(population)
            improved = bool(np.any(option_scores < best_options * (1 - 1e-9)))
            best_options = np.minimum(best_options, option_scores)
            stalled = 0 if improved else stalled + 1
            step = time.perf_counter() - t0
        return population, rounds

    def polish_candidates(self, population: Pool, first: bool = False,
                          step: float = 0.0) -> tuple[Candidates, tuple[SweepGrid, AskedRows] | None]:
        """Trades, steps in and selective mutants of the best ``TRADE_PARENTS`` Δ's best
        counterfactuals; in the ``first`` round, the sweep of the sparse ones too, and their
        regrouping where the best is dense (left out under a time budget with less than
        ``REGROUP_ROOM`` times ``step``, the round's predicted cost, left). Also the sweep's grid
        and its children as made (:meth:`bisect` refines it), or None."""
        parents, parent_is_cf = self.best_per_delta(population)
        by_score = np.argsort(self.best_scores(population), kind="stable")
        best_cf = parents.take(by_score[parent_is_cf[by_score]][:TRADE_PARENTS])
        with self.timer("polish"):
            made = sweep_grid(self.ctx, best_cf.take(np.arange(min(SWEEP_PARENTS, len(best_cf)))), self.dist_spec) if first else None
            swept = made.children(self.ctx) if made is not None else None
            grid = (made, self.asked(swept)) if made is not None else None
            regrouped = self.regroup(population, best_cf, step) if first else None
            return Candidates.concat([*([swept] if swept is not None else []), *([regrouped] if regrouped is not None else []),
                trade(self.ctx, best_cf, self.dist_spec, TRADE_CHILDREN),
                step_in(self.ctx, best_cf, self.dist_spec),
                concentrate(self.ctx, best_cf, self.dist_spec, CONCENTRATE_CHILDREN),
                selective_mutation(self.ctx, best_cf, self.dist_spec, self.config.m_mut, None, MUTATION_BREADTH),
            ], self.d, self.g), grid  # fmt: skip

    def bisect(self, population: Pool, grid: SweepGrid, status: tuple[np.ndarray, np.ndarray]) -> Pool:
        """Refine the sweep's grid where a partner group's coarse steps jump from missing the
        target to meeting it (:func:`geco.search.trade.bisect_sweep`), below the best option's
        score, for at most ``SWEEP_BISECT_ROUNDS`` rounds; ``status``: its children's
        (met, distance) as :func:`row_statuses` gives them."""
        met, dist = status
        step = 0.0  # the last round's seconds predict the next one's under a time budget
        for r in range(SWEEP_BISECT_ROUNDS):
            t0 = time.perf_counter()
            with self.timer("polish"):
                grid, carried = bisect_sweep(grid, met, dist, float(self.options(1)[0][0]))
                fresh = grid.take(np.arange(len(carried), len(grid)))
                if len(fresh) == 0 or self.out_of_time(step, f"bisecting the sweep, round {r + 1}"):
                    break
                cands = fresh.children(self.ctx)
                asked = self.asked(cands)
            before = population
            population, new = self.add_scored(population, cands)
            with self.timer("polish"):
                new_met, new_dist = row_statuses(asked, (before, new), self.kernels)
                met, dist = np.concatenate([met[carried], new_met]), np.concatenate([dist[carried], new_dist])
            step = time.perf_counter() - t0
        return population

    def asked(self, cands: Candidates) -> AskedRows:
        """``cands`` as made (their rows copied before the rules may repair them in place),
        their hashes as :meth:`to_pool` makes a pool's, for :func:`row_statuses`, and their
        distances (compiled: one pass, as :meth:`to_pool_compiled` makes them)."""
        if self.kernels is not None and not self.full:
            hashes, dist, _, _ = self.kernels.new_rows(cands.rows, cands.changed, self.ctx.group_of_feature,
                                                       self.cell_terms, np.empty(0, dtype=np.uint64))  # fmt: skip
            return AskedRows(cands.rows.copy(), hashes, dist)
        r, c, v, diff = self.differing_cells(cands.rows, cands.changed)
        n = len(cands)
        return AskedRows(cands.rows.copy(), cell_hashes(r, c, v, n), self.dist_spec.of_cells(r, diff, n))

    def regroup(self, population: Pool, best_cf: Candidates, step: float) -> Candidates | None:
        """:func:`geco.search.trade.regroup` of ``best_cf`` when its best changes three groups
        or more, after scoring its probes (every group moved alone on a grid; offered to the
        archive like any candidate)."""
        if len(best_cf) == 0 or best_cf.changed[0].sum() < REGROUP_MIN_CHANGED:
            return None
        if self.deadline is not None:
            left = self.deadline - time.perf_counter()
            if left < REGROUP_ROOM * step:
                self.budget_cuts.append(f"the regrouping ({1e3 * max(left, 0.0):.1f} ms left, {1e3 * REGROUP_ROOM * step:.1f} ms predicted)")
                return None
        probes = self.evaluate(self.to_pool(single_grid(self.ctx, self.dist_spec), population))
        return regroup(self.ctx, best_cf, self.dist_spec, (probes.rows, probes.changed, probes.prob))

    def options(self, count: int) -> tuple[np.ndarray, list[Hashable]]:
        """The best ``count`` distinct options archived so far: scores (inf-padded) and Δ keys
        (see :meth:`Archive.options`)."""
        return self.archive.options(count)

    def keep_options(self, population: Pool) -> tuple[Pool, np.ndarray]:
        """Put the best 2k distinct options back into a population that lost them (a niche:
        variants of one change can fill all q places and end the search for other kinds of
        change); the population and the best k options' scores. The best k also set the
        :attr:`reach` of what follows."""
        with self.timer("options"):
            option_scores, option_slots = self.archive.option_slots(2 * self.config.k)
            self.reach = self.reach_of_options(option_scores, option_slots)
            return self.restore(population, option_slots), option_scores[: self.config.k]

    # --- helpers --------------------------------------------------------------------------

    def add(self, population: Pool, cands: Candidates) -> Pool:
        """``population`` after evaluating ``cands`` and selecting from both."""
        return self.add_scored(population, cands)[0]

    def add_scored(self, population: Pool, cands: Candidates, reach: Reach | None = None,
                   keep: np.ndarray | None = None) -> tuple[Pool, Pool]:  # fmt: skip
        """:meth:`add`, and the scored pool of the new candidates (those not in ``population``,
        nor out of ``reach`` unless their hash is one of ``keep``)."""
        new = self.evaluate(self.to_pool(cands, population, reach, keep))
        return self.select(population, new)[0], new

    def empty(self) -> Pool:
        return Pool.empty(self.d, self.g)

    def next_seeds(self) -> Candidates:
        """The next ``config.seeds`` seeds not handed out yet."""
        start = self.seeds_used
        self.seeds_used = min(len(self.seed_pool), start + self.config.seeds)
        return self.seed_pool.take(np.arange(start, self.seeds_used))

    def probabilities(self, new: Pool, starts: np.ndarray) -> np.ndarray:
        """P(desired) of every row of ``new``: whole rows in the full representation, else one
        block per Δ (:func:`score_pool`), but for the rows scored before in this search, which
        take their number from ``scored`` (:mod:`geco.search.scored_rows`) where it is kept:
        from the first scoring on, unless that scoring cost less than
        :data:`REUSE_MIN_ROW_SECONDS` a row."""
        if self.full:
            return np.asarray(self.scorer.score_block(tuple(range(self.d)), new.rows), dtype=np.float64)
        gof = self.ctx.group_of_feature

        def score(pool: Pool, pool_starts: np.ndarray) -> np.ndarray:
            return score_pool(self.scorer, pool, pool_starts, gof, self.merge_below, self.merge_min_blocks)

        if self.scored is None:
            return score(new, starts)
        if len(self.scored) == 0:  # the first scoring prices the engine's row
            t0 = time.perf_counter()
            prob = score(new, starts)
            if time.perf_counter() - t0 < REUSE_MIN_ROW_SECONDS * len(new):
                self.scored = None  # an engine this fast: keeping the rows costs what it saves
            else:
                self.scored.add(new.hashes, prob)
            return prob
        known, prob = self.scored.find(new.hashes)
        self.rows_reused += int(known.sum())
        if known.all():
            return prob
        fresh = np.flatnonzero(~known)
        rest = new if len(fresh) == len(new) else new.take(fresh)  # still in Δ order
        prob[fresh] = score(rest, starts if rest is new else rest.starts())
        self.scored.add(rest.hashes, prob[fresh])
        return prob

    def restore(self, population: Pool, slots: np.ndarray) -> Pool:
        """``population`` with the archived best row of each Δ of archive ``slots`` it lacks."""
        if self.kernels is not None:
            lost = slots[self.kernels.absent(population.words, population.starts(), self.archive.words, slots)]
        else:
            present = set(population.block_keys(population.starts()))
            lost = slots[np.array([key not in present for key in self.archive.keys_of(slots)], dtype=bool)]
        if len(lost) == 0:
            return population
        back = self.archive.pool(lost)
        back = back.take(key_order(back.words))
        return self.gather(population, back, self.merge_order(population, back))

    def merge_order(self, a: Pool, b: Pool) -> np.ndarray:
        """:meth:`Pool.merge_order` of two pools in key order (compiled: one merge of the runs)."""
        return Pool.merge_order(a, b) if self.kernels is None else self.kernels.merge_order(a.words, b.words)

    def gather(self, a: Pool, b: Pool, idx: np.ndarray) -> Pool:
        """:meth:`Pool.gather` (compiled: one pass over every field)."""
        return Pool.gather(a, b, idx) if self.kernels is None else Pool(*self.kernels.gather(a.fields(), b.fields(), idx))

    def note_peak(self, population: Pool, new: Pool) -> None:
        """Track the largest population + new pool a selection saw, in bytes of the
        representation (row values, prob, dist, score, established)."""
        n = len(population) + len(new)
        if self.full:
            width = self.d * n
        else:
            width = self.stored_columns(population) + self.stored_columns(new)
        self.peak_population_bytes = max(self.peak_population_bytes, 8 * width + 25 * n)

    def stored_columns(self, pool: Pool) -> int:
        """Values ``pool`` holds in the Δ-representation: each row its Δ's columns, counted a
        Δ at a time (its rows times its groups' columns; a pool's rows are in Δ order)."""
        if len(pool) == 0:
            return 0
        starts = pool.starts()
        if self.kernels is not None:
            return self.kernels.stored_values(pool.changed, starts, self.row_cols)
        sizes = np.diff(np.append(starts, len(pool)))
        return int(sizes @ (pool.changed[starts] @ self.row_cols))

    def best_per_delta(self, population: Pool, top: int = 1) -> tuple[Candidates, np.ndarray]:
        """The ``top`` best rows of every Δ, and whether each is a counterfactual."""
        if len(population) == 0:
            return Candidates.empty(self.d, self.g), np.empty(0, dtype=bool)
        starts = population.starts()
        if self.kernels is not None:
            idx = self.kernels.block_best(starts, len(population), population.score, top)
        else:
            sizes = np.diff(np.append(starts, len(population)))
            owner = np.repeat(np.arange(len(starts)), sizes)
            order = np.lexsort((population.score, owner))
            idx = order[np.arange(len(population)) - np.repeat(starts, sizes) < top]
        is_cf = population.score[idx] == population.dist[idx]
        return Candidates(population.rows[idx], population.changed[idx]), is_cf

    def best_scores(self, population: Pool) -> np.ndarray:
        """The best score of every Δ, in key order."""
        return np.minimum.reduceat(population.score, population.starts())

    def top_scores(self, population: Pool) -> np.ndarray:
        """The ``k`` best scores of ``population``, padded with inf."""
        if len(population) == 0:
            return np.full(self.config.k, np.inf)
        k = self.config.k
        out = np.full(k, np.inf)
        score = population.score
        top = np.partition(score, k - 1)[:k] if len(score) > k else score.copy()  # NaN sorts last in both
        top.sort()
        out[: len(top)] = top
        return out

    def differing_cells(self, rows: np.ndarray, changed: np.ndarray):
        """Where each row differs from x: its Δ's columns (the rest is x's by construction),
        or every column in the full representation (rows as the operators made them)."""
        return self.dist_spec.cells(rows, (rows != self.ctx.x) if self.full else changed[:, self.ctx.group_of_feature])

    def outcome(self, population: Pool, generations: int, stop: str, restarts: int, polished: int) -> SearchOutcome:
        """The population and the archive's best per Δ (where the population lost it), each row
        once, by score (only the rows kept are copied; beyond :data:`OUTCOME_ROWS`, the best
        ones, the rest on demand); with the run's counters."""
        with self.timer("outcome"):
            archive, n = self.archive, len(self.archive)
            _, first = np.unique(np.concatenate([population.hashes, archive.hashes[:n]]), return_index=True)
            first.sort()
            scores = np.concatenate([population.score, archive.score[:n]])
            first = first[np.argsort(scores[first], kind="stable")]
            own = (population.prob, population.dist, population.score)
            kept = (archive.prob[:n], archive.dist[:n], archive.score[:n])

            def table(idx: np.ndarray) -> dict[str, np.ndarray]:
                mine = idx < len(population)  # the archive's rows are read (made whole) only where taken
                rows, changed = np.empty((len(idx), self.d)), np.empty((len(idx), self.g), dtype=bool)
                rows[mine], changed[mine] = population.rows[idx[mine]], population.changed[idx[mine]]
                slots = idx[~mine] - len(population)
                rows[~mine], changed[~mine] = archive.rows_of(slots), archive.changed_of(slots)
                return {"rows": rows, "changed": changed} | dict(zip(("prob", "dist", "score"), (interleave(a, b, idx) for a, b in zip(own, kept))))

            best = table(first[:OUTCOME_ROWS])
        outcome = SearchOutcome(
            **best, generations=generations, converged=stop == "converged", candidates_scored=self.candidates_scored, stop=stop, restarts=restarts,
            seeds_used=self.seeds_used, best_prob=self.best_prob, seconds=dict(self.timer.seconds),
            peak_population_bytes=self.peak_population_bytes, archived=n, archive_bytes=archive.nbytes,
            blocks_scored=self.blocks_scored, polish_rounds=polished,
            rows_reused=self.rows_reused, budget_cuts=tuple(self.budget_cuts),
        )  # fmt: skip
        if len(first) > OUTCOME_ROWS:

            def best_rows(m: int) -> SearchOutcome:
                return replace(outcome, **table(first[:m]), rest=None if m >= len(first) else rest)

            outcome.rest = rest = RestOfRows(scores[first], best_rows)
        return outcome


def run_search(
    ctx: Context,
    scorer: InstanceScorer,
    dist_spec: DistanceSpec,
    config: SearchConfig,
    required_groups: np.ndarray,
    seeds: Candidates | None = None,
    merge_below: int = 0,
    merge_min_blocks: int = 0,
    error_bound: Callable[[np.ndarray], np.ndarray] | None = None,
) -> SearchOutcome:
    """Run GeCo for one instance; ``scorer`` is bound to ``ctx.x``. The arguments are those of
    :class:`GeneticSearch`."""
    search = GeneticSearch(ctx, scorer, dist_spec, config, required_groups, seeds, merge_below, merge_min_blocks,
                           error_bound)  # fmt: skip
    return search.run()
