"""The search's phases on their own (geco.search.loop.GeneticSearch), its archive and timer, on a
small problem with a model written out: eight numeric one-column groups, desired when
a + b > 22."""

import time

import numpy as np
import pytest
from sum_problem import NO_REQUIRED, G, X, make_search

import geco.search.loop
from geco.search import GeneticSearch, run_search
from geco.search.archive import Archive
from geco.search.loop import Stagnation, niche
from geco.search.population import Candidates, Pool, key_words
from geco.search.timing import PhaseTimer


def scored_pool(search, n=200):
    """An evaluated pool of ``n`` random candidates."""
    rng = np.random.default_rng(1)
    rows = np.tile(X, (n, 1))
    changed = rng.random((n, G)) < 0.4
    rows[changed] = rng.integers(0, 21, int(changed.sum()))
    changed = rows != X
    return search.evaluate(search.to_pool(Candidates(rows, changed), search.empty()))


def delta_of(pool):
    return [tuple(c) for c in pool.changed.tolist()]


def test_niche_takes_the_best_qualifying_row_of_each_left_out_delta():
    # rows by score: Δ 0 holds the top 2; then Δ 1 (twice), 2, 3, 1, 4
    order = np.arange(8)
    owner = np.array([0, 0, 1, 1, 2, 3, 1, 4])
    assert niche(order, owner, 5, 2, 10).tolist() == [2, 4, 5, 7]
    assert niche(order, owner, 5, 2, 2).tolist() == [2, 4]
    qualifies = np.array([1, 1, 0, 1, 0, 1, 1, 1], dtype=bool)
    assert niche(order, owner, 5, 2, 10, qualifies).tolist() == [3, 5, 7]
    assert niche(order, owner, 5, 8, 10).tolist() == []  # nothing left out


@pytest.mark.parametrize(("q", "k", "threshold"), [(12, 2, 0.5), (12, 2, 0.9999), (40, 1, 0.99)])
def test_select_keeps_the_top_q_and_both_niches(q, k, threshold):
    search = make_search(q=q, k=k, threshold=threshold)
    population = scored_pool(search, 160)
    out, converged = search.select(population, search.empty())
    assert out.established.all()
    score = population.score
    order = np.argsort(score, kind="stable")
    kept = set(out.hashes.tolist())
    # reference: Δ the top q leave out, by their best row (best counterfactual) in score order
    deltas = delta_of(population)
    in_top = {deltas[i] for i in order[:q]}
    best_row, best_cf = {}, {}
    for i in order[q:]:
        if deltas[i] in in_top:
            continue
        best_row.setdefault(deltas[i], i)
        if score[i] == population.dist[i]:
            best_cf.setdefault(deltas[i], i)
    expect = set(order[:q]) | set(list(best_cf.values())[: 2 * k]) | set(list(best_row.values())[: q // 4])
    assert len(best_row) > q // 4  # the row niche has more Δ than it takes
    assert kept == set(population.hashes[sorted(expect)].tolist())
    assert len(out) == len(expect)
    assert converged is False  # nothing was established yet
    head = np.argsort(out.score, kind="stable")[:k]
    assert search.select(out, search.empty())[1] == bool(np.all(out.score[head] == out.dist[head]))


def test_select_never_loses_the_best_counterfactual_of_the_first_left_out_deltas():
    search = make_search(q=4, k=3)
    population = scored_pool(search, 300)
    out, _ = search.select(population, search.empty())
    deltas_out = set(delta_of(out))
    is_cf = population.score == population.dist
    order = np.argsort(population.score, kind="stable")
    deltas, cf_deltas = delta_of(population), []
    for i in order:
        if is_cf[i] and deltas[i] not in cf_deltas:
            cf_deltas.append(deltas[i])
    # the Δ of the top q come first; the niche keeps the best counterfactual of the next 2k
    in_top = set(delta_of(population.take(order[:4])))
    assert set(cf_deltas[: len(in_top) + 2 * 3]) <= deltas_out
    assert len(cf_deltas) > len(in_top) + 2 * 3


@pytest.mark.parametrize("compiled", [False, True])
def test_archive_offer_keeps_each_deltas_best_in_first_seen_order(compiled):
    """Each Δ's best row in the slot of its first offer; the same with the kernels' index of the
    key words (and its rebuilds as the archive grows)."""
    from geco.search.compiled import compiled_kernels

    kernels = compiled_kernels(True) if compiled else None
    if compiled and kernels is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(2)
    archive = Archive(3, 6, kernels)
    best, first_seen = {}, []
    for _ in range(30):
        keys = rng.choice(40, size=8, replace=False).tolist()  # distinct Δ per offer
        changed = np.array([[(k >> g) & 1 for g in range(6)] for k in keys], dtype=bool)
        rows, score = rng.random((8, 3)), rng.random(8)
        archive.offer(rows, changed, rng.integers(0, 2**63, 8).astype(np.uint64), score, score, score)
        for key, row, s in zip(keys, rows, score):
            if key not in best:
                first_seen.append(key)
            if key not in best or s < best[key][1]:
                best[key] = (row, s)
    assert archive.keys == first_seen and len(archive) == len(best) > 16  # grew past its first size
    for key, (row, s) in best.items():
        slot = archive.slot[key]
        assert archive.score[slot] == s and np.array_equal(archive.rows_of([slot])[0], row)
        np.testing.assert_array_equal(archive.words[slot], key_words(archive.changed_of([slot]))[0])
    pool = archive.pool()
    assert len(pool) == len(best) and pool.established.all()


def _is_superset(a, b):
    return bool(np.all(a | ~b))


def test_archive_options_are_the_greedy_distinct_picks():
    rng = np.random.default_rng(3)
    g = 10
    # every superset of {0, 1, 2} ranks first (the best of them, {0, 1, 2} itself, is no.1): the
    # greedy pick has to widen its window past them, dropping them in every later window too
    supersets = [k for k in range(2**g) if k & 0b111 == 0b111]
    others = rng.choice([k for k in range(1, 2**g) if k & 0b111 != 0b111], size=200, replace=False).tolist()
    keys = supersets + others
    n = len(keys)
    changed = np.array([[(k >> j) & 1 for j in range(g)] for k in keys], dtype=bool)
    score = rng.random(n) + changed.sum(axis=1) * 0.01
    score[: len(supersets)] -= 2.0
    score[0] = -3.0
    score[np.round(score, 1) == 0.5] = 0.5  # ties: archive order decides
    order = rng.permutation(n)
    keys, changed, score = [keys[i] for i in order], changed[order], score[order]
    archive = Archive(1, g)
    archive.offer(np.zeros((n, 1)), changed, np.arange(n, dtype=np.uint64), score, score, score)
    for count in (1, 2, 3, 5, 10):
        out, picked = archive.options(count)
        # reference: plain greedy over every archived Δ in stable score order
        ref = []
        for i in np.argsort(score, kind="stable"):
            if len(ref) < count and not any(_is_superset(changed[i], changed[j]) for j in ref):
                ref.append(int(i))
        assert picked == [keys[i] for i in ref]
        np.testing.assert_array_equal(out[: len(ref)], score[ref])
        assert np.all(np.isinf(out[len(ref) :]))
        for a, i in enumerate(ref):  # no pick includes the changes of a better one
            assert not any(_is_superset(changed[i], changed[j]) for j in ref[:a])
    assert len(archive.options(10)[1]) > 3
    empty = Archive(1, g).options(4)
    assert empty[1] == [] and np.all(np.isinf(empty[0]))


def test_keep_options_puts_a_lost_option_back():
    search = make_search(k=3, q=20)
    population = search.select(scored_pool(search, 200), search.empty())[0]
    scores, keys = search.options(2 * 3)
    present = population.block_keys(population.starts())
    assert set(keys) <= set(present)
    lost_key = keys[0]
    without = population.take(np.flatnonzero(np.array([k != lost_key for k in population.block_keys(np.arange(len(population)))])))
    back, option_scores = search.keep_options(without)
    np.testing.assert_array_equal(option_scores, scores[:3])
    assert lost_key in back.block_keys(back.starts())
    assert len(back) == len(without) + 1
    np.testing.assert_array_equal(Pool.merge_order(back, search.empty()), np.arange(len(back)))  # key order
    assert search.keep_options(back)[0] is back  # nothing lost: the same pool


def test_run_finds_counterfactuals_and_returns_every_archived_delta():
    search = make_search(seed=4, k=3, q=30)
    out = search.run()
    assert out.stop in ("converged", "stagnated") and out.polish_rounds >= 1
    assert np.all(np.diff(out.score) >= 0)
    assert out.score[0] == out.dist[0] and out.prob[0] > 0.5
    assert len(np.unique(out.rows, axis=0)) == len(out.rows)
    assert out.candidates_scored > 0 and out.blocks_scored > 0 and out.peak_population_bytes > 0
    archived = {tuple(r) for r in search.archive.pool().rows.tolist()}
    assert archived <= {tuple(r) for r in out.rows.tolist()}
    assert {"initial", "selection", "scoring", "polish"} <= set(out.seconds)
    # the compiled search breeds in one call, timed as one phase
    bred = {"breed"} if search.kernels is not None else {"crossover", "mutation"}
    assert bred <= set(out.seconds)


def test_run_search_runs_the_object_and_passes_the_merge_numbers(monkeypatch):
    seen = []
    real = geco.search.loop.score_pool

    def recording(scorer, pool, starts, gof, merge_below, min_blocks):
        seen.append((merge_below, min_blocks))
        return real(scorer, pool, starts, gof, merge_below, min_blocks)

    monkeypatch.setattr(geco.search.loop, "score_pool", recording)
    a = make_search(seed=5)
    out = run_search(a.ctx, a.scorer, a.dist_spec, a.config, NO_REQUIRED, merge_below=7, merge_min_blocks=3)
    assert seen and set(seen) == {(7, 3)}
    again = make_search(seed=5, representation="delta").run()
    for name in ("rows", "prob", "dist", "score"):
        np.testing.assert_array_equal(getattr(out, name), getattr(again, name))  # merged or not: same


def test_next_seeds_hands_out_each_seed_once():
    search = make_search(seeds=2)
    search.seed_pool = Candidates(np.arange(20.0).reshape(5, 4), np.ones((5, 4), dtype=bool))
    got = [search.next_seeds().rows[:, 0].tolist() for _ in range(4)]
    assert got == [[0.0, 4.0], [8.0, 12.0], [16.0], []]
    assert search.seeds_used == 5


def test_stagnation_counts_generations_without_improvement():
    inf = np.inf
    s = Stagnation(np.array([1.5, inf]), np.array([inf, inf]))
    assert s.update(np.array([1.4, inf]), np.array([inf, inf])) is False and s.stalled == 0
    assert s.update(np.array([1.4, inf]), np.array([inf, inf])) is False and s.stalled == 1
    # found: the options count, by more than 0.1 %
    assert s.update(np.array([0.3, 0.4]), np.array([0.3, 0.4])) is True and s.stalled == 0
    assert s.update(np.array([0.3, 0.4]), np.array([0.2999, 0.4])) is True and s.stalled == 1
    assert s.update(np.array([0.3, 0.4]), np.array([0.29, 0.4])) is True and s.stalled == 0


def test_phase_timer_adds_up_per_phase():
    timer = PhaseTimer()
    for _ in range(3):
        with timer("a"):
            pass
    with pytest.raises(ValueError), timer("b"):
        raise ValueError
    assert list(timer.seconds) == ["a", "b"] and all(v >= 0 for v in timer.seconds.values())
    # a block inside a block of the same phase adds its own seconds too (each block reused)
    nested = PhaseTimer()
    with nested("c"):
        with nested("c"):
            time.sleep(0.02)
        time.sleep(0.01)
    assert nested.seconds["c"] >= 0.05


@pytest.mark.parametrize("native", [False, True])
def test_stored_columns_count_each_rows_delta_columns(native):
    if native:
        pytest.importorskip("numba")
    search = make_search(native=native)
    search.row_cols = np.arange(1, G + 1)  # groups of 1 .. 8 columns
    pool = scored_pool(search)
    assert len(pool.starts()) > 10
    assert search.stored_columns(pool) == int((pool.changed @ search.row_cols).sum())
    assert search.stored_columns(search.empty()) == 0


@pytest.mark.parametrize("patience", [1, 5])
def test_settled_top_k_short_of_options_stops_after_settled_patience(monkeypatch, patience):
    """a + b > 22 has two distinct options (a alone, b alone), fewer than k = 5: once the top k
    are settled counterfactuals the search seeks only more options, and stops after
    SETTLED_PATIENCE (at most ``patience``) generations without a better one, not ``patience``."""
    log = []
    select, update = GeneticSearch.select, Stagnation.update

    def logged_select(self, population, new):
        out, converged = select(self, population, new)
        log.append({"converged": converged})
        return out, converged

    def logged_update(self, top, options):
        found = update(self, top, options)
        log[-1].update(found=found, stalled=self.stalled)
        return found

    monkeypatch.setattr(GeneticSearch, "select", logged_select)
    monkeypatch.setattr(Stagnation, "update", logged_update)
    out = make_search(seed=3, k=5, patience=patience).run()
    generations = [g for g in log if "stalled" in g]  # the loop's selections (not polishing's)
    assert out.stop == "stagnated" and np.isfinite(out.score[0]) and len(generations) == out.generations
    limit = min(patience, geco.search.loop.SETTLED_PATIENCE)

    def stops(i, g):
        settled = g["converged"] and g["found"]
        return i + 1 >= 3 and g["stalled"] >= (limit if settled else patience)

    assert [stops(i, g) for i, g in enumerate(generations)] == [False] * (out.generations - 1) + [True]
    last = generations[-1]
    assert last["converged"] and limit <= last["stalled"] and (patience == 1 or last["stalled"] < patience)


@pytest.mark.parametrize("k", [1, 2])
def test_candidates_out_of_reach_of_the_options_are_not_scored(monkeypatch, k):
    """a + b > 22 (x = 10 everywhere): once an option is archived, a generation scores no
    candidate out of reach (as far as REACH_SLACK times the k-th option, or REPEAT_SLACK times
    an option it repeats), a polishing round at k = 1 none as far as POLISH_REACH_SLACK times
    the option (at k = 2, as far as a generation's), but the sweep's children the bisection
    reads; and no parent out of reach is mutated (a mutant is farther than its parent and repeats
    what it repeats); the search still ends on the optimum, a or b moved to 13."""
    made, seen, polishing = [], [], []
    to_pool, mutation_parents, polish = GeneticSearch.to_pool, GeneticSearch.mutation_parents, GeneticSearch.polish

    def logged_to_pool(self, cands, population, reach=None, keep=None):
        pool = to_pool(self, cands, population, reach, keep)
        everything = to_pool(self, Candidates(cands.rows.copy(), cands.changed.copy()), population)
        made.append((reach, self.options(k)[0][k - 1], pool, everything, keep, bool(polishing)))
        return pool

    def logged_polish(self, population, step=0.0):
        polishing.append(True)
        try:
            return polish(self, population, step)
        finally:
            polishing.clear()

    def logged_parents(self, population, parents, parent_is_cf):
        kept = mutation_parents(self, population, parents, parent_is_cf)
        seen.append((self.reach, self.dist_spec(np.arange(G), kept.rows), kept.rows, key_words(kept.changed)))
        return kept

    monkeypatch.setattr(GeneticSearch, "to_pool", logged_to_pool)
    monkeypatch.setattr(GeneticSearch, "mutation_parents", logged_parents)
    monkeypatch.setattr(GeneticSearch, "polish", logged_polish)
    search = make_search(seed=0, k=k)
    out = search.run()
    bounded = [m for m in made if m[0] is not None and m[0].bounded]
    assert bounded, "no generation ran with an option archived"
    for reach, best, pool, everything, keep, in_polish in bounded:
        kept = reach.within(everything.dist, everything.rows, everything.words)
        if keep is not None:  # polishing keeps the sweep's children for the bisection
            kept |= np.isin(everything.hashes, keep)
        slack = geco.search.loop.POLISH_REACH_SLACK if in_polish and k == 1 else geco.search.loop.REACH_SLACK
        assert reach.kth == pytest.approx(slack * best)
        assert np.array_equal(np.sort(pool.hashes), np.sort(everything.hashes[kept]))  # the same, less those out of reach
    for polish_round in (False, True):
        mine = [m for m in bounded if m[5] == polish_round]
        assert any(not np.all(r.within(e.dist, e.rows, e.words)) for r, _, _, e, *_ in mine), f"polishing {polish_round}: nothing out of reach"
    assert any(keep is not None for *_, keep, _ in bounded), "no polishing round ran with an option archived"
    assert all(np.all(reach.within(d, r, w)) for reach, d, r, w in seen)
    best = X.copy()
    best[0] = 13.0
    assert out.dist[0] == pytest.approx(search.dist_spec(np.arange(G), best[None, :])[0])


def test_only_options_the_model_is_sure_to_accept_bound_the_reach(monkeypatch):
    """An engine without an error bound (whose options the model may refuse) bounds nothing: the
    run scores what it makes; one whose bound keeps every option clear of the threshold bounds
    as an exact one does."""
    reaches = []
    to_pool = GeneticSearch.to_pool

    def logged(self, cands, population, reach=None, keep=None):
        reaches.append(reach)
        return to_pool(self, cands, population, reach, keep)

    monkeypatch.setattr(GeneticSearch, "to_pool", logged)
    exact = make_search(seed=0, k=1)
    exact.run()
    bounded = [r for r in reaches if r is not None and r.bounded]
    assert bounded
    reaches.clear()
    unbound = make_search(seed=0, k=1)
    unbound.error_bound = lambda rows: np.full(len(rows), np.inf)
    out = unbound.run()
    assert reaches and all(r is None or not r.bounded for r in reaches)
    assert np.isfinite(out.dist[0])
    reaches.clear()
    tight = make_search(seed=0, k=1)
    tight.error_bound = lambda rows: np.zeros(len(rows))
    tight.run()
    again = [r for r in reaches if r is not None and r.bounded]
    assert [r.kth for r in again] == [r.kth for r in bounded]
