"""Values the model (or the distance) cannot take, refused up front with the column and the row.

The Schema refuses what no model could take (NaN, inf, values a column's dtype cannot hold). A
model may refuse more: sklearn's trees cast to float32 and raise on values beyond its range, a
scaler can turn a huge value into inf that the estimator after it rejects, an encoder fitted on
other data raises on a category it never saw, a network can overflow into a NaN probability. A
compiled engine would score such a row anyway (a wrong answer); the black box would fail in the
middle of a search with the model's bare error. So the Explainer asks the model once, at
construction, about every value the search can draw (each feature's smallest and largest number
and each category present, one row per value, one model call), and at explain time about the
instance's values that the data did not cover. Per-value probing is enough because each refusal
above concerns one value of one column, and the preprocessing geco compiles is monotone per
column, so a column's extremes bound every value between them.

Distances are measured relative to each feature's span in the data, so a span no float holds
(values near +-1e308) and an instance so far from the data that its distances overflow are
refused too.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from plaf_grammar import Schema, SchemaError
from plaf_grammar.table import EncodedTable, as_table

__all__ = ["DataValues", "check_data", "check_instance", "model_error"]

#: an instance whose value lies further than this many data spans from the data is refused: its
#: squared normalised difference (the l2 norm) would overflow
FAR = 1e150


@dataclass(frozen=True)
class DataValues:
    """What the search can draw: per numeric feature the data's smallest and largest value, per
    categorical feature which codes occur."""

    low: np.ndarray  # (d,) float64; NaN for categorical features
    high: np.ndarray
    present: dict[int, np.ndarray]  # feature index -> rows holding each code
    base: np.ndarray | None  # a data row the model takes (None: it takes none)


#: a native library's own prefix to its message: XGBoost's "[20:12:01] /path/file.h:29: "
_NATIVE_PREFIX = re.compile(r"^\[\d\d:\d\d:\d\d\] \S+:\d+: ")


def model_error(exc: BaseException) -> str:
    """A model's exception as one readable line: its type and message, without the native
    stack trace and source position a library such as XGBoost appends and prefixes."""
    text = str(exc).split("\nStack trace:", 1)[0].strip()
    lines = [_NATIVE_PREFIX.sub("", line).strip() for line in text.splitlines() if line.strip()]
    return f"{type(exc).__name__}: {' '.join(lines)}"


def _attempt(predict: Callable[[np.ndarray], np.ndarray], rows: np.ndarray) -> tuple[int | None, str]:
    """One model call: (-1, "") if the model takes every row, (i, why) if row ``i``'s
    probability is not a finite number, (None, why) if the call raised."""
    try:
        with warnings.catch_warnings():  # a model refusing a value may warn first (overflow in a cast)
            warnings.simplefilter("ignore", RuntimeWarning)
            p = np.asarray(predict(rows), dtype=np.float64).reshape(len(rows))
    except Exception as exc:
        return None, model_error(exc)
    bad = ~np.isfinite(p)
    if bad.any():
        i = int(np.argmax(bad))
        return i, f"its probability is {float(p[i])!r}"
    return -1, ""


def _refused(predict: Callable[[np.ndarray], np.ndarray], rows: np.ndarray) -> tuple[int | None, str]:
    """Like :func:`_attempt` on ``rows``, but a raising batch is bisected down to a raising row;
    (None, why) only when no single row raises (the model refuses the batch as a whole)."""
    where, why = _attempt(predict, rows)
    if where is not None:
        return where, why
    lo, hi = 0, len(rows)  # a refused row lies in [lo, hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        w, y = _attempt(predict, rows[lo:mid])
        if w == -1:
            lo = mid
        elif w is None:
            hi, why = mid, y
        else:
            return lo + w, y
    w, y = _attempt(predict, rows[lo : lo + 1])
    if w == -1:
        return None, why
    return lo, y


def _plain(v: Any) -> Any:
    """A numpy scalar as the Python value it holds (messages show 17, not np.int64(17))."""
    return v.item() if isinstance(v, np.generic) else v


def _shown(f: Any, v: float) -> Any:
    """A stored value as the user wrote it (a category, or the number)."""
    return _plain(f.categories[int(v)]) if f.categories is not None else float(v)


def _accepted_row(
    predict: Callable[[np.ndarray], np.ndarray], schema: Schema, data: EncodedTable, present: dict[int, np.ndarray]
) -> np.ndarray | None:
    """A row the model takes, to vary one value at a time: each category at its most frequent
    code with row 0's numbers, else row 0, the middle row or the last; None if it takes none."""
    first, middle, last = data.take([0, len(data) // 2, len(data) - 1])
    modal = first.copy()
    for j, counts in present.items():
        modal[j] = float(np.argmax(counts))
    for row in (modal, first, middle, last):
        if _attempt(predict, row[None, :])[0] == -1:
            return row
    return None


def check_data(
    predict: Callable[[np.ndarray], np.ndarray],
    schema: Schema,
    data: EncodedTable | np.ndarray,
    index: Sequence[Any],
) -> DataValues:
    """Refuse (SchemaError naming column and row) a value of the encoded ``data`` that the model
    refuses or whose column spans more than a float holds; ``index`` labels the rows."""
    data = as_table(data)
    d = len(schema)
    low = np.full(d, np.nan)
    high = np.full(d, np.nan)
    present: dict[int, np.ndarray] = {}
    probe: list[tuple[int, float]] = []
    for j, f in enumerate(schema.features):
        col = data.column(j)
        if f.categories is None:
            low[j], high[j] = col.min(), col.max()
            with np.errstate(over="ignore"):
                span = high[j] - low[j]
            if not np.isfinite(span):
                lo_row, hi_row = (_plain(index[int(a(col))]) for a in (np.argmin, np.argmax))
                raise SchemaError(
                    f"X: column {f.name!r} spans {float(low[j])!r} (row {lo_row!r}) to "
                    f"{float(high[j])!r} (row {hi_row!r}), a range no float holds; geco measures "
                    "changes relative to it (rescale the column)"
                )
            probe += [(j, low[j]), (j, high[j])] if low[j] != high[j] else [(j, low[j])]
        else:
            counts = np.bincount(col.astype(np.intp, copy=False), minlength=len(f.categories))
            present[j] = counts
            probe += [(j, float(c)) for c in np.flatnonzero(counts)]
    base = _accepted_row(predict, schema, data, present)
    if base is None:  # the model scores no row of X: the caller's own check says so
        return DataValues(low, high, present, None)
    rows = np.repeat(base[None, :], len(probe), axis=0)
    for r, (j, v) in enumerate(probe):
        rows[r, j] = v
    where, why = _refused(predict, rows)
    if where is not None and where >= 0:
        j, v = probe[where]
        f = schema.features[j]
        row = _plain(index[int(np.argmax(data.column(j) == v))])
        raise SchemaError(
            f"X: column {f.name!r} holds {_shown(f, v)!r} at row {row!r}, a value the model "
            f"refuses ({why})"
        )
    if where is None:
        raise SchemaError(f"X: the model refuses the values of X ({why})")
    return DataValues(low, high, present, base)


def check_instance(
    predict: Callable[[np.ndarray], np.ndarray],
    schema: Schema,
    values: DataValues,
    ranges: np.ndarray,
    x: np.ndarray,
) -> None:
    """Refuse (SchemaError naming the column) a value of the encoded instance ``x`` that the data
    did not cover and that the model refuses, or that lies so far from the data that distances
    to it overflow. ``ranges``: the distance's feature spans."""
    new: list[int] = []
    for j, f in enumerate(schema.features):
        v = x[j]
        if f.categories is None:
            if values.low[j] <= v <= values.high[j]:
                continue
            far = max(abs(v - values.low[j]), abs(v - values.high[j])) / ranges[j]
            if not far <= FAR:
                raise SchemaError(
                    f"instance: column {f.name!r} value {_shown(f, v)!r} lies {far:.3g} data spans "
                    f"from the values in X ({float(values.low[j])!r} to {float(values.high[j])!r}); "
                    "distances to it overflow"
                )
            new.append(j)
        elif values.present[j][int(v)] == 0:
            new.append(j)
    if not new or values.base is None:
        return
    rows = np.repeat(values.base[None, :], len(new) + 1, axis=0)
    for r, j in enumerate(new):
        rows[r, j] = x[j]
    rows[-1] = x
    where, why = _refused(predict, rows)
    if where is None or where == len(new):
        names = ", ".join(repr(schema.features[j].name) for j in new)
        raise SchemaError(f"instance: the model refuses the instance, whose column(s) {names} hold values X does not ({why})")
    if where >= 0:
        f = schema.features[new[where]]
        raise SchemaError(
            f"instance: column {f.name!r} value {_shown(f, x[new[where]])!r} is a value the model "
            f"refuses ({why})"
        )
