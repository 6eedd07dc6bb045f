"""The seeds from the Explainer's seed index are the seeds computed the long way: the same rows,
changed groups and order, the same random draws and rule counts left behind, on the bundled
data with their rules and with random programs (fixed, monotone, grouped, filtered,
implications whose consequence may have no value, cross rules that tie groups, costs)."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

import geco
import plaf_grammar
from geco.models import one_hot_pipeline
from geco.problem.diagnosis import empty_space_reason
from geco.problem.seed_index import nearest_bounded
from geco.search.compiled import compiled_kernels
from geco.search.start import context, reference_seed_candidates, seed_candidates

ROWS = {"adult": 8000, "credit": 12000, "compas": None}


@pytest.fixture(scope="module", params=sorted(ROWS))
def bundled(request):
    ds = geco.datasets.load_dataset(request.param)
    X, y = ds.X, ds.y
    if ROWS[request.param]:
        X, y = X.iloc[: ROWS[request.param]], y.iloc[: ROWS[request.param]]
    model = one_hot_pipeline(X, RandomForestClassifier(15, max_depth=6, random_state=0, n_jobs=1)).fit(X, y)
    return ds, X, model


def _same_seeds(explainer: geco.Explainer, X: pd.DataFrame, rows, **overrides) -> int:
    """Assert both ways give the same seeds and leave the same state on rows ``rows`` of ``X``;
    returns how many rows had seeds to compare."""
    compared = 0
    cfg = replace(explainer.config, **overrides)
    for r in rows:
        problem = explainer.problem(X.iloc[[int(r)]], norm_weights=cfg.norm_weights)
        if empty_space_reason(problem):
            continue
        slow = context(problem, np.random.default_rng(int(r)))
        b = reference_seed_candidates(problem, slow, cfg)
        for kernels in (None, compiled_kernels(True)):  # the cascade in numpy, then compiled
            fast = context(problem, np.random.default_rng(int(r)))
            fast.kernels = kernels
            a = seed_candidates(problem, fast, cfg)
            np.testing.assert_array_equal(a.rows, b.rows, err_msg=f"row {r}")
            np.testing.assert_array_equal(a.changed, b.changed, err_msg=f"row {r}")
            assert list(fast.rejected.items()) == list(slow.rejected.items()), f"row {r}"
            assert fast.rng.bit_generator.state == slow.rng.bit_generator.state, f"row {r}"
        compared += len(a) > 0
    return compared


def _undesired(explainer: geco.Explainer, X: pd.DataFrame, n: int, seed: int) -> np.ndarray:
    p = explainer.setting.model_proba(explainer.table.take(slice(None)))
    rows = np.flatnonzero(~explainer.config.goal.meets(p))
    return np.random.default_rng(seed).choice(rows, min(n, len(rows)), replace=False)


def test_bundled_rules_give_the_reference_seeds(bundled):
    ds, X, model = bundled
    explainer = geco.Explainer(model, X, ds.constraints, ds.desired_class)
    rows = _undesired(explainer, X, 40, 0)
    assert _same_seeds(explainer, X, rows) >= 30
    assert _same_seeds(explainer, X, rows[:10], seeds=4, threshold=0.7) >= 5  # another target, batch
    assert _same_seeds(explainer, X, rows[:10], norm_weights=(0.0, 1.0, 0.0, 0.0)) >= 5


def _random_program(schema: plaf_grammar.Schema, X: pd.DataFrame, rng: np.random.Generator) -> str:
    """A PLAF program over ``schema``'s features drawn at random (it may not check)."""
    names = list(schema.names)
    numeric = [n for n in names if pd.api.types.is_numeric_dtype(X[n]) and X[n].nunique() > 1]
    pick = lambda pool, k: list(rng.choice(pool, min(k, len(pool)), replace=False))  # noqa: E731
    q = lambda n: f'"{n}"' if not n.isidentifier() else n  # noqa: E731
    lines = []
    grouped = pick(names, int(rng.integers(0, 2)) * int(rng.integers(2, 4)))
    if grouped:
        lines.append("group " + ", ".join(map(q, grouped)))
    for word, k in (("fixed", rng.integers(0, 3)), ("increasing", rng.integers(0, 3)), ("decreasing", rng.integers(0, 2))):
        chosen = [n for n in pick(numeric if word != "fixed" else names, int(k)) if n not in grouped]
        if chosen:
            lines.append(f"{word} " + ", ".join(map(q, chosen)))
    for _ in range(int(rng.integers(0, 3))):
        a, b = pick(numeric, 2)
        step = float(np.round(rng.uniform(0, 0.2) * (X[a].max() - X[a].min()), 2))
        kind = rng.integers(0, 3)
        if kind == 0:  # often no value of b meets it: the cascade drops the candidate
            lines.append(f"if cf.{q(a)} > x.{q(a)} + {step} then cf.{q(b)} < x.{q(b)}")
        elif kind == 1:
            lines.append(f"if cf.{q(a)} != x.{q(a)} then cf.{q(b)} >= x.{q(b)}")
        else:
            lines.append(f"if cf.{q(a)} < x.{q(a)} then cf.{q(b)} <= x.{q(b)} + {step}")
    if rng.random() < 0.5:
        a = pick(numeric, 1)[0]
        lines.append(f"cf.{q(a)} <= {float(X[a].quantile(rng.uniform(0.3, 0.9)))}")
    if rng.random() < 0.4:
        a, b = pick(numeric, 2)
        span = float(X[a].max() - X[a].min() + X[b].max() - X[b].min())
        lines.append(f"cf.{q(a)} + cf.{q(b)} <= x.{q(a)} + x.{q(b)} + {np.round(rng.uniform(0, 0.3) * span, 3)}")
    if rng.random() < 0.3:
        a = pick(numeric, 1)[0]
        lines.append(f"cost up {q(a)} {float(np.round(rng.uniform(0.5, 3), 2))}")
    return "\n".join(lines) + "\n"


def test_random_programs_give_the_reference_seeds(bundled):
    ds, X, model = bundled
    rng = np.random.default_rng(len(X))
    base = geco.Explainer(model, X, None, ds.desired_class, engine="blackbox")
    checked = 0
    for _ in range(40):
        text = _random_program(base.schema, X, rng)
        try:
            explainer = geco.Explainer(model, X, text, ds.desired_class, engine="blackbox")
        except plaf_grammar.PLAFError:
            continue
        checked += 1
        rows = _undesired(explainer, X, 8, int(rng.integers(1 << 30)))
        _same_seeds(explainer, X, rows)
        if checked == 12:
            break
    assert checked >= 8


def test_implications_reading_several_groups_give_the_reference_seeds():
    """An implication whose condition reads two groups (no cross rule): the compiled pass takes
    each row's first broken rule from the projected columns instead of per-tuple tables; the
    seeds, draws and counts are the reference's, with the rule broken by some rows and not."""
    ds = geco.datasets.load_dataset("adult")
    X, y = ds.X.iloc[: ROWS["adult"]], ds.y.iloc[: ROWS["adult"]]
    model = one_hot_pipeline(X, RandomForestClassifier(15, max_depth=6, random_state=0, n_jobs=1)).fit(X, y)
    text = ("if cf.age + cf.hours_per_week > x.age + x.hours_per_week + 10 then cf.capital_gain >= x.capital_gain\n"
            "if cf.education_num > x.education_num then cf.hours_per_week <= x.hours_per_week\n")  # fmt: skip
    explainer = geco.Explainer(model, X, text, ds.desired_class)
    problem = explainer.problem(X.iloc[[int(_undesired(explainer, X, 1, 0)[0])]])
    assert len(problem.grounded.implications) == 2 and not problem.grounded.cross_rules
    assert _same_seeds(explainer, X, _undesired(explainer, X, 12, 1)) >= 8


@pytest.mark.parametrize("seed", range(30))
def test_nearest_bounded_is_the_stable_sort_of_the_exact_distances(seed):
    rng = np.random.default_rng(seed)
    n, count = int(rng.integers(1, 400)), int(rng.integers(1, 40))
    exact = np.round(rng.exponential(size=n), int(rng.integers(0, 3)))  # many ties
    lower = exact * rng.uniform(0, 1, n) * (rng.random(n) < 0.8)
    calls = []

    def priced(pos):
        calls.append(len(pos))
        return exact[pos]

    tighter = (lambda pos: np.maximum(lower[pos], exact[pos] * 0.9)) if seed % 2 else None
    pos, dist = nearest_bounded(lower, priced, count, tighter)
    want = np.argsort(exact, kind="stable")[:count]
    np.testing.assert_array_equal(pos, want)
    np.testing.assert_array_equal(dist, exact[want])


def test_the_tighter_bound_is_taken_from_the_smallest_lower_bounds_up():
    """Where a few far rows have a weak lower bound (0), the rows of smallest lower bound leave
    nearly every row within reach; the tighter bound is computed for the ``2 * count`` rows of
    smallest lower bound first, and the rows their distances rule out are never bounded: the
    same nearest rows, a fraction of the rows bounded (every one before)."""
    rng = np.random.default_rng(7)
    n, count = 2000, 5
    exact = rng.uniform(0, 10, n)
    weak = np.zeros(n, dtype=bool)
    weak[rng.choice(n, 3, replace=False)] = True
    exact[weak] = rng.uniform(9, 10, 3)
    lower = np.where(weak, 0.0, exact * 0.95)
    bounded = []

    def tighter(pos):
        bounded.append(len(pos))
        return exact[pos] * 0.95

    pos, dist = nearest_bounded(lower, lambda p: exact[p], count, tighter)
    want = np.argsort(exact, kind="stable")[:count]
    np.testing.assert_array_equal(pos, want)
    np.testing.assert_array_equal(dist, exact[want])
    assert sum(bounded) < n // 4, bounded


def test_rules_read_per_tuple_hold_where_they_hold_on_the_projected_rows(bundled):
    """A rule on one group read per tuple of the group (through the rows' codes), a rule on
    several groups read on the projected columns: what each gives on every projected row."""
    from geco.problem.seed_index import Projection

    ds, X, model = bundled
    explainer = geco.Explainer(model, X, ds.constraints, ds.desired_class)
    names = list(X.columns)
    read = constant = 0
    for r in _undesired(explainer, X, 3, 5):
        problem = explainer.problem(X.iloc[[int(r)]])
        setting = problem.setting
        desired = explainer.config.goal.meets(setting.seed_pool.proba)
        proj = Projection(setting.seed_index(desired), setting.domains, problem.spaces, problem.x, problem.required,
                          problem.reported_distance, setting.one_feature_domains())  # fmt: skip
        rows, _ = proj.rows(np.arange(len(proj.index)))
        cols = {n: rows[:, j] for j, n in enumerate(names)}
        # a rule per projected numeric column that moves (one group), and one over two of them
        moving = [j for j in range(len(names)) if np.ptp(rows[:, j]) > 0 and explainer.schema[names[j]].categories is None]
        text = [f"cf.{names[j]} <= {float(np.median(rows[:, j]))}" for j in moving]
        if len(moving) >= 2:
            a, b = names[moving[0]], names[moving[-1]]
            text.append(f"cf.{a} - x.{a} >= cf.{b} - x.{b}")
            # a consequence x alone decides (folded to a constant): read without any column
            text.append(f"if cf.{a} > x.{a} then x.{b} > {float(rows[:, moving[-1]].max()) + 1} and cf.{b} >= x.{b}")
        grounded = problem.grounded
        rules = [p for imp in grounded.implications for p in (imp.condition, imp.consequence)]
        rules += [f for f in grounded.group_filters if f is not None]
        if text:
            made = plaf_grammar.load("\n".join(text) + "\n", X).ground(X.iloc[int(r)])
            rules += [f for f in made.group_filters if f is not None] + list(made.cross_rules)
            rules += [p for imp in made.implications for p in (imp.condition, imp.consequence)]
            constant += sum(not p.features for imp in made.implications for p in (imp.condition, imp.consequence))
        for rule in rules:
            want = np.asarray(rule(cols), dtype=bool)
            np.testing.assert_array_equal(proj.holds(rule, names), want, err_msg=str(rule))
            read += want.any() and not want.all()
    assert read >= 3 and constant >= 1
