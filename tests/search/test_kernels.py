"""The compiled kernels (geco.search.kernels) against the numpy reference: on the same problems
and draws, the same children, pools (hashes, distances, keys), scores, selections, archive and
random stream, generation by generation, and the same explanations; and each kernel alone on
random inputs, priced distances included."""

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from sklearn.ensemble import RandomForestClassifier

import geco
from geco.datasets import load_dataset
from geco.models import one_hot_pipeline
from geco.problem.distance import DistanceSpec
from geco.problem.feasible_space import feasible_space, group_domains
from geco.problem.hashing import cell_hashes
from geco.problem.seed_index import CHANGES, NOT_AS_IS, Projection
from geco.search import kernels
from geco.search.archive import Archive
from geco.search.config import SearchConfig
from geco.search.loop import GeneticSearch, niche
from geco.search.operators import (
    Context,
    action_cascade,
    group_distances,
    mutation,
    selective_mutation,
)
from geco.search.population import Candidates, Pool, block_starts, key_order, key_words, words_keys
from geco.search.stacked import StackedSpaces
from geco.search.start import context, seed_candidates
from geco.search.trade import concentrate, step_in, sweep_grid, trade
from plaf_grammar import FeatureCosts

# adult.plaf's rules plus a cost and a rule tying two groups (a cross rule the cascade repairs)
ADULT_EXTRA = "\ncost up hours_per_week 2\ncf.hours_per_week >= cf.age - 30\n"
TIE = "abs(cf.a - cf.b) <= 0.011"


def _tied_proba(frame: pd.DataFrame) -> np.ndarray:
    a, b, c = (frame[n].to_numpy() for n in "abc")
    p = 0.1 + 0.2 * (a >= 0.7) + 0.2 * (b >= 0.7) + 0.2 * (c >= 0.6)
    return np.column_stack([1 - p, p])


def _forest(X, y):
    return one_hot_pipeline(
        X, RandomForestClassifier(30, max_depth=8, random_state=0, n_jobs=1)
    ).fit(X, y)


def _boosted(X, y):
    model = xgb.XGBClassifier(n_estimators=40, max_depth=4, n_jobs=1, random_state=0)
    return one_hot_pipeline(X, model).fit(X, y)


def _bundled(name, fit, extra=""):
    ds = load_dataset(name)
    X, y = ds.X.iloc[:4000], ds.y.iloc[:4000]
    model = fit(X, y)
    constraints = (
        ds.constraints.read_text() + extra
        if hasattr(ds.constraints, "read_text")
        else ds.constraints
    )
    explainer = geco.Explainer(model, X, constraints)
    rows = np.flatnonzero(model.predict_proba(X)[:, 1] < 0.5)[:3]
    return explainer, [X.iloc[[r]] for r in rows]


def _tied():
    rng = np.random.default_rng(7)
    grid = np.round(np.arange(0, 1.0001, 0.02), 2)
    X = pd.DataFrame(rng.choice(grid, size=(2000, 5)), columns=list("abcde"))
    x = pd.DataFrame([[0.3, 0.3, 0.3, 0.5, 0.5]], columns=list("abcde"))
    return geco.Explainer(_tied_proba, X, TIE), [x]


CASES = {
    "adult-rf-plaf": lambda: _bundled("adult", _forest),
    "adult-rf-cost-tie": lambda: _bundled("adult", _forest, ADULT_EXTRA),
    "credit-xgb-plaf": lambda: _bundled("credit", _boosted),
    "compas-rf-plaf": lambda: _bundled("compas", _forest),
    "tied-groups": _tied,
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    return CASES[request.param]()


def _search(problem, config, seed, native):
    ctx = context(problem, np.random.default_rng(seed))
    config = SearchConfig(**{**config.__dict__, "native": native})
    seeds = seed_candidates(problem, ctx, config)
    scorer = problem.setting.scorer
    return GeneticSearch(ctx, problem.scorer, problem.distance, config, problem.required, seeds,
                         scorer.merge_below, scorer.merge_min_blocks)  # fmt: skip


def _same(a, b, what):
    """Equal arrays (or dataclasses of arrays, or tuples of them), bit for bit."""
    if hasattr(a, "__dataclass_fields__"):
        for name in a.__dataclass_fields__:
            _same(getattr(a, name), getattr(b, name), f"{what}.{name}")
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), what
        for i, (u, v) in enumerate(zip(a, b)):
            _same(u, v, f"{what}[{i}]")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, what
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), what
    else:
        assert a == b, what


def _archive(search):
    """The archive's state: keys, fields, its rows whole and as stored (cells and where each slot's start)."""
    a = search.archive
    cells = a.row_cells
    return (
        list(a.keys),
        a.rows_of(np.arange(a.n)),
        cells.values[: cells.top],
        cells.offsets[: a.n],
        a.changed_of(np.arange(a.n)),
        *(getattr(a, f)[: a.n] for f in ("words", "hashes", "prob", "dist", "score")),
    )


def test_generations_match_the_reference_phase_by_phase(case):
    """Both paths in lockstep: after every phase the same output and the same random state."""
    explainer, rows = case
    for i, x in enumerate(rows):
        problem = explainer.problem(x)
        ref, nat = (_search(problem, explainer.config, 100 + i, native) for native in (False, True))
        assert ref.kernels is None and nat.kernels is kernels
        pops = []
        for s in (ref, nat):
            first = s.to_pool(s.initial_population(), s.empty())
            pops.append(s.select(s.empty(), s.evaluate(first))[0])
        _same(*pops, "initial population")
        growth = 1
        for gen in range(6):
            step = []
            for s, pop in zip((ref, nat), pops):
                cands = s.breed(pop, growth)
                new = s.evaluate(s.to_pool(cands, pop))
                selected, converged = s.select(pop, new)
                kept, options = s.keep_options(selected)
                polish = s.polish_candidates(kept)[0] if len(s.archive) else None
                step.append((cands, new, selected, converged, kept, options, polish, _archive(s),
                             s.ctx.rng.bit_generator.state, dict(s.ctx.rejected)))  # fmt: skip
            for name, u, v in zip(("children", "pool", "selection", "converged", "kept", "options", "polish",
                                   "archive", "rng", "rejected"), *step):  # fmt: skip
                _same(u, v, f"row {i} generation {gen}: {name}")
            pops = [step[0][4], step[1][4]]
            growth = 2 if gen == 3 else 1  # a restart's growth once


def test_mutants_left_out_are_out_of_reach_after_the_cascade(case):
    """Mutation's children are left out before the cascade (``GeneticSearch.reachable``) by
    their distance over the cells the cascade never changes (the same bit for bit compiled or
    not): at most their distance once repaired, so only children the pool would drop after the
    cascade go; equal to their distance where they change no group the cascade may redraw."""
    explainer, rows = case
    checked = 0
    for i, x in enumerate(rows):
        problem = explainer.problem(x)
        ref, nat = (_search(problem, explainer.config, 200 + i, native) for native in (False, True))
        pop = ref.select(ref.empty(), ref.evaluate(ref.to_pool(ref.initial_population(), ref.empty())))[0]
        for _ in range(3):
            pop = ref.keep_options(ref.select(pop, ref.evaluate(ref.to_pool(ref.breed(pop, 1), pop, ref.reach)))[0])[0]
        mutants = mutation(ref.ctx, ref.mutation_parents(pop, *ref.best_per_delta(pop)), 5, 8)
        floor = ref.cascade_floor(mutants)
        _same(nat.cascade_floor(mutants), floor, f"row {i}: the floor, compiled")
        spec, gof = ref.dist_spec, ref.ctx.group_of_feature

        def distances(c, spec=spec, gof=gof):
            r, _, _, diff = spec.cells(c.rows, c.changed[:, gof])
            return spec.of_cells(r, diff, len(c))

        tied = np.unique(gof[~ref.ctx.cascade_free])
        untouched = ~mutants.changed[:, tied].any(axis=1)
        _same(floor[untouched], distances(mutants.take(np.flatnonzero(untouched))), f"row {i}: nothing to repair")
        for j in np.flatnonzero(~untouched):  # one at a time: which child each repaired row is
            one = mutants.take(np.array([j]))
            repaired = action_cascade(ref.ctx, Candidates(one.rows.copy(), one.changed.copy()))
            if len(repaired):
                assert floor[j] <= distances(repaired)[0], f"row {i}: a floor above the repaired distance"
        checked += int((~untouched).sum())
    if ref.ctx.implications or ref.ctx.ties:
        assert checked > 0  # children the rules' repairs change were met


def test_explanations_match_the_reference(case):
    explainer, rows = case
    for i, x in enumerate(rows):
        ref = explainer.explain(x, random_state=i, native=False)
        nat = explainer.explain(x, random_state=i, native=True)
        pd.testing.assert_frame_equal(ref.counterfactuals, nat.counterfactuals)
        for key in ("candidates_scored", "generations", "polish_rounds", "restarts", "stop"):
            assert ref.stats[key] == nat.stats[key], key


def test_seed_rows_passes_equal_the_reference(case):
    """The desired rows' status bits, additive sums, tight bounds (with and without groups left
    out) and projected rows in compiled passes equal the group by group numpy passes (the same
    sums in the same order)."""
    explainer, rows = case
    setting = explainer.setting
    desired = SearchConfig().goal.meets(setting.seed_pool.proba)
    for x in rows:
        problem = explainer.problem(x)
        ctx = context(problem, np.random.default_rng(0))
        both = [Projection(setting.seed_index(desired), setting.domains, ctx.spaces, ctx.x, problem.required,
                           problem.reported_distance, setting.one_feature_domains(), k) for k in (None, kernels)]  # fmt: skip
        ref, got = both
        assert len(ref.index) > 0
        _same(got.status_and_sums(), ref.status_and_sums(), "status and sums")
        idx = np.random.default_rng(1).permutation(len(ref.index))[: max(1, len(ref.index) // 3)]
        for skip in ((), (0,), tuple(range(1, len(ref.index.codes), 2))):
            _same(got.tight_bounds(idx, skip), ref.tight_bounds(idx, skip), f"tight bounds, skipping {skip}")
        _same(got.rows(idx), ref.rows(idx), "projected rows")
        _same(got.rows(idx[:0]), ref.rows(idx[:0]), "no rows")
        # the seeds' classes, bounds and sums in one pass equal numpy's passes, the implications
        # read from per-tuple tables or given as each row's first broken rule
        status, sums = ref.status_and_sums()
        first = np.full(len(ref.index), -1, dtype=np.intp)
        for i, imp in enumerate(ctx.implications):
            first[ref.holds(imp.condition, ctx.names) & ~ref.holds(imp.consequence, ctx.names) & (first < 0)] = i
        for rule in ctx.cross_rules:
            first[~ref.holds(rule, ctx.names) & (first < 0)] = len(ctx.implications)
        as_is = ((status & NOT_AS_IS) == 0) & (first < 0)
        proven, moved = np.flatnonzero(as_is), np.flatnonzero(~as_is & ((status & CHANGES) != 0))
        lower = ref.lower_bounds(sums)
        want = (proven, lower[proven], moved, first[moved], lower[moved], sums)
        _same(got.classify(ctx.implications, ctx.cross_rules, ctx.names, lambda f=first: f), want, "classes")
        given = kernels.classify_rows(ref.index.codes, ref.status, ref.additive, ref.linf, ref.spec.weights[3],
                                      1.0 - 1e-9, np.zeros((0, 1), dtype=bool), np.zeros(0, dtype=np.intp), first,
                                      NOT_AS_IS, CHANGES)  # fmt: skip
        _same(given, want, "classes from the first broken rules")


@pytest.mark.parametrize(("n_groups", "code_type"), [(5, np.uint16), (5, np.int32), (70, np.uint16), (70, np.int32)])
def test_row_tables_equal_group_by_group_sums(n_groups, code_type):
    """Row by row (few groups) or group by group (many: past ROW_BY_ROW_GROUPS), the pass gives
    numpy's group-by-group OR, sums in group order and largest value (a NaN wins), on codes of
    either width the index stores."""
    from geco.search.kernels.seeds import ROW_BY_ROW_GROUPS

    assert (n_groups > ROW_BY_ROW_GROUPS) == (n_groups == 70)
    rng = np.random.default_rng(n_groups)
    T, N = 300, 2000
    codes = rng.integers(0, T, (n_groups, N)).astype(code_type)
    status = rng.integers(0, 4, T).astype(np.uint8)
    additive, linf = rng.random(T) * 10 ** rng.uniform(-3, 3, T), rng.random(T)
    linf[rng.integers(0, T, 3)] = np.nan
    want_status, want_total, want_top = np.zeros(N, dtype=np.uint8), np.zeros(N), np.zeros(N)
    for g in range(n_groups):
        want_status |= status[codes[g]]
        want_total += additive[codes[g]]
        want_top = np.maximum(want_top, linf[codes[g]])
    got = kernels.row_tables(codes, status, additive, linf)
    for a, b in zip(got, (want_status, want_total, want_top)):
        np.testing.assert_array_equal(a, b)
    # the seeds' one-pass classification reads the same sums (row by row, or swept by group)
    first = rng.integers(-1, 3, N).astype(np.intp)
    as_is = ((want_status & 1) == 0) & (first < 0)
    proven, moved = np.flatnonzero(as_is), np.flatnonzero(~as_is & ((want_status & 2) != 0))
    lower = (want_total + 0.5 * want_top) * (1.0 - 1e-9)
    none = np.zeros((0, T), dtype=bool), np.zeros(0, dtype=np.intp)
    got = kernels.classify_rows(codes, status, additive, linf, 0.5, 1.0 - 1e-9, *none, first, 1, 2)
    want = (proven, lower[proven], moved, first[moved], lower[moved], np.column_stack((want_total, want_top)))
    _same(got, want, "classes")
    # and the tight sums over some rows, some groups left out: the same sums in group order
    idx, skip = np.sort(rng.choice(N, N // 3, replace=False)), rng.random(n_groups) < 0.2
    terms = (additive, rng.random(T), linf)
    want = [np.zeros(len(idx)) for _ in range(3)]
    for g in np.flatnonzero(~skip):
        want[0] += terms[0][codes[g, idx]]
        want[1] += terms[1][codes[g, idx]]
        want[2] = np.maximum(want[2], terms[2][codes[g, idx]])
    _same(kernels.tight_sums(codes, idx, skip, terms), tuple(want), "tight sums")


@pytest.mark.parametrize("n_groups", [12, 70])
def test_archive_options_equal_the_reference(n_groups):
    """The compiled greedy pick of distinct options equals the numpy one chunk by chunk: an
    archive where supersets of a few best Δ fill the first chunks (the pick must widen), ties
    in the scores, keys of one and of two words."""
    rng = np.random.default_rng(n_groups)
    n = 3000
    changed = rng.random((n, n_groups)) < 0.1
    changed[: n // 2, :3] = True  # supersets of one another's first groups
    changed = changed[np.sort(np.unique(changed, axis=0, return_index=True)[1])]  # distinct Δ, as offered
    n = len(changed)
    score = np.round(rng.random(n), 2) + changed.sum(axis=1) * 0.001
    score[: n // 2] -= 1.0
    archives = [Archive(1, n_groups, k) for k in (None, kernels)]
    for a in archives:
        a.offer(np.zeros((n, 1)), changed, np.arange(n, dtype=np.uint64), score, score, score)
    assert archives[1].keys == archives[0].keys and archives[1].slot == archives[0].slot
    for count in (1, 3, 10, 40):
        ref, got = (a.options(count) for a in archives)
        _same(got[0], ref[0], f"scores, count {count}")
        assert got[1] == ref[1], count
    assert len(ref[1]) >= 2


@pytest.mark.parametrize("n_groups", [10, 70])
@pytest.mark.parametrize("stored", ["whole", "cells"])
def test_archive_offer_of_each_blocks_best_equals_the_reference(n_groups, stored):
    """Pools of many Δ offered in turn (repeated Δ across offers, ties, rows that miss the
    target, infinite scores, an index, arrays and cells that must grow): the compiled one-pass
    offer keeps the slots, keys and rows of the numpy offer of each block's best, and reads
    back the rows offered. As cells (rows x outside their changed groups' columns) it stores
    the same cells at the same offsets, the changed columns only."""
    rng = np.random.default_rng(n_groups)
    d = 2 * n_groups + 3
    x, gof = rng.normal(size=d), np.sort(rng.integers(0, n_groups, d))
    where = (x, gof) if stored == "cells" else ()
    archives = [Archive(d, n_groups, k, *where) for k in (None, kernels)]
    best = {}
    for _ in range(6):
        n = 400
        changed = rng.random((n, n_groups)) < 3 / n_groups
        words = key_words(changed)
        order = key_order(words)
        changed, words = changed[order], words[order]
        rows = rng.integers(0, 9, (n, d)).astype(float)
        if stored == "cells":  # x outside each row's changed groups' columns
            rows = np.where(changed[:, gof], rows, x)
        score = rng.integers(0, 20, n) / 10
        score[rng.random(n) < 0.05] = np.inf
        ok = rng.random(n) < 0.6
        pool = Pool(rows, changed, words, rng.integers(0, 2**63, n).astype(np.uint64), rng.random(n), score, score,
                    np.zeros(n, dtype=bool))  # fmt: skip
        for a in archives:
            a.offer_best(pool, block_starts(words), ok)
        assert archives[1].keys == archives[0].keys
        _same(archives[1].pool(), archives[0].pool(), "archived rows")
        for i, key in enumerate(words_keys(words)):
            if ok[i] and score[i] < np.inf and (key not in best or score[i] < best[key][1]):
                best[key] = (rows[i], score[i])
    ref = archives[0]
    assert len(ref) > 64
    for a in archives:
        rows = a.rows_of(np.arange(len(a)))
        for slot, key in enumerate(a.keys):
            np.testing.assert_array_equal(rows[slot], best[key][0])
    cells = [(a.row_cells.values[: a.row_cells.top], a.row_cells.offsets[: len(a)]) for a in archives]
    _same(cells[1], cells[0], "cells and offsets")
    per_row = ref.changed_of(np.arange(len(ref)))[:, gof].sum() if stored == "cells" else len(ref) * d
    assert ref.row_cells.top == per_row


@pytest.mark.parametrize("n_groups", [10, 70, 130])
def test_absent_finds_the_archived_delta_a_pool_lacks(n_groups):
    """Binary search of archived keys among a pool's blocks (keys of one, two and three words;
    keys before the first block, after the last, and between)."""
    rng = np.random.default_rng(n_groups)
    changed = rng.random((300, n_groups)) < 2 / n_groups
    words = key_words(changed)
    words = words[key_order(words)]
    starts = block_starts(words)
    archived = key_words(rng.random((80, n_groups)) < 2 / n_groups)
    archived[:20] = words[rng.choice(starts, 20)]  # some present
    slots = rng.permutation(80)
    present = set(words_keys(words))
    want = np.array([key not in present for key in words_keys(archived[slots])])
    _same(kernels.absent(words, starts, archived, slots), want, "absent")
    assert want.any() and not want.all()
    assert kernels.absent(words[:0], starts[:0], archived, slots).all()




# --------------------------------------------------------------------------- kernels alone


def _spec(rng, d, priced):
    x = rng.integers(0, 6, d).astype(float)
    categorical = rng.random(d) < 0.3
    costs = None
    if priced:
        names = tuple(f"f{j}" for j in range(d))
        costs = FeatureCosts(
            names, tuple(rng.uniform(0.2, 1, d)), tuple(rng.uniform(0.2, 1, d)), ()
        )
    return DistanceSpec(x, rng.uniform(1, 9, d), categorical, (0.1, 0.2, 0.3, 0.4), costs)


def _candidates(rng, x, n, gof, G):
    changed = rng.random((n, G)) < 0.3
    rows = np.tile(x, (n, 1))
    mask = changed[:, gof]
    rows[mask] = rng.integers(0, 6, int(mask.sum())) * 1.0
    rows[n // 2 :] = rows[: n - n // 2]  # duplicates
    changed[n // 2 :] = changed[: n - n // 2]
    return rows, changed


@pytest.mark.parametrize(("priced", "G", "interleaved"), [(False, 7, False), (True, 7, False), (False, 70, False),
                                                           (True, 7, True), (False, 70, True)])  # fmt: skip
def test_new_rows_equal_hashes_distances_and_first_rows(priced, G, interleaved):
    """``interleaved``: groups whose columns interleave (the kernel lists a row's cells group by
    group and must sum them in column order, as the reference does)."""
    rng = np.random.default_rng(G + priced)
    d = G + 3
    gof = np.sort(np.concatenate([np.arange(G), rng.integers(0, G, 3)])).astype(np.intp)
    if interleaved:
        gof = rng.permutation(gof)
    spec = _spec(rng, d, priced)
    rows, changed = _candidates(rng, spec.x, 600, gof, G)
    # -0.0 in changed cells: the same hash as 0.0 (rows 1 and 2 are one row to the dedupe)
    rows[2] = rows[1]
    changed[2] = changed[1]
    col = int(np.flatnonzero(changed[1, gof])[0])
    rows[1, col], rows[2, col] = 0.0, -0.0
    r, c, v, diff = spec.cells(rows, changed[:, gof])
    hashes = cell_hashes(r, c, v, len(rows))
    assert hashes[1] == hashes[2]
    old = hashes[rng.integers(0, len(rows), 40)]
    _, first = np.unique(np.concatenate([old, hashes]), return_index=True)
    first = np.sort(first[first >= len(old)] - len(old))
    got = kernels.new_rows(rows, changed, gof, spec.cell_terms(), old)
    _same(got[0], hashes, "hashes")
    _same(got[1], spec.of_cells(r, diff, len(rows)), "distances")
    _same(got[2], first, "first rows")
    words = np.zeros((len(rows), max(1, -(-G // 64))), dtype=np.uint64)
    for j in range(G):
        words[changed[:, j], j // 64] |= np.uint64(1) << np.uint64(j % 64)
    _same(got[3], words, "key words")
    # rows the cascade dropped in place: the first rows of those alive, as if the others were gone
    alive = rng.random(len(rows)) < 0.7
    alive[1], alive[2] = False, True  # the duplicate's first occurrence gone: row 2 is first now
    live = np.flatnonzero(alive)
    _, first_live = np.unique(np.concatenate([old, hashes[live]]), return_index=True)
    want = live[np.sort(first_live[first_live >= len(old)] - len(old))]
    assert 2 in want
    _same(kernels.new_rows(rows, changed, gof, spec.cell_terms(), old, alive)[2], want, "first rows alive")


@pytest.mark.parametrize("priced", [False, True])
def test_group_distances_equal_the_reference(priced):
    rng = np.random.default_rng(3 + priced)
    G, d = 6, 9
    gof = np.array([0, 0, 1, 2, 2, 2, 3, 4, 5], dtype=np.intp)
    spec = _spec(rng, d, priced)
    rows, changed = _candidates(rng, spec.x, 300, gof, G)
    ctx = Context(spec.x, tuple(f"f{j}" for j in range(d)), [None] * G, gof, [], [], [], rng)
    expected = group_distances(ctx, rows, changed, spec)
    ctx.kernels = kernels
    _same(group_distances(ctx, rows, changed, spec), expected, "group distances")


@pytest.mark.parametrize(("priced", "weights"), [(False, (0.1, 0.2, 0.3, 0.4)), (True, (0.1, 0.2, 0.3, 0.4)),
                                                  (False, (0.0, 1.0, 0.0, 0.5)), (True, (0.5, 0.0, 0.5, 0.0))])  # fmt: skip
def test_row_distances_equal_the_reference(priced, weights):
    """Full rows differing from x anywhere (not only in a Δ), categorical columns among them,
    weights at 0 and not: the distances ``DistanceSpec`` gives, bit for bit."""
    rng = np.random.default_rng(9 + priced)
    d = 11
    base = _spec(rng, d, priced)
    spec = DistanceSpec(base.x, base.ranges, base.categorical, weights, base.costs if priced else None)
    rows = np.tile(spec.x, (500, 1))
    moved = rng.random(rows.shape) < 0.4
    rows[moved] = rng.integers(0, 6, int(moved.sum())) + rng.choice([0.0, 0.25], int(moved.sum()))
    rows[:, spec.categorical] = np.round(rows[:, spec.categorical])
    _same(kernels.row_distances(rows, spec.cell_terms()), spec(np.arange(d), rows), "distances")


def test_smallest_keys_equal_numpy_ranks():
    rng = np.random.default_rng(5)
    allowed = rng.random((400, 20)) < 0.5
    keys = rng.random(allowed.shape)
    for count in (1, 3, 8, 25):
        ranked = np.where(allowed, keys, np.inf)
        expected = allowed & (np.argsort(np.argsort(ranked, axis=1), axis=1) < count)
        _same(kernels.smallest(keys, allowed, count), expected, f"count {count}")


def test_by_keys_equal_numpy_partition():
    rng = np.random.default_rng(6)
    weights = rng.uniform(0.1, 3, 500)
    start = rng.integers(0, 300, 200)
    lim = rng.integers(6, 200, 200)
    exp = rng.standard_exponential((200, int(lim.max())))
    cols = np.arange(exp.shape[1])
    inside = cols[None, :] < lim[:, None]
    keys = np.where(inside, exp / weights[np.where(inside, start[:, None] + cols, 0)], np.inf)
    for m in (1, 5):
        expected = np.sort(np.argpartition(keys, m - 1, axis=1)[:, :m], axis=1)
        _same(kernels.by_keys(exp, weights, start, lim, m), expected, f"m {m}")


@pytest.mark.parametrize("m", [1, 3, 5])
@pytest.mark.parametrize("limited", [False, True])
def test_distinct_children_equal_the_reference(m, limited):
    """The compiled draws and children equal the numpy reference's, and leave the random stream
    where it leaves it: every path of the draws (whole prefixes, exponential keys, repeated
    draws, a dominating value whose repeats send long rows back to the keys), groups of one and
    of two features, parents changing other groups already."""
    rng = np.random.default_rng(8 + m + 10 * limited)
    spaces = _toy_spaces(rng)
    st = StackedSpaces.of(spaces)
    G = len(spaces)
    gof = np.array([int(np.flatnonzero([f in s.features for s in spaces])[0]) for f in range(5)], dtype=np.intp)
    x = np.zeros(5)
    parents_changed = rng.random((40, G)) < 0.3
    parents_rows = np.where(parents_changed[:, gof], rng.integers(1, 5, (40, 5)), x).astype(float)
    src = rng.integers(0, 40, 700)
    group = rng.integers(0, G, 700)
    limit = np.maximum(1, (rng.random(700) * st.size[group]).astype(np.intp)) if limited else None
    # the reference: StackedSpaces' draws, each valid one a copy of its parent with the value set
    ref_rng = np.random.default_rng(1)
    index, valid = st.draw_distinct(ref_rng, group, m, limit)
    who = np.repeat(np.arange(len(src)), index.shape[1])[valid.reshape(-1)]
    ref_rows, ref_changed = parents_rows[src[who]], parents_changed[src[who]]
    st.assign(ref_rows, np.arange(len(who)), group[who], index[valid])
    ref_changed[np.arange(len(who)), group[who]] = True
    rng_native = np.random.default_rng(1)
    lim = st.size[group] if limit is None else limit
    rows, changed = kernels.distinct_children(rng_native, parents_rows, parents_changed, src, group, m, lim, st)
    assert (lim <= m).any() and ((lim > m) & (lim < 32 * m)).any() and (lim >= 32 * m).any()
    _same(rows, ref_rows, "children's rows")
    _same(changed, ref_changed, "children's changed groups")
    _same(rng_native.random(3), ref_rng.random(3), "the random stream after the draws")


def test_distinct_children_of_no_pairs():
    spaces = _toy_spaces(np.random.default_rng(2))
    st = StackedSpaces.of(spaces)
    rows, changed = kernels.distinct_children(
        np.random.default_rng(0), np.zeros((3, 5)), np.zeros((3, len(spaces)), dtype=bool),
        np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp), 5, np.empty(0, dtype=np.intp), st,
    )  # fmt: skip
    assert rows.shape == (0, 5) and changed.shape == (0, len(spaces))


def _toy_spaces(rng):
    """Feasible spaces of groups of 1 to 2000 values (every draw path): four of one feature,
    one of two; the 2000-value group has a value holding most of the weight."""
    sizes = (2, 12, 60, 400, 2000)
    names = [f"f{i}" for i in range(len(sizes))]
    data = np.column_stack([rng.integers(0, s, 20000) for s in sizes]).astype(float)
    data[:18000, 3:] = 7.0  # dominating: repeated draws mostly repeat it
    x = np.zeros(len(sizes))
    groups = [("f0",), ("f1",), ("f2",), ("f3", "f4")]
    return feasible_space(group_domains(groups, names, data), x, [None] * len(groups), _toy_spec(x))


def _toy_spec(x):
    return DistanceSpec(x, np.array([2.0, 12, 60, 400, 2000]), np.array([True, False, False, False, False])).for_search()


def _operator_both_ways(operator, spaces, gof, x, rows, changed, seed):
    """``operator(ctx, parents)`` on the numpy reference and on the kernels, each from a
    generator seeded ``seed``: both paths' children, each with the next draws of its stream."""
    made = []
    for native in (False, True):
        ctx = Context(x, tuple(f"f{j}" for j in range(len(x))), spaces, gof, [], [], [], np.random.default_rng(seed))
        ctx.kernels = kernels if native else None
        made.append((operator(ctx, Candidates(rows.copy(), changed.copy())), ctx.rng.random(3)))
    return made


def _same_children(made, at_least):
    (ref, ref_next), (got, got_next) = made
    assert len(ref) > at_least
    _same(got.rows, ref.rows, "children's rows")
    _same(got.changed, ref.changed, "children's changed groups")
    _same(got_next, ref_next, "the random stream after the operator")


@pytest.mark.parametrize("breadth", [None, 1, 2])
def test_mutation_equals_the_reference(breadth):
    """Every open group of every parent (of ``breadth`` random ones), group by group: the
    compiled operator's children and random stream are the reference's; parents with no open
    group make none."""
    rng = np.random.default_rng(21 if breadth is None else 21 + breadth)
    spaces = _toy_spaces(rng)
    G = len(spaces)
    gof = np.array([0, 1, 2, 3, 3], dtype=np.intp)
    x = np.zeros(5)
    changed = rng.random((50, G)) < 0.4
    changed[:3] = True  # nothing left to change
    rows = np.where(changed[:, gof], 1.0, x)
    _same_children(_operator_both_ways(lambda ctx, p: mutation(ctx, p, 4, breadth), spaces, gof, x, rows, changed, 5), 100)
    none = _operator_both_ways(lambda ctx, p: mutation(ctx, p, 4, breadth), spaces, gof, x, rows[:3], changed[:3], 5)
    assert len(none[0][0]) == len(none[1][0]) == 0


@pytest.mark.parametrize(("breadth", "cf"), [(None, None), (1, "some"), (2, "all")])
def test_selective_mutation_equals_the_reference(breadth, cf):
    """Reverts, steps towards x, distinct draws closer than the parent and the resampled rows:
    the compiled operator's children and random stream are the reference's (parents changing
    one to four groups, some at x's own value)."""
    rng = np.random.default_rng(11 if breadth is None else breadth)
    spaces = _toy_spaces(rng)
    G = len(spaces)
    gof = np.array([0, 1, 2, 3, 3], dtype=np.intp)
    x = np.zeros(5)
    changed = rng.random((60, G)) < 0.6
    changed[0] = False  # a parent changing nothing makes nothing
    st = StackedSpaces.of(spaces)
    rows = np.tile(x, (60, 1))
    for i in range(60):
        for g in np.flatnonzero(changed[i]):
            st.assign(rows, np.array([i]), np.array([g]), rng.integers(0, st.size[g], 1))
    is_cf = {None: None, "some": rng.random(60) < 0.5, "all": np.ones(60, dtype=bool)}[cf]
    spec = _toy_spec(x)
    made = _operator_both_ways(lambda ctx, p: selective_mutation(ctx, p, spec, 3, is_cf, breadth), spaces, gof, x,
                               rows, changed, 4)  # fmt: skip
    _same_children(made, 200)


def _two_sided_spaces(rng):
    """Feasible spaces around an ``x`` inside the data's range: numeric groups with values on
    both sides of x (one with x at its bottom edge), a categorical one and one of two features
    (neither has sides), and one whose only value is x's (no space)."""
    names = ["a", "b", "c", "k", "m1", "m2", "z"]
    data = np.column_stack([
        rng.integers(0, 41, 6000), rng.integers(0, 300, 6000), rng.integers(10, 30, 6000), rng.integers(0, 5, 6000),
        rng.integers(0, 4, 6000), rng.integers(0, 3, 6000), np.full(6000, 2),
    ]).astype(float)  # fmt: skip
    x = np.array([20.0, 150.0, 10.0, 2.0, 1.0, 1.0, 2.0])
    categorical = np.array([False, False, False, True, False, False, False])
    spec = DistanceSpec(x, np.array([40.0, 300, 20, 5, 4, 3, 1]), categorical, (0, 1, 0, 0)).for_search()
    groups = [("a",), ("b",), ("c",), ("k",), ("m1", "m2"), ("z",)]
    spaces = feasible_space(group_domains(groups, names, data), x, [None] * len(groups), spec)
    return spaces, np.array([0, 1, 2, 3, 4, 4, 5], dtype=np.intp), x, spec


def _random_values(rng, st, x, changed):
    """Rows at ``x`` but for the groups ``changed`` marks, each at a random value of its space."""
    rows = np.tile(x, (len(changed), 1))
    for i in range(len(changed)):
        for g in np.flatnonzero(changed[i]):
            st.assign(rows, np.array([i]), np.array([g]), rng.integers(0, st.size[g], 1))
    return rows


@pytest.mark.parametrize(("seed", "per_parent"), [(0, 128), (1, 7), (2, 1)])
def test_trade_equals_the_reference(seed, per_parent):
    """Parents changing one to four groups on either side of x (some on x's own value): the
    compiled trade's children and random stream are the reference's, steps back to x and
    children whose far group has nowhere to go included."""
    rng = np.random.default_rng(seed)
    spaces, gof, x, spec = _two_sided_spaces(rng)
    G = len(spaces)
    st = StackedSpaces.of(spaces)
    assert st.size[-1] == 0 and (st.size[:-1] > 0).all()
    changed = rng.random((40, G)) < 0.45
    changed[:, -1] = False
    changed[~changed.any(axis=1), 0] = True
    rows = _random_values(rng, st, x, changed)
    made = _operator_both_ways(lambda ctx, p: trade(ctx, p, spec, per_parent), spaces, gof, x, rows, changed, seed)
    _same_children(made, 10 * per_parent)
    if per_parent == 128:  # children dropped (no room away), and moves on both sides of x
        ref = made[0][0]
        assert len(ref) < 40 * per_parent
        a = ref.rows[ref.changed[:, 0], 0]
        assert (a < x[0]).any() and (a > x[0]).any()


def _parents_one_beside_x(rng, n, share, fallback):
    """``n`` parents on :func:`_two_sided_spaces`, each group changed with probability
    ``share`` (group ``fallback`` where none is), at random values; the first changes group 0
    alone, on its value nearest x (a step towards x takes it back to x)."""
    spaces, gof, x, spec = _two_sided_spaces(rng)
    st = StackedSpaces.of(spaces)
    changed = rng.random((n, len(spaces))) < share
    changed[:, -1] = False
    changed[~changed.any(axis=1), fallback] = True
    rows = _random_values(rng, st, x, changed)
    nearest = int(np.argmin(np.abs(st.values[st.value_start[0] : st.value_start[0] + st.size[0]] - x[0])))
    changed[0] = False
    changed[0, 0] = True
    st.assign(rows, np.array([0]), np.array([0]), np.array([nearest]))
    return spaces, gof, x, spec, rows, changed


@pytest.mark.parametrize("seed", [0, 1])
def test_step_in_equals_the_reference(seed):
    """Parents changing one to four groups on either side of x, some a step from x's own
    value (back to it), one with no group left once stepped, and parents whose value is x's
    own in a changed group: the compiled step-in's children are the reference's, in its order."""
    spaces, gof, x, spec, rows, changed = _parents_one_beside_x(np.random.default_rng(seed), 40, 0.45, 0)
    made = _operator_both_ways(lambda ctx, p: step_in(ctx, p, spec), spaces, gof, x, rows, changed, seed)
    _same_children(made, 40)
    ref = made[0][0]
    assert len(ref) < int(changed.sum()) + len(changed)  # rows back at x everywhere were left out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sweep_grid_equals_the_reference(seed):
    """Parents changing one or two groups (and some more, left out) on either side of x, one
    on its value nearest x (no step kept): the compiled grid's stepped rows and children
    (stepped row, partner, side, rank) are the reference's, in its order."""
    spaces, gof, x, spec, rows, changed = _parents_one_beside_x(np.random.default_rng(seed), 12, 0.3, 1)
    grids = []
    for native in (False, True):
        ctx = Context(x, tuple(f"f{j}" for j in range(len(x))), spaces, gof, [], [], [], np.random.default_rng(seed))
        ctx.kernels = kernels if native else None
        grids.append(sweep_grid(ctx, Candidates(rows.copy(), changed.copy()), spec))
    ref, got = grids
    assert len(ref) > 50 and len(ref.stepped) > 5
    for field in ("stepped", "stepped_changed", "parent", "group", "side", "rank"):
        _same(getattr(got, field), getattr(ref, field), field)
    one = Candidates(rows[:1].copy(), changed[:1].copy())  # only a step back to x: no grid
    for native in (False, True):
        ctx = Context(x, tuple(f"f{j}" for j in range(len(x))), spaces, gof, [], [], [], np.random.default_rng(seed))
        ctx.kernels = kernels if native else None
        assert sweep_grid(ctx, one, spec) is None


@pytest.mark.parametrize(("seed", "per_parent"), [(3, 32), (4, 5)])
def test_concentrate_equals_the_reference(seed, per_parent):
    """Parents changing two to five groups on either side of x: the compiled concentration's
    children (the groups kept, the others back at x, the kept ones pushed beyond on their side)
    and random stream are the reference's."""
    rng = np.random.default_rng(seed)
    spaces, gof, x, spec = _two_sided_spaces(rng)
    G = len(spaces)
    st = StackedSpaces.of(spaces)
    changed = rng.random((40, G)) < 0.6
    changed[:, -1] = False
    changed[:4] = False
    changed[:4, :2] = True  # two groups: one is kept
    rows = _random_values(rng, st, x, changed)
    made = _operator_both_ways(lambda ctx, p: concentrate(ctx, p, spec, per_parent), spaces, gof, x, rows, changed, seed)
    _same_children(made, 5 * per_parent)
    ref = made[0][0]
    assert (ref.changed.sum(axis=1) < 4).all() and (ref.rows != np.tile(x, (len(ref), 1))).any()


@pytest.mark.parametrize(("q", "k", "n_words", "n", "nan"), [
    (4, 1, 1, 600, False), (20, 3, 1, 600, False), (100, 5, 1, 600, False), (20, 3, 2, 600, False),
    (100, 5, 1, 80, False), (100, 5, 1, 100, False), (1, 1, 1, 30, False), (20, 3, 1, 600, True),
])  # fmt: skip
def test_selection_equals_the_reference_on_many_deltas(q, k, n_words, n, nan):
    """Many Δ of a few rows each, ties in the scores (also at the q-th and k-th score): the top
    q, both niches and convergence (keys of one and of two 64-bit words; fewer rows than q;
    NaN scores, which sort last)."""
    rng = np.random.default_rng(q + n)
    words = rng.integers(0, 18, (n, n_words)).astype(np.uint64)
    words = words[key_order(words)]
    dist = rng.integers(0, 50, n) / 50
    scores = np.where(rng.random(n) < 0.5, dist, 1 + dist + rng.integers(0, 5, n) / 10)
    if nan:
        scores[rng.random(n) < 0.05] = np.nan
    estab = rng.random(n) < 0.9
    starts = block_starts(words)
    owner = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, n)))
    order = np.argsort(scores, kind="stable")
    keep = np.zeros(n, dtype=bool)
    keep[order[:q]] = True
    keep[niche(order, owner, len(starts), q, 2 * k, qualifies=scores == dist)] = True
    keep[niche(order, owner, len(starts), q, q // 4)] = True
    head = order[:k]
    converged = bool(np.all(estab[head]) and np.all(scores[head] == dist[head]))
    got, got_converged = kernels.selection(words, scores, dist, estab, q, k)
    _same(got, np.flatnonzero(keep), "kept rows")
    assert got_converged == converged
    estab[:] = True
    dist[order[:k]] = scores[order[:k]]
    assert kernels.selection(words, scores, dist, estab, q, k)[1]


@pytest.mark.parametrize(("q", "k", "n_words", "nan"), [(4, 1, 1, False), (100, 5, 1, False), (20, 3, 2, False),
                                                       (100, 5, 2, True)])  # fmt: skip
def test_select_pools_equals_merging_then_selecting(q, k, n_words, nan):
    """Two pools in key order (a population and new rows, Δ shared between them, ties in the
    scores): the one-call selection keeps, in order, the rows the merge, the selection and the
    gather give one after the other, all marked established; None (the caller's fallback)
    where a score is NaN."""
    rng = np.random.default_rng(q + n_words)
    pools = []
    for n in (90, 400):
        changed = rng.random((n, 70 if n_words == 2 else 12)) < 0.08
        words = key_words(changed)
        order = key_order(words)
        dist = rng.integers(0, 50, n) / 50
        score = np.where(rng.random(n) < 0.5, dist, 1 + dist + rng.integers(0, 5, n) / 10)
        pools.append(Pool(rng.random((n, 6))[order], changed[order], words[order], rng.integers(0, 2**63, n, dtype=np.uint64),
                          rng.random(n), dist[order], score[order], rng.random(n) < 0.8))  # fmt: skip
    a, b = pools
    if nan:
        b.score[3] = np.nan
        assert kernels.select_pools(a.fields(), b.fields(), q, k) is None
        return
    merged = kernels.merge_order(a.words, b.words)
    _same(merged, Pool.merge_order(a, b), "the merge")
    cat = lambda f: np.concatenate([getattr(a, f), getattr(b, f)])[merged]  # noqa: E731
    kept, converged = kernels.selection(cat("words"), cat("score"), cat("dist"), cat("established"), q, k)
    want = Pool.gather(a, b, merged[kept])
    got, got_converged = kernels.select_pools(a.fields(), b.fields(), q, k)
    assert len(want) > q and got_converged == converged
    for name, u, v in zip(("rows", "changed", "words", "hashes", "prob", "dist", "score"), want.fields(), got):
        _same(v, u, name)
    assert got[7].all()


@pytest.mark.parametrize("top", [1, 2, 5])
def test_block_best_equals_lexsort(top):
    rng = np.random.default_rng(top)
    n = 500
    owner = np.sort(rng.integers(0, 120, n))
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    score = rng.integers(0, 6, n) / 4  # many ties
    score[rng.random(n) < 0.2] = np.inf
    sizes = np.diff(np.append(starts, n))
    order = np.lexsort((score, np.repeat(np.arange(len(starts)), sizes)))
    expected = order[np.arange(n) - np.repeat(starts, sizes) < top]
    _same(kernels.block_best(starts, n, score, top), expected, f"top {top}")


@pytest.mark.parametrize("words", [1, 2])
def test_gather_equals_the_pools_gather(words):
    """The compiled gather: the rows ``idx`` of two pools' fields, as Pool.gather takes them."""
    rng = np.random.default_rng(words)
    G = 40 * words

    def pool(n):
        changed = rng.random((n, G)) < 0.2
        return Pool(rng.random((n, 7)), changed, key_words(changed), rng.integers(0, 2**63, n, dtype=np.uint64),
                    rng.random(n), rng.random(n), rng.random(n), rng.random(n) < 0.5)  # fmt: skip

    for na, nb in ((30, 50), (0, 20), (25, 0)):
        a, b = pool(na), pool(nb)
        for idx in (rng.permutation(na + nb)[: (na + nb) // 2], np.arange(na + nb)[::-1], np.zeros(0, dtype=np.intp)):
            ref = Pool.gather(a, b, idx)
            got = kernels.gather(a.fields(), b.fields(), idx)
            _same(tuple(got), ref.fields(), f"{na}+{nb} rows, {len(idx)} taken")


@pytest.mark.parametrize("n_groups", [12, 70])
def test_greedy_options_equal_the_distinct_picks_in_stable_order(n_groups):
    """The unsorted greedy (rounds of the lowest score left) picks what the greedy over the
    stable score order picks: ties to the lowest row, supersets of a pick dropped, fewer picks
    than asked when the distinct kinds of change run out."""
    rng = np.random.default_rng(n_groups)
    n = 2000
    changed = rng.random((n, n_groups)) < 0.15
    changed[: n // 2, :2] = True
    words = np.ascontiguousarray(key_words(changed))
    score = np.round(rng.random(n), 2)  # many ties
    score[: n // 2] -= 1.0
    for count in (1, 4, 10, 60, 5000):
        ref = kernels.distinct_options(np.argsort(score, kind="stable"), words, count)
        _same(kernels.greedy_options(score, words, count), ref, f"count {count}")
    assert len(kernels.greedy_options(score, words, 5000)) < 5000


@pytest.mark.parametrize("n_groups", [10, 100])
def test_merge_order_equals_the_stable_sort_of_both_pools(n_groups):
    """Two pools in key order merged by the kernel: the order the stable sort of their
    concatenated keys gives (the first pool's rows first among equal keys), empty pools too."""
    rng = np.random.default_rng(n_groups)
    for na, nb in ((40, 300), (0, 25), (25, 0), (200, 200)):
        ca, cb = (rng.random((n, n_groups)) < 0.05 for n in (na, nb))
        ca[: na // 2, 0] = cb[: nb // 2, 0] = True  # shared keys across the pools
        wa, wb = key_words(ca), key_words(cb)
        wa, wb = wa[key_order(wa)], wb[key_order(wb)]
        expected = key_order(np.concatenate([wa, wb]))
        _same(kernels.merge_order(wa, wb), expected, f"{na} + {nb} rows")


@pytest.mark.parametrize("gap", [0.1, 0.5])
def test_reach_within_equals_the_reference(gap):
    """The compiled reach test against Reach.within's numpy one, on random candidates and
    options (categorical columns, several key words, ties with the bounds included)."""
    from geco.search.reach import Reach

    rng = np.random.default_rng(3)
    d = 70
    x = rng.integers(0, 4, d).astype(float)
    ranges = rng.uniform(1.0, 5.0, d)
    categorical = rng.random(d) < 0.3
    for _ in range(30):
        n, m = 300, int(rng.integers(1, 6))
        rows = np.tile(x, (n, 1))
        moved = rng.random((n, d)) < 0.1
        rows[moved] = rng.integers(0, 4, int(moved.sum()))
        options = np.tile(x, (m, 1))
        moved = rng.random((m, d)) < 0.05
        options[moved] = rng.integers(0, 4, int(moved.sum()))
        col = rng.integers(0, d, m)  # an option changes something
        options[np.arange(m), col] = x[col] + 1
        rows[: 3 * m] = np.repeat(options, 3, axis=0)  # some candidates on an option, some past it
        rows[1 : 3 * m : 3, 0] = rng.integers(0, 4, m)
        dist = rng.choice([0.1, 0.2, 0.3, 0.4], n)
        bounds = rng.choice([0.1, 0.2, 0.3], m)
        kth = float(rng.choice([0.3, np.inf]))
        reach = Reach(kth, options, key_words(options != x), bounds, x, gap, ranges, categorical)
        want = reach.within(dist, rows, key_words(rows != x))
        assert 0 < want.sum() < n
        compiled = Reach(kth, options, key_words(options != x), bounds, x, gap, ranges, categorical, kernels)
        np.testing.assert_array_equal(compiled.within(dist, rows, key_words(rows != x)), want)
        at = rng.permutation(n)[: n // 2]  # rows read in place at ``at``, as the loop passes them
        sub = reach.within(dist[at], rows[at], key_words(rows[at] != x))
        np.testing.assert_array_equal(reach.within(dist[at], rows, key_words(rows[at] != x), at), sub)
        np.testing.assert_array_equal(compiled.within(dist[at], rows, key_words(rows[at] != x), at), sub)
