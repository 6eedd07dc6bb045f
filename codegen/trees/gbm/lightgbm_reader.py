"""Read fitted LightGBM classifiers (``LGBMClassifier``, ``Booster``) into a
:class:`codegen.trees.reader.RawEnsemble`, from ``Booster.dump_model()``.

Supported: objectives ``binary``, ``multiclass`` and ``multiclassova`` (any ``sigmoid``), boosting
``gbdt``/``goss``/``dart`` (prediction sums the stored trees alike) and ``rf`` (averaged), numeric
``<=`` splits with every ``missing_type`` (None, Zero, NaN) and ``default_left``, categorical
``==`` splits, and an iteration window (default: what the model's own prediction uses:
``best_iteration`` rounds when early stopping recorded one, else all). Linear trees and custom
objectives raise :class:`UnsupportedModel`. The library itself is never imported here.

Exactness (LightGBM 4.x ``GBDT::Predict``): the C API reads the row as doubles and every
``|x| <= 1e-35f`` as 0.0; splits compare in double, ``x <= threshold``; missing values follow
LightGBM's rules (see :mod:`codegen.trees.gbm.split_tests`). ``raw = 0.0`` then ``raw[k] += leaf`` round by
round, class by class (the boost-from-average init score is already inside the first trees'
leaves); ``rf`` divides by the round count; then ``1 / (1 + exp(-sigmoid * raw))`` or the
softmax, in double with the C library's ``exp`` (:mod:`codegen.trees.gbm.links`). ``dump_model`` prints
thresholds and leaf values with 17 significant digits, which Python parses back to the same
doubles. ``RawEnsemble.predict_proba`` equals ``LGBMClassifier.predict_proba`` bit for bit on
float64 rows; for a ``Booster`` it is ``[1 - p, p]`` (binary) or the class probabilities.
LightGBM itself casts non-float numpy input, and DataFrames whose columns are all float32 or
narrower, to float32 before predicting.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from codegen.errors import UnsupportedModel
from codegen.trees.gbm.links import GBMLink
from codegen.trees.reader import RawEnsemble

#: LightGBM's dump_model clamps thresholds to +-1e300 (its AvoidInf); a split that sends every
#: number left of NaN (missing_type NaN) has threshold +inf in the model itself. A finite
#: threshold beyond 1e300 would need data values beyond it, so +-1e300 is read back as +-inf.
_DUMP_LIMIT = 1e300

__all__ = ["is_lightgbm", "lightgbm_categories", "read_lightgbm"]


def is_lightgbm(model: Any) -> bool:
    """An object of the lightgbm package (checked without importing it)."""
    return type(model).__module__.split(".")[0] == "lightgbm"


def _split_model(model: Any) -> tuple[Any, tuple | None, str]:
    if hasattr(model, "booster_") or hasattr(model, "fit"):  # sklearn wrapper
        name = type(model).__name__
        try:
            booster = model.booster_
            classes = () if name.endswith("Regressor") else tuple(np.asarray(model.classes_).tolist())
        except Exception:
            raise UnsupportedModel(f"{name} is not a fitted LightGBM classifier") from None
        return booster, classes, name
    if hasattr(model, "dump_model"):
        return model, None, "Booster"
    raise UnsupportedModel(f"{type(model).__name__} is not a LightGBM classifier or Booster")


def _dump(booster: Any) -> dict:
    try:
        return booster.dump_model(num_iteration=-1, start_iteration=0)
    except Exception as exc:
        raise UnsupportedModel(f"cannot read the LightGBM model: {exc}") from None


#: regression objectives whose prediction is the raw score (an identity link)
_REGRESSION_OBJECTIVES = ("regression", "regression_l1", "huber", "fair", "quantile")


def _objective(text: str) -> tuple[str, float]:
    parts = str(text).split()
    name = parts[0] if parts else ""
    if name not in ("binary", "multiclass", "multiclassova", *_REGRESSION_OBJECTIVES):
        raise UnsupportedModel(f"LightGBM objective {text!r} is not supported (classifiers: binary, multiclass, multiclassova; regressors: {', '.join(_REGRESSION_OBJECTIVES)})")
    sigmoid = 1.0
    for p in parts[1:]:
        if p.startswith("sigmoid:"):
            sigmoid = float(p.split(":", 1)[1])
    return name, sigmoid


def _flatten(root: dict) -> list[tuple[dict, int, int]]:
    """Nodes of one tree (breadth first) with absolute-in-tree child indices (-1 at leaves)."""
    recs = [root]
    kids: list[tuple[int, int]] = []
    i = 0
    while i < len(recs):
        nd = recs[i]
        if "split_feature" in nd:
            kids.append((len(recs), len(recs) + 1))
            recs.extend((nd["left_child"], nd["right_child"]))
        else:
            kids.append((-1, -1))
        i += 1
    return [(nd, a, b) for nd, (a, b) in zip(recs, kids)]


def _iterations(n_rounds: int, start: int, num: int) -> tuple[int, int]:
    """``GBDT::InitPredict``: the rounds [begin, end) a prediction uses."""
    start = min(max(start, 0), n_rounds)
    count = min(num, n_rounds - start) if num > 0 else n_rounds - start
    return start, start + count


def read_lightgbm(model: Any, num_iteration: int | None = None, start_iteration: int = 0) -> RawEnsemble:
    """A fitted LightGBM classifier or ``Booster`` -> :class:`RawEnsemble` (see module doc).

    ``num_iteration``/``start_iteration`` as in LightGBM's ``predict`` (``None``: the booster's
    ``best_iteration`` if it has one, else every round)."""
    booster, classes, name = _split_model(model)
    d = _dump(booster)
    objective, sigmoid = _objective(d.get("objective", ""))
    K = int(d["num_tree_per_iteration"])
    n_class = int(d.get("num_class", 1))
    regression = objective in _REGRESSION_OBJECTIVES
    if classes == () and not regression:
        raise UnsupportedModel(f"LightGBM objective {objective!r} is not a supported regression objective (identity link)")
    if regression:
        classes = ()
    elif classes is None:
        classes = tuple(range(n_class if n_class > 1 else 2))
    if not regression and (len(classes) != (n_class if n_class > 1 else 2) or n_class != K):
        raise UnsupportedModel(f"{name}: {len(classes)} classes, {K} trees per round, num_class {n_class}")
    trees = d["tree_info"]
    n_rounds = len(trees) // K
    if num_iteration is None:
        best = int(getattr(booster, "best_iteration", 0) or 0)
        num_iteration = best if start_iteration <= 0 else -1
    r0, r1 = _iterations(n_rounds, int(start_iteration), int(num_iteration))
    if r1 <= r0:
        raise UnsupportedModel(f"{name}: no boosting round selected")

    feats, thrs, miss, zmiss, lefts, rights, vals, roots, iscat = [], [], [], [], [], [], [], [], []
    cat_sets: list[tuple[int, list[int]]] = []
    off = 0
    for tree in trees[r0 * K: r1 * K]:
        nodes = _flatten(tree["tree_structure"])
        for i, (nd, a, b) in enumerate(nodes):
            if a < 0:
                if "leaf_coeff" in nd:
                    raise UnsupportedModel("LightGBM linear trees are not supported")
                feats.append(-1)
                thrs.append(0.0)
                vals.append(float(nd["leaf_value"]))
                miss.append(False)
                zmiss.append(False)
                iscat.append(False)
                lefts.append(-1)
                rights.append(-1)
                continue
            feats.append(int(nd["split_feature"]))
            vals.append(0.0)
            lefts.append(off + a)
            rights.append(off + b)
            default_left = bool(nd.get("default_left", False))
            mtype = str(nd.get("missing_type", "None"))
            if nd["decision_type"] == "==":
                cats = [int(c) for c in str(nd["threshold"]).split("||") if c != ""]
                cat_sets.append((off + i, cats))
                thrs.append(0.0)
                miss.append(False)  # NaN -> right
                zmiss.append(False)
                iscat.append(True)
                continue
            if nd["decision_type"] != "<=":
                raise UnsupportedModel(f"LightGBM decision_type {nd['decision_type']!r}")
            thr = float(nd["threshold"])
            if abs(thr) == _DUMP_LIMIT:  # dump_model writes +-inf thresholds as +-1e300
                thr = math.copysign(math.inf, thr)
            thrs.append(thr)
            iscat.append(False)
            if mtype == "None":  # NaN is read as 0.0
                miss.append(bool(thr >= 0.0))
                zmiss.append(False)
            elif mtype == "Zero":  # only where 0.0 would otherwise go the other way
                miss.append(default_left)
                zmiss.append(default_left != (thr >= 0.0))
            elif mtype == "NaN":
                miss.append(default_left)
                zmiss.append(False)
            else:
                raise UnsupportedModel(f"LightGBM missing_type {mtype!r}")
        roots.append(off)
        off += len(nodes)

    max_cat = max([max(s) for _, s in cat_sets if s] + [0])
    width = max_cat // 32 + 1
    bits = np.zeros((off, width), dtype=np.uint32)
    for node, left_cats in cat_sets:
        row = np.zeros(width * 32, dtype=bool)
        row[left_cats] = True
        bits[node] = (row.reshape(-1, 32) << np.arange(32, dtype=np.uint64)).sum(axis=1).astype(np.uint32)
    zero_missing = np.asarray(zmiss, dtype=bool)
    divisor = float(r1 - r0) if d.get("average_output") else None

    kind = {"binary": "lightgbm_sigmoid", "multiclass": "lightgbm_softmax"}.get(objective, "lightgbm_ova")
    if regression:
        kind = "identity"
    finish = GBMLink(kind, sigmoid, divisor)

    n_trees = (r1 - r0) * K
    return RawEnsemble(
        name=name,
        classes=tuple(classes),
        feature=np.asarray(feats, dtype=np.int64),
        threshold=np.asarray(thrs, dtype=np.float64),
        missing_left=np.asarray(miss, dtype=bool),
        left=np.asarray(lefts, dtype=np.int64),
        right=np.asarray(rights, dtype=np.int64),
        value=np.asarray(vals, dtype=np.float64)[:, None],
        roots=np.asarray(roots, dtype=np.int64),
        output=np.arange(n_trees, dtype=np.int64) % K,
        n_outputs=K,
        init=np.zeros(K),
        mean=False,
        f32=False,
        n_features=int(d["max_feature_idx"]) + 1,
        is_cat=np.asarray(iscat, dtype=bool),
        cat_bitset=bits,
        known_cats={},
        finish=finish,
        split="lightgbm",
        zero_missing=zero_missing if zero_missing.any() else None,
    )


def lightgbm_categories(model: Any) -> list[list] | None:
    """The category lists LightGBM stored for the pandas categorical columns it was trained on
    (in column order; a DataFrame's categoricals are re-coded to them at prediction), or None."""
    booster, _, _ = _split_model(model)
    cats = getattr(booster, "pandas_categorical", None)
    return None if cats is None else [list(c) for c in cats]
