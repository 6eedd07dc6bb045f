"""Read fitted XGBoost classifiers (``XGBClassifier``, ``XGBRFClassifier``, ``Booster``) into a
:class:`codegen.trees.reader.RawEnsemble`, from the booster's JSON model (``save_raw("json")``).

Supported: ``gbtree`` boosters with scalar leaves, objectives ``binary:logistic``,
``multi:softprob`` and ``multi:softmax``, numeric and categorical splits, missing values (NaN),
any ``num_parallel_tree``, and an iteration range (default: what the model's own prediction uses:
``best_iteration + 1`` rounds for an early-stopped sklearn wrapper, every round for a ``Booster``).
Anything else raises :class:`UnsupportedModel`. The library itself is never imported here.

Exactness (XGBoost 2.x/3.x CPU predictor): the input is cast to float32 and tested
``x < split_condition`` (float32); NaN follows ``default_left``; categorical splits send the
categories listed for the node right and every other one left (see :mod:`codegen.trees.gbm.split_tests`).
Margins are float32: ``base margin`` (ProbToMargin of ``base_score``: ``-logf(1/p - 1)`` for
``binary:logistic``, the stored vector as is for softmax), then ``+= leaf`` tree by tree in model
order. Then ``common::Sigmoid``/``common::Softmax`` in float32 with the C library's ``expf``
(:mod:`codegen.trees.gbm.links`), or scipy's softmax of the margins for ``multi:softmax`` (what
``XGBClassifier.predict_proba`` does). ``RawEnsemble.predict_proba`` equals
``XGBClassifier.predict_proba`` bit for bit; for a ``Booster`` it is what an ``XGBClassifier``
wrapping it would return (``[1 - p, p]`` for binary).

The JSON writes float32 values in shortest round-trip form and Python parses them as doubles;
rounding that double to float32 is exact except when it lands exactly halfway between two
float32s, which is detected and resolved from the decimal text.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from typing import Any

import numpy as np

from codegen.errors import UnsupportedModel
from codegen.trees.gbm.links import GBMLink, xgboost_logit
from codegen.trees.reader import RawEnsemble

__all__ = ["is_xgboost", "nearest_float32", "read_xgboost", "xgboost_categories"]

_OBJECTIVES = ("binary:logistic", "multi:softprob", "multi:softmax")
#: regression objectives whose prediction is the raw score (an identity link)
_REGRESSION_OBJECTIVES = ("reg:squarederror", "reg:absoluteerror", "reg:pseudohubererror", "reg:quantileerror")


def is_xgboost(model: Any) -> bool:
    """An object of the xgboost package (checked without importing it)."""
    return type(model).__module__.split(".")[0] == "xgboost"


def nearest_float32(text: str) -> np.float32:
    """The float32 nearest to the decimal ``text`` (ties to even), computed exactly."""
    q = Fraction(text)
    f = np.float32(float(q))
    cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    best = min(cands, key=lambda c: (abs(Fraction(float(c)) - q), int(c.view(np.uint32)) & 1))
    return np.float32(best)


def _float32_array(texts: list) -> np.ndarray:
    """JSON numbers (kept as text) -> float32 values, exactly."""
    d = np.fromiter(map(float, texts), np.float64, len(texts))
    f = d.astype(np.float32)
    back = f.astype(np.float64)
    other = np.nextafter(f, np.where(d > back, np.float32(np.inf), np.float32(-np.inf))).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        tie = (back != d) & ((back + other) / 2 == d)
    for i in np.flatnonzero(tie):  # double rounding: decide from the decimal text
        f[i] = nearest_float32(str(texts[i]))
    return f


def _booster_json(booster: Any) -> dict:
    try:
        raw = booster.save_raw("json")
    except Exception as exc:
        raise UnsupportedModel(f"cannot read the XGBoost model: {exc}") from None
    return json.loads(bytes(raw), parse_float=str)


def _scores(text: str) -> np.ndarray:
    """``base_score`` as stored: ``"5E-1"`` (XGBoost < 3.1) or ``"[4.9E-1,...]"``."""
    parts = [p for p in str(text).strip().strip("[]").split(",") if p.strip()]
    return np.array([nearest_float32(p.strip()) for p in parts], dtype=np.float32)


def _split_model(model: Any) -> tuple[Any, tuple | None, tuple[int, int], str]:
    """(booster, classes or None, default iteration range, name)."""
    if hasattr(model, "get_booster"):  # sklearn wrapper
        name = type(model).__name__
        regressor = name.endswith("Regressor")
        if not regressor and (not hasattr(model, "classes_") or not hasattr(model, "n_classes_")):
            raise UnsupportedModel(f"{name} is not a fitted XGBoost classifier")
        try:
            booster = model.get_booster()
        except Exception:
            raise UnsupportedModel(f"{name} is not fitted") from None
        missing = getattr(model, "missing", np.nan)
        if missing is not None and not np.isnan(missing):
            raise UnsupportedModel(f"{name} with missing={missing!r} (only NaN as missing is supported)")
        try:
            default = (0, int(model.best_iteration) + 1)
        except AttributeError:
            default = (0, 0)
        return booster, () if regressor else tuple(np.asarray(model.classes_).tolist()), default, name
    if hasattr(model, "save_raw") and hasattr(model, "inplace_predict"):
        return model, None, (0, 0), "Booster"
    raise UnsupportedModel(f"{type(model).__name__} is not an XGBoost classifier or Booster")


def _tree_range(gbm: dict, n_groups: int, rng: tuple[int, int]) -> tuple[int, int]:
    trees = gbm["trees"]
    indptr = gbm.get("iteration_indptr")
    if indptr is None:  # older models: a fixed number of trees per round
        per = int(gbm["gbtree_model_param"].get("num_parallel_tree", 1)) * n_groups
        indptr = list(range(0, len(trees) + 1, per))
    n_rounds = len(indptr) - 1
    begin, end = int(rng[0]), int(rng[1])
    if end == 0:
        end = n_rounds
    if not 0 <= begin < end <= n_rounds:
        raise UnsupportedModel(f"iteration range {rng} is outside the model's {n_rounds} rounds")
    return int(indptr[begin]), int(indptr[end])


def _gbtree(learner: dict) -> dict:
    """The trees' part of a learner's JSON; :class:`UnsupportedModel` for another booster (dart
    weighs its trees, gblinear has none)."""
    booster = learner["gradient_booster"]
    if booster["name"] != "gbtree":
        raise UnsupportedModel(f"XGBoost booster {booster['name']!r} is not supported (only gbtree)")
    return booster["model"]


def read_xgboost(model: Any, iteration_range: tuple[int, int] | None = None) -> RawEnsemble:
    """A fitted XGBoost classifier or ``Booster`` -> :class:`RawEnsemble` (see module doc).

    ``iteration_range`` is XGBoost's ``(begin, end)`` of boosting rounds (``end = 0``: all); by
    default the range the model's own ``predict_proba`` uses."""
    booster, classes, default_range, name = _split_model(model)
    doc = _booster_json(booster)
    learner = doc["learner"]
    objective = learner["objective"]["name"]
    regression = objective in _REGRESSION_OBJECTIVES
    if classes == () and not regression:
        raise UnsupportedModel(f"XGBoost objective {objective!r} is not a supported regression objective (identity link)")
    if not regression and objective not in _OBJECTIVES:
        raise UnsupportedModel(f"XGBoost objective {objective!r} is not supported (classifiers: {', '.join(_OBJECTIVES)}; regressors: {', '.join(_REGRESSION_OBJECTIVES)})")
    gbm = _gbtree(learner)
    param = learner["learner_model_param"]
    if int(param.get("num_target", "1")) > 1:
        raise UnsupportedModel("multi-target XGBoost models are not supported")
    n_class = int(param.get("num_class", "0"))
    K = n_class if n_class > 1 else 1
    if regression:
        classes = ()
    elif classes is None:
        classes = tuple(range(max(n_class, 2)))
    if not regression and len(classes) != max(n_class, 2):
        raise UnsupportedModel(f"{name}: {len(classes)} classes but {max(n_class, 2)} model outputs")

    base = _scores(param["base_score"])
    base = np.broadcast_to(base, (K,)).astype(np.float32) if len(base) in (1, K) else base
    if len(base) != K:
        raise UnsupportedModel(f"base_score has {len(base)} values for {K} outputs")
    init = xgboost_logit(base) if objective == "binary:logistic" else base.copy()

    t0, t1 = _tree_range(gbm, K, iteration_range or default_range)
    tree_info = np.asarray(gbm["tree_info"], dtype=np.int64)
    feats, thrs, miss, lefts, rights, vals, roots, iscat = [], [], [], [], [], [], [], []
    cat_sets: list[tuple[int, list[int]]] = []  # (global node, categories that go right)
    off = 0
    for tree in gbm["trees"][t0:t1]:
        if int(tree["tree_param"].get("size_leaf_vector", "1")) > 1:
            raise UnsupportedModel("XGBoost vector-leaf trees are not supported")
        lc = np.asarray(tree["left_children"], dtype=np.int64)
        rc = np.asarray(tree["right_children"], dtype=np.int64)
        n = len(lc)
        leaf = lc < 0
        cond = _float32_array(tree["split_conditions"]).astype(np.float64)
        f = np.asarray(tree["split_indices"], dtype=np.int64)
        feats.append(np.where(leaf, -1, f))
        thrs.append(np.where(leaf, 0.0, cond))
        vals.append(np.where(leaf, cond, 0.0)[:, None])
        miss.append(np.asarray(tree["default_left"], dtype=bool))
        lefts.append(np.where(leaf, -1, lc + off))
        rights.append(np.where(leaf, -1, rc + off))
        st = np.asarray(tree.get("split_type", [0] * n), dtype=np.int64)
        iscat.append((st == 1) & ~leaf)
        cats = tree.get("categories", [])
        for node, beg, size in zip(tree.get("categories_nodes", []), tree.get("categories_segments", []),
                                   tree.get("categories_sizes", [])):  # fmt: skip
            cat_sets.append((off + int(node), [int(c) for c in cats[int(beg): int(beg) + int(size)]]))
        roots.append(off)
        off += n
    n_nodes = off
    is_cat = np.concatenate(iscat) if iscat else np.zeros(0, bool)
    max_cat = max([max(s) for _, s in cat_sets if s] + [0])
    width = max_cat // 32 + 1
    bits = np.zeros((n_nodes, width), dtype=np.uint32)
    for node, right_cats in cat_sets:  # the bitset holds the categories that go left
        row = np.ones(width * 32, dtype=bool)
        row[right_cats] = False
        bits[node] = (row.reshape(-1, 32) << np.arange(32, dtype=np.uint64)).sum(axis=1).astype(np.uint32)
    kind = {"binary:logistic": "xgboost_sigmoid", "multi:softprob": "xgboost_softmax"}.get(objective, "scipy_softmax")
    if regression:
        kind = "identity"
    return RawEnsemble(
        name=name,
        classes=tuple(classes),
        feature=np.concatenate(feats),
        threshold=np.concatenate(thrs),
        missing_left=np.concatenate(miss),
        left=np.concatenate(lefts),
        right=np.concatenate(rights),
        value=np.concatenate(vals),
        roots=np.asarray(roots, dtype=np.int64),
        output=tree_info[t0:t1].copy(),
        n_outputs=K,
        init=init.astype(np.float32),
        mean=False,
        f32=True,
        n_features=int(param["num_feature"]),
        is_cat=is_cat,
        cat_bitset=bits,
        known_cats={},
        finish=GBMLink(kind),
        split="xgboost",
    )


def xgboost_categories(model: Any) -> dict[int, list]:
    """Feature index -> the categories the model was trained with, in code order (XGBoost >= 3.1
    stores them and re-codes a DataFrame's categoricals to them at prediction); ``{}`` for older
    models, which read a DataFrame's own codes."""
    booster, _, _, _ = _split_model(model)
    cats = _gbtree(_booster_json(booster)["learner"]).get("cats")
    if not cats or not cats.get("enc"):
        return {}
    out: dict[int, list] = {}
    for i, enc in enumerate(cats["enc"]):
        values = enc.get("values", [])
        if not values:
            continue
        if "offsets" in enc:  # strings: utf-8 bytes, one segment per category
            data = bytes(int(b) for b in values)
            offs = [int(o) for o in enc["offsets"]]
            out[i] = [data[a:b].decode("utf-8") for a, b in itertools.pairwise(offs)]
        else:
            out[i] = [float(v) for v in values]
    return out
