"""XGBoost and LightGBM readers: ``RawEnsemble.predict_proba`` and the folded ``Forest.predict``
equal the library's own ``predict_proba`` bit for bit (assert_array_equal, never allclose), on
rows that sit exactly on thresholds, on their float32/float64 neighbours, on NaN, zeros and odd
category codes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.errors import UnsupportedModel
from codegen.trees.gbm.links import c_exp, c_expf
from codegen.trees.gbm.split_tests import LIGHTGBM_ZERO
from plaf_grammar import Schema

pytestmark = [
    pytest.mark.filterwarnings("ignore:X does not have valid feature names"),
    pytest.mark.filterwarnings("ignore:The argument 'eval_set' is deprecated"),
]

SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
F32 = np.float32


def _xgb():
    return pytest.importorskip("xgboost")


def _lgb():
    return pytest.importorskip("lightgbm")


# ------------------------------------------------------------------------------- data and rows


def _data(seed: int, n: int = 240, nan_frac: float = 0.1, zero_frac: float = 0.1):
    """Four numeric columns (NaN in column 1, exact zeros in column 3) and 2- and 3-class labels."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)), 3)
    X[rng.random(n) < nan_frac, 1] = np.nan
    X[rng.random(n) < zero_frac, 3] = 0.0
    s = X[:, 0] + np.nan_to_num(X[:, 1], nan=0.7) - 0.5 * (X[:, 3] == 0) + 0.3 * rng.normal(size=n)
    return X, (s > 0).astype(int), np.digitize(s, [-0.6, 0.6])


def _edges(t: np.ndarray, f32: bool) -> np.ndarray:
    """Thresholds, their float64 neighbours, and (XGBoost) the float32 neighbours and the
    float64 values at and around the float32 rounding midpoints."""
    t = t[np.isfinite(t)]
    out = [t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf)]
    if f32:
        t32 = t.astype(F32)
        for d in (np.inf, -np.inf):
            nb = np.nextafter(t32, F32(d)).astype(np.float64)
            mid = (t32.astype(np.float64) + nb) / 2
            out += [nb, mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf)]
    return np.concatenate(out)


_SPECIAL = np.array([np.nan, 0.0, -0.0, LIGHTGBM_ZERO, -LIGHTGBM_ZERO, 1e-35, -1e-35, 1e-300,
                     np.nextafter(LIGHTGBM_ZERO, 1.0), np.nextafter(-LIGHTGBM_ZERO, -1.0)])  # fmt: skip


def _pools(raw, n_features: int) -> list[np.ndarray]:
    """Per model column: the values worth testing."""
    pools = []
    for j in range(n_features):
        num = (raw.feature == j) & ~raw.is_cat
        pools.append(np.concatenate([_edges(raw.threshold[num], raw.f32), _SPECIAL, [-1.5, 0.5, 2.5]]))
    return pools


def _rows(data, pools: list[np.ndarray], n_max: int = 12) -> np.ndarray:
    """Hypothesis rows: every cell a pool value or a float."""
    n = data.draw(st.integers(1, n_max), label="n rows")
    cols = []
    for pool in pools:
        cell = st.one_of(st.sampled_from(pool.tolist()), st.floats(-4, 4))
        cols.append(data.draw(st.lists(cell, min_size=n, max_size=n)))
    return np.array(cols, dtype=np.float64).T


def _bulk(pools: list[np.ndarray], seed: int, n: int = 400) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.choice(p, n) for p in pools])


# ------------------------------------------------------------------------------------- XGBoost


def _xgb_expected(model, Q, objective: str):
    """The library's class probabilities for a Booster (what XGBClassifier would return)."""
    xgb = _xgb()
    from scipy.special import softmax

    dm = xgb.DMatrix(Q, missing=np.nan)
    if objective == "binary:logistic":
        p = model.predict(dm)
        return np.vstack((1.0 - p, p)).T
    if objective == "multi:softmax":
        return softmax(model.predict(dm, output_margin=True), axis=1)
    return model.predict(dm)


@SETTINGS
@given(data=st.data())
def test_xgboost_numeric_equals_predict_proba(data):
    xgb = _xgb()
    from codegen.trees.gbm.xgboost_reader import read_xgboost

    seed = data.draw(st.integers(0, 10_000), label="seed")
    k = data.draw(st.sampled_from([2, 3]), label="classes")
    X, y2, y3 = _data(seed, nan_frac=data.draw(st.sampled_from([0.0, 0.2])))
    y = y2 if k == 2 else y3
    objective = "binary:logistic" if k == 2 else data.draw(st.sampled_from(["multi:softprob", "multi:softmax"]))
    params = dict(max_depth=data.draw(st.integers(1, 5)), learning_rate=0.3, nthread=1, objective=objective)
    if k == 2 and data.draw(st.booleans(), label="user base_score"):
        params["base_score"] = data.draw(st.floats(0.05, 0.95))
    if k == 3:
        params["num_class"] = 3
    n_rounds = data.draw(st.integers(1, 10), label="rounds")
    if data.draw(st.booleans(), label="Booster"):
        model = xgb.train(params, xgb.DMatrix(X, y, missing=np.nan), num_boost_round=n_rounds)
        raw = read_xgboost(model)
        Q = np.vstack([_rows(data, _pools(raw, 4)), _bulk(_pools(raw, 4), seed)])
        want = _xgb_expected(model, Q, objective)
    else:
        params.pop("nthread")
        model = xgb.XGBClassifier(n_estimators=n_rounds, n_jobs=1, **params).fit(X, y)
        raw = read_xgboost(model)
        Q = np.vstack([_rows(data, _pools(raw, 4)), _bulk(_pools(raw, 4), seed)])
        want = model.predict_proba(Q)
    got = raw.predict_proba(Q)
    assert got.dtype == np.float32 and raw.init.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def _cat_frame(seed: int, n: int = 300) -> tuple[pd.DataFrame, np.ndarray]:
    """A numeric column, a 5-category and a 40-category pandas categorical (NaN in the latter)."""
    rng = np.random.default_rng(seed)
    many = [f"c{i}" for i in range(40)]
    df = pd.DataFrame({
        "a": np.round(rng.normal(size=n), 2),
        "few": pd.Categorical(rng.choice(list("vwxyz"), n), categories=list("zyxwv")),
        "many": pd.Categorical(rng.choice(many[:34], n), categories=many),
    })  # fmt: skip
    df.loc[rng.random(n) < 0.1, "many"] = np.nan
    code = df["many"].cat.codes.to_numpy()
    y = ((df["a"] > 0) ^ (code % 3 == 0) ^ (df["few"].cat.codes.to_numpy() == 1)).to_numpy().astype(int)
    return df, y


def _codes(df: pd.DataFrame) -> np.ndarray:
    """A frame's category codes as floats, NaN for a missing category."""
    cols = []
    for c in df.columns:
        s = df[c]
        cols.append(s.cat.codes.replace(-1, np.nan).to_numpy(float) if s.dtype == "category" else s.to_numpy(float))
    return np.column_stack(cols)


_ODD_CODES = [-1.0, -0.5, 0.5, 2.7, 31.9, 32.0, 39.0, 40.0, 100.0, 1e7, 2.0**24, np.nan]


@SETTINGS
@given(seed=st.integers(0, 10_000), onehot_max=st.sampled_from([1, 4, 64]), k=st.sampled_from([2, 3]))
def test_xgboost_categorical_equals_predict_proba(seed, onehot_max, k):
    xgb = _xgb()
    from codegen.trees.gbm.xgboost_reader import read_xgboost

    df, y = _cat_frame(seed)
    if k == 3:
        y = y + (df["a"] > 1).to_numpy()
    model = xgb.XGBClassifier(n_estimators=6, max_depth=4, enable_categorical=True, tree_method="hist",
                              max_cat_to_onehot=onehot_max, n_jobs=1).fit(df, y)  # fmt: skip
    raw = read_xgboost(model)
    assert raw.is_cat.any()
    np.testing.assert_array_equal(raw.predict_proba(_codes(df)), model.predict_proba(df))
    # codes XGBoost never produced from a frame: negative, fractional, past the bitsets
    Q = np.repeat(_codes(df)[:1], len(_ODD_CODES), axis=0)
    Q[:, 2] = _ODD_CODES
    Q[:, 1] = np.resize([0.0, 4.0, -1.0, 2.5], len(Q))
    np.testing.assert_array_equal(raw.predict_proba(Q), model.predict_proba(Q))


def test_xgboost_iteration_ranges():
    xgb = _xgb()
    from codegen.trees.gbm.xgboost_reader import read_xgboost

    X, y2, y3 = _data(3, n=400)
    for y in (y2, y3):
        model = xgb.XGBClassifier(n_estimators=60, max_depth=3, learning_rate=0.5, early_stopping_rounds=2,
                                  n_jobs=1).fit(X[:200], y[:200], eval_set=[(X[200:], y[200:])], verbose=False)  # fmt: skip
        n_rounds = model.get_booster().num_boosted_rounds()
        assert model.best_iteration + 1 < n_rounds  # early stopping kept extra rounds
        raw = read_xgboost(model)
        assert raw.n_trees == (model.best_iteration + 1) * (1 if y is y2 else 3)
        np.testing.assert_array_equal(raw.predict_proba(X), model.predict_proba(X))
        window = read_xgboost(model, iteration_range=(1, 3))
        np.testing.assert_array_equal(window.predict_proba(X), model.predict_proba(X, iteration_range=(1, 3)))
        # a Booster predicts with every round, as Booster.predict does
        booster = model.get_booster()
        objective = "binary:logistic" if y is y2 else "multi:softprob"
        full = read_xgboost(booster)
        assert full.n_trees == n_rounds * (1 if y is y2 else 3)
        np.testing.assert_array_equal(full.predict_proba(X), _xgb_expected(booster, X, objective))
        with pytest.raises(UnsupportedModel, match="iteration range"):
            read_xgboost(model, iteration_range=(0, n_rounds + 1))


def test_xgboost_unsupported_models_raise():
    xgb = _xgb()
    from codegen.trees.gbm.xgboost_reader import read_xgboost

    X, y, _ = _data(0)
    with pytest.raises(UnsupportedModel, match="objective"):
        read_xgboost(xgb.XGBClassifier(n_estimators=2, objective="binary:logitraw", n_jobs=1).fit(X, y))
    with pytest.raises(UnsupportedModel, match="gblinear"):
        read_xgboost(xgb.XGBClassifier(n_estimators=2, booster="gblinear", n_jobs=1).fit(X, y))
    with pytest.raises(UnsupportedModel, match="missing"):
        read_xgboost(xgb.XGBClassifier(n_estimators=2, missing=0.0, n_jobs=1).fit(X, y))
    with pytest.raises(UnsupportedModel, match="not an XGBoost"):
        read_xgboost(object())


@pytest.mark.parametrize("booster", ["dart", "gblinear"])
def test_xgboost_boosters_other_than_gbtree_fall_back_with_the_reason(booster):
    """A bare XGBClassifier on a DataFrame is read for its categories first: a dart or gblinear
    booster there said KeyError 'model'; the Explainer now falls back to the black box naming
    the booster, and its answers are the model's."""
    xgb = _xgb()
    import geco
    from codegen.trees.gbm.xgboost_reader import xgboost_categories

    X, y, _ = _data(0)
    df = pd.DataFrame(np.nan_to_num(X), columns=[f"f{j}" for j in range(X.shape[1])])
    trees = {"max_depth": 3} if booster == "dart" else {}  # gblinear has no depth (it warns of one)
    model = xgb.XGBClassifier(n_estimators=5, booster=booster, n_jobs=1, **trees).fit(df, y)
    with pytest.raises(UnsupportedModel, match=f"XGBoost booster '{booster}' is not supported"):
        xgboost_categories(model)
    explainer = geco.Explainer(model, df, desired_class=1)
    assert explainer.engine == "blackbox" and f"XGBoost booster '{booster}' is not supported" in explainer.engine_reason
    r = int(np.flatnonzero(model.predict_proba(df)[:, 1] < 0.5)[0])
    res = explainer.explain(df.iloc[[r]], k=1, random_state=0)
    if res.success:
        cf = res.counterfactuals
        np.testing.assert_array_equal(model.predict_proba(cf[list(df.columns)])[:, 1], cf["probability"])


def test_float32_text_parsing_resolves_double_rounding():
    from codegen.trees.gbm.xgboost_reader import nearest_float32

    # 1 + 2^-24 is halfway between float32 1 and its successor; this text lies just above it but
    # parses to exactly the midpoint as a double, which float32 rounding would send down to 1.0
    text = "1.0000000596046447753906251"
    assert float(text) == 1 + 2.0**-24 and F32(float(text)) == F32(1)
    assert nearest_float32(text) == np.nextafter(F32(1), F32(2))
    assert nearest_float32("1.0000000596046447753906249") == F32(1)
    assert nearest_float32("0.35795492") == F32(0.35795492)


# ------------------------------------------------------------------------------------ LightGBM


@SETTINGS
@given(data=st.data())
def test_lightgbm_numeric_equals_predict_proba(data):
    lgb = _lgb()
    from codegen.trees.gbm.lightgbm_reader import read_lightgbm

    seed = data.draw(st.integers(0, 10_000), label="seed")
    k = data.draw(st.sampled_from([2, 3]), label="classes")
    X, y2, y3 = _data(seed, nan_frac=data.draw(st.sampled_from([0.0, 0.2])), zero_frac=0.3)
    y = y2 if k == 2 else y3
    objective = "binary" if k == 2 else data.draw(st.sampled_from(["multiclass", "multiclassova"]))
    params = dict(objective=objective, num_leaves=data.draw(st.integers(2, 12)), min_child_samples=5,
                  learning_rate=0.3, verbose=-1, num_threads=1,
                  zero_as_missing=data.draw(st.booleans(), label="zero_as_missing"),
                  use_missing=data.draw(st.booleans(), label="use_missing"))  # fmt: skip
    if k == 3:
        params["num_class"] = 3
    if data.draw(st.booleans(), label="rf"):
        params.update(boosting="rf", bagging_freq=1, bagging_fraction=0.6)
    if objective != "multiclass":
        params["sigmoid"] = data.draw(st.sampled_from([1.0, 0.7]))
    n_rounds = data.draw(st.integers(1, 10), label="rounds")
    if data.draw(st.booleans(), label="Booster"):
        model = lgb.train(params, lgb.Dataset(X, y), num_boost_round=n_rounds)
        raw = read_lightgbm(model)
        Q = np.vstack([_rows(data, _pools(raw, 4)), _bulk(_pools(raw, 4), seed)])
        p = model.predict(Q)
        want = np.vstack((1.0 - p, p)).T if k == 2 else p
    else:
        model = lgb.LGBMClassifier(n_estimators=n_rounds, **params).fit(X, y)
        raw = read_lightgbm(model)
        Q = np.vstack([_rows(data, _pools(raw, 4)), _bulk(_pools(raw, 4), seed)])
        want = model.predict_proba(Q)
    np.testing.assert_array_equal(raw.predict_proba(Q), want)


def test_lightgbm_missing_types_and_zero_threshold():
    """Every missing_type occurs; rows at +-1e-35f (read as 0.0 by LightGBM) are routed right."""
    lgb = _lgb()
    from codegen.trees.gbm.lightgbm_reader import read_lightgbm

    X, y, _ = _data(5, n=600, nan_frac=0.2, zero_frac=0.3)
    X[:40, 0] = -1e-36  # tiny values become thresholds at +-kZeroThreshold
    types = set()
    for zero_as_missing in (False, True):
        model = lgb.LGBMClassifier(n_estimators=15, num_leaves=8, min_child_samples=3, verbose=-1, n_jobs=1,
                                   zero_as_missing=zero_as_missing).fit(X, y)  # fmt: skip
        for tree in model.booster_.dump_model()["tree_info"]:
            stack = [tree["tree_structure"]]
            while stack:
                nd = stack.pop()
                if "split_feature" in nd:
                    types.add(nd["missing_type"])
                    stack += [nd["left_child"], nd["right_child"]]
        raw = read_lightgbm(model)
        assert (raw.zero_missing is not None) == zero_as_missing
        Q = _bulk(_pools(raw, 4), 0, n=2000)
        np.testing.assert_array_equal(raw.predict_proba(Q), model.predict_proba(Q))
    assert types == {"None", "Zero", "NaN"}


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.sampled_from([2, 3]), max_cat_to_onehot=st.sampled_from([4, 64]))
def test_lightgbm_categorical_equals_predict_proba(seed, k, max_cat_to_onehot):
    lgb = _lgb()
    from codegen.trees.gbm.lightgbm_reader import read_lightgbm

    df, y = _cat_frame(seed)
    if k == 3:
        y = y + (df["a"] > 1).to_numpy()
    model = lgb.LGBMClassifier(n_estimators=6, num_leaves=8, min_child_samples=3, min_data_per_group=3,
                               cat_smooth=1, max_cat_to_onehot=max_cat_to_onehot, verbose=-1,
                               n_jobs=1).fit(df, y)  # fmt: skip
    raw = read_lightgbm(model)
    assert raw.is_cat.any()
    np.testing.assert_array_equal(raw.predict_proba(_codes(df)), model.predict_proba(df))
    # numpy rows take the codes as they are: negative, fractional, huge, past the bitsets
    Q = np.repeat(_codes(df)[:1], len(_ODD_CODES) + 2, axis=0)
    Q[:, 2] = [*_ODD_CODES, 2.0**31, 2.0**31 - 0.5]
    Q[:, 1] = np.resize([0.0, 4.0, -1.0, 2.5, -0.9], len(Q))
    np.testing.assert_array_equal(raw.predict_proba(Q), model.predict_proba(Q))


def test_lightgbm_iterations():
    lgb = _lgb()
    from codegen.trees.gbm.lightgbm_reader import read_lightgbm

    X, y2, y3 = _data(4, n=400)
    for y, k in ((y2, 1), (y3, 3)):
        params = dict(objective="binary" if k == 1 else "multiclass", num_class=k, num_leaves=6,
                      learning_rate=0.5, verbose=-1, num_threads=1)  # fmt: skip
        booster = lgb.train(params, lgb.Dataset(X[:200], y[:200]), num_boost_round=80,
                            valid_sets=[lgb.Dataset(X[200:], y[200:])], keep_training_booster=True,
                            callbacks=[lgb.early_stopping(2, verbose=False)])  # fmt: skip
        assert 0 < booster.best_iteration < booster.num_trees() // k  # extra rounds were kept
        raw = read_lightgbm(booster)
        assert raw.n_trees == booster.best_iteration * k
        p = booster.predict(X)
        np.testing.assert_array_equal(raw.predict_proba(X), np.vstack((1.0 - p, p)).T if k == 1 else p)
        part = read_lightgbm(booster, num_iteration=2, start_iteration=1)
        p = booster.predict(X, num_iteration=2, start_iteration=1)
        np.testing.assert_array_equal(part.predict_proba(X), np.vstack((1.0 - p, p)).T if k == 1 else p)
        # the sklearn wrapper: fitted with early stopping it keeps the best rounds only
        model = lgb.LGBMClassifier(n_estimators=80, num_leaves=6, learning_rate=0.5, verbose=-1, n_jobs=1)
        model.fit(X[:200], y[:200], eval_set=[(X[200:], y[200:])], callbacks=[lgb.early_stopping(2, verbose=False)])
        raw = read_lightgbm(model)
        assert raw.n_trees == model.best_iteration_ * k
        np.testing.assert_array_equal(raw.predict_proba(X), model.predict_proba(X))


def test_lightgbm_unsupported_models_raise():
    lgb = _lgb()
    from codegen.trees.gbm.lightgbm_reader import read_lightgbm

    X, y, _ = _data(0)
    # regressors with an identity link are read (tests/targets); others are refused
    assert read_lightgbm(lgb.LGBMRegressor(n_estimators=2, verbose=-1).fit(X, y)).regression
    with pytest.raises(UnsupportedModel, match="objective 'poisson"):
        read_lightgbm(lgb.train({"objective": "poisson", "verbose": -1}, lgb.Dataset(X, y), num_boost_round=2))
    with pytest.raises(UnsupportedModel, match="objective 'poisson"):
        read_lightgbm(lgb.LGBMRegressor(n_estimators=2, objective="poisson", verbose=-1).fit(X, y))
    with pytest.raises(UnsupportedModel, match="linear"):
        linear = lgb.LGBMClassifier(n_estimators=2, num_leaves=4, linear_tree=True, verbose=-1, n_jobs=1)
        read_lightgbm(linear.fit(np.nan_to_num(X[:80]), y[:80]))
    with pytest.raises(UnsupportedModel, match="not a fitted"):
        read_lightgbm(lgb.LGBMClassifier())


# ----------------------------------------------------------------------------- the C library


def _libm():
    lib = ctypes.CDLL(ctypes.util.find_library("m"))
    lib.expf.restype, lib.expf.argtypes = ctypes.c_float, [ctypes.c_float]
    return lib


def test_c_expf_equals_the_c_library():
    lib = _libm()
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-104, 89, 30_000), rng.uniform(-1, 1, 10_000), [0.0, -0.0, 88.7, -88.7, 89.0, -200.0, np.inf, -np.inf, np.nan]]).astype(F32)  # fmt: skip
    want = np.array([lib.expf(float(v)) for v in x], dtype=F32)
    np.testing.assert_array_equal(c_expf(x), want)
    with np.errstate(over="ignore"):
        assert (np.exp(x.astype(np.float64)).astype(F32) != want).any()  # the fallback is needed


def test_c_exp_equals_math_exp():
    x = np.random.default_rng(1).uniform(-700, 700, 5000)
    np.testing.assert_array_equal(c_exp(x), np.array([math.exp(v) for v in x]))
    assert c_exp(np.array([1000.0]))[0] == np.inf


# --------------------------------------------------------------------- folding onto the schema


def _user_frame(seed: int, n: int = 400) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": np.round(rng.normal(size=n), 2),
        "b": rng.integers(0, 20, n).astype(float),
        # category order differs from the sorted labels: the model codes follow it
        "c": pd.Categorical(rng.choice(list("pqrst"), n), categories=list("tsrqp")),
        "e": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"], ordered=True),
        "g": np.round(rng.uniform(-3, 3, n), 2),
    })  # fmt: skip
    s = df["a"] + 0.1 * df["b"] + (df["c"].cat.codes % 2) - 0.3 * df["e"].cat.codes + df["g"]
    y = (s > 1).to_numpy().astype(int) + (df["g"] > 2).to_numpy().astype(int)
    return df, y


def _encode(schema: Schema, df: pd.DataFrame) -> np.ndarray:
    return np.column_stack([
        df[f.name].cat.codes.to_numpy(float) if f.categories is not None else df[f.name].to_numpy(float)
        for f in schema.features
    ])  # fmt: skip


def _user_rows(forest, X: np.ndarray, seed: int) -> np.ndarray:
    """Data rows with numeric cells replaced by user-space thresholds and their neighbours."""
    rng = np.random.default_rng(seed)
    Q = np.vstack([X, X])
    for j, f in enumerate(forest.schema.features):
        if f.categories is not None:
            Q[:, j] = rng.integers(0, len(f.categories), len(Q))
            continue
        t = forest.threshold[(forest.feature == j) & (forest.cat < 0)]
        vals = np.concatenate([_edges(t, True), [np.nan]])
        pick = rng.random(len(Q)) < 0.6
        Q[pick, j] = rng.choice(vals, int(pick.sum()))
    return Q


def _pipe(model, sparse: bool, numeric: bool = True):
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    parts = [("oh", OneHotEncoder(handle_unknown="ignore", sparse_output=sparse), ["c", "e"])]
    if numeric:
        parts.append(("sc", StandardScaler(), ["a", "g", "b"]))
    return Pipeline([("ct", ColumnTransformer(parts, sparse_threshold=1.0 if sparse else 0.0)), ("m", model)])


def _gbm_models():
    xgb, lgb = _xgb(), _lgb()
    return {
        "xgb-bare": lambda: xgb.XGBClassifier(n_estimators=8, max_depth=4, enable_categorical=True, n_jobs=1),
        "lgb-bare": lambda: lgb.LGBMClassifier(n_estimators=8, num_leaves=8, min_child_samples=5, verbose=-1, n_jobs=1),
        "xgb-pipe": lambda: _pipe(xgb.XGBClassifier(n_estimators=8, max_depth=4, n_jobs=1), sparse=False),
        "lgb-pipe": lambda: _pipe(lgb.LGBMClassifier(n_estimators=8, num_leaves=8, verbose=-1, n_jobs=1), sparse=True),
        "xgb-sparse-onehot": lambda: _pipe(xgb.XGBClassifier(n_estimators=8, max_depth=4, n_jobs=1), sparse=True, numeric=False),
    }  # fmt: skip


def test_folded_forest_equals_predict_proba():
    from codegen.trees.gbm.input import read_gbm_forest
    from codegen.trees.partial import bind_x, partial_evaluate

    df, y = _user_frame(0)
    schema = Schema.from_dataframe(df)
    X = _encode(schema, df)
    for name, make in _gbm_models().items():
        for yy, desired in (((y > 0).astype(int), 1), (y, 2), (y, 0)):
            model = make().fit(df, yy)
            forest = read_gbm_forest(model, schema, desired)
            Q = _user_rows(forest, X, seed=desired)
            want = model.predict_proba(schema.decode(Q))[:, desired]
            got = forest.predict(Q)
            assert got.dtype == np.float64, name  # the scorers return float64 (the same values)
            np.testing.assert_array_equal(got, want, err_msg=name)
            # partial evaluation for one instance and Δ = {a, c}
            delta = (0, 2)
            res = partial_evaluate(forest, bind_x(forest, Q[0]), delta)
            full = np.repeat(Q[:1], 60, axis=0)
            full[:, list(delta)] = Q[1:61][:, list(delta)]
            np.testing.assert_array_equal(res.predict(full[:, list(delta)]),
                                          model.predict_proba(schema.decode(full))[:, desired], err_msg=name)  # fmt: skip


def test_zero_read_as_missing_folds_exactly():
    """XGBoost behind a sparse pipeline output reads the entries left out (0.0) as missing, and
    LightGBM with zero_as_missing reads |x| <= 1e-35 as missing. The user values read as zero
    (0 itself, the mean behind a scaler) are read as NaN before the walk: exact on zeros and
    every neighbour."""
    xgb, lgb = _xgb(), _lgb()
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from codegen.trees.gbm.input import read_gbm_forest, read_gbm_input

    df, y = _user_frame(1)
    rng = np.random.default_rng(1)
    df["a"] = np.where(rng.random(len(df)) < 0.3, 0.0, df["a"])  # many zeros, a scaled column
    df["g"] = np.where(rng.random(len(df)) < 0.3, 0.0, df["g"])
    y = ((df["a"] == 0) ^ (df["g"] > 0.5) ^ (df["b"] == 0)).to_numpy().astype(int)
    schema = Schema.from_dataframe(df)
    X = _encode(schema, df)
    mean_a = None
    ct = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), ["c", "e"]), ("sc", StandardScaler(), ["a"])],
                           remainder="passthrough", sparse_threshold=1.0)  # fmt: skip
    models = {
        "xgb-sparse": Pipeline([("ct", ct), ("m", xgb.XGBClassifier(n_estimators=12, max_depth=4, n_jobs=1))]),
        "lgb-zero-as-missing": lgb.LGBMClassifier(n_estimators=12, num_leaves=8, min_child_samples=5, zero_as_missing=True,
                                                  verbose=-1, n_jobs=1),
    }  # fmt: skip
    for name, model in models.items():
        model.fit(df, y)
        forest = read_gbm_forest(model, schema, 1)
        if name == "xgb-sparse":
            assert read_gbm_input(model, schema).sparse
            mean_a = float(model[0].named_transformers_["sc"].mean_[0])
            # 0 is read as missing for b and g, and for a where it is scaled to 0: at its mean
            regions = {s: (below, upto) for s, below, upto in forest.missing_values}
            assert set(regions) == {0, 1, 4}
            assert regions[1] == regions[4] == (-5e-324, 0.0) and regions[0][1] == mean_a
        else:
            assert {s for s, *_ in forest.missing_values} <= {0, 1, 4} and forest.missing_values
        Q = _user_rows(forest, X, seed=3)
        zeros = [0.0, -0.0, 5e-324, -5e-324, 1e-36, -1e-36, LIGHTGBM_ZERO, np.nextafter(LIGHTGBM_ZERO, 1)]
        if mean_a is not None:
            zeros += [mean_a, np.nextafter(mean_a, np.inf), np.nextafter(mean_a, -np.inf)]
        for j in (0, 1, 4):  # a, b, g
            pick = rng.random(len(Q)) < 0.4
            Q[pick, j] = rng.choice(zeros, int(pick.sum()))
        want = model.predict_proba(schema.decode(Q))[:, 1]
        np.testing.assert_array_equal(forest.predict(Q), want, err_msg=name)


def test_bare_gbm_with_categories_unknown_to_the_model():
    """LightGBM reads a category it was not trained with as NaN; XGBoost is refused."""
    xgb, lgb = _xgb(), _lgb()
    from codegen.trees.gbm.input import read_gbm_forest

    df, y = _user_frame(2)
    y = (y > 0).astype(int)
    wide = df.assign(c=df["c"].cat.add_categories(["new"]))
    schema = Schema.from_dataframe(wide)
    model = lgb.LGBMClassifier(n_estimators=8, num_leaves=8, min_child_samples=5, verbose=-1, n_jobs=1).fit(df, y)
    forest = read_gbm_forest(model, schema, 1)
    Q = _encode(schema, wide)
    Q[::3, 2] = 5.0  # "new"
    np.testing.assert_array_equal(forest.predict(Q), model.predict_proba(schema.decode(Q))[:, 1])
    xmodel = xgb.XGBClassifier(n_estimators=4, enable_categorical=True, n_jobs=1).fit(df, y)
    with pytest.raises(UnsupportedModel, match="unknown to the XGBoost model"):
        read_gbm_forest(xmodel, schema, 1)
