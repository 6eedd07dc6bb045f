"""XGBoost's and LightGBM's split tests on a :class:`codegen.trees.reader.RawEnsemble`'s node arrays.

Why a module of its own: :func:`codegen.trees.reader.raw_goes_left` dispatches here on the
ensemble's ``split`` rule, and the readers that produce these ensembles import
:mod:`codegen.trees.reader`; keeping the tests here avoids an import cycle. Both functions take estimator-input values ``v``
(float64) at split ``nodes`` and return True where the row goes left. In both rules
``cat_bitset`` (uint32 words, any width) holds the categories that go *left*.

``"xgboost"`` (``predictor::GetNextNode``): the value is cast to float32 first (XGBoost stores
its input as float); NaN -> ``missing_left`` (default_left); numeric: ``x < threshold`` (a
float32 threshold); categorical: a negative value or one >= 2^24 goes left, else the truncated
code goes right iff it is in the node's category set (the bitset holds the complement, and codes
past the bitset's width go left). Where ``zero_missing`` is set (the ensemble reads scipy sparse
rows, whose absent entries XGBoost treats as missing), an input 0.0 goes to ``missing_left`` too.

``"lightgbm"`` (``Tree::NumericalDecision``/``CategoricalDecision`` after the C API's row copy):
every ``|v| <= kZeroThreshold`` (``1e-35f``) is read as 0.0 (the dense row copy drops such
values; ``"lightgbm-sparse"``: a scipy sparse row is copied as it is, so they are compared as
they are, and only missing_type Zero reads them as zero); numeric: NaN -> ``missing_left``
(the reader resolves missing_type None, where NaN is read as 0.0, to the side 0.0 takes);
where ``zero_missing`` (missing_type Zero), 0.0 also goes to ``missing_left``; else
``v <= threshold`` in double; categorical: NaN, ``v <= -1`` and ``v >= 2^31`` go right, else the
truncated code goes left iff it is in the bitset.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LIGHTGBM_ZERO", "XGBOOST_MAX_CAT", "gbm_goes_left", "gbm_reads_as_zero"]

LIGHTGBM_ZERO = float(np.float32(1e-35))  # LightGBM's kZeroThreshold (a float literal)
XGBOOST_MAX_CAT = 16777216.0  # common::OutOfRangeCat(): 2^24


def _in_bitset(bits: np.ndarray, nodes: np.ndarray, code: np.ndarray) -> np.ndarray:
    """Bit ``code`` of each node's bitset; False for codes past the bitset's width."""
    inside = code < bits.shape[1] * 32
    c = np.where(inside, code, 0)
    word = bits[nodes, c // 32]
    return inside & (((word >> (c % 32).astype(np.uint32)) & 1) == 1)


def _xgboost(ens: Any, nodes: np.ndarray, v: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        x = v.astype(np.float32).astype(np.float64)
        nan = np.isnan(x)
        go = x < ens.threshold[nodes]
        cat = ens.is_cat[nodes]
        if cat.any():
            c = x[cat]
            valid = (c >= 0) & (c < XGBOOST_MAX_CAT)
            code = np.where(valid, c, 0).astype(np.int64)
            go = go.copy()
            go[cat] = ~valid | _in_bitset(ens.cat_bitset, nodes[cat], code) | (code >= ens.cat_bitset.shape[1] * 32)
        if ens.zero_missing is not None:  # sparse input: an absent entry (0.0) is missing
            go = np.where(ens.zero_missing[nodes] & (v == 0.0), ens.missing_left[nodes], go)
    return np.where(nan, ens.missing_left[nodes], go)


def _lightgbm(ens: Any, nodes: np.ndarray, v: np.ndarray, dense: bool = True) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        tiny = np.abs(v) <= LIGHTGBM_ZERO
        x = np.where(tiny, 0.0, v) if dense else v
        nan = np.isnan(x)
        go = x <= ens.threshold[nodes]
        if ens.zero_missing is not None:  # IsZero(): |x| <= kZeroThreshold
            go = np.where(ens.zero_missing[nodes] & tiny, ens.missing_left[nodes], go)
        cat = ens.is_cat[nodes]
        if cat.any():
            c = x[cat]
            valid = (c > -1) & (c < 2.0**31)  # static_cast<int> truncates; >= 0 after it
            code = np.where(valid, c, 0).astype(np.int64)
            go = go.copy()
            go[cat] = valid & _in_bitset(ens.cat_bitset, nodes[cat], code)
    return np.where(nan, ens.missing_left[nodes], go)


def gbm_goes_left(ens: Any, nodes: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Routing at split ``nodes`` for ``v`` under ``ens.split`` (``"xgboost"``, ``"lightgbm"``,
    ``"lightgbm-sparse"``)."""
    if ens.split == "xgboost":
        return _xgboost(ens, nodes, v)
    if ens.split in ("lightgbm", "lightgbm-sparse"):
        return _lightgbm(ens, nodes, v, dense=ens.split == "lightgbm")
    raise ValueError(f"unknown split rule {ens.split!r}")


def gbm_reads_as_zero(ens: Any, v: np.ndarray) -> np.ndarray:
    """Where a ``zero_missing`` node sends estimator-input values ``v`` the missing way: XGBoost
    (an entry a sparse matrix leaves out) ``v == 0.0``; LightGBM ``|v| <= kZeroThreshold``."""
    with np.errstate(invalid="ignore"):
        if ens.split.startswith("lightgbm"):
            return np.abs(v) <= LIGHTGBM_ZERO
        return v == 0.0
