"""The C library's ``exp``/``expf``/``logf`` on numpy arrays, and the XGBoost/LightGBM links built
from them, bit for bit.

Why: XGBoost and LightGBM apply their links in C++ with the C library's ``expf``/``exp``, and
numpy's own SIMD ``exp`` differs from it in the last bit on a few percent of inputs (measured:
4.6% of float64 and 39% of float32 inputs on an AVX-512 machine). Calling the C library for every
element costs a Python call per element, so:

* :func:`c_expf`: ``float32(exp(float64(x)))`` is the correctly rounded ``expf`` up to a 2^-29 ulp
  error, and glibc's/musl's ``expf`` is within 0.502 ulp (its result before the last rounding is
  off by at most 0.002 ulp), so the two agree except where the exact value lies within 0.002 ulp
  of a float32 rounding boundary. Elements within 1/128 ulp of a boundary (about 1.5%) are passed
  to the C library's ``expf`` itself; the rest keep the numpy value.
* :func:`c_exp`: no cheap extra precision exists for doubles, so every element goes through
  ``math.exp`` (CPython's call of the C library's ``exp``; about 0.1 µs per element).

The links repeat the libraries' arithmetic operation by operation (dtype, order, constants).
:class:`GBMLink` names a model's link as data, so the compiled scorers can run the same arithmetic
natively (``codegen/llvm/gbm_links.ll``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "GBMLink",
    "c_exp",
    "c_expf",
    "c_logf",
    "lightgbm_sigmoid",
    "lightgbm_softmax",
    "xgboost_logit",
    "xgboost_sigmoid",
    "xgboost_softmax",
]

_F32 = np.float32


@functools.cache
def _libm() -> ctypes.CDLL:
    for name in ("m", "ucrtbase", "msvcrt"):
        path = ctypes.util.find_library(name)
        if path is None:
            continue
        lib = ctypes.CDLL(path)
        if hasattr(lib, "expf"):
            for fn in ("expf", "logf"):
                f = getattr(lib, fn)
                f.restype = ctypes.c_float
                f.argtypes = [ctypes.c_float]
            return lib
    raise OSError("the C math library (expf, logf) cannot be loaded")


def c_expf(x: np.ndarray) -> np.ndarray:
    """The C library's ``expf`` element-wise on float32 ``x`` (float32 result, same shape)."""
    x = np.asarray(x, dtype=_F32)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        e = np.exp(x.astype(np.float64))
        y = e.astype(_F32)
        up = np.nextafter(y, _F32(np.inf)).astype(np.float64)
        down = np.nextafter(y, _F32(-np.inf)).astype(np.float64)
        yd = y.astype(np.float64)
        ulp = up - yd
        # distance to the nearer rounding boundary, in ulps (NaN for inf/NaN: asked of libm)
        dist = np.minimum(np.abs(e - (yd + up) / 2), np.abs(e - (yd + down) / 2)) / ulp
    ask = ~(dist >= 1.0 / 128) | (y == 0)
    if ask.any():
        f = _libm().expf
        flat = y.reshape(-1)
        idx = np.flatnonzero(ask.reshape(-1))
        flat[idx] = np.fromiter(map(f, x.reshape(-1)[idx].tolist()), _F32, len(idx))
        y = flat.reshape(x.shape)
    return y


_exp_ufunc = np.frompyfunc(math.exp, 1, 1)


def _exp_or_overflow(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


_exp_safe_ufunc = np.frompyfunc(_exp_or_overflow, 1, 1)


def c_exp(x: np.ndarray) -> np.ndarray:
    """The C library's ``exp`` element-wise on float64 ``x`` (float64 result, same shape)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore"):
        try:
            out = _exp_ufunc(x)
        except OverflowError:  # math.exp raises where C returns inf
            out = _exp_safe_ufunc(x)
    return np.asarray(out, dtype=np.float64).reshape(x.shape)


def c_logf(x: float) -> float:
    """The C library's ``logf`` of one float32 value."""
    return float(_libm().logf(float(_F32(x))))


# ------------------------------------------------------------------------------- XGBoost links


def xgboost_logit(base_score: np.ndarray) -> np.ndarray:
    """``binary:logistic``'s ProbToMargin in float32: clamp to [1e-6, 1 - 1e-6], then
    ``-logf(1/p - 1)``."""
    eps = _F32(1e-6)
    out = np.empty(len(base_score), dtype=_F32)
    for i, p in enumerate(np.asarray(base_score, dtype=_F32)):
        p = min(max(p, eps), _F32(1) - eps)
        out[i] = -_F32(c_logf(_F32(1) / p - _F32(1)))
    return out


def xgboost_sigmoid(margin: np.ndarray) -> np.ndarray:
    """``common::Sigmoid(float)``: ``1 / (expf(min(-x, 88.7)) + 1 + 1e-16)`` in float32."""
    x = np.minimum(-np.asarray(margin, dtype=_F32), _F32(88.7))
    return _F32(1) / ((c_expf(x) + _F32(1)) + _F32(1e-16))


def xgboost_softmax(margin: np.ndarray) -> np.ndarray:
    """``common::Softmax`` on rows of float32 margins: float32 max, ``expf(x - max)``, the sum
    accumulated in double in class order, then a float32 division by ``float(sum)``."""
    m = np.asarray(margin, dtype=_F32)
    e = c_expf(m - m.max(axis=1, keepdims=True))
    wsum = np.zeros(len(m))
    for k in range(m.shape[1]):
        wsum += e[:, k].astype(np.float64)
    return e / wsum.astype(_F32)[:, None]


# ------------------------------------------------------------------------------ LightGBM links


def lightgbm_sigmoid(raw: np.ndarray, sigmoid: float) -> np.ndarray:
    """``1.0 / (1.0 + exp(-sigmoid * x))`` in double (binary and multiclassova objectives)."""
    return 1.0 / (1.0 + c_exp((-sigmoid) * np.asarray(raw, dtype=np.float64)))


def lightgbm_softmax(raw: np.ndarray) -> np.ndarray:
    """``Common::Softmax`` in double: ``exp(x - max)``, the sum in class order, a division."""
    r = np.asarray(raw, dtype=np.float64)
    e = c_exp(r - r.max(axis=1, keepdims=True))
    wsum = np.zeros(len(r))
    for k in range(r.shape[1]):
        wsum += e[:, k]
    return e / wsum[:, None]


# ------------------------------------------------------------------------------- links as data

#: the kinds of :class:`GBMLink`
LINK_KINDS = ("xgboost_sigmoid", "xgboost_softmax", "scipy_softmax", "lightgbm_sigmoid", "lightgbm_softmax", "lightgbm_ova",
              "identity")


@dataclass(frozen=True)
class GBMLink:
    """A boosting library's link: raw scores ``(n, K)`` -> class probabilities, as data.

    ``kind``: ``"xgboost_sigmoid"`` (binary:logistic, ``[1 - p, p]`` in float32),
    ``"xgboost_softmax"`` (multi:softprob), ``"scipy_softmax"`` (multi:softmax: scipy's softmax of
    the float32 margins, what ``XGBClassifier.predict_proba`` does), ``"lightgbm_sigmoid"``
    (binary, ``[1 - p, p]``), ``"lightgbm_softmax"`` (multiclass), ``"lightgbm_ova"``
    (multiclassova), ``"identity"`` (a regressor whose prediction is its raw score: XGBoost's
    ``reg:squarederror``, LightGBM's ``regression``); ``sigmoid`` LightGBM's sigmoid parameter, ``divisor`` LightGBM rf's round count
    (the raw scores are divided by it first)."""

    kind: str
    sigmoid: float = 1.0
    divisor: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in LINK_KINDS:
            raise ValueError(f"unknown link {self.kind!r}")

    def __call__(self, raw: np.ndarray) -> np.ndarray:
        if self.kind == "xgboost_sigmoid":
            p = xgboost_sigmoid(raw[:, 0])
            return np.stack([_F32(1) - p, p], axis=1)
        if self.kind == "xgboost_softmax":
            return xgboost_softmax(raw)
        if self.kind == "scipy_softmax":
            from scipy.special import softmax

            return softmax(np.asarray(raw, dtype=_F32), axis=1)
        if self.divisor is not None:
            raw = raw / self.divisor
        if self.kind == "identity":
            return raw
        if self.kind == "lightgbm_sigmoid":
            p = lightgbm_sigmoid(raw[:, 0], self.sigmoid)
            return np.stack([1.0 - p, p], axis=1)
        if self.kind == "lightgbm_softmax":
            return lightgbm_softmax(raw)
        return lightgbm_sigmoid(raw, self.sigmoid)
