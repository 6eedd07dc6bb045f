"""The one-feature groups' feasible spaces computed in flat passes over all of them are the
spaces computed group by group: same values, weights, distances (bit for bit), order and flags,
on the bundled data with their rules, random rules, distance weights and costs."""

from itertools import pairwise

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier

import geco
from geco.problem.distance import DistanceSpec
from geco.problem.feasible_space import SingleDomains, feasible_space

FIELDS = ("features", "values", "weights", "cumulative", "distance", "domain_index")


def _assert_same(a, b, where):
    assert len(a) == len(b)
    for sa, sb in zip(a, b):
        assert (sa.index, sa.names, sa.whole_domain) == (sb.index, sb.names, sb.whole_domain), where
        for f in FIELDS:
            x, y = getattr(sa, f), getattr(sb, f)
            assert x.dtype == y.dtype and x.shape == y.shape, (where, sa.names, f)
            np.testing.assert_array_equal(x, y, err_msg=f"{where} {sa.names} {f}")


def _programs(ds):
    numeric = [c for c in ds.X.columns if ds.X[c].dtype.kind in "if" and ds.X[c].nunique() > 2]
    a, b = numeric[:2]
    qa = float(ds.X[a].quantile(0.6))
    return [
        ds.constraints,
        None,
        f"increasing {a}\ncf.{b} <= x.{b} + 1\ncost up {a} 2\ncost down {b} 0.5\n",
        f"group {a}, {b}\ncf.{a} >= {qa}\n",
        f"decreasing {b}\ncf.{a} != {float(ds.X[a].median())}\n",
    ]


def _explainers(name: str, rows: int):
    """(program, X, a black-box Explainer over X) for each of :func:`_programs`, on the first
    ``rows`` rows of a bundled dataset and a constant model."""
    ds = geco.datasets.load_dataset(name)
    X = ds.X.iloc[:rows]
    model = DummyClassifier(strategy="prior").fit(X, ds.y.iloc[:rows])
    for program in _programs(ds):
        yield program, X, geco.Explainer(model, X, program, engine="blackbox")


@pytest.mark.parametrize("name", ["adult", "credit", "compas"])
def test_flat_one_feature_spaces_are_the_per_group_ones(name):
    rng = np.random.default_rng(0)
    for program, X, ex in _explainers(name, 5000):
        singles, none = SingleDomains.of(ex.domains), SingleDomains.of([])
        assert len(singles.groups) > 0
        for r in rng.choice(len(X), 15, replace=False):
            x = ex.setting.instance(X.iloc[[int(r)]]).x
            grounded = ex.program.ground(x)
            for w in [(0.25, 0.25, 0.25, 0.25), (0.0, 1.0, 0.0, 0.0), (0.1, 0.2, 0.3, 0.4), (1.0, 0.0, 0.0, 0.0)]:
                spec = DistanceSpec(x, ex.ranges, ex.categorical, w, ex.program.costs).for_search()
                flat = feasible_space(ex.domains, x, grounded.group_filters, spec, singles)
                per_group = feasible_space(ex.domains, x, grounded.group_filters, spec, none)
                _assert_same(flat, per_group, f"{name} row {r} weights {w} program {program!r}")


@pytest.mark.parametrize("name", ["adult", "credit"])
def test_spaces_from_the_memo_are_the_spaces_computed_again(name):
    """Instances in a row (rows repeating their values, as a batch does; weights changing) take
    the spaces they share with earlier ones from the memo, the others computed in the flat
    passes over the groups left: the spaces computed from scratch, every field; the memo's arrays
    are read-only. Every program's memo hits and misses."""
    from geco.problem.feasible_space import SpaceMemo

    rng = np.random.default_rng(1)
    for program, X, ex in _explainers(name, 3000):
        singles, memo, hits = SingleDomains.of(ex.domains), SpaceMemo(), 0
        for r in rng.choice(len(X), 25):
            x = ex.setting.instance(X.iloc[[int(r)]]).x
            grounded = ex.program.ground(x)
            w = [(0.25, 0.25, 0.25, 0.25), (0.1, 0.2, 0.3, 0.4)][int(rng.integers(2))]
            spec = DistanceSpec(x, ex.ranges, ex.categorical, w, ex.program.costs).for_search()
            before = len(memo._spaces)
            got = feasible_space(ex.domains, x, grounded.group_filters, spec, singles, memo, w)
            hits += len(ex.domains) - (len(memo._spaces) - before)
            _assert_same(got, feasible_space(ex.domains, x, grounded.group_filters, spec, singles), f"{name} {program!r}")
            assert not any(s.values.flags.writeable or s.cumulative.flags.writeable for s in got)
        assert 0 < hits < 25 * len(ex.domains), program


def test_the_memo_holds_at_most_its_bytes():
    """A memo of a few kilobytes: emptied when the next space would pass them, a space larger than
    a sixteenth of them never kept; what it gives back is still what was computed."""
    from geco.problem.feasible_space import SpaceMemo

    _, X, ex = next(p for p in _explainers("adult", 3000) if p[0] is None)
    singles, memo = SingleDomains.of(ex.domains), SpaceMemo(max_bytes=16_000)
    sizes = []
    for r in range(40):
        x = ex.setting.instance(X.iloc[[r]]).x
        grounded = ex.program.ground(x)
        spec = DistanceSpec(x, ex.ranges, ex.categorical, (0.25,) * 4, ex.program.costs).for_search()
        got = feasible_space(ex.domains, x, grounded.group_filters, spec, singles, memo)
        _assert_same(got, feasible_space(ex.domains, x, grounded.group_filters, spec, singles), f"row {r}")
        held = [space for _, space in memo._spaces.values()]
        assert memo.nbytes <= 16_000 and memo.nbytes == sum(
            a.nbytes for s in held for a in (s.values, s.weights, s.cumulative, s.distance, s.domain_index))
        assert all(16 * sum(a.nbytes for a in (s.values, s.weights, s.cumulative, s.distance, s.domain_index)) <= 16_000
                   for s in held)  # fmt: skip
        sizes.append(memo.nbytes)
    assert any(b < a for a, b in pairwise(sizes))  # emptied at least once
    big = max(sum(a.nbytes for a in (s.values, s.weights, s.cumulative, s.distance, s.domain_index)) for s in got)
    assert 16 * big > 16_000  # some space too large to keep
