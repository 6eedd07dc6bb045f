"""Read fitted sklearn tree models into flat node arrays of our own, plus a numpy reference evaluator.

Why a representation of our own: the fold, partial-evaluation, numpy and IR layers all need the
same few facts (who splits on what, how leaves combine into a probability) and none of them should
know sklearn's attribute names. This layer has no llvmlite import.

Supported: ``DecisionTreeClassifier``, ``ExtraTreeClassifier``,
``RandomForestClassifier``, ``ExtraTreesClassifier``, ``GradientBoostingClassifier`` (binary and
multi-class, ``init`` = the default prior or ``"zero"``), ``HistGradientBoostingClassifier``
(numeric and categorical splits, NaN routing, unknown categories treated as missing), and the
regressors of the same families (single output; a regressor's ensemble has no classes and its
``finish`` gives ``predict``).

Exactness: :meth:`RawEnsemble.predict_proba` repeats sklearn's arithmetic operation by operation, so
it equals ``estimator.predict_proba`` bit for bit (tests hold it to that):

* sklearn trees (RF/DT/ExtraTrees/GB) cast the input to float32 and test
  ``float64(x32) <= threshold``; NaN goes to ``missing_go_to_left`` where the tree has it, else right.
* forests: ``acc = 0; acc += leaf_proba(tree)`` in estimator order; then ``acc /= n_estimators``.
* GradientBoosting: ``raw = init; raw[:, k] += learning_rate * leaf`` stage by stage (the product
  is precomputed in float64, which is the same IEEE product), then ``loss.predict_proba``.
* HistGradientBoosting: float64 compare ``x <= num_threshold``; ``raw = 0 + baseline``, then
  ``raw[:, k] += leaf`` iteration by iteration; then ``loss.predict_proba``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.errors import UnsupportedModel
from codegen.trees.gbm.split_tests import gbm_goes_left

__all__ = ["RawEnsemble", "raw_goes_left", "read_trees"]


@dataclass(eq=False)
class RawEnsemble:
    """All trees of a model as one flat node table over the estimator's input columns.

    Node ``i`` is a leaf iff ``feature[i] < 0``. Children are absolute indices into the table.
    Tree ``t`` starts at ``roots[t]`` and adds its leaf value to accumulator ``output[t]``.
    ``value`` is ``(n_nodes, n_values)``: class probabilities for forests (``n_values`` =
    n_classes), the (already learning-rate-scaled) raw contribution for boosting (``n_values=1``).

    ``split`` names the library whose split test :func:`raw_goes_left` applies: ``"sklearn"``
    (the readers here), ``"xgboost"``, ``"lightgbm"`` or ``"lightgbm-sparse"`` (see
    :mod:`codegen.trees.gbm.split_tests`).
    ``zero_missing`` (bool per node or None): 0.0 takes the missing branch there (LightGBM's
    missing_type Zero; XGBoost reading scipy sparse rows).
    Boosting accumulates in ``init.dtype``: float64, or float32 for XGBoost (whose leaf values
    and base margin are float32 values).
    """

    name: str
    classes: tuple[Any, ...]
    feature: np.ndarray  # int64
    threshold: np.ndarray  # float64
    missing_left: np.ndarray  # bool
    left: np.ndarray  # int64
    right: np.ndarray  # int64
    value: np.ndarray  # float64 (n_nodes, n_values)
    roots: np.ndarray  # int64 (n_trees,)
    output: np.ndarray  # int64 (n_trees,)
    n_outputs: int
    init: np.ndarray  # float64 (n_outputs,) starting value of each accumulator
    mean: bool  # forests: divide the accumulated class probabilities by the tree count
    f32: bool  # inputs cast to float32 before the compare (sklearn trees), else float64 (HGB)
    n_features: int
    is_cat: np.ndarray  # bool: HGB categorical split (left iff category in cat_bitset[i])
    cat_bitset: np.ndarray  # uint32 (n_nodes, 8)
    known_cats: dict[int, np.ndarray]  # HGB: column -> uint32[8] bitset of known categories
    finish: Callable[[np.ndarray], np.ndarray] | None = None  # boosting: raw (n, K) -> proba
    split: str = "sklearn"  # "sklearn" | "xgboost" | "lightgbm"(-sparse): whose split test (raw_goes_left)
    zero_missing: np.ndarray | None = None  # bool per node: 0.0 goes to missing_left

    @property
    def n_trees(self) -> int:
        return len(self.roots)

    @property
    def n_nodes(self) -> int:
        return len(self.feature)

    def leaves(self, X: np.ndarray) -> np.ndarray:
        """Leaf node index of every row in every tree, ``(n, n_trees)``."""
        X = np.asarray(X, dtype=np.float64)
        n = len(X)
        idx = np.broadcast_to(self.roots, (n, self.n_trees)).copy()
        rows = np.arange(n)[:, None]
        while True:
            f = self.feature[idx]
            live = f >= 0
            if not live.any():
                return idx
            v = X[np.broadcast_to(rows, idx.shape), np.where(live, f, 0)]
            go = raw_goes_left(self, idx, v)
            idx = np.where(live, np.where(go, self.left[idx], self.right[idx]), idx)

    def raw(self, X: np.ndarray) -> np.ndarray:
        """Accumulated raw values ``(n, n_outputs)`` (forests: already divided, i.e. probabilities
        of every class in ``(n, n_classes)``)."""
        leaves = self.leaves(X)
        n = len(leaves)
        if self.mean:
            acc = np.zeros((n, self.value.shape[1]))
            for t in range(self.n_trees):
                acc += self.value[leaves[:, t]]
            acc /= self.n_trees
            return acc
        raw = np.zeros((n, self.n_outputs), dtype=self.init.dtype)
        raw += self.init
        for t in range(self.n_trees):
            raw[:, self.output[t]] += self.value[leaves[:, t], 0].astype(raw.dtype)
        return raw

    @property
    def regression(self) -> bool:
        """A regressor's trees: no classes; ``predict_proba`` is then ``predict``, shape (n, 1)."""
        return not self.classes

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Equal to the estimator's ``predict_proba`` (a regressor's: ``predict`` as one column)
        on estimator-input rows ``X``, bit for bit."""
        raw = self.raw(X)
        return raw if self.mean else self.finish(raw)


def raw_goes_left(ens: RawEnsemble, nodes: np.ndarray, v: np.ndarray) -> np.ndarray:
    """sklearn's routing at ``nodes`` (split nodes) for estimator-input values ``v`` (float64);
    XGBoost's or LightGBM's for those ensembles (``ens.split``)."""
    if ens.split != "sklearn":
        return gbm_goes_left(ens, nodes, v)
    with np.errstate(over="ignore", invalid="ignore"):
        x = v.astype(np.float32).astype(np.float64) if ens.f32 else v
        nan = np.isnan(v)
        go = x <= ens.threshold[nodes]
    go = np.where(nan, ens.missing_left[nodes], go)
    cat = ens.is_cat[nodes]
    if cat.any():
        cn, cv = nodes[cat], v[cat]
        ok = ~np.isnan(cv) & (cv >= 0) & (cv < 256)
        code = np.where(ok, cv, 0).astype(np.int64)
        in_left = ((ens.cat_bitset[cn, code // 32] >> (code % 32).astype(np.uint32)) & 1).astype(bool)
        known = np.zeros(len(cn), dtype=bool)
        for col, bits in ens.known_cats.items():
            m = ens.feature[cn] == col
            known[m] = ((bits[code[m] // 32] >> (code[m] % 32).astype(np.uint32)) & 1).astype(bool)
        # sklearn: NaN or < 0 -> missing; in left bitset -> left; known -> right; unknown -> missing
        missing = ~ok | (~in_left & ~known)
        go_cat = np.where(missing, ens.missing_left[cn], in_left & ok)
        go = go.copy()
        go[cat] = go_cat
    return go


# --------------------------------------------------------------------------------- readers


def _concat_sklearn_trees(trees: list[Any], value_of: Callable[[Any], np.ndarray]) -> dict:
    feats, thrs, miss, lefts, rights, vals, roots = [], [], [], [], [], [], []
    off = 0
    for tr in trees:
        t = tr.tree_
        n = t.node_count
        leaf = t.children_left < 0
        f = t.feature.astype(np.int64).copy()
        f[leaf] = -1
        feats.append(f)
        thrs.append(t.threshold.astype(np.float64))
        mg = getattr(t, "missing_go_to_left", None)
        miss.append(np.zeros(n, bool) if mg is None else np.asarray(mg, dtype=bool))
        lefts.append(np.where(leaf, -1, t.children_left + off).astype(np.int64))
        rights.append(np.where(leaf, -1, t.children_right + off).astype(np.int64))
        vals.append(value_of(t))
        roots.append(off)
        off += n
    return dict(
        feature=np.concatenate(feats),
        threshold=np.concatenate(thrs),
        missing_left=np.concatenate(miss),
        left=np.concatenate(lefts),
        right=np.concatenate(rights),
        value=np.ascontiguousarray(np.concatenate(vals), dtype=np.float64),
        roots=np.asarray(roots, dtype=np.int64),
    )


def _no_cats(n: int) -> dict:
    return dict(is_cat=np.zeros(n, bool), cat_bitset=np.zeros((n, 8), np.uint32), known_cats={})


def _read_forest(model: Any, trees: list[Any]) -> RawEnsemble:
    if not hasattr(model, "classes_"):  # a regressor: one value per leaf, averaged
        n_classes = 1
    else:
        n_classes = int(np.atleast_1d(model.n_classes_)[0]) if hasattr(model, "n_classes_") else len(model.classes_)
    d = _concat_sklearn_trees(trees, lambda t: t.value[:, 0, :n_classes])
    n = len(d["feature"])
    return RawEnsemble(
        name=type(model).__name__,
        classes=tuple(np.asarray(model.classes_).tolist()) if hasattr(model, "classes_") else (),
        output=np.zeros(len(trees), np.int64),
        n_outputs=1,
        init=np.zeros(1),
        mean=True,
        f32=True,
        n_features=int(model.n_features_in_),
        **d,
        **_no_cats(n),
    )


def _read_gb(model: Any) -> RawEnsemble:
    from sklearn.dummy import DummyClassifier, DummyRegressor

    init = model.init_
    regression = not hasattr(model, "classes_")
    default = DummyRegressor if regression else DummyClassifier
    if not ((isinstance(init, str) and init == "zero") or isinstance(init, default)):
        raise UnsupportedModel(f"{type(model).__name__} with a custom init estimator is not supported")
    if not regression and init != "zero" and init.strategy != "prior":
        raise UnsupportedModel("GradientBoostingClassifier with a custom init estimator is not supported")
    est = model.estimators_  # (n_stages, K) of DecisionTreeRegressor
    n_stages, K = est.shape
    lr = float(model.learning_rate)
    trees = [est[i, k] for i in range(n_stages) for k in range(K)]
    # sklearn adds ``scale * value`` (two float64 operands): precomputing the product is exact.
    d = _concat_sklearn_trees(trees, lambda t: lr * t.value[:, 0, :1])
    n = len(d["feature"])
    init_raw = model._raw_predict_init(np.zeros((1, model.n_features_in_), dtype=np.float32))
    finish = _Ravel() if regression else _GBFinish(model._loss)
    return RawEnsemble(
        name=type(model).__name__,
        classes=() if regression else tuple(np.asarray(model.classes_).tolist()),
        output=np.tile(np.arange(K, dtype=np.int64), n_stages),
        n_outputs=K,
        init=np.asarray(init_raw, dtype=np.float64).reshape(-1).copy(),
        mean=False,
        f32=True,
        n_features=int(model.n_features_in_),
        finish=finish,
        **d,
        **_no_cats(n),
    )


class _GBFinish:
    """sklearn's link for GradientBoosting raw scores: a class, not a closure, so it pickles."""

    def __init__(self, loss: Any):
        self.loss = loss

    def __call__(self, raw: np.ndarray) -> np.ndarray:
        return self.loss.predict_proba(raw.ravel() if raw.shape[1] == 1 else raw)


class _Ravel:
    """GradientBoostingRegressor's ``predict``: the raw score itself, as one column."""

    def __call__(self, raw: np.ndarray) -> np.ndarray:
        return raw.reshape(-1, 1)


class _HGBPredict:
    """HistGradientBoostingRegressor's ``predict``: its loss's inverse link of the raw score (the
    identity for squared error, ``exp`` for Poisson or Gamma), as one column."""

    def __init__(self, loss: Any):
        self.loss = loss

    def __call__(self, raw: np.ndarray) -> np.ndarray:
        return np.asarray(self.loss.link.inverse(raw.ravel()), dtype=np.float64).reshape(-1, 1)


def _read_hgb(model: Any) -> RawEnsemble:
    preds = model._predictors
    K = int(model.n_trees_per_iteration_)
    feats, thrs, miss, lefts, rights, vals, roots, iscat, bits = [], [], [], [], [], [], [], [], []
    off = 0
    for it in preds:
        for p in it:
            nd = p.nodes
            n = len(nd)
            leaf = nd["is_leaf"].astype(bool)
            f = nd["feature_idx"].astype(np.int64)
            f[leaf] = -1
            feats.append(f)
            thrs.append(nd["num_threshold"].astype(np.float64))
            miss.append(nd["missing_go_to_left"].astype(bool))
            lefts.append(np.where(leaf, -1, nd["left"].astype(np.int64) + off))
            rights.append(np.where(leaf, -1, nd["right"].astype(np.int64) + off))
            vals.append(nd["value"].astype(np.float64)[:, None])
            c = nd["is_categorical"].astype(bool) & ~leaf
            iscat.append(c)
            b = np.zeros((n, 8), np.uint32)
            if c.any():
                b[c] = np.asarray(p.raw_left_cat_bitsets)[nd["bitset_idx"][c]]
            bits.append(b)
            roots.append(off)
            off += n
    known: dict[int, np.ndarray] = {}
    bin_cat = getattr(model._bin_mapper, "is_categorical_", None)
    if bin_cat is not None and np.any(bin_cat):
        # the bin mapper indexes the estimator's (preprocessed) input columns
        kb, fmap = model._bin_mapper.make_known_categories_bitsets()
        for col in np.flatnonzero(bin_cat):
            known[int(col)] = np.asarray(kb[fmap[col]], dtype=np.uint32)
    loss = model._loss
    n_iter = len(preds)
    regression = not hasattr(model, "classes_")
    return RawEnsemble(
        name=type(model).__name__,
        classes=() if regression else tuple(np.asarray(model.classes_).tolist()),
        feature=np.concatenate(feats),
        threshold=np.concatenate(thrs),
        missing_left=np.concatenate(miss),
        left=np.concatenate(lefts),
        right=np.concatenate(rights),
        value=np.concatenate(vals),
        roots=np.asarray(roots, np.int64),
        output=np.tile(np.arange(K, dtype=np.int64), n_iter),
        n_outputs=K,
        init=np.asarray(model._baseline_prediction, dtype=np.float64).reshape(-1).copy(),
        mean=False,
        f32=False,
        n_features=int(model.n_features_in_),
        is_cat=np.concatenate(iscat),
        cat_bitset=np.concatenate(bits),
        known_cats=known,
        finish=_HGBPredict(loss) if regression else loss.predict_proba,
    )


def read_trees(estimator: Any) -> RawEnsemble:
    """A fitted sklearn tree classifier or regressor -> :class:`RawEnsemble`;
    :class:`UnsupportedModel` else."""
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        ExtraTreesRegressor,
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        HistGradientBoostingClassifier,
        HistGradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    name = type(estimator).__name__
    regressor = (DecisionTreeRegressor, RandomForestRegressor, ExtraTreesRegressor, GradientBoostingRegressor,
                 HistGradientBoostingRegressor)  # fmt: skip
    if isinstance(estimator, regressor):
        if not hasattr(estimator, "n_features_in_"):
            raise UnsupportedModel(f"{name} is not fitted")
    elif not hasattr(estimator, "classes_"):
        raise UnsupportedModel(f"{name} is not a fitted classifier")
    if getattr(estimator, "n_outputs_", 1) != 1:
        raise UnsupportedModel(f"multi-output {name} is not supported")
    if isinstance(estimator, (DecisionTreeClassifier, DecisionTreeRegressor)):  # also ExtraTree*
        return _read_forest(estimator, [estimator])
    if isinstance(estimator, (RandomForestClassifier, ExtraTreesClassifier, RandomForestRegressor, ExtraTreesRegressor)):
        return _read_forest(estimator, list(estimator.estimators_))
    if isinstance(estimator, (GradientBoostingClassifier, GradientBoostingRegressor)):
        return _read_gb(estimator)
    if isinstance(estimator, (HistGradientBoostingClassifier, HistGradientBoostingRegressor)):
        return _read_hgb(estimator)
    raise UnsupportedModel(f"{name} is not a supported tree model")
