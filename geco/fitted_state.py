"""Whether a model is still the one an Explainer read when it was built.

An Explainer reads its model once: the compiled engine is a copy of its trees or weights, and the
data's rows are scored once to find seeds. A model fitted again afterwards (a notebook's next
cell) would go on being explained as it was, every probability shown the old model's, with no
sign of it. :class:`FittedState` is a fingerprint of the model's fitted state, taken when the
Explainer is built and compared before each explanation, so that such a call is refused with a
message naming what changed.

What it holds, walking the model and the estimators nested in its parameters (a Pipeline's steps,
a meta-estimator's ``estimator``): every fitted attribute (scikit-learn's trailing-underscore
names, and the boosting libraries' ``_Booster``), objects by identity and numbers and strings by
value. Objects are kept referenced, so a new one can never take an old one's id; counters such as
``n_iter_`` or ``t_`` move when ``partial_fit`` or a warm start updates arrays in place. Parameters
set without fitting (``set_params(n_jobs=1)``) change no fitted attribute and pass. A plain
callable has no fitted state to compare.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["FittedState", "ModelChangedError"]

#: fitted attributes the boosting libraries' scikit-learn wrappers keep under a private name
_PRIVATE_FITTED = frozenset({"_Booster"})
#: parameter types that never hold an estimator
_PLAIN = frozenset({bool, int, float, str, dict})
#: how deep nested estimators are followed (a Pipeline in a meta-estimator in a Pipeline ...)
_MAX_DEPTH = 8


class ModelChangedError(RuntimeError):
    """The model was fitted again, or changed, after the Explainer was built from it."""


def _same(old: Any, new: Any, by_value: bool, length: int) -> bool:
    """Whether a fitted attribute is as it was: a number or a string equal to the old one, else
    the same object of the same length (a warm start appends to a list in place)."""
    if not by_value:
        return new is old and _length(new) == length
    if new is old:
        return True
    try:
        equal = bool(new == old)
    except Exception:  # a value whose == is not a truth value
        return False
    return equal or (_is_nan(new) and _is_nan(old))


def _is_nan(value: Any) -> bool:
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def _length(value: Any) -> int:
    return len(value) if isinstance(value, (list, dict)) else -1


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str, bytes, np.generic))


def _fitted(name: str) -> bool:
    return (name.endswith("_") and not name.startswith("__")) or name in _PRIVATE_FITTED


def _nested(name: str, value: Any) -> list[tuple[str, Any]]:
    """The estimators a parameter holds: one given as the parameter, or in a list of ``(name,
    estimator[, ...])`` tuples (a Pipeline's ``steps``, a ColumnTransformer's ``transformers``,
    a VotingClassifier's ``estimators``)."""
    if value is None or type(value) in _PLAIN:  # most parameters: no attribute lookup
        return []
    if hasattr(value, "get_params"):
        return [(name, value)]
    if isinstance(value, (list, tuple)):
        return [(f"{name}[{i}]", item[1]) for i, item in enumerate(value)
                if isinstance(item, tuple) and len(item) >= 2 and hasattr(item[1], "get_params")]  # fmt: skip
    return []


def _walk(obj: Any, path: str, out: list[tuple[str, Any]], seen: set[int], depth: int) -> None:
    """The fitted attributes of ``obj`` and of the estimators among its parameters as (path,
    value), read from its ``__dict__`` (scikit-learn keeps a parameter under its own name;
    ``get_params`` would cost a signature inspection per estimator and call)."""
    if id(obj) in seen or depth > _MAX_DEPTH or not hasattr(obj, "get_params"):
        return
    seen.add(id(obj))
    try:
        state = vars(obj)
    except TypeError:  # no __dict__
        return
    for name, value in state.items():
        if _fitted(name):
            out.append((path + name, value))
        elif name[0] != "_":
            for sub_path, sub in _nested(name, value):
                out.append((path + sub_path, sub))
                _walk(sub, f"{path}{sub_path}.", out, seen, depth + 1)


def _attributes(model: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    _walk(model, "", out, set(), 0)
    return out


class FittedState:
    """The fitted state of ``model`` as it is now (see the module docstring): each fitted
    attribute's path, value (kept referenced), whether it is compared by value, and length."""

    def __init__(self, model: Any) -> None:
        self.entries = [(path, value, _scalar(value), _length(value)) for path, value in _attributes(model)]

    def changed(self, model: Any) -> str | None:
        """The first fitted attribute of ``model`` that is not as it was (its path), else None."""
        now = _attributes(model)
        if len(now) != len(self.entries):
            diff = {e[0] for e in self.entries} ^ {path for path, _ in now}
            return sorted(diff)[0] if diff else "its fitted attributes"
        for (path, old, by_value, length), (new_path, new) in zip(self.entries, now):
            if new_path != path or not _same(old, new, by_value, length):
                return path
        return None

    def check(self, model: Any) -> None:
        """Raise :class:`ModelChangedError` when ``model`` is not as it was."""
        where = self.changed(model)
        if where is not None:
            raise ModelChangedError(
                f"the model changed after this Explainer was built from it (its fitted attribute "
                f"{where!r} is not the one the Explainer read: fitted again?); the Explainer would "
                "explain the model as it was. Build a new Explainer from the model as it is now"
            )
