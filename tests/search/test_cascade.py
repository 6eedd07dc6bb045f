"""The action cascade: implications repaired in order, a row no value repairs dropped, and a row
whose later repair re-broke an earlier implication dropped and counted, exactly as a cascade that
checks every row again would (the cascade reads only the repaired rows again); the numpy
cascade and the compiled one (rule programs run by geco.search.kernels) alike."""

import numpy as np
import pandas as pd
import pytest

import plaf_grammar
from geco.problem.distance import DistanceSpec
from geco.problem.feasible_space import feasible_space, group_domains, implication_spaces
from geco.search import kernels
from geco.search.operators import Context, action_cascade, cascade_in_place
from geco.search.population import Candidates
from geco.search.sampling import sample_with_replacement

NAMES = ["a", "b", "c", "d"]
# two implications on the same consequence group: repairing the second can break the first;
# the third has no value satisfying it once d is above 8
RULES = """
if cf.a > x.a then cf.b >= x.b + 2
if cf.c > x.c then cf.b <= x.b
if cf.d > 8 then cf.a > 100
"""


def _context(seed):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 10, size=(2000, 4)).astype(float), columns=NAMES)
    checked = plaf_grammar.load(RULES, X)
    x = np.array([4.0, 4.0, 4.0, 4.0])
    grounded = checked.ground(pd.Series(x, index=NAMES))
    spec = DistanceSpec(x, np.full(4, 10.0), np.zeros(4, dtype=bool))
    spaces = feasible_space(group_domains([(n,) for n in NAMES], NAMES, X.to_numpy()), x, grounded.group_filters, spec)
    imps = list(grounded.implications)
    return Context(x, tuple(NAMES), spaces, np.arange(4), imps, implication_spaces(spaces, imps), [],
                   np.random.default_rng(seed))  # fmt: skip


def _checking_every_row(ctx, rows, changed):
    """The cascade as specified, every row checked again at the end."""
    alive = np.ones(len(rows), dtype=bool)
    rejected = {}
    cols = lambda: ctx.columns(rows)  # noqa: E731
    for i, (imp, space) in enumerate(zip(ctx.implications, ctx.implication_spaces)):
        bad = alive & imp.condition(cols()) & ~imp.consequence(cols())
        if not bad.any():
            continue
        if len(space) == 0:
            rejected[("implication", i)] = rejected.get(("implication", i), 0) + int(bad.sum())
            alive &= ~bad
            continue
        who = np.flatnonzero(bad)
        pick = sample_with_replacement(ctx.rng, space.cumulative, len(who))
        rows[np.ix_(who, space.features)] = space.values[pick]
        changed[who, imp.group] = True
    for i, imp in enumerate(ctx.implications):
        broken = alive & imp.condition(cols()) & ~imp.consequence(cols())
        rejected[("implication", i)] = rejected.get(("implication", i), 0) + int(broken.sum())
        alive &= ~broken
    return rows[alive], changed[alive], rejected


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_cascade_equals_checking_every_row_again(seed, compiled):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, 10, size=(3000, 4)).astype(float)
    changed = rows != 4.0
    ref_ctx, ctx = _context(seed), _context(seed)
    ctx.kernels = kernels if compiled else None
    assert [len(s) for s in ctx.implication_spaces].count(0) == 1
    ref = _checking_every_row(ref_ctx, rows.copy(), changed.copy())
    got = action_cascade(ctx, Candidates(rows.copy(), changed.copy()))
    assert np.array_equal(got.rows, ref[0]) and np.array_equal(got.changed, ref[1])
    assert list(ctx.rejected.items()) == list(ref[2].items())
    assert np.array_equal(ctx.rng.random(3), ref_ctx.rng.random(3))
    # every kind of drop happened: no value to repair with, and a repair re-breaking a rule
    on_a = [i for i, imp in enumerate(ctx.implications) if imp.consequence.features == ("a",)]
    assert len(on_a) == 1 and ctx.rejected[("implication", on_a[0])] > 0
    assert sum(n for (_, i), n in ctx.rejected.items() if i != on_a[0]) > 0
    for imp in ctx.implications:
        cols = ctx.columns(got.rows)
        assert not (imp.condition(cols) & ~imp.consequence(cols)).any()


def test_the_compiled_cascade_repairs_in_place_and_leaves_dropped_rows_to_the_caller():
    """In place: the survivors' rows are what the numpy cascade returns; the dropped rows stay,
    marked, and nothing else (draws, counts) differs."""
    rng = np.random.default_rng(5)
    rows = rng.integers(0, 10, size=(500, 4)).astype(float)
    changed = rows != 4.0
    ref_ctx, ctx = _context(5), _context(5)
    ctx.kernels = kernels
    ref = action_cascade(ref_ctx, Candidates(rows.copy(), changed.copy()))
    mine = Candidates(rows.copy(), changed.copy())
    alive = cascade_in_place(ctx, mine)
    assert alive.dtype == bool and 0 < alive.sum() < len(rows)
    assert np.array_equal(mine.rows[alive], ref.rows) and np.array_equal(mine.changed[alive], ref.changed)
    assert list(ctx.rejected.items()) == list(ref_ctx.rejected.items())
    assert ctx.rng.bit_generator.state == ref_ctx.rng.bit_generator.state


def test_no_candidates_count_nothing_in_either_cascade():
    """No rows: neither cascade draws or counts anything (no zero counts appear either)."""
    for compiled in (False, True):
        ctx = _context(0)
        ctx.kernels = kernels if compiled else None
        none = Candidates(np.zeros((0, 4)), np.zeros((0, 4), dtype=bool))
        state = ctx.rng.bit_generator.state
        assert len(action_cascade(ctx, none)) == 0 and cascade_in_place(ctx, none).shape == (0,)
        assert ctx.rejected == {} and ctx.rng.bit_generator.state == state
