"""``ModelScorer.upper_bound``: never below ``predict_proba`` on any row of the box (every row of
random boxes enumerated), for every tree family, MLPs, pipelines and multi-class models, and for an
MLP's set of classes; None for the black box and for an MLP regressor; exact up to its rounding
margin on a box of one row (trees)."""

import importlib.util
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, OrdinalEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier

from codegen import BlackBoxScorer, ModelOutput
from codegen.registry import scorer_for
from plaf_grammar import Schema

N = 300


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({
        "a": rng.integers(0, 10, N), "b": rng.normal(size=N).round(2) * 1000,
        "c": pd.Categorical(rng.choice(list("wxyz"), N)), "d": rng.integers(0, 3, N),
    })  # fmt: skip
    y2 = (((X.a > 5) ^ (X.b > 300)) | (X.c == "x")).astype(int)
    y3 = np.where(X.c == "w", 2, y2)
    return X, y2, y3


def _pipe(est, scale=False, ordinal=False):
    enc = OrdinalEncoder() if ordinal else OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    num = StandardScaler() if scale else "passthrough"
    pre = ColumnTransformer([("cat", enc, ["c"]), ("num", num, ["a", "b", "d"])], verbose_feature_names_out=False)
    return Pipeline([("pre", pre), ("model", est)])


MODELS = {
    "dt": lambda: _pipe(DecisionTreeClassifier(max_depth=6, random_state=0)),
    "rf": lambda: _pipe(RandomForestClassifier(20, max_depth=5, random_state=0)),
    "et": lambda: _pipe(ExtraTreesClassifier(20, max_depth=5, random_state=0)),
    "gb": lambda: _pipe(GradientBoostingClassifier(n_estimators=20, random_state=0)),
    "hgb": lambda: _pipe(HistGradientBoostingClassifier(max_iter=20, categorical_features=[0]), ordinal=True),
    "mlp-relu": lambda: _pipe(MLPClassifier((8,), max_iter=400, random_state=0), scale=True),
    "mlp-tanh": lambda: _pipe(MLPClassifier((6, 4), activation="tanh", max_iter=400, random_state=0), scale=True),
    "mlp-logistic": lambda: Pipeline([
        ("pre", ColumnTransformer([("cat", OneHotEncoder(sparse_output=False), ["c"]),
                                   ("num", MinMaxScaler(), ["a", "b", "d"])])),
        ("model", MLPClassifier((5,), activation="logistic", max_iter=400, random_state=0)),
    ]),
}
if importlib.util.find_spec("xgboost"):
    from xgboost import XGBClassifier

    MODELS["xgb"] = lambda: _pipe(XGBClassifier(n_estimators=15, max_depth=3, random_state=0, n_jobs=1))
if importlib.util.find_spec("lightgbm"):
    from lightgbm import LGBMClassifier

    MODELS["lgbm"] = lambda: _pipe(LGBMClassifier(n_estimators=15, num_leaves=8, random_state=0, n_jobs=1, verbose=-1))


def _random_box(rng, E, x):
    allowed = []
    for j in range(E.shape[1]):
        if rng.random() < 0.25:
            allowed.append(None)
            continue
        vals = np.unique(E[:, j])
        allowed.append(rng.choice(vals, size=min(len(vals), int(rng.integers(1, 5))), replace=False))
    return allowed


def _rows(x, allowed):
    sets = [np.array([x[j]]) if a is None else a for j, a in enumerate(allowed)]
    return np.array(list(itertools.product(*sets)), dtype=np.float64)


def _check(model, X, desired, n_boxes=60, seed=0):
    """Random boxes around data rows: every row of each box enumerated, all scored in one
    predict_proba call (a call costs HistGradientBoosting a fifth of a second here)."""
    schema = Schema.from_dataframe(X)
    E = schema.encode(X)
    scorer = scorer_for(model, schema, desired, "numpy")
    wanted = desired.classes if isinstance(desired, ModelOutput) else (desired,)
    cols = [list(model.classes_).index(c) for c in wanted]
    rng = np.random.default_rng(seed)
    bounds, boxes = [], []
    for _ in range(n_boxes):
        x = E[rng.integers(len(E))]
        allowed = _random_box(rng, E, x)
        bounds.append(scorer.upper_bound(x, allowed))
        boxes.append(_rows(x, allowed))
    p = model.predict_proba(schema.decode(np.concatenate(boxes)))[:, cols].sum(axis=1)
    for bound, part in zip(bounds, np.split(p, np.cumsum([len(b) for b in boxes])[:-1])):
        assert part.max() <= bound, (part.max(), bound)


def _fit(name, X, y):
    """``MODELS[name]`` fitted on ``X``, ``y`` (skipped where its library is not installed)."""
    if name not in MODELS:
        pytest.skip(f"{name} is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return MODELS[name]().fit(X, y)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_bound_covers_every_row_of_the_box(data, name):
    X, y2, _ = data
    model = _fit(name, X, y2)
    for desired in (0, 1):
        _check(model, X, desired, n_boxes=40, seed=desired)


@pytest.mark.parametrize("name", ["rf", "gb", "hgb", "mlp-relu", "xgb", "lgbm"])
def test_bound_covers_every_row_multiclass(data, name):
    X, _, y3 = data
    model = _fit(name, X, y3)
    for desired in (0, 1, 2):
        _check(model, X, desired, n_boxes=25, seed=10 + desired)


@pytest.mark.parametrize("name", ["mlp-relu", "mlp-tanh", "mlp-logistic"])
def test_mlp_bound_covers_every_row_for_a_set_of_classes(data, name):
    X, y2, y3 = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        three = MODELS[name]().fit(X, y3)
        two = MODELS[name]().fit(X, y2)
    for k, wanted in enumerate([(1, 2), (2, 0), (0, 1, 2)]):
        _check(three, X, ModelOutput("proba", wanted), n_boxes=25, seed=20 + k)
    _check(two, X, ModelOutput("proba", (0, 1)), n_boxes=10, seed=30)
    schema = Schema.from_dataframe(X)
    e = schema.encode(X)[0]
    full = [np.unique(col) for col in schema.encode(X).T]
    # a set can only be likelier than its members, and a box only likelier than its rows
    for wanted in [(1, 2), (0, 2)]:
        both = scorer_for(three, schema, ModelOutput("proba", wanted), "numpy")
        for c in wanted:
            one = scorer_for(three, schema, c, "numpy")
            assert both.upper_bound(e, full) >= one.upper_bound(e, [None] * 4) - 1e-9
        assert both.upper_bound(e, full) >= both.upper_bound(e, [None] * 4)


def test_mlp_regressor_has_no_bound_but_an_error_bound(data):
    """A prediction is no probability: the regressor's scorer has no certificate bound (None,
    as the black box), and its error bound is in the prediction's units."""
    X, _, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = _pipe(MLPRegressor(hidden_layer_sizes=(8,), max_iter=200, random_state=0), scale=True)
        model.fit(X, X["a"] * 10.0 + X["d"])
    schema = Schema.from_dataframe(X)
    E = schema.encode(X)
    for engine in ("numpy", "jit"):
        scorer = scorer_for(model, schema, ModelOutput("prediction"), engine)
        assert scorer.upper_bound(E[0], [None] * 4) is None
        err = np.abs(scorer.score_rows(E) - model.predict(X))
        bound = scorer.error_bound(E)
        assert np.all(err <= bound) and bound.max() < 1e-10


@pytest.mark.parametrize("kind", ["rf-reg", "gb-reg", "hgb-reg", "gb-margin"])
def test_tree_bounds_of_a_prediction_or_margin_are_not_capped_at_one(data, kind):
    """A regressor's prediction (around 30-45 here, some negative) or a boosting margin is
    bounded as that number: the bound covers every row of random boxes, without the 1.0 cap of
    a probability."""
    from sklearn.ensemble import (
        GradientBoostingRegressor,
        HistGradientBoostingRegressor,
        RandomForestRegressor,
    )

    X, y2, _ = data
    target = X["a"] * 3.0 + X["d"] * 5.0 + 30.0 - (X["c"] == "x") * 45.0
    model, output, value = {
        "rf-reg": (_pipe(RandomForestRegressor(15, max_depth=5, random_state=0)), ModelOutput("prediction"), "predict"),
        "gb-reg": (_pipe(GradientBoostingRegressor(n_estimators=20, random_state=0)), ModelOutput("prediction"), "predict"),
        "hgb-reg": (_pipe(HistGradientBoostingRegressor(max_iter=20), ordinal=True), ModelOutput("prediction"), "predict"),
        "gb-margin": (_pipe(GradientBoostingClassifier(n_estimators=30, random_state=0)), ModelOutput("margin"), "decision_function"),
    }[kind]  # fmt: skip
    model.fit(X, y2 if kind == "gb-margin" else target)
    schema = Schema.from_dataframe(X)
    E = schema.encode(X)
    scorer = scorer_for(model, schema, output, "numpy")
    rng = np.random.default_rng(3)
    above_one = 0
    for _ in range(25):
        x = E[rng.integers(len(E))]
        allowed = _random_box(rng, E, x)
        rows = _rows(x, allowed)
        got = getattr(model, value)(schema.decode(rows))
        bound = scorer.upper_bound(x, allowed)
        assert got.max() <= bound, (got.max(), bound)
        above_one += bound > 1.0
    assert above_one > 0


@pytest.mark.parametrize("name", ["dt", "rf", "gb", "hgb", "xgb", "lgbm"])
def test_a_box_of_one_row_bounds_its_own_probability_closely(data, name):
    if name not in MODELS:
        pytest.skip(f"{name} is not installed")
    X, y2, _ = data
    model = MODELS[name]().fit(X, y2)
    schema = Schema.from_dataframe(X)
    E = schema.encode(X)
    scorer = scorer_for(model, schema, 1, "numpy")
    p = model.predict_proba(X.iloc[:30])[:, 1]
    bounds = np.array([scorer.upper_bound(e, [None] * len(e)) for e in E[:30]])
    assert np.all(bounds >= p) and np.all(bounds - p < 1e-5)


@pytest.mark.parametrize("name", ["gb", "hgb", "xgb", "lgbm"])
def test_a_margin_the_desired_class_rises_with_is_bounded_at_its_largest_alone(data, name):
    """Boosting with one margin: for class 1 (P rises with the margin) the bound reads the
    largest reachable leaves alone, its rounding margin from every leaf's magnitude: never below
    the bound from both ends (a wider margin), and within 1e-9 of it (1e-6 where the margins are
    float32); for class 0 both ends."""
    X, y2, _ = data
    model = _fit(name, X, y2)
    schema = Schema.from_dataframe(X)
    E = schema.encode(X)
    for desired, rises in ((1, True), (0, False)):
        scorer = scorer_for(model, schema, desired, "auto")
        assert scorer.forest.rises_with_margin is rises
    rng = np.random.default_rng(3)
    boxes = [(E[i], _random_box(rng, E, E[i])) for i in rng.integers(len(E), size=30)]
    one_end = [scorer_for(model, schema, 1, engine).upper_bound for engine in ("numpy", "auto")]
    both = scorer_for(model, schema, 1, "numpy")
    both.forest.__dict__["rises_with_margin"] = False  # the two-ended bound of the same forest
    close = 1e-6 if both.forest.float32_sums else 1e-9  # float32 margins: a float32 step apart at most
    for x, allowed in boxes:
        wide = both.upper_bound(x, allowed)
        for bound in one_end:
            got = bound(x, allowed)
            assert wide <= got <= wide + close, (got, wide)


def test_a_nan_leaf_a_rising_margin_reaches_gives_no_bound(data):
    """A NaN leaf (no library writes one; a hand-edited model might) in a rising margin's
    forest: where the box reaches it, no bound (1.0); where it does not, the bound is the one of
    the same forest without it (the rounding margin leaves it out)."""
    import dataclasses

    from codegen.trees.bound import upper_bound

    X, y2, _ = data
    model = _fit("gb", X, y2)
    schema = Schema.from_dataframe(X)
    E = schema.encode(X)
    forest = scorer_for(model, schema, 1, "numpy").forest
    x = E[0]
    reached = int(forest.leaves(x[None])[0, 0])  # x's leaf in the first tree
    other = next(i for i in range(forest.roots[0], forest.roots[1]) if forest.feature[i] < 0 and i != reached)
    own = [None] * len(x)
    plain = upper_bound(forest, x, own)
    for leaf, want in ((reached, 1.0), (other, plain)):
        value = forest.value.copy()
        value[leaf] = np.nan
        broken = dataclasses.replace(forest, value=value)
        assert broken.rises_with_margin
        assert upper_bound(broken, x, own) == want, leaf


def test_the_black_box_has_no_bound(data):
    X, y2, _ = data
    model = MODELS["rf"]().fit(X, y2)
    schema = Schema.from_dataframe(X)
    bb = BlackBoxScorer(model, schema, 1)
    assert bb.upper_bound(schema.encode(X)[0], [None] * 4) is None


def test_wider_boxes_never_lower_the_bound(data):
    X, y2, _ = data
    model = MODELS["gb"]().fit(X, y2)
    schema = Schema.from_dataframe(X)
    E = schema.encode(X)
    scorer = scorer_for(model, schema, 1, "numpy")
    rng = np.random.default_rng(3)
    for _ in range(30):
        x = E[rng.integers(len(E))]
        small = _random_box(rng, E, x)
        large = [None if a is None else np.union1d(a, np.unique(E[:, j])[:2]) for j, a in enumerate(small)]
        assert scorer.upper_bound(x, large) >= scorer.upper_bound(x, small)
