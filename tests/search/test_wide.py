"""Wide data (the GeCo paper's 115-column scale, here 20k x 60 from ``benchmarks/make_wide.py``):
group domains by per-column ranks equal ``np.unique`` over whole rows, tiny Δ blocks scored
together get the probabilities they get alone, and every counterfactual satisfies the program."""

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

import geco
import plaf_grammar
from codegen.mlp.bound import error_bound
from geco.problem.feasible_space import group_domains
from geco.problem.hashing import row_hashes
from geco.search import score_pool
from geco.search.population import Pool, key_words

MAKE_WIDE = Path(__file__).resolve().parents[2] / "benchmarks" / "make_wide.py"


def _make_wide():
    spec = importlib.util.spec_from_file_location("make_wide", MAKE_WIDE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_wide


@pytest.fixture(scope="module")
def wide():
    X, y, plaf = _make_wide()(20_000, 60, seed=3)
    cats = [c for c in X.columns if c.startswith("cat")]
    pre = ColumnTransformer([("ord", OrdinalEncoder(), cats)], remainder="passthrough")
    rf = RandomForestClassifier(20, max_depth=6, random_state=0, n_jobs=1)
    model = Pipeline([("encode", pre), ("model", rf)]).fit(X, y)
    return X, model, geco.Explainer(model, X, plaf, desired_class=1)


def test_hashed_domains_equal_sorted_rows(wide):
    explainer = wide[2]
    data = explainer.data
    assert any(len(g) > 1 for g in explainer.groups)  # the program's multi-column group
    for dom in explainer.domains:
        values, counts = np.unique(data[:, dom.features], axis=0, return_counts=True)
        np.testing.assert_array_equal(dom.values, values)
        np.testing.assert_array_equal(dom.counts, counts)
    # a group of many high-cardinality columns: the combined key must be re-ranked on the way
    rng = np.random.default_rng(0)
    many = np.round(rng.gamma(2.0, 5.0, (20_000, 8)), 2)
    many[::3, 2] = many[1::3, 2][: len(many[::3])]  # repeated tuples too
    many[::5] = many[1::5][: len(many[::5])]
    names = [f"f{j}" for j in range(8)]
    (dom,) = group_domains([tuple(reversed(names))], names, many)
    values, counts = np.unique(many, axis=0, return_counts=True)
    assert len(values) < len(many)
    np.testing.assert_array_equal(dom.features, np.arange(8))
    np.testing.assert_array_equal(dom.values, values)
    np.testing.assert_array_equal(dom.counts, counts)


@pytest.fixture(scope="module")
def wide_mlp(wide):
    """An MLP on the same table: one-hot categoricals (thousands of inputs), scaled numbers."""
    X, _, explainer = wide
    y = wide[1].predict(X)  # the forest's labels: a learnable target
    cats = [c for c in X.columns if c.startswith("cat")]
    nums = [c for c in X.columns if c not in cats]
    pre = ColumnTransformer([("hot", OneHotEncoder(handle_unknown="ignore"), cats), ("num", StandardScaler(), nums)])
    mlp = MLPClassifier((16,), max_iter=15, batch_size=500, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = Pipeline([("encode", pre), ("model", mlp)]).fit(X, y)
    return X, model, geco.Explainer(model, X, explainer.program.program, desired_class=1)


def _blocks(explainer, x, sizes):
    """Δ blocks of the given sizes (random whole groups, values from the data), in key order."""
    rng = np.random.default_rng(1)
    g = len(explainer.groups)
    blocks = []
    for key, n in enumerate(sizes):
        cols = np.sort(rng.choice(len(x), size=1 + key % 3, replace=False))
        groups = np.zeros(g, dtype=bool)
        groups[explainer.group_of_feature[cols]] = True
        cols = np.flatnonzero(groups[explainer.group_of_feature])  # the whole groups
        rows = np.tile(x, (n, 1))
        rows[:, cols] = explainer.data[rng.integers(0, len(explainer.data), n)][:, cols]
        blocks.append((groups, cols, rows))
    blocks.sort(key=lambda b: int(np.dot(b[0], 1 << np.arange(g, dtype=object))))  # Δ key order
    return blocks


@pytest.mark.parametrize("kind", ["forest", "mlp"])
def test_merged_blocks_score_as_alone(kind, request):
    """Tiny Δ blocks scored together as full rows get what each Δ gets alone: bit for bit from
    the exact tree engine, within the MLP engine's rounding-error bound from the MLP's."""
    _, _, explainer = request.getfixturevalue("wide" if kind == "forest" else "wide_mlp")
    assert explainer.scorer is not explainer.blackbox and explainer.scorer.exact == (kind == "forest")
    x = explainer.data[0]
    blocks = _blocks(explainer, x, [1, 3, 40, 2, 5])
    rows = np.concatenate([r for _, _, r in blocks])
    changed = np.concatenate([np.tile(gr, (len(r), 1)) for gr, _, r in blocks])
    n = len(rows)
    pool = Pool(rows, changed, key_words(changed), row_hashes(rows), *(np.empty(n),) * 3, np.zeros(n, bool))
    starts = pool.starts()
    assert len(starts) == len(blocks)
    bound = explainer.scorer.bind(x)
    calls, near = [], []
    real = bound.score_blocks
    bound.score_blocks = lambda pairs: calls.append([len(v) for _, v in pairs]) or real(pairs)
    if kind == "forest":  # the merged rows go to the forest with each small Δ's columns
        bound.bound_x()  # x bound (a few rows would not wait for it)
        real_near = bound.score_rows_near_x
        bound.score_rows_near_x = lambda r, c, z: near.append((len(r), list(z), c.sum(axis=1).tolist())) or real_near(r, c, z)
    merged = score_pool(bound, pool, starts, explainer.group_of_feature, merge_below=32, min_blocks=2)
    if kind == "forest":
        assert calls == [[40]] and near == [(11, [len(r) for _, _, r in blocks if len(r) < 32], [len(c) for _, c, r in blocks if len(r) < 32])]
    else:
        assert sorted(calls[0]) == [11, 40]  # the big block alone, the four small ones (11 rows) as one
    alone = np.concatenate(
        [explainer.scorer.bind(x).score_block(tuple(c.tolist()), r[:, c]) for _, c, r in blocks]
    )
    if kind == "forest":  # rows of another width are refused, naming the width
        with pytest.raises(ValueError, match=f"rows must have {rows.shape[1]} columns"):
            bound.score_rows_near_x(rows[:, :-1], changed[:3], np.array([1, 1, 1]))
    truth = explainer.blackbox.predict(rows)
    if kind == "forest":
        np.testing.assert_array_equal(merged, alone)
        np.testing.assert_array_equal(merged, truth)
    else:
        tol = error_bound(explainer.scorer.layer, rows)
        assert np.all(np.abs(merged - alone) <= 2 * tol) and np.all(np.abs(merged - truth) <= tol)
        assert len(np.unique(np.round(truth, 6))) > 5  # the rows really score differently


def test_mlp_on_wide_data_repeats_and_keeps_the_rules(wide_mlp):
    """The MLP engine with merged tiny blocks: same seed, same explanation; every answer holds."""
    X, model, explainer = wide_mlp
    undesired = np.flatnonzero(model.predict(X.iloc[:400]) == 0)[:2]
    assert len(undesired) == 2
    for r in undesired:
        res = explainer.explain(X.iloc[[r]], random_state=int(r))
        assert res.stats["engine"] == explainer.scorer.name != "blackbox"
        assert res.counterfactuals.equals(explainer.explain(X.iloc[[r]], random_state=int(r)).counterfactuals)
        x = res.x.iloc[0].to_dict()
        for _, row in res.counterfactuals.iterrows():
            assert plaf_grammar.holds(explainer.program, x, row[list(X.columns)].to_dict())


def test_counterfactuals_satisfy_the_program(wide):
    X, model, explainer = wide
    undesired = np.flatnonzero(model.predict(X.iloc[:500]) == 0)[:3]
    assert len(undesired) == 3
    found = 0
    for r in undesired:
        res = explainer.explain(X.iloc[[r]], random_state=int(r))
        again = explainer.explain(X.iloc[[r]], random_state=int(r))
        assert res.counterfactuals.equals(again.counterfactuals)  # same seed, same explanation
        if not res.success:
            continue
        x = res.x.iloc[0].to_dict()
        for _, row in res.counterfactuals.iterrows():
            cf = row[list(X.columns)].to_dict()
            assert plaf_grammar.holds(explainer.program, x, cf), (r, cf)
            found += 1
        # what a counterfactual changes, the model sees: it really is of the desired class
        assert (res.counterfactuals["probability"] > 0.5).all()
    assert found > 0


def test_delta_paths_agree_with_full_rows(wide, monkeypatch):
    """Every candidate the search scores, from every operator (polishing included): its row
    holds x outside its changed groups (merged full-row scoring relies on it), and the distance
    and de-duplication hash made from its Δ's cells equal those of its full row."""
    import geco.search.loop
    from geco.problem.distance import DistanceSpec
    from geco.problem.hashing import cell_hashes

    X, model, explainer = wide
    seen = []
    real = geco.search.loop.score_pool

    def checked(scorer, pool, *args, **kwargs):
        seen.append((pool.rows.copy(), pool.changed.copy(), pool.dist.copy(), pool.hashes.copy()))
        return real(scorer, pool, *args, **kwargs)

    monkeypatch.setattr(geco.search.loop, "score_pool", checked)
    r = int(np.flatnonzero(model.predict(X.iloc[:500]) == 0)[0])
    res = explainer.explain(X.iloc[[r]], random_state=5)
    assert res.success and res.stats["polish_rounds"] >= 1
    x = explainer.schema.encode(X.iloc[[r]])[0]
    spec = DistanceSpec(x, explainer.ranges, explainer.categorical, explainer.config.norm_weights)
    gof = explainer.group_of_feature
    rows = np.concatenate([s[0] for s in seen])
    changed = np.concatenate([s[1] for s in seen])
    assert len(rows) > 5000 and len(seen) > res.stats["generations"]
    outside = ~changed[:, gof]
    assert (rows[outside] == np.broadcast_to(x, rows.shape)[outside]).all()
    # a group is marked changed exactly when its tuple differs from x's (equal rows, equal Δ)
    differs = ((rows != x).astype(np.int64) @ np.eye(len(explainer.groups), dtype=np.int64)[gof]) > 0
    np.testing.assert_array_equal(changed, differs)
    np.testing.assert_array_equal(np.concatenate([s[2] for s in seen]), spec(np.arange(len(x)), rows))
    cells = spec.cells(rows, changed[:, gof])
    np.testing.assert_array_equal(np.concatenate([s[3] for s in seen]), cell_hashes(*cells[:3], len(rows)))


def test_the_archive_keeps_each_rows_changed_cells_not_whole_rows(wide):
    """A wide search archives hundreds of Δ; each is kept as its changed groups' cells, so the
    archive takes a fraction of the bytes its rows would whole (and reads back the rows the
    answer shows: every counterfactual satisfies the program)."""
    X, model, explainer = wide
    r = int(np.flatnonzero(model.predict(X.iloc[:500]) == 0)[0])
    res = explainer.explain(X.iloc[[r]], k=5, random_state=r)
    archived, d, g = res.stats["archived"], explainer.data.shape[1], len(explainer.groups)
    assert archived > 100
    whole_rows = archived * (8 * d + g)  # the values and a byte per group, as the archive held them
    assert res.stats["archive_bytes"] < whole_rows / 2, (res.stats["archive_bytes"], whole_rows)
    assert res.success
    x = res.x.iloc[0].to_dict()
    for _, row in res.counterfactuals.iterrows():
        assert plaf_grammar.holds(explainer.program, x, row[list(X.columns)].to_dict())
