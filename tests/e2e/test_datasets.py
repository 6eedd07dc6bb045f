"""The bundled data sets load offline with real dtypes and documented labels."""

import numpy as np
import pandas as pd
import pytest

from geco import datasets
from plaf_grammar import Schema


@pytest.mark.parametrize(
    "loader, rows, n_features, desired, positives",
    [
        (datasets.load_adult, 30162, 13, 1, 7508),
        (datasets.load_credit, 29623, 14, 1, 23076),
        (datasets.load_compas, 5278, 5, 0, 2483),
    ],
)
def test_shapes_labels_and_no_missing_values(loader, rows, n_features, desired, positives):
    ds = loader()
    assert ds.X.shape == (rows, n_features)
    assert len(ds.y) == rows
    assert set(np.unique(ds.y)) == {0, 1}
    assert ds.y.dtype == np.int64
    assert int(ds.y.sum()) == positives
    assert ds.desired_class == desired
    assert not ds.X.isna().any().any()
    assert ds.constraints.exists(), ds.constraints
    assert ds.description


def test_adult_has_string_categories_and_numbers():
    X = datasets.load_adult().X
    for c in ("workclass", "marital_status", "occupation", "relationship", "race", "sex", "native_country"):
        assert isinstance(X[c].dtype, pd.CategoricalDtype) and not X[c].dtype.ordered, c
        assert all(isinstance(v, str) for v in X[c].dtype.categories)
    assert X["education"].dtype.ordered
    # education is ordered by education_num
    codes = X["education"].cat.codes.to_numpy()
    assert np.all(np.diff(X["education_num"].to_numpy()[np.argsort(codes, kind="stable")]) >= 0)
    for c in ("age", "education_num", "capital_gain", "capital_loss", "hours_per_week"):
        assert pd.api.types.is_integer_dtype(X[c].dtype), c
    assert "fnlwgt" not in X.columns
    assert set(X["sex"].unique()) == {"Female", "Male"}
    assert "?" not in set(X["workclass"].astype(str))


def test_adult_with_test_file_appends_rows():
    ds = datasets.load_adult(include_test=True)
    assert len(ds.X) == 30162 + 15060
    assert not ds.X.isna().any().any()
    assert 0.2 < ds.y.mean() < 0.3  # ">50K." in the test file is parsed as positive too


def test_credit_and_compas_are_numeric():
    for ds in (datasets.load_credit(), datasets.load_compas()):
        assert all(pd.api.types.is_integer_dtype(t) for t in ds.X.dtypes)
    X = datasets.load_credit().X
    assert X["AgeGroup"].between(1, 4).all()
    assert list(datasets.load_compas().X.columns) == ["AgeGroup", "Race", "Sex", "PriorsCount", "ChargeDegree"]


@pytest.mark.parametrize("name", ["adult", "credit", "compas"])
def test_schema_round_trip(name):
    X = datasets.load_dataset(name).X
    schema = Schema.from_dataframe(X)
    pd.testing.assert_frame_equal(schema.decode(schema.encode(X)), X)


def test_unknown_dataset_name():
    with pytest.raises(ValueError, match="unknown data set 'nope'"):
        datasets.load_dataset("nope")
