"""Readers and folding: sklearn trees -> node arrays -> splits on the user's columns, both equal
to ``predict_proba`` bit for bit (assert_array_equal, not allclose)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from tree_cases import blackbox, case, frame, numeric

from codegen import UnknownClass, UnsupportedModel
from codegen.pipeline import read_model_input
from codegen.trees.fold import read_forest
from codegen.trees.reader import read_trees


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_reader_equals_predict_proba_on_model_inputs(fitted):
    checked = []
    for name, model, schema, X, _ in fitted:
        mi = read_model_input(model, schema)
        if getattr(mi.estimator, "_preprocessor", None) is not None:
            continue  # its input is the raw frame; covered by the folded test below
        raw = read_trees(mi.estimator)
        Z = mi.transform(X)
        # also every split exactly at its threshold and at its float32 neighbours
        split = np.flatnonzero((raw.feature >= 0) & ~raw.is_cat & np.isfinite(raw.threshold))
        assert len(split), name
        probe = np.repeat(Z[:1], len(split) * 3, axis=0)
        t = raw.threshold[split]
        probe[np.arange(len(split)), raw.feature[split]] = t
        up = np.nextafter(t.astype(np.float32), np.float32(np.inf)).astype(float)
        probe[len(split) + np.arange(len(split)), raw.feature[split]] = up
        probe[2 * len(split) + np.arange(len(split)), raw.feature[split]] = np.nextafter(t, -np.inf)
        for rows in (Z, probe):
            np.testing.assert_array_equal(raw.predict_proba(rows), mi.estimator.predict_proba(rows), err_msg=name)
        checked.append(name)
    assert len(checked) >= 10, checked


def test_reader_rejects_what_it_cannot_read():
    from sklearn.linear_model import LogisticRegression

    X, y = frame(60)
    with pytest.raises(UnsupportedModel, match="not a supported tree model"):
        read_trees(LogisticRegression().fit(numeric(X), y))
    with pytest.raises(UnsupportedModel, match="not a fitted"):
        read_trees(RandomForestClassifier())


def test_folded_forest_equals_model_on_user_rows(fitted):
    for name, model, schema, X, desired in fitted:
        forest = read_forest(model, schema, desired)
        want = blackbox(model, schema, desired, X[0], tuple(range(len(schema))), X)
        np.testing.assert_array_equal(forest.predict(X), want, err_msg=name)


def test_fold_turns_onehot_and_scaled_splits_into_user_tests(fitted):
    _name, model, schema, _X, desired = case(fitted, "rf-pipe")
    forest = read_forest(model, schema, desired)
    c = schema.index("c")
    # one-hot splits become code-set tests on 'c'; scaled splits get thresholds on the raw scale
    assert np.any((forest.feature == c) & (forest.cat >= 0))
    a = schema.index("a")
    ta = forest.threshold[(forest.feature == a) & (forest.cat < 0)]
    assert ta.size and np.all((ta > -5) & (ta < 5))


def test_fold_rejects_a_class_the_model_does_not_have(fitted):
    _name, model, schema, _X, _desired = case(fitted, "rf-bare")
    with pytest.raises(UnknownClass, match="desired_class 7"):
        read_forest(model, schema, 7)
