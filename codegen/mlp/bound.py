"""How far the MLP engines may be from ``predict_proba`` (a rounding-error bound per row), and how
high ``predict_proba`` can go over a box of allowed values (:func:`upper_bound`, interval bound
propagation widened by the same rounding analysis).

Both engines (:mod:`codegen.mlp.scorer`) add the same terms as sklearn, in another order. Let
``u`` be the unit roundoff (2**-53), ``γ(k) = k·u / (1 - k·u)``, ``m`` the network's input width
and ``x`` the model-input row (after preprocessing, which both compute identically). Then:

* layer 1: ``z1 = b1 + Σ_c x_c·W1[c]`` is a sum of ``m + 1`` rounded terms; *any* order (and FMA)
  is within ``γ(m+1)·S1`` of the exact sum, with ``S1 = |b1| + |x|·|W1|``; sklearn's order (BLAS)
  and the engines' (x's features folded into the bias first, then Δ's) differ by at most
  ``E1 = 2·γ(m+1)·S1``;
* a hidden activation with Lipschitz constant ``L`` (1 for identity, relu and tanh, 1/4 for
  logistic) passes ``L·E`` on, plus ``A = 32u`` where the kernel's vector ``exp`` replaces libm's
  (tanh, logistic; outputs bounded by 1);
* layer ``l``: ``E_l = (L·E_{l-1} + A)·|W_l| + 2·γ(n_{l-1}+1)·(|a_{l-1}|·|W_l| + |b_l|)``;
* output: ``|Δp| <= κ·max(E_out) + R`` with ``κ = 1/4`` (logistic) or ``1/2`` (softmax: the
  derivatives of ``p_c`` sum to ``2·p_c·(1-p_c) <= 1/2``) and ``R`` the link's own rounding: ``8u``
  for a logistic (``exp``, the division); ``(10 + 2K)u`` for a softmax over ``K`` units (each
  ``exp`` within an ulp of the exact value on either side, the denominator summed in two orders,
  the division, relative to ``p <= 1``);
* a set ``S`` of classes, ``P_S = Σ_{c∈S} p_c``: softmax keeps ``κ = 1/2`` (the derivatives'
  magnitudes sum to ``2·P_S·(1-P_S)``), a binary logistic output has ``κ = 1/4`` for one of its
  two columns and ``0`` for both (``(1-p)+p``), multi-label logistic ``|S|/4``; ``R`` adds both
  sides' sums of ``|S|`` terms: ``(10 + 2K + 2|S|)u`` (softmax, relative to ``P_S <= 1``) or
  ``12u·|S|`` (logistic: each column's ``8u``, ``1-p``, the sum);
* identity output (a regressor's prediction): ``|Δ| <= E_out``, no link.

The first-layer term dominates and grows with the *scale of the inputs*: ``E1 ≈ 2(m+1)·u·|x|·|W1|``.
With standardised inputs (``|x| ~ 1``) the bound is ~1e-15; with raw inputs near 1e6 it is
~1e-9. So a decision near the threshold is the model's own (the Explainer asks ``predict_proba``
for every row it reports).
"""

from __future__ import annotations

import numpy as np

from codegen.mlp.partial import FirstLayer, table_rows

__all__ = ["UNIT_ROUNDOFF", "error_bound", "upper_bound"]

UNIT_ROUNDOFF = 2.0**-53
_LIPSCHITZ = {"identity": 1.0, "relu": 1.0, "tanh": 1.0, "logistic": 0.25}
_VECTOR_EXP = 32 * UNIT_ROUNDOFF  # the kernel's exp-based tanh / logistic vs numpy's


def _gamma(k: int) -> float:
    return k * UNIT_ROUNDOFF / (1 - k * UNIT_ROUNDOFF)


def _activate(name: str, z: np.ndarray) -> np.ndarray:
    if name == "relu":
        return np.maximum(z, 0)
    if name == "tanh":
        return np.tanh(z)
    if name == "logistic":
        return 0.5 * (1 + np.tanh(0.5 * z))
    return z


def error_bound(layer: FirstLayer, rows: np.ndarray) -> np.ndarray:
    """Per schema-encoded row: an upper bound on ``|engine - predict_proba|`` for either engine
    (derivation in the module docstring). Rows with a value that is not one of a categorical
    feature's codes score NaN in the engines; their bound is NaN too."""
    rows = np.atleast_2d(np.asarray(rows, dtype=np.float64))
    mlp = layer.mlp
    w1, b1 = mlp.weights[0], mlp.biases[0]
    n = len(rows)
    s1 = np.broadcast_to(np.abs(b1), (n, len(b1))).copy()  # |b1| + |x|·|W1|
    z = np.broadcast_to(b1, (n, len(b1))).copy()
    for f in layer.inputs:
        v = rows[:, f.index]
        if f.is_table:
            code = table_rows(v, f.n_codes)
            s1 += layer.magnitude_table(f.index)[code]
            z += layer.tables[f.index][code]
        else:
            for t in f.affine:
                xv = t.value(v)
                s1 += np.multiply.outer(np.abs(xv), np.abs(w1[t.column]))
                z += np.multiply.outer(xv, w1[t.column])
    err = 2 * _gamma(mlp.n_inputs + 1) * s1
    lip = _LIPSCHITZ[mlp.hidden]
    extra = _VECTOR_EXP if mlp.hidden in ("tanh", "logistic") else 0.0
    for w, b in zip(mlp.weights[1:], mlp.biases[1:]):
        a = _activate(mlp.hidden, z)
        err = (lip * err + extra) @ np.abs(w) + 2 * _gamma(w.shape[0] + 1) * (np.abs(a) @ np.abs(w) + np.abs(b))
        z = a @ w + b
    if mlp.output == "identity":
        return err[:, 0]
    n_set = len(mlp.columns)
    if mlp.output == "softmax":
        kappa = 0.5
        rounding = 10 + 2 * mlp.n_outputs + (2 * n_set if n_set > 1 else 0)
    elif n_set == 1:
        kappa, rounding = 0.25, 8
    elif mlp.n_outputs == 1:  # the binary model's two columns: (1 - p) + p does not move with z
        kappa, rounding = 0.0 if set(mlp.columns) == {0, 1} else 0.25, 12 * n_set
    else:
        kappa, rounding = 0.25 * n_set, 12 * n_set
    return kappa * err.max(axis=1) + rounding * UNIT_ROUNDOFF


# ------------------------------------------------------------------- interval bound propagation


def _activate_interval(name: str, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A monotone activation of an interval, widened by the library's rounding (|a| <= 1 for
    tanh and logistic, so an absolute 4u covers it; relu and identity are exact)."""
    if name in ("relu", "identity"):
        return _activate(name, lo), _activate(name, hi)
    pad = 4 * UNIT_ROUNDOFF
    return _activate(name, lo) - pad, _activate(name, hi) + pad


def upper_bound(layer: FirstLayer, x: np.ndarray, allowed) -> float | None:
    """A sound upper bound on ``predict_proba``'s P(desired) over every row whose feature ``j``
    takes one of ``allowed[j]`` (``None``: ``x[j]``), by interval bound propagation; None for a
    regressor (a prediction is no probability, and a range would need both ends).

    First layer: each user feature's share of ``z1`` is computed for each of its allowed values
    (a code's table row, a number's scaled weight rows), so per hidden unit the smallest and the
    largest share are exact, and so is their sum over features - the tightest box of ``z1``.
    Each further layer maps the box by ``W⁺·hi + W⁻·lo`` (and the reverse), the activations being
    monotone; the output takes the desired unit at its largest and every other at its smallest
    (softmax), or the logistic at the end that favours the desired class. Every step is widened
    by twice the rounding error bound of the module docstring (sklearn's and this computation's
    own), so the bound covers the model's floating-point numbers.

    A set ``S`` of classes: softmax ``P_S`` rises with every ``z_c``, ``c ∈ S``, and falls with
    every other unit, so its largest value is at (``S`` at their highest, the others at their
    lowest); a binary model's two columns sum to 1; multi-label units are bounded one by one.
    The sum's own rounding can lift it a few ulp above 1, so a set's bound is not capped at 1."""
    mlp = layer.mlp
    if mlp.output == "identity":
        return None
    x = np.asarray(x, dtype=np.float64)
    w1, b1 = mlp.weights[0], mlp.biases[0]
    lo, hi = b1.copy(), b1.copy()
    mag = np.abs(b1).copy()  # Σ_f max_v |x_f|·|W1| + |b1|
    for f in layer.inputs:
        values = (
            np.array([x[f.index]])
            if allowed[f.index] is None
            else np.asarray(allowed[f.index], dtype=np.float64)
        )
        if f.is_table:
            code = table_rows(values, f.n_codes)
            share = layer.tables[f.index][code]
            size = layer.magnitude_table(f.index)[code]
        else:
            share = np.zeros((len(values), len(b1)))
            size = np.zeros((len(values), len(b1)))
            for t in f.affine:
                u = np.asarray(t.value(values), dtype=np.float64)
                share += np.multiply.outer(u, w1[t.column])
                size += np.multiply.outer(np.abs(u), np.abs(w1[t.column]))
        if not np.all(np.isfinite(share)):
            return 1.0  # a value that is no code (the engines score it NaN): no bound
        lo += share.min(axis=0)
        hi += share.max(axis=0)
        mag += size.max(axis=0)
    terms = mlp.n_inputs + len(layer.inputs) + 2
    pad = 4 * _gamma(terms) * mag
    lo, hi = lo - pad, hi + pad
    for w, b in zip(mlp.weights[1:], mlp.biases[1:]):
        alo, ahi = _activate_interval(mlp.hidden, lo, hi)
        wp, wn = np.maximum(w, 0), np.minimum(w, 0)
        amax = np.maximum(np.abs(alo), np.abs(ahi))
        pad = 4 * _gamma(2 * w.shape[0] + 3) * (amax @ np.abs(w) + np.abs(b))
        lo = alo @ wp + ahi @ wn + b - pad
        hi = ahi @ wp + alo @ wn + b + pad
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        return 1.0
    K = len(lo)
    margin = max(1e-12, 64 * (K + 2) * UNIT_ROUNDOFF)
    cols = list(mlp.columns)
    if len(cols) > 1:
        return _set_upper_bound(mlp.output, cols, lo, hi) + len(cols) * margin
    if mlp.output == "softmax":
        c = mlp.column
        others = np.delete(lo, c) - hi[c]
        p = 1.0 / (1.0 + float(np.sum(np.exp(others))))
    elif K == 1:
        p = float(_logistic(hi[0]) if mlp.column == 1 else 1.0 - _logistic(lo[0]))
    else:  # multi-label: the desired unit's own logistic
        p = float(_logistic(hi[mlp.column]))
    return min(1.0, p + margin)


def _set_upper_bound(output: str, cols: list[int], lo: np.ndarray, hi: np.ndarray) -> float:
    """The largest exact ``Σ_{c ∈ cols} p_c`` over the output box ``[lo, hi]`` (no rounding margin)."""
    if output == "softmax":
        inside = np.zeros(len(lo), dtype=bool)
        inside[cols] = True
        top = float(np.max(hi[inside]))
        mine = float(np.sum(np.exp(hi[inside] - top)))  # >= 1: the top unit's own term
        rest = float(np.sum(np.exp(lo[~inside] - top)))
        return 1.0 if rest == 0.0 else 1.0 / (1.0 + rest / mine)
    if len(lo) == 1:  # binary: columns (1 - p1, p1); both of them sum to 1
        return 1.0
    return float(sum(_logistic(hi[c]) for c in cols))


def _logistic(z: float) -> float:
    return float(0.5 * (1 + np.tanh(0.5 * z)))
