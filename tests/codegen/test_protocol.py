"""Every engine - each registered compiled family under each compiled tier, and the black box -
implements the whole :class:`codegen.ModelScorer` protocol: the attributes, ``score_rows`` (the
engine's numbers for full rows, bit for bit what a bound scorer gives with every feature free,
and ``predict_proba``'s own for an exact engine), ``error_bound``, ``warm_up`` and the
block-merge policy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier

from codegen import (
    COMPILED_ENGINES,
    BlackBoxScorer,
    InstanceScorer,
    ModelScorer,
)
from codegen.protocol import MERGE_BELOW, MERGE_MIN_BLOCKS, checked_engine
from codegen.registry import scorer_for
from plaf_grammar import Schema

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _frame(n: int = 300) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(7)
    X = pd.DataFrame({
        "a": np.round(rng.normal(size=n), 2),
        "b": rng.integers(0, 12, n).astype(float),
        "c": pd.Categorical(rng.choice(list("pqr"), n), categories=list("pqr")),
    })  # fmt: skip
    y = (X["a"] + 0.2 * X["b"] + (X["c"].cat.codes == 1) > 1.2).astype(int).to_numpy()
    return X, y


def _families() -> list:
    """(name, unfitted model that takes the frame as it is) per registered family."""
    out = [
        ("dt", DecisionTreeClassifier(max_depth=4, random_state=0)),
        ("rf", RandomForestClassifier(n_estimators=5, max_depth=4, random_state=0)),
        ("et", ExtraTreesClassifier(n_estimators=5, max_depth=4, random_state=0)),
        ("gb", GradientBoostingClassifier(n_estimators=5, max_depth=3, random_state=0)),
        ("hgb", HistGradientBoostingClassifier(max_iter=5, categorical_features="from_dtype", random_state=0)),
        ("mlp", MLPClassifier((6,), max_iter=200, random_state=0)),
    ]
    try:
        import xgboost

        out.append(("xgb", xgboost.XGBClassifier(n_estimators=5, max_depth=3, n_jobs=1, enable_categorical=True)))
    except ImportError:  # pragma: no cover - optional library
        pass
    try:
        import lightgbm

        out.append(("lgb", lightgbm.LGBMClassifier(n_estimators=5, num_leaves=8, verbose=-1, n_jobs=1)))
    except ImportError:  # pragma: no cover - optional library
        pass
    return out


@pytest.fixture(scope="module")
def data():
    X, y = _frame()
    return X, y, Schema.from_dataframe(X)


@pytest.fixture(scope="module")
def fitted(data):
    X, y, _ = data
    out = {}
    for name, model in _families():
        # sklearn's trees and the MLP take numbers; the others read the pandas categorical
        frame = X if name in ("hgb", "xgb", "lgb") else X.assign(c=X["c"].cat.codes.astype(float))
        out[name] = model.fit(frame, y)
    return out


def _schema_for(name: str, data) -> tuple[Schema, np.ndarray]:
    X, _, schema = data
    if name in ("hgb", "xgb", "lgb"):
        return schema, schema.encode(X)
    numeric = X.assign(c=X["c"].cat.codes.astype(float))
    s = Schema.from_dataframe(numeric)
    return s, s.encode(numeric)


def _cases():
    return [(name, engine) for name, _ in _families() for engine in COMPILED_ENGINES]


@pytest.mark.parametrize(("name", "engine"), _cases())
def test_compiled_engine_implements_the_protocol(fitted, data, name, engine):
    model = fitted[name]
    schema, E = _schema_for(name, data)
    scorer = scorer_for(model, schema, 1, engine)
    assert isinstance(scorer, ModelScorer)
    assert scorer.compiled is True
    assert (scorer.merge_below, scorer.merge_min_blocks) == (MERGE_BELOW, MERGE_MIN_BLOCKS) == (32, 128)
    assert scorer.warm_up(E) is None
    rows = E[:64]
    got = scorer.score_rows(rows)
    assert got.dtype == np.float64 and got.shape == (len(rows),)
    every = tuple(range(E.shape[1]))
    np.testing.assert_array_equal(got, scorer.bind(rows[0]).score_block(every, rows))
    assert isinstance(scorer.bind(rows[0]), InstanceScorer)
    assert scorer.score_rows(E[:0]).shape == (0,)
    model_own = BlackBoxScorer(model, schema, 1).predict(rows)
    bound = scorer.error_bound(rows)
    assert bound.shape == (len(rows),)
    if scorer.exact:
        np.testing.assert_array_equal(got, model_own)  # bit for bit
        np.testing.assert_array_equal(bound, np.zeros(len(rows)))
        # the numbers do not depend on the instance a full-row block is bound to
        np.testing.assert_array_equal(got, scorer.bind(rows[-1]).score_block(every, rows))
    else:
        assert name == "mlp"
        assert np.all(np.isfinite(bound)) and np.all(bound > 0) and np.all(bound < 1e-9)
        assert np.all(np.abs(got - model_own) <= bound)


def test_the_black_box_implements_the_protocol(data):
    X, y, schema = data
    model = LogisticRegression().fit(X.assign(c=X["c"].cat.codes), y)
    frame_model = lambda frame: model.predict_proba(frame.assign(c=frame["c"].cat.codes))  # noqa: E731
    bb = BlackBoxScorer(frame_model, schema, 1)
    E = schema.encode(X)
    assert isinstance(bb, ModelScorer)
    assert (bb.name, bb.compiled, bb.exact) == ("blackbox", False, True)
    assert (bb.merge_below, bb.merge_min_blocks) == (0, 0)
    assert bb.warm_up(E) is None
    np.testing.assert_array_equal(bb.score_rows(E[:20]), bb.predict(E[:20]))
    np.testing.assert_array_equal(bb.score_rows(E[:20]), model.predict_proba(X.assign(c=X["c"].cat.codes)[:20])[:, 1])
    np.testing.assert_array_equal(bb.error_bound(E[:20]), np.zeros(20))
    assert bb.score_rows(E[:0]).shape == (0,)
    # one model call for every block (BLAS may round a row differently in another batch)
    got = bb.bind(E[0]).score_blocks([((0,), E[:5, :1]), ((), np.empty((3, 0)))])
    rows = np.vstack([np.column_stack([E[:5, 0], np.tile(E[0, 1:], (5, 1))]), np.tile(E[0], (3, 1))])
    np.testing.assert_array_equal(np.concatenate(got), bb.predict(rows))


def test_engine_names_are_checked_in_one_place():
    assert checked_engine("blackbox") == "blackbox"
    assert checked_engine("jit", COMPILED_ENGINES) == "jit"
    with pytest.raises(ValueError, match=r"engine must be one of \('auto', 'jit', 'numpy', 'blackbox'\), got 'bogus'"):
        checked_engine("bogus")
    with pytest.raises(ValueError, match=r"engine must be one of \('auto', 'jit', 'numpy'\), got 'blackbox'"):
        checked_engine("blackbox", COMPILED_ENGINES)
