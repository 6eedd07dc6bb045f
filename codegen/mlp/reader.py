"""Read a fitted ``sklearn.neural_network.MLPClassifier`` or ``MLPRegressor`` - or one of
scikit-learn's linear models, a network without a hidden layer - into a plain representation.

Why a representation of our own: the partial evaluator, the numpy engine and the IR emitter all
need the same few facts (weight matrices, biases, the hidden activation, how the output becomes a
probability or a prediction, which output columns are the desired classes) and none of them should
know sklearn's attribute names or import llvmlite. This layer has no llvmlite import.

The reference evaluator :meth:`MLP.forward` repeats sklearn's ``_forward_pass_fast`` operation by
operation (``a @ W + b``, the same in-place activations, ``scipy.special.expit``, the same softmax,
``predict_proba(X)[:, cols].sum(1)`` for a set of classes), so it equals ``predict_proba`` (a
regressor's ``predict``) bit for bit; tests hold it to that.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit

from codegen.errors import UnsupportedModel

__all__ = ["ACTIVATIONS", "LINEAR_CLASSIFIERS", "LINEAR_MODELS", "LINEAR_REGRESSORS", "MLP", "read_linear", "read_mlp",
           "read_network"]

#: scikit-learn's linear models read as networks without a hidden layer (:func:`read_linear`):
#: the classifier, then the regressors (each computes ``X @ coef_.T + intercept_``)
LINEAR_CLASSIFIERS = ("LogisticRegression", "SGDClassifier")  # LogisticRegressionCV is a subclass
LINEAR_REGRESSORS = ("LinearRegression", "Ridge", "RidgeCV", "Lasso", "LassoCV", "ElasticNet", "ElasticNetCV",
                     "SGDRegressor", "HuberRegressor", "BayesianRidge", "ARDRegression", "Lars", "LassoLars",
                     "QuantileRegressor", "TheilSenRegressor")  # fmt: skip
LINEAR_MODELS = LINEAR_CLASSIFIERS + LINEAR_REGRESSORS

ACTIVATIONS = ("identity", "logistic", "tanh", "relu")


def _activate(name: str, a: np.ndarray) -> None:
    """sklearn's in-place activations (``sklearn.neural_network._base.ACTIVATIONS``)."""
    if name == "identity":
        return
    if name == "logistic":
        expit(a, out=a)
    elif name == "tanh":
        np.tanh(a, out=a)
    elif name == "relu":
        np.maximum(a, 0, out=a)
    else:  # pragma: no cover - read_mlp rejects other names
        raise ValueError(name)


@dataclass(frozen=True)
class MLP:
    """A feed-forward network: ``a_{i+1} = g_i(a_i @ weights[i] + biases[i])``.

    ``weights[i]`` has shape ``(n_in, n_out)`` (sklearn's ``coefs_`` layout), float64,
    C-contiguous. ``hidden`` is the activation of every hidden layer; ``output`` is
    ``"logistic"`` (binary: one output unit, P(classes[1]); or multi-label), ``"softmax"`` or
    ``"identity"`` (a regressor with one output: the prediction). ``columns`` are the
    ``predict_proba`` columns whose sum is scored (one for one desired class; ``(0,)`` for a
    regressor).
    """

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    hidden: str
    output: str
    classes: tuple[Any, ...]
    columns: tuple[int, ...]

    @property
    def column(self) -> int:
        """The first (for one desired class: the only) scored column."""
        return self.columns[0]

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickle, also a network saved when it held one ``column`` (a saved Explainer)."""
        if "columns" not in state and "column" in state:
            state = {**state, "columns": (state.pop("column"),)}
        self.__dict__.update(state)

    @property
    def n_inputs(self) -> int:
        return self.weights[0].shape[0]

    @property
    def layer_sizes(self) -> tuple[int, ...]:
        """Units per layer including input and output, e.g. ``(14, 100, 1)``."""
        return (self.n_inputs, *(w.shape[1] for w in self.weights))

    @property
    def n_outputs(self) -> int:
        return self.weights[-1].shape[1]

    def tail(self, a: np.ndarray) -> np.ndarray:
        """From the first layer's *pre-activation* ``z1`` (modified in place) to P(desired).

        Shared by :meth:`forward` and the numpy engine so both compute exactly what sklearn does
        after the first matrix product."""
        n_layers = len(self.weights)
        for i in range(n_layers):
            if i > 0:
                a = a @ self.weights[i]
                a += self.biases[i]
            if i != n_layers - 1:
                _activate(self.hidden, a)
        return self.finish(a)

    def finish(self, z: np.ndarray) -> np.ndarray:
        """Output pre-activation ``(n, n_outputs)`` -> P(desired) per row (the sum over
        :attr:`columns`), or the prediction, as sklearn computes it."""
        if self.output == "identity":
            return z[:, 0].copy()
        cols = list(self.columns)
        if self.output == "softmax":
            tmp = z - z.max(axis=1)[:, np.newaxis]
            np.exp(tmp, out=z)
            z /= z.sum(axis=1)[:, np.newaxis]
            return z[:, self.column].copy() if len(cols) == 1 else z[:, cols].sum(axis=1)
        expit(z, out=z)
        if self.n_outputs == 1:
            p1 = z[:, 0]
            if len(cols) == 1:
                return p1.copy() if self.column == 1 else 1 - p1
            return np.hstack([1 - z, z])[:, cols].sum(axis=1)  # predict_proba's two columns
        return z[:, self.column].copy() if len(cols) == 1 else z[:, cols].sum(axis=1)

    def forward(self, X: np.ndarray) -> np.ndarray:
        """P(desired) (or the prediction) for model-input rows ``X`` (after any preprocessing)."""
        X = np.asarray(X, dtype=np.float64)
        a = X @ self.weights[0]
        a += self.biases[0]
        return self.tail(a)


def read_network(model: Any, columns: int | Sequence[int] = 0) -> MLP:
    """An MLP (:func:`read_mlp`) or a linear model (:func:`read_linear`) as an :class:`MLP`."""
    from sklearn.neural_network import MLPClassifier, MLPRegressor

    if isinstance(model, (MLPClassifier, MLPRegressor)):
        return read_mlp(model, columns)
    return read_linear(model, columns)


def read_linear(model: Any, columns: int | Sequence[int] = 0) -> MLP:
    """A fitted linear model of scikit-learn (:data:`LINEAR_MODELS`, their subclasses too:
    ``LogisticRegressionCV``) -> an :class:`MLP` without a hidden layer, which
    computes what the model does: ``X @ coef_.T + intercept_``, then for a classifier the
    logistic of it (two classes: ``predict_proba`` is ``[1 - p, p]``) or its softmax (more:
    scikit-learn's multinomial ``predict_proba``), for a regressor the number itself."""
    import sklearn.linear_model
    from sklearn.base import is_regressor

    name = type(model).__name__
    if not isinstance(model, tuple(getattr(sklearn.linear_model, n) for n in LINEAR_MODELS)):
        raise UnsupportedModel(f"{name} is not one of the linear models read ({', '.join(LINEAR_MODELS)})")
    if not hasattr(model, "coef_"):
        raise UnsupportedModel(f"{name} is not fitted")
    coef = np.asarray(model.coef_)
    if coef.dtype != np.float64:
        raise UnsupportedModel(f"{name} was fitted on {coef.dtype} data; only float64 is supported")
    if is_regressor(model):
        if coef.ndim == 2 and coef.shape[0] != 1:
            raise UnsupportedModel(f"{name} has {coef.shape[0]} targets; a prediction range needs a single-target regressor")
        weights = np.ascontiguousarray(coef.reshape(-1, 1))
        bias = np.asarray(model.intercept_, dtype=np.float64).reshape(1)
        return _checked(MLP((weights,), (bias,), "identity", "identity", (), (0,)), model)
    if getattr(model, "loss", "log_loss") != "log_loss":  # SGDClassifier: only its logistic loss has probabilities read
        raise UnsupportedModel(f"{name} with loss={model.loss!r}: only loss='log_loss' probabilities are read")
    classes = tuple(np.asarray(model.classes_).tolist())
    weights = np.ascontiguousarray(coef.T)
    bias = np.ascontiguousarray(np.asarray(model.intercept_, dtype=np.float64).reshape(-1))
    # scikit-learn < 1.8 reads multi_class: one-vs-rest (the logistic of each score, normalised)
    # or multinomial (a softmax, also over [-score, score] for two classes)
    multi_class = getattr(model, "multi_class", "deprecated")
    ovr_by_default = (len(classes) <= 2 or getattr(model, "solver", "") == "liblinear"
                      or isinstance(model, sklearn.linear_model.SGDClassifier))  # fmt: skip
    ovr = multi_class in ("ovr", "warn") or (multi_class in ("auto", "deprecated") and ovr_by_default)
    if ovr and len(classes) > 2:
        raise UnsupportedModel(f"{name} is one-vs-rest over {len(classes)} classes (normalised logistics): not read")
    if not ovr and len(classes) == 2:  # softmax([-d, d]): negating is exact, so the scores are sklearn's
        weights, bias = np.ascontiguousarray(np.hstack([-weights, weights])), np.concatenate([-bias, bias])
    output = "logistic" if ovr else "softmax"
    cols = _desired_columns(columns, max(len(classes), 2))
    return _checked(MLP((weights,), (bias,), "identity", output, classes, cols), model)


def _checked(net: MLP, model: Any) -> MLP:
    """``net`` if it computes what ``model`` does on a few rows of the model's width, bit for bit
    (a version of scikit-learn that computes its probabilities otherwise is refused, not
    misread); raises :class:`codegen.UnsupportedModel` otherwise."""
    import warnings

    rows = np.random.default_rng(0).normal(0.0, 2.0, (4, net.n_inputs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a model fitted on named columns, given an array
        want = model.predict(rows) if net.output == "identity" else model.predict_proba(rows)[:, list(net.columns)].sum(axis=1)
    if not np.array_equal(net.forward(rows), np.asarray(want, dtype=np.float64)):
        raise UnsupportedModel(f"{type(model).__name__} does not compute its output as read (this scikit-learn's formula differs)")
    return net


def read_mlp(model: Any, columns: int | Sequence[int] = 0) -> MLP:
    """``MLPClassifier`` or single-output ``MLPRegressor`` -> :class:`MLP`. ``columns``: the
    desired classes' ``predict_proba`` columns (one int for one class; ignored for a regressor).

    Raises :class:`codegen.UnsupportedModel` with a one-line reason for anything else (another
    model, an unfitted one, an unknown activation, a multi-output regressor, weights that are not
    float64)."""
    from sklearn.neural_network import MLPClassifier, MLPRegressor

    if not isinstance(model, (MLPClassifier, MLPRegressor)):
        raise UnsupportedModel(f"{type(model).__name__} is not an MLPClassifier or MLPRegressor")
    name = type(model).__name__
    regressor = isinstance(model, MLPRegressor)
    if not hasattr(model, "coefs_"):
        raise UnsupportedModel(f"{name} is not fitted")
    if model.activation not in ACTIVATIONS:
        raise UnsupportedModel(f"{name} activation {model.activation!r} is not supported")
    out = model.out_activation_
    if out not in (("identity",) if regressor else ("logistic", "softmax")):
        raise UnsupportedModel(f"{name} output activation {out!r} is not supported")
    if any(np.asarray(c).dtype != np.float64 for c in model.coefs_):
        # sklearn keeps the training dtype; a float32 network would be evaluated in float32 by
        # sklearn, which the float64 kernel cannot reproduce within 1e-12.
        raise UnsupportedModel(f"{name} was fitted on float32 data; only float64 is supported")
    weights = tuple(np.ascontiguousarray(w, dtype=np.float64) for w in model.coefs_)
    biases = tuple(np.ascontiguousarray(b, dtype=np.float64) for b in model.intercepts_)
    n_out = weights[-1].shape[1]
    if regressor:
        if n_out != 1:
            raise UnsupportedModel(f"{name} has {n_out} outputs; a prediction range needs a single-output regressor")
        return MLP(weights, biases, model.activation, out, (), (0,))
    classes = tuple(np.asarray(model.classes_).tolist()) if hasattr(model, "classes_") else ()
    cols = _desired_columns(columns, 2 if n_out == 1 else n_out)
    return MLP(weights, biases, model.activation, out, classes, cols)


def _desired_columns(columns: int | Sequence[int], n_cols: int) -> tuple[int, ...]:
    """``columns`` (one int, or several) as a tuple of distinct ``predict_proba`` columns among
    ``n_cols``; :class:`codegen.UnsupportedModel` otherwise."""
    cols = (int(columns),) if isinstance(columns, (int, np.integer)) else tuple(int(c) for c in columns)
    bad = [c for c in cols if not 0 <= c < n_cols]
    if bad or not cols:
        raise UnsupportedModel(f"desired column(s) {bad or '()'} outside the model's {n_cols} outputs")
    if len(set(cols)) != len(cols):
        raise UnsupportedModel(f"desired columns {cols} repeat a column")
    return cols
