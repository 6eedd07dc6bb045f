"""Models and data as users bring them, end to end on real fitted models: column names LightGBM
stores otherwise, a desired class the model does not have, an instance with extra columns, and
integer-coded categoricals declared with ``categorical=``. Every compiled engine reports the
model's own predict_proba bit for bit (the MLP within its error bound)."""

import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

import geco
from codegen import UnknownClass
from geco.cli import EXIT_BAD_USAGE, main
from plaf_grammar import PLAFError, SchemaError

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")


def credit(n=500, seed=0):
    """Loan applicants whose column names hold spaces and parentheses."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "credit amount": rng.integers(100, 10_000, n).astype(float),
        "age (years)": rng.integers(18, 80, n),
        "job type": pd.Categorical(rng.choice(["skilled", "unskilled", "self employed"], n)),
        "duration": rng.integers(6, 72, n),
    })  # fmt: skip
    y = ((X["credit amount"] < 5_000) & (X["age (years)"] > 30) | (X["job type"] == "skilled")).astype(int)
    return X, y.to_numpy()


def customers(n=500, seed=0):
    """Customers whose type is an integer code: 35 is a type, not a number between 34 and 36."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "income": rng.integers(0, 100, n).astype(float),
        "cust_type": rng.integers(30, 40, n),
        "age": rng.integers(18, 70, n),
    })  # fmt: skip
    y = ((X["income"] > 60) | (X["cust_type"] == 35)).astype(int).to_numpy()
    return X, y


def mixed_rows(explainer, n=2_000, seed=1):
    """Encoded rows mixing the data's values column by column (combinations the data lacks)."""
    rng = np.random.default_rng(seed)
    data = explainer.data
    return np.column_stack([rng.choice(data[:, j], n) for j in range(data.shape[1])])


def assert_scores_are_the_models(explainer, model, column=1):
    """The engine's P(desired) of many rows is the model's predict_proba of them, decoded."""
    rows = np.vstack([explainer.data, mixed_rows(explainer)])
    own = model.predict_proba(explainer.schema.decode(rows))[:, column]
    scores = explainer.scorer.score_rows(rows)
    if explainer.scorer.exact:
        np.testing.assert_array_equal(scores, own)
    else:
        assert (np.abs(scores - own) <= explainer.scorer.error_bound(rows)).all()


def first_undesired(model, X, column=1):
    return int(np.flatnonzero(model.predict_proba(X)[:, column] < 0.5)[0])


# ----------------------------------------------------------------------------- column names
GBMS = {
    "lightgbm": lambda: lgb.LGBMClassifier(n_estimators=20, num_leaves=8, verbose=-1, n_jobs=1),
    "xgboost": lambda: xgb.XGBClassifier(n_estimators=20, max_depth=3, enable_categorical=True, n_jobs=1),
}


@pytest.mark.parametrize("engine", ["jit", "numpy"])
@pytest.mark.parametrize("kind", sorted(GBMS))
def test_column_names_with_spaces_work_end_to_end(kind, engine):
    X, y = credit()
    model = GBMS[kind]().fit(X, y)
    if kind == "lightgbm":
        assert "credit_amount" in list(model.feature_names_in_)  # the report: LightGBM renames
    # the user's own frame, its columns in another order and with an id the model never saw
    given = X[["duration", "job type", "credit amount", "age (years)"]].assign(id=np.arange(len(X)))
    with pytest.warns(UserWarning, match=r"ignoring column\(s\) \['id'\] of X: the model was not fitted on them"):
        explainer = geco.Explainer(model, given, engine=engine, max_generations=10)
    assert explainer.schema.names == tuple(X.columns)
    assert explainer.engine_reason.startswith("compiled engine"), explainer.engine_reason
    assert_scores_are_the_models(explainer, model)
    row = first_undesired(model, X)
    result = explainer.explain(given.iloc[[row]], random_state=0)
    assert result.success
    cfs = result.counterfactuals
    np.testing.assert_array_equal(cfs["probability"].to_numpy(), model.predict_proba(cfs[list(X.columns)])[:, 1])
    reference = geco.Explainer(model, X, engine="blackbox", max_generations=10).explain(
        X.iloc[[row]], random_state=0
    )
    pd.testing.assert_frame_equal(reference.counterfactuals, cfs)


# ----------------------------------------------------------------------------- desired class
def test_a_desired_class_the_model_lacks_is_a_value_error_naming_the_classes():
    X, y = customers()
    model = RandomForestClassifier(10, random_state=0).fit(X, np.where(y == 1, "yes", "no"))
    with pytest.raises(UnknownClass, match=r"^desired_class 1 is not one of the model's classes \['no', 'yes'\]$") as err:
        geco.Explainer(model, X)
    assert isinstance(err.value, ValueError) and not isinstance(err.value, geco.UnsupportedModelError)
    for engine in ("jit", "numpy", "blackbox"):
        with pytest.raises(UnknownClass, match="desired_class 'maybe'"):
            geco.Explainer(model, X, desired_class="maybe", engine=engine)
    assert geco.Explainer(model, X, desired_class="yes").engine != "blackbox"


def test_the_cli_reports_a_class_the_model_lacks_as_bad_usage(tmp_path, capsys):
    X, y = customers(200)
    X.assign(label=y).to_csv(tmp_path / "customers.csv", index=False)
    model = RandomForestClassifier(10, random_state=0).fit(X, np.where(y == 1, "yes", "no"))
    joblib.dump(model, tmp_path / "model.joblib")
    argv = ["explain", "--data", str(tmp_path / "customers.csv"), "--target", "label",
            "--model", str(tmp_path / "model.joblib"), "--row", "0"]  # fmt: skip
    assert main(argv) == EXIT_BAD_USAGE
    err = capsys.readouterr().err
    assert "geco: error: desired_class 1 is not one of the model's classes ['no', 'yes']" in err


# ----------------------------------------------------------------------------- extra columns of x
def model_on_array(X, y):
    return RandomForestClassifier(10, random_state=0).fit(X.to_numpy(), y)


def model_as_function(X, y):
    forest = RandomForestClassifier(10, random_state=0).fit(X, y)
    return lambda frame: forest.predict_proba(frame[list(X.columns)])


@pytest.mark.parametrize("make", [model_on_array, model_as_function, lambda X, y: RandomForestClassifier(10, random_state=0).fit(X, y)])
def test_extra_columns_of_x_are_ignored_with_a_warning(make):
    X, y = customers()
    model = make(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn: a frame for a model fitted on an array
        explainer = geco.Explainer(model, X, max_generations=8)
        row = int(np.flatnonzero(explainer.blackbox.score_rows(explainer.data) < 0.5)[0])
        plain = explainer.explain(X.iloc[[row]], random_state=0)
    x = X.iloc[[row]].assign(customer_id=17, note="vip")
    with pytest.warns(UserWarning, match=r"^ignoring column\(s\) \['customer_id', 'note'\] of x: the Explainer's X did not have them$"):
        extra = explainer.explain(x, random_state=0)
    pd.testing.assert_frame_equal(plain.counterfactuals, extra.counterfactuals)
    assert list(extra.x.columns) == list(X.columns)
    with pytest.warns(UserWarning, match="customer_id"):
        explainer.problem(x.iloc[0].to_dict())  # a dict too
    with pytest.warns(UserWarning, match="customer_id"), pytest.raises(SchemaError, match="missing column.*'age'"):
        explainer.explain(x.drop(columns=["age"]))


def test_a_column_x_had_and_the_model_was_not_fitted_on_is_dropped_silently():
    X, y = customers()
    model = RandomForestClassifier(10, random_state=0).fit(X, y)
    with pytest.warns(UserWarning, match=r"\['id'\] of X"):
        explainer = geco.Explainer(model, X.assign(id=np.arange(len(X))), max_generations=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once already, at construction
        problem = explainer.problem(X.iloc[[0]].assign(id=0))
    assert problem.x.shape == (3,)


# ----------------------------------------------------------------------------- categorical=
def one_hot_forest(X):
    encode = ColumnTransformer([("type", OneHotEncoder(handle_unknown="ignore"), ["cust_type"])], remainder="passthrough")
    return make_pipeline(encode, RandomForestClassifier(10, random_state=0))


CATEGORICAL_MODELS = {
    "forest": lambda X: RandomForestClassifier(20, random_state=0),
    "hist-gbm": lambda X: HistGradientBoostingClassifier(max_iter=20, random_state=0),
    "mlp": lambda X: MLPClassifier((8,), max_iter=50, random_state=0),
    "xgboost": lambda X: xgb.XGBClassifier(n_estimators=20, max_depth=3, n_jobs=1),
    "lightgbm": lambda X: lgb.LGBMClassifier(n_estimators=20, num_leaves=8, verbose=-1, n_jobs=1),
    "one-hot-forest": one_hot_forest,
}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("kind", sorted(CATEGORICAL_MODELS))
def test_integer_codes_declared_categorical(kind):
    X, y = customers()
    model = CATEGORICAL_MODELS[kind](X).fit(X, y)
    explainer = geco.Explainer(model, X, categorical=["cust_type"], max_generations=10)
    feature = explainer.schema["cust_type"]
    assert feature.kind == "categorical" and feature.categories == tuple(range(30, 40))
    assert list(explainer.categorical) == [False, True, False]  # a change counts 1 in the distance
    assert explainer.scorer.compiled, explainer.engine_reason
    assert_scores_are_the_models(explainer, model)
    decoded = explainer.schema.decode(explainer.data)
    assert decoded["cust_type"].dtype == X["cust_type"].dtype  # the model sees its own integers
    pd.testing.assert_frame_equal(decoded, X)
    result = explainer.explain(X.iloc[[first_undesired(model, X)]], random_state=0)
    assert result.success
    cfs = result.counterfactuals
    assert cfs["cust_type"].dtype == X["cust_type"].dtype and set(cfs["cust_type"]) <= set(X["cust_type"])
    own = model.predict_proba(cfs[list(X.columns)])[:, 1]
    np.testing.assert_allclose(cfs["probability"].to_numpy(), own, rtol=0, atol=1e-12)


def test_categorical_changes_the_distance_and_refuses_increasing():
    X, y = customers()
    model = RandomForestClassifier(20, random_state=0).fit(X, y)
    numeric = geco.Explainer(model, X)
    assert numeric.schema["cust_type"].kind == "numeric"  # the default is unchanged
    assert list(numeric.categorical) == [False, False, False]
    coded = geco.Explainer(model, X, categorical="cust_type")  # one name is a list of one
    assert coded.schema["cust_type"].kind == "categorical"
    x = X.iloc[[0]].assign(cust_type=33)
    near, far = x.assign(cust_type=34), x.assign(cust_type=39)
    for explainer, same in ((coded, True), (numeric, False)):
        problem = explainer.problem(x)
        d_near, d_far = problem.distances(np.vstack([explainer.schema.encode(near), explainer.schema.encode(far)]))
        assert (d_near == d_far) == same  # another type is another type, however far its code
    with pytest.raises(PLAFError, match="'increasing' on unordered categorical feature 'cust_type'"):
        geco.Explainer(model, X, "increasing cust_type", categorical=["cust_type"])
    geco.Explainer(model, X, "increasing cust_type")  # a number may only go up


def test_categorical_names_must_be_features():
    X, y = customers()
    model = RandomForestClassifier(5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"cannot declare \['kind'\] categorical: they are not columns of X \(features: \['income', 'cust_type', 'age'\]\)"):
        geco.Explainer(model, X, categorical=["kind"])
    with pytest.warns(UserWarning), pytest.raises(ValueError, match=r"\['id'\] categorical: the model was not fitted on them"):
        geco.Explainer(model, X.assign(id=0), categorical=["id"])
    with pytest.raises(ValueError, match="categorical= or schema=, not both"):
        geco.Explainer(model, X, schema=geco.Explainer(model, X).schema, categorical=["cust_type"])


def test_a_model_fitted_on_pandas_nullable_numbers_is_explained():
    """A frame of pandas' nullable dtypes (Int64, Float64, boolean): the model scores the decoded
    rows in those dtypes, and the counterfactuals come back in them, each one the model accepts."""
    X, y = customers()
    X = X.astype({"income": "Float64", "age": "Int64", "cust_type": "Int64"}).assign(
        member=pd.array(np.arange(len(X)) % 3 == 0, dtype="boolean"))  # fmt: skip
    model = RandomForestClassifier(20, max_depth=5, random_state=0).fit(X, y)
    explainer = geco.Explainer(model, X, constraints="increasing age", max_generations=10)
    assert_scores_are_the_models(explainer, model)
    row = first_undesired(model, X)
    result = explainer.explain(X.iloc[[row]], k=3, random_state=0)
    assert result.success
    cfs = result.counterfactuals[list(X.columns)]
    assert cfs.dtypes.to_dict() == X.dtypes.to_dict()
    assert (model.predict_proba(cfs)[:, 1] > 0.5).all()
    assert (cfs["age"] >= X["age"].iloc[row]).all()


def test_the_one_hot_pipeline_names_a_column_given_twice():
    from geco.models import one_hot_pipeline

    X, _ = customers(20)
    twice = pd.concat([X, X[["age"]]], axis=1)
    with pytest.raises(ValueError, match=r"X has duplicate column name\(s\) \['age'\]"):
        one_hot_pipeline(twice, RandomForestClassifier(2))


def test_a_numeric_column_declared_categorical_decodes_to_its_own_dtype():
    from plaf_grammar import Schema

    X = pd.DataFrame({
        "code": np.array([3, 5, 3, 7], dtype="int64"), "small": np.array([1, 2, 3, 1], dtype="uint8"),
        "grade": [1.5, 2.5, 1.5, 1.5], "nullable": pd.array([1, 2, 2, 1], dtype="Int64"),
        "name": ["x", "y", "x", "x"],
    })  # fmt: skip
    schema = Schema.from_dataframe(X, overrides={c: "categorical" for c in X.columns})
    assert schema["code"].categories == (3, 5, 7)
    encoded = schema.encode(X)
    assert encoded[:, 0].tolist() == [0, 1, 0, 2]
    decoded = schema.decode(encoded)
    pd.testing.assert_frame_equal(decoded[["code", "small", "grade", "nullable"]], X[["code", "small", "grade", "nullable"]])
    assert decoded["name"].tolist() == ["x", "y", "x", "x"]


# ----------------------------------------------------------------------------- feature selection
SELECTED = {
    "forest": lambda: RandomForestClassifier(20, max_depth=6, random_state=0),
    "hgb": lambda: HistGradientBoostingClassifier(max_iter=20, random_state=0),
    "mlp": lambda: MLPClassifier((8,), max_iter=200, random_state=0),
    "xgboost": lambda: xgb.XGBClassifier(n_estimators=20, max_depth=3, n_jobs=1),
}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("kind", sorted(SELECTED))
def test_a_pipeline_with_feature_selection_is_compiled_and_scores_as_the_model(kind):
    """Feature selection between the encoder and the model (what users add to wide data) keeps
    the compiled engine; the feature it drops is one no counterfactual needs to change."""
    from sklearn.feature_selection import SelectKBest, VarianceThreshold, f_classif
    from sklearn.preprocessing import StandardScaler

    X, y = credit()
    encode = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["job type"]),
                                ("sc", StandardScaler(), ["credit amount", "age (years)", "duration"])])  # fmt: skip
    model = make_pipeline(encode, VarianceThreshold(), SelectKBest(f_classif, k=4), SELECTED[kind]()).fit(X, y)
    explainer = geco.Explainer(model, X, max_generations=10)
    assert explainer.engine != "blackbox", explainer.engine_reason
    assert_scores_are_the_models(explainer, model)
    result = explainer.explain(X.iloc[[first_undesired(model, X)]], random_state=0, k=2)
    assert result.success
    cfs = result.counterfactuals
    own = model.predict_proba(cfs[list(X.columns)])[:, 1]
    assert (own > 0.5).all()
    if explainer.scorer.exact:
        np.testing.assert_array_equal(cfs["probability"].to_numpy(), own)


def test_a_model_failing_on_the_data_is_named_in_one_line_without_a_native_stack_trace():
    """A native library's error (XGBoost's, as it raises one for a category it was not fitted
    with) comes with a timestamp, a source position and a stack trace: the message only is kept."""
    X, _ = credit()

    def predict_proba(frame):
        raise RuntimeError(
            "[20:12:01] /workspace/src/data/cat_container.h:29: Found a category not in the training set "
            "for the 3th (0-based) column: `retired`\nStack trace:\n  [bt] (0) /lib/libxgboost.so(+0x11031e) "
            "[0x7f2d0971031e]\n  [bt] (1) /lib/libxgboost.so(+0x8d258f) [0x7f2d09ed258f]\n\n"
        )

    with pytest.raises(geco.UnsupportedModelError) as err:
        geco.Explainer(predict_proba, X)
    assert str(err.value) == (
        "the model failed to score rows of X (RuntimeError: Found a category not in the training set for the 3th "
        "(0-based) column: `retired`); was it fitted on a DataFrame with these columns?"
    )


def test_a_multi_output_classifier_is_refused_for_what_it_is():
    """A forest fitted on two targets has one array of classes per output and predict_proba
    returns a list of tables: the error says so, not that the class is unknown."""
    from sklearn.multioutput import MultiOutputClassifier

    X, y = customers()
    both = np.column_stack([y, 1 - y])
    for model in (RandomForestClassifier(5, random_state=0).fit(X, both), MultiOutputClassifier(RandomForestClassifier(5)).fit(X, both)):
        with pytest.raises(geco.UnsupportedModelError, match=r"predicts 2 outputs \(a multi-output classifier\); geco explains one"):
            geco.Explainer(model, X)


@pytest.mark.parametrize("make", [lambda: RandomForestClassifier(5), lambda: xgb.XGBClassifier(), lambda: lgb.LGBMClassifier()])
def test_a_model_not_fitted_is_named_so(make):
    X, _ = customers()
    with pytest.raises(geco.UnsupportedModelError, match=r"^the model is not fitted: call its fit first \(NotFittedError: "):
        geco.Explainer(make(), X)
