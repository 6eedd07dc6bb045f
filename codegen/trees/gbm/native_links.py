"""XGBoost's and LightGBM's links compiled (``codegen/llvm/gbm_links.ll``, once per process).

Why: the numpy links of :mod:`codegen.trees.gbm.links` are exact but cost a dozen array
operations per block plus a Python-level call of the C library's ``exp``/``expf`` for some (XGBoost)
or every (LightGBM) element - on the small blocks of a search, more than scoring the trees. The
compiled links do the same arithmetic with the same C library functions in one call per block.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from codegen.llvm import binding
from codegen.llvm.sources import ir_source
from codegen.trees.gbm.links import GBMLink

__all__ = ["NativeLink", "native_link"]

_P, _I, _D = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double
_module: binding.CompiledModule | None = None
_lock = threading.Lock()


def _compiled() -> binding.CompiledModule:
    global _module
    with _lock:
        if _module is None:
            _module = binding.compile_ir(ir_source("gbm_links"), 2)
        return _module


class NativeLink:
    """Accumulators ``(n, K)`` -> P(class column ``col``) ``(n,)`` float64, equal to
    ``link(acc)[:, col]`` bit for bit."""

    def __init__(self, link: GBMLink, col: int, n_outputs: int):
        self.link, self.col, self.K = link, int(col), int(n_outputs)
        m = _compiled()
        div = float(link.divisor or 0.0)
        if link.kind == "xgboost_sigmoid":
            fn = m.function("xgboost_sigmoid", None, _P, _I, _I, _P)
            self._call = lambda a, n, o: fn(a, n, self.col, o)
        elif link.kind == "xgboost_softmax":
            fn = m.function("xgboost_softmax", None, _P, _I, _I, _I, _P)
            self._call = lambda a, n, o: fn(a, n, self.K, self.col, o)
        elif link.kind in ("lightgbm_sigmoid", "lightgbm_ova"):
            fn = m.function("lightgbm_sigmoid", None, _P, _I, _I, _I, _D, _D, _I, _P)
            binary = link.kind == "lightgbm_sigmoid"
            k, complement = (0, int(self.col == 0)) if binary else (self.col, 0)
            self._call = lambda a, n, o: fn(a, n, self.K, k, float(link.sigmoid), div, complement, o)
        elif link.kind == "lightgbm_softmax":
            fn = m.function("lightgbm_softmax", None, _P, _I, _I, _I, _D, _P)
            self._call = lambda a, n, o: fn(a, n, self.K, self.col, div, o)
        else:
            raise ValueError(f"no compiled link for {link.kind!r}")

    def __reduce__(self):
        """Pickles as its link and column (a function pointer means nothing elsewhere); the
        module is loaded again where it is unpickled, from the object code carried along."""
        objects = binding.object_codes([(ir_source("gbm_links"), 2)])
        return (_rebuild, (self.link, self.col, self.K, objects))

    def __call__(self, acc: np.ndarray) -> np.ndarray:
        acc = np.ascontiguousarray(acc, dtype=np.float64).reshape(-1, self.K)
        out = np.empty(len(acc))
        if len(acc):
            self._call(acc.ctypes.data, len(acc), out.ctypes.data)
        return out


def _rebuild(link: GBMLink, col: int, n_outputs: int, objects: dict[str, bytes]) -> NativeLink:
    binding.preload_objects(objects)
    return NativeLink(link, col, n_outputs)


def native_link(link: object, col: int, n_outputs: int) -> NativeLink | None:
    """The compiled link for a boosting model's ``finish``, or None (not a :class:`GBMLink`, or
    scipy's softmax, whose float32 numpy arithmetic is left to numpy)."""
    if not isinstance(link, GBMLink) or link.kind == "scipy_softmax":
        return None
    return NativeLink(link, col, n_outputs)
