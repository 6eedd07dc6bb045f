"""The paper's baselines (geco.baselines): same interface as geco.Explainer, honest answers.

Each baseline must return counterfactuals the model itself scores as desired; WIT's must be real
data rows and the nearest such (checked by brute force); SimCF's and CERT's must satisfy the PLAF
program; DiCE's violations must be counted, not hidden; the same seed gives the same answer.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

import geco
import plaf_grammar
from geco.baselines import CERT, WIT, SimCF
from geco.models import one_hot_pipeline

N_ROWS = 4  # undesired instances explained per data set and baseline


def _setting(name: str):
    ds = geco.datasets.load_dataset(name)
    model = one_hot_pipeline(ds.X, RandomForestClassifier(20, max_depth=6, random_state=0))
    model.fit(ds.X.iloc[:5000], ds.y.iloc[:5000])
    column = list(model.classes_).index(ds.desired_class)
    p = model.predict_proba(ds.X.iloc[:400])[:, column]
    # instances with a counterfactual under the constraints (GeCo finds one): some COMPAS rows
    # have none (more priors and an older age group never lower the risk)
    explainer = geco.Explainer(model, ds.X, ds.constraints, ds.desired_class)
    rows = [int(r) for r in np.flatnonzero(p <= 0.5)[: 3 * N_ROWS]
            if explainer.explain(ds.X.iloc[[r]], random_state=0).success][:N_ROWS]  # fmt: skip
    assert len(rows) == N_ROWS
    return ds, model, column, np.array(rows)


@pytest.fixture(scope="module")
def compas():
    return _setting("compas")


@pytest.fixture(scope="module")
def credit():
    return _setting("credit")


def _check_answers(baseline_cls, setting, *, must_hold: bool, **options):
    ds, model, column, rows = setting
    b = baseline_cls(model, ds.X, ds.constraints, ds.desired_class, **options)
    program = plaf_grammar.load(ds.constraints, ds.X)
    successes = 0
    for r in rows:
        x = ds.X.iloc[[r]]
        res = b.explain(x, random_state=int(r))
        assert isinstance(res, geco.Explanation)
        assert res.stats["seconds_total"] > 0
        assert res.stats["method"] == baseline_cls.name
        cfs = res.counterfactuals
        assert list(cfs.columns) == [*ds.X.columns, "probability", "distance", "n_changed", "counterfactual"]
        if not res.success:
            assert res.reason
            continue
        successes += 1
        feats = cfs[list(ds.X.columns)].astype(ds.X.dtypes.to_dict())
        p = model.predict_proba(feats)[:, column]
        assert np.all(p[cfs["counterfactual"].to_numpy()] > 0.5)
        np.testing.assert_allclose(cfs["probability"], p)
        assert np.all(np.diff(cfs["distance"]) >= -1e-12), "best first"
        assert (cfs["n_changed"] == (feats.to_numpy() != x.to_numpy()).sum(axis=1)).all()
        held = [plaf_grammar.holds(program, x, feats.iloc[[i]]) for i in range(len(feats))]
        assert res.stats["violations"] == sum(1 for ok, c in zip(held, cfs["counterfactual"]) if c and not ok)
        if must_hold:
            assert all(held)
    assert successes >= N_ROWS - 1, f"{baseline_cls.name}: {successes}/{N_ROWS} succeeded"
    return b


@pytest.mark.parametrize("cls", [WIT, SimCF, CERT], ids=lambda c: c.name)
@pytest.mark.parametrize("data", ["compas", "credit"])
def test_baseline_returns_feasible_counterfactuals(cls, data, request):
    options = {"generations": 60} if cls is CERT else {}
    _check_answers(cls, request.getfixturevalue(data), must_hold=True, **options)


def test_dice_counts_violations(credit):
    pytest.importorskip("dice_ml")
    from geco.baselines import DiCE

    b = _check_answers(DiCE, credit, must_hold=False)
    ds, _, _, rows = credit
    res = b.explain(ds.X.iloc[[rows[0]]], random_state=0)
    vary = res.stats["features_to_vary"]
    assert 0 < vary < ds.X.shape[1]  # isMale and isMarried are fixed
    cfs = res.counterfactuals
    assert (cfs["isMale"] == ds.X["isMale"].iloc[rows[0]]).all()


def _l1(X: pd.DataFrame, x: pd.Series, ranges: np.ndarray) -> np.ndarray:
    """GeCo's l1-only distance of every row of X to x, computed independently of geco.problem.distance
    (numeric data only): mean over features of |difference| / range."""
    diff = np.abs(X.to_numpy(float) - x.to_numpy(float)) / ranges
    return diff.sum(axis=1) / X.shape[1]


def test_wit_is_the_nearest_feasible_data_row(compas):
    ds, model, column, rows = compas
    small = ds.X.iloc[:600]
    wit = WIT(model, small, ds.constraints, ds.desired_class, norm_weights=(0, 1, 0, 0))
    program = plaf_grammar.load(ds.constraints, small)
    desired = model.predict_proba(small)[:, column] > 0.5
    ranges = (small.max() - small.min()).replace(0, 1).to_numpy(float)
    checked = 0
    for r in rows:
        x = small.iloc[[r]]
        res = wit.explain(x, random_state=0)
        dist = _l1(small, x.iloc[0], ranges)
        feasible = [
            i for i in range(len(small))
            if desired[i] and plaf_grammar.holds(program, x, small.iloc[[i]])
        ]  # fmt: skip
        assert res.success == bool(feasible)
        if not feasible:
            continue
        best = min(dist[i] for i in feasible)
        got = res.counterfactuals.iloc[0]
        assert got["distance"] == pytest.approx(best)
        as_rows = small.to_numpy()
        answers = res.counterfactuals[list(small.columns)].to_numpy()
        for a in answers:  # every answer is a real row of the data, and a feasible one
            hits = np.flatnonzero((as_rows == a).all(axis=1))
            assert len(hits) and any(h in feasible for h in hits)
        assert len({tuple(a) for a in answers}) == len(answers), "distinct rows"
        checked += 1
    assert checked >= 1


@pytest.mark.parametrize("cls", [SimCF, CERT], ids=lambda c: c.name)
def test_same_seed_same_answer(cls, compas):
    ds, model, _, rows = compas
    options = {"generations": 40} if cls is CERT else {}
    b = cls(model, ds.X, ds.constraints, ds.desired_class, **options)
    x = ds.X.iloc[[rows[1]]]
    first = b.explain(x, random_state=7).counterfactuals
    again = b.explain(x, random_state=7).counterfactuals
    pd.testing.assert_frame_equal(first, again)


def test_dice_same_seed_same_answer(compas):
    pytest.importorskip("dice_ml")
    from geco.baselines import DiCE

    ds, model, _, rows = compas
    b = DiCE(model, ds.X, ds.constraints, ds.desired_class)
    x = ds.X.iloc[[rows[1]]]
    pd.testing.assert_frame_equal(
        b.explain(x, random_state=3).counterfactuals, b.explain(x, random_state=3).counterfactuals
    )


def test_desired_instance_and_bad_options(compas):
    ds, model, column, _ = compas
    p = model.predict_proba(ds.X.iloc[:400])[:, column]
    good = int(np.flatnonzero(p > 0.5)[0])
    res = SimCF(model, ds.X, ds.constraints, ds.desired_class).explain(ds.X.iloc[[good]])
    assert not res.success and "already classified" in res.reason
    with pytest.raises(ValueError, match="samples"):
        SimCF(model, ds.X, ds.constraints, ds.desired_class, samples=0)
    with pytest.raises(ValueError, match="generations"):
        CERT(model, ds.X, ds.constraints, ds.desired_class, generations=0)
    with pytest.raises(ValueError, match="one row"):
        WIT(model, ds.X, ds.constraints, ds.desired_class).explain(ds.X.iloc[:2])


def test_rows_the_model_rejects_never_come_first(compas):
    """A method may offer a row the model does not score as desired (DiCE accepts p >= 0.5):
    it is reported as not a counterfactual, after every real one."""
    from geco.baselines import Baseline
    from geco.baselines.base import Proposal

    ds, model, _, rows = compas
    wit = WIT(model, ds.X, ds.constraints, ds.desired_class)
    x = ds.X.iloc[[rows[0]]]
    real = wit.schema.encode(wit.explain(x).counterfactuals.iloc[[0]][list(ds.X.columns)])

    class Offers(Baseline):
        name = "offers"

        def _propose(self, inst):  # x itself (distance 0, not desired), then a real answer
            return Proposal(np.vstack([inst.x, real[0]]), np.ones(2, dtype=bool))

    res = Offers(model, ds.X, ds.constraints, ds.desired_class).explain(x)
    assert res.success
    assert res.counterfactuals["counterfactual"].tolist() == [True, False]
    assert res.counterfactuals["distance"].iloc[1] == 0.0
