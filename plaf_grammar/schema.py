"""The data schema shared by PLAF, the search and the compiled scorers.

Why it exists: a counterfactual search works on numbers, a user works on a pandas DataFrame with
string categories. One object owns the translation both ways, so every layer agrees on it:

* every feature is a ``float64`` column of the encoded array (``encode``), or in the
  column store :class:`~plaf_grammar.table.EncodedTable` (``encode_table``) the smallest dtype
  that holds its encoded values exactly;
* a numeric feature keeps its value;
* a categorical or ordinal feature is stored as the integer *code* of its value in
  ``Feature.categories`` (for an ordinal feature the code order is the value order).

``Schema.encode`` validates a DataFrame (missing, extra or duplicate columns, NaN, inf, unknown
categories, non-numeric values in numeric columns, values the column's dtype cannot hold) and
raises :class:`SchemaError` naming the column and row; ``encode_instance`` does the same for one
instance in any of the forms the API accepts. ``category_code`` is the one place a category
becomes its code.
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

try:  # pandas >= 3: a frame from its blocks, with no inference (what decode knows already)
    from pandas.api.internals import create_dataframe_from_blocks
except ImportError:  # pragma: no cover - older pandas: the dict constructor
    create_dataframe_from_blocks = None

from plaf_grammar.table import EncodedTable, code_dtype

Kind = Literal["numeric", "ordinal", "categorical"]


class SchemaError(ValueError):
    """Input data does not fit the schema (names the column and, where there is one, the row)."""


@dataclass(frozen=True)
class Feature:
    """One column: its name, kind, categories (for ordinal/categorical) and pandas dtype."""

    name: str
    kind: Kind
    categories: tuple[Any, ...] | None = None
    dtype: str = "float64"

    @property
    def is_numeric(self) -> bool:
        return self.kind == "numeric"

    @property
    def is_ordered(self) -> bool:
        """Whether ``<``/``>`` mean something for this feature: a number, an ordinal, or a bool
        (False < True, its codes' order: ``increasing has_degree``)."""
        return self.kind in ("numeric", "ordinal") or self.dtype in ("bool", "boolean")


@functools.cache
def _bounds(dtype: str) -> tuple[float, float, bool] | None:
    """(low, high, integer) of the values a numeric dtype holds, None when float64 holds them
    all. For integers ``high`` is exclusive (a power of two, exact as a float)."""
    try:
        dt = np.dtype(dtype.lower())  # "Int64" (nullable) holds what "int64" holds
    except TypeError:
        return None
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return float(info.min), float(int(info.max) + 1), True
    if dt.kind == "f" and dt.itemsize < 8:
        top = float(np.finfo(dt).max)
        return -top, top, False
    return None


def _unfit(f: Feature, values: np.ndarray) -> np.ndarray:
    """Which (finite) values the feature's dtype cannot hold: out of its range, or not whole
    in an integer column (40.5 as an age would be scored as such and shown rounded)."""
    b = _bounds(f.dtype)
    if b is None:
        return np.zeros(values.shape, dtype=bool)
    low, high, integer = b
    if integer:
        r = np.rint(values)
        return (r != values) | (r < low) | (r >= high)
    return (values < low) | (values > high)


def _plain(v: Any) -> Any:
    """A numpy scalar as the Python value it holds (messages show 11, not np.int64(11))."""
    return v.item() if isinstance(v, np.generic) else v


def _value_error(what: str, f: Feature, v: Any, row: Any = None) -> SchemaError:
    """The SchemaError for a non-finite value or one the column's dtype cannot hold."""
    v, row = _plain(v), _plain(row)
    at = "" if row is None else f" at row {row!r}"
    if isinstance(v, float) and not math.isfinite(v):
        return SchemaError(f"{what}: column {f.name!r} has a non-finite value ({v}){at}")
    shown = repr(v) if len(repr(v)) <= 40 else f"{repr(v)[:24]}... ({len(repr(v))} characters)"
    return SchemaError(f"{what}: column {f.name!r} (dtype {f.dtype}) cannot hold the value {shown}{at}")


#: integers of larger magnitude than this may have no float64 of their own
_EXACT_INTS = 2.0**53


def _check_exact(what: str, f: Feature, as_float: float, own: Any, row: Any = None) -> None:
    """SchemaError where the integer ``own`` is another number than its float64 ``as_float``
    (past 2**53: the search reads every value as a float64, so the model, and the answer, would
    get another number)."""
    if abs(as_float) >= _EXACT_INTS and int(as_float) != int(own):
        at = "" if row is None else f" at row {_plain(row)!r}"
        raise SchemaError(
            f"{what}: column {f.name!r} (dtype {f.dtype}) holds {_plain(own)!r}{at}, which a float64 cannot "
            "hold exactly (integers past 2**53); drop the column (an id?) or rescale it"
        )


def _duplicates(names: Iterable[Any]) -> list[Any]:
    """The names that occur more than once, in order of first appearance."""
    return [n for n, k in Counter(names).items() if k > 1]


def _feature_from_series(name: str, s: pd.Series) -> Feature:
    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        kind: Kind = "ordinal" if dt.ordered else "categorical"
        return Feature(name, kind, tuple(dt.categories.tolist()), "category")
    if pd.api.types.is_bool_dtype(dt):  # pandas' nullable "boolean" kept: a model may read it
        return Feature(name, "categorical", (False, True), "boolean" if isinstance(dt, pd.BooleanDtype) else "bool")
    if pd.api.types.is_numeric_dtype(dt):
        return Feature(name, "numeric", None, str(dt))
    # object / string columns: categories in sorted order
    try:
        values = pd.unique(s.dropna())
    except TypeError as e:  # unhashable values (lists, dicts)
        raise SchemaError(f"column {name!r} holds values that cannot be categories ({e})") from None
    listed = values.tolist()
    if listed and all(isinstance(v, numbers.Number) and not isinstance(v, (bool, np.bool_)) for v in listed):
        shown = next((type(v).__name__ for v in listed if not isinstance(v, int)), "int")
        warnings.warn(
            f"column {name!r} holds numbers as Python objects ({shown}, dtype {dt}): they are read as "
            f"categories, each value its own with no order and no distance between them; to move it as a number "
            f"convert it, X[{name!r}] = X[{name!r}].astype(float) (or to pandas' Categorical to keep categories "
            "without this warning)",
            UserWarning, stacklevel=3,
        )  # fmt: skip
    try:
        cats = tuple(sorted(listed))
    except TypeError:
        cats = tuple(sorted(listed, key=str))
    return Feature(name, "categorical", cats, "object")


def _kind(value: Any) -> str:
    """What a category literal is: a bool, a string or a number (``True == 1`` in Python)."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, str):
        return "str"
    return "number"


def _is_code(value: float, n: int) -> bool:
    """Whether ``value`` is one of the codes 0..n-1."""
    return math.isfinite(value) and value == int(value) and 0 <= value < n


def _as_float(v: Any) -> float:
    """float(v); an int beyond any float is +-inf, anything else not a number NaN."""
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf
    except (TypeError, ValueError):
        return math.nan


def _category_array(f: Feature) -> Any:
    """The categories of ``f`` (neither a pandas categorical nor a bool) as an array a code
    vector indexes: of the column's own dtype when that is numeric, else of Python objects."""
    try:
        dt = pd.api.types.pandas_dtype(f.dtype)
    except TypeError:
        dt = None
    if dt is not None and pd.api.types.is_numeric_dtype(dt) and not pd.api.types.is_bool_dtype(dt):
        return pd.array(list(f.categories or ()), dtype=dt)
    return np.asarray(f.categories, dtype=object)


class Schema:
    """Ordered features of a data set, with encode/decode between pandas and float64 arrays."""

    def __init__(self, features: Iterable[Feature]):
        self.features: tuple[Feature, ...] = tuple(features)
        self.names: tuple[str, ...] = tuple(f.name for f in self.features)
        dup = _duplicates(self.names)
        if dup:
            raise SchemaError(f"duplicate column name(s) in schema: {dup}")
        self._index = {n: i for i, n in enumerate(self.names)}
        self._codes: dict[str, dict[Any, int]] = {
            f.name: {c: i for i, c in enumerate(f.categories)}
            for f in self.features
            if f.categories is not None
        }

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_dataframe(
        cls, df: pd.DataFrame, overrides: Mapping[str, Kind | Feature] | None = None
    ) -> Schema:
        """Infer the schema from dtypes: numbers -> numeric; category/object/bool -> categorical;
        an ordered CategoricalDtype -> ordinal. ``overrides`` maps a column to a kind or Feature."""
        if not isinstance(df, pd.DataFrame):
            raise SchemaError(f"expected a pandas DataFrame, got {type(df).__name__}")
        dup = _duplicates(df.columns)
        if dup:
            raise SchemaError(f"duplicate column name(s): {dup}")
        feats = []
        for name in df.columns:
            if not isinstance(name, str):
                raise SchemaError(f"column names must be strings (PLAF names features by them), got {name!r}: "
                                  "X.columns = X.columns.astype(str) names them so")  # fmt: skip
            f = _feature_from_series(name, df[name])
            if overrides and name in overrides:
                ov = overrides[name]
                if isinstance(ov, Feature):
                    f = ov
                elif ov == "numeric":
                    if not f.is_numeric:
                        raise SchemaError(f"column {name!r} is not numeric; cannot override to numeric")
                else:
                    cats = f.categories
                    if cats is None:
                        cats = tuple(sorted(pd.unique(df[name].dropna()).tolist()))
                    f = Feature(name, ov, cats, f.dtype if f.categories is not None else str(df[name].dtype))
            feats.append(f)
        if overrides:
            unknown = set(overrides) - set(df.columns)
            if unknown:
                raise SchemaError(f"override for unknown column(s): {sorted(unknown)}")
        return cls(feats)

    # ------------------------------------------------------------------ lookup
    def __len__(self) -> int:
        return len(self.features)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __getitem__(self, name: str) -> Feature:
        return self.features[self._index[name]]

    def index(self, name: str) -> int:
        return self._index[name]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Schema) and self.features == other.features

    def __hash__(self) -> int:
        return hash(self.features)

    def __repr__(self) -> str:
        parts = ", ".join(f"{f.name}:{f.kind}" for f in self.features)
        return f"Schema({parts})"

    # ------------------------------------------------------------------ values
    def category_code(self, name: str, value: Any) -> int:
        """The code of ``value`` among the categories of feature ``name``: a category equal to it
        and of the same kind (a string, a bool or a number: ``True`` is not the category ``1``).
        Raises SchemaError if there is none."""
        cats = self[name].categories or ()
        kind = _kind(value)
        try:
            code = self._codes[name].get(value)
        except TypeError:  # unhashable
            code = None
        if code is not None and _kind(cats[code]) == kind:
            return code
        for i, c in enumerate(cats):  # a same-kind category hidden by one equal to it (1 / True)
            if _kind(c) == kind and c == value:
                return i
        raise SchemaError(f"column {name!r}: {value!r} is not one of its categories")

    def encode_value(self, name: str, value: Any, *, what: str = "value") -> float:
        """One user value -> its internal float (category code for categoricals)."""
        f = self[name]
        if f.categories is None:
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise SchemaError(f"{what}: column {name!r}: {value!r} is not a number") from None
            except OverflowError:  # an int beyond any float
                raise _value_error(what, f, value) from None
            if v != v:
                raise SchemaError(f"{what}: column {name!r} has a missing value (NaN)")
            if not math.isfinite(v) or _unfit(f, np.float64(v)):
                raise _value_error(what, f, v)
            if isinstance(value, (int, np.integer)):
                _check_exact(what, f, v, value)
            return v
        try:
            return float(self._codes[name][value])
        except (KeyError, TypeError):
            valid = ", ".join(repr(c) for c in f.categories[:8])
            more = ", ..." if len(f.categories) > 8 else ""
            raise SchemaError(
                f"{what}: column {name!r}: unknown category {value!r} (valid: {valid}{more})"
            ) from None

    def decode_value(self, name: str, value: float) -> Any:
        """Internal float -> user value."""
        f = self[name]
        if f.categories is not None:
            if not _is_code(value, len(f.categories)):
                raise SchemaError(
                    f"column {name!r}: {value!r} is not a category code (0..{len(f.categories) - 1})"
                )
            return f.categories[int(value)]
        if f.dtype.startswith(("int", "uint", "Int", "UInt")):
            if not math.isfinite(value) or _unfit(f, np.float64(value)):
                raise _value_error("value", f, float(value))
            return int(round(value))  # noqa: RUF046 - numpy floats round to floats on old numpy
        return float(value)

    def encode_instance(self, x: Any) -> np.ndarray:
        """One instance as a 1-D float64 vector in this encoding.

        Accepts a pandas Series or 1-row DataFrame (user values), a dict name -> user value, or a
        1-D numpy array that is already encoded. Bad input raises SchemaError naming the column."""
        if isinstance(x, np.ndarray):
            return self._check_encoded(x)
        if isinstance(x, Mapping) and not isinstance(x, pd.Series):
            x = pd.Series(dict(x), dtype=object)
        if isinstance(x, pd.Series):
            dup = _duplicates(x.index)
            if dup:
                raise SchemaError(f"x: duplicate column name(s) {dup}")
            extra = [c for c in x.index if c not in self]
            if extra:
                raise SchemaError(f"x: unexpected column(s) {extra}")
            out = np.empty(len(self), dtype=np.float64)
            for j, n in enumerate(self.names):
                if n not in x.index:
                    raise SchemaError(f"x: missing column {n!r}")
                v = x[n]
                if v is None or (isinstance(v, float) and math.isnan(v)):
                    raise SchemaError(f"x: column {n!r} has a missing value (NaN)")
                out[j] = self.encode_value(n, v, what="x")
            return out
        if isinstance(x, pd.DataFrame):
            if len(x) != 1:
                raise SchemaError(f"x: expected one row, got {len(x)}")
            return self.encode(x, what="x")[0]
        raise TypeError(
            f"x must be a Series, a 1-row DataFrame, a dict or an encoded array, got {type(x).__name__}"
        )

    def _check_encoded(self, x: np.ndarray) -> np.ndarray:
        """An already encoded instance, validated: shape, NaN, inf, category codes, dtypes."""
        try:
            arr = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            raise SchemaError(f"x: expected an encoded float vector, got dtype {x.dtype}") from None
        if arr.ndim == 2 and arr.shape[0] == 1:
            arr = arr[0]
        if arr.shape != (len(self),):
            raise SchemaError(f"x: expected an encoded vector of {len(self)} values, got shape {x.shape}")
        for j, f in enumerate(self.features):
            v = float(arr[j])
            if v != v:
                raise SchemaError(f"x: column {f.name!r} is NaN")
            if f.categories is not None:
                if not _is_code(v, len(f.categories)):
                    raise SchemaError(
                        f"x: column {f.name!r}: {v!r} is not a category code (0..{len(f.categories) - 1})"
                    )
            elif not math.isfinite(v) or _unfit(f, arr[j]):
                raise _value_error("x", f, v)
        return arr.copy()

    # ------------------------------------------------------------------ frames
    def encode(self, df: pd.DataFrame | pd.Series, *, what: str = "data") -> np.ndarray:
        """A DataFrame (or one row as a Series) in user form -> (n, d) float64 array.

        Raises SchemaError for a missing or extra column, NaN, an unknown category or a value of
        the wrong type, naming the column and the first offending row."""
        df = self._checked_frame(df, what)
        if len(df) == 1:
            return self._encode_one(df, what)
        out = np.empty((len(df), len(self.features)), dtype=np.float64)
        for j, f in enumerate(self.features):
            out[:, j] = self._encode_column(df, f, what)
        return out

    def encode_table(self, df: pd.DataFrame, *, what: str = "data") -> EncodedTable:
        """A DataFrame in user form -> :class:`EncodedTable` (one contiguous column per feature,
        category codes in the smallest integer dtype): the encoded data at about the pandas
        table's own size. Same checks and errors as :meth:`encode`."""
        df = self._checked_frame(df, what)
        return EncodedTable([self._encode_column(df, f, what) for f in self.features])

    def _checked_frame(self, df: pd.DataFrame | pd.Series, what: str) -> pd.DataFrame:
        """``df`` as a DataFrame with exactly the schema's columns (SchemaError otherwise)."""
        if isinstance(df, pd.Series):
            df = df.to_frame().T
        if not isinstance(df, pd.DataFrame):
            raise SchemaError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
        dup = _duplicates(df.columns)
        if dup:
            raise SchemaError(f"{what}: duplicate column name(s) {dup}")
        missing = [n for n in self.names if n not in df.columns]
        if missing:
            raise SchemaError(f"{what}: missing column(s) {missing}")
        extra = [c for c in df.columns if c not in self._index]
        if extra:
            raise SchemaError(f"{what}: unexpected column(s) {extra}")
        return df

    def _encode_column(self, df: pd.DataFrame, f: Feature, what: str) -> np.ndarray:
        """One column encoded and validated: float64 values, or category codes as the smallest
        integer dtype holding them."""
        s = df[f.name]
        na = s.isna().to_numpy()
        if na.any():
            row = _plain(df.index[int(np.argmax(na))])
            holes = int(df.isna().any(axis=1).sum())
            raise SchemaError(f"{what}: column {f.name!r} has a missing value (NaN) at row {row!r} ({holes} of {len(df)} "
                              "rows hold a missing value; a search over the values the data holds cannot use a missing "
                              "one: give X.dropna(), or impute them as the model's pipeline does)")  # fmt: skip
        if f.categories is None:
            if pd.api.types.is_bool_dtype(s.dtype) or not pd.api.types.is_numeric_dtype(s.dtype):
                # try a lenient conversion, report the first bad value
                try:
                    conv = pd.to_numeric(s, errors="coerce")
                except OverflowError:  # Python ints beyond any float
                    conv = pd.Series([_as_float(v) for v in s], index=s.index, dtype=np.float64)
                bad = conv.isna().to_numpy()
                if bad.any() or pd.api.types.is_bool_dtype(s.dtype):
                    i = int(np.argmax(bad)) if bad.any() else 0
                    raise SchemaError(
                        f"{what}: column {f.name!r} must be numeric, got dtype {s.dtype} "
                        f"(value {_plain(s.iloc[i])!r} at row {_plain(df.index[i])!r})"
                    )
                s = conv
            col = s.to_numpy(dtype=np.float64, copy=True)
            bad = ~np.isfinite(col)
            bad[~bad] = _unfit(f, col[~bad])
            if bad.any():
                i = int(np.argmax(bad))
                raise _value_error(what, f, df[f.name].iloc[i], df.index[i])
            if pd.api.types.is_integer_dtype(s.dtype):  # 64-bit integers past 2**53 may round
                for i in np.flatnonzero(np.abs(col) >= _EXACT_INTS).tolist():
                    _check_exact(what, f, col[i], s.iloc[i], df.index[i])
            return col
        dtype = code_dtype(len(f.categories))
        if isinstance(s.dtype, pd.CategoricalDtype) and tuple(s.dtype.categories.tolist()) == f.categories:
            return s.cat.codes.to_numpy().astype(dtype)
        codes = self._codes[f.name]
        vals = s.to_numpy(dtype=object)
        try:
            return np.array([codes[v] for v in vals], dtype=dtype)
        except (KeyError, TypeError):
            for i, v in enumerate(vals):
                if v not in codes:
                    valid = ", ".join(repr(c) for c in f.categories[:8])
                    more = ", ..." if len(f.categories) > 8 else ""
                    raise SchemaError(
                        f"{what}: column {f.name!r} has unknown category {_plain(v)!r} at "
                        f"row {_plain(df.index[i])!r} (valid: {valid}{more})"
                    ) from None
            raise

    def _encode_one(self, df: pd.DataFrame, what: str) -> np.ndarray:
        """One row with plain Python checks: per-column pandas calls cost ~1 ms each, which
        dominated encoding the instance of every explanation. Same errors as the bulk path."""
        row = _plain(df.index[0])
        values = dict(zip(df.columns, df.iloc[0].tolist()))
        out = np.empty((1, len(self.features)), dtype=np.float64)
        for j, f in enumerate(self.features):
            v = values[f.name]
            if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v):
                raise SchemaError(f"{what}: column {f.name!r} has a missing value (NaN) at row {row!r}")
            if f.categories is None:
                if isinstance(v, (bool, np.bool_)):
                    bad = True
                else:
                    try:
                        v = float(v)
                        bad = v != v
                    except (TypeError, ValueError):
                        bad = True
                    except OverflowError:  # an int beyond any float
                        raise _value_error(what, f, v, row) from None
                if bad:
                    raise SchemaError(
                        f"{what}: column {f.name!r} must be numeric, got dtype {df[f.name].dtype} "
                        f"(value {values[f.name]!r} at row {row!r})"
                    )
                if not math.isfinite(v) or _unfit(f, np.float64(v)):
                    raise _value_error(what, f, v if not math.isfinite(v) else values[f.name], row)
                if abs(v) >= _EXACT_INTS and pd.api.types.is_integer_dtype(df[f.name].dtype):
                    _check_exact(what, f, v, df[f.name].iat[0], row)  # the row as one Series may be floats
                out[0, j] = v
            else:
                try:
                    code = self._codes[f.name].get(v)
                except TypeError:  # unhashable
                    code = None
                if code is None:
                    valid = ", ".join(repr(c) for c in f.categories[:8])
                    more = ", ..." if len(f.categories) > 8 else ""
                    raise SchemaError(
                        f"{what}: column {f.name!r} has unknown category {v!r} at row {row!r} "
                        f"(valid: {valid}{more})"
                    )
                out[0, j] = code
        return out

    def _dtype(self, f: Feature) -> pd.CategoricalDtype:
        """The CategoricalDtype of ``f``, built once: building it parses the categories again,
        which dominated ``decode`` on the black-box path (one decode per generation)."""
        cache = self.__dict__.setdefault("_dtypes", {})
        dt = cache.get(f.name)
        if dt is None:
            dt = cache[f.name] = pd.CategoricalDtype(list(f.categories), ordered=f.kind == "ordinal")
        return dt

    def _category_values(self, f: Feature) -> Any:
        """The categories of ``f`` as an array of its column's dtype: a numeric column declared
        categorical (integer-coded customer types) decodes to the numbers it held, in that
        dtype, not to Python objects a model would read as another column type."""
        cache = self.__dict__.setdefault("_category_arrays", {})
        values = cache.get(f.name)
        if values is None:
            values = cache[f.name] = _category_array(f)
        return values

    def decode(self, arr: np.ndarray, index: Sequence[Any] | None = None,
               extra: dict[str, Any] | None = None) -> pd.DataFrame:  # fmt: skip
        """(n, d) float64 array -> DataFrame in user form (original dtypes, string categories),
        with the columns ``extra`` (name -> n values) after the features. Raises ValueError
        naming the column where a categorical value is no category code (NaN, negative, past
        the last category), checked for every such column at once."""
        arr = np.asarray(arr, dtype=np.float64)
        if arr.ndim == 1:
            arr = arr[None, :]
        self._check_codes(arr)
        cols: dict[str, Any] = {}
        for j, f in enumerate(self.features):
            col = arr[:, j]
            if f.categories is not None:
                codes = col.astype(np.int64)
                if f.dtype == "category":
                    cols[f.name] = pd.Categorical.from_codes(codes, dtype=self._dtype(f), validate=False)
                elif f.dtype == "bool":
                    cols[f.name] = np.asarray(f.categories, dtype=bool)[codes]
                elif f.dtype == "boolean":
                    cols[f.name] = pd.array(np.asarray(f.categories, dtype=bool)[codes], dtype="boolean")
                else:
                    cols[f.name] = self._category_values(f)[codes]
            elif f.dtype.startswith(("int", "uint")):
                cols[f.name] = np.rint(col).astype(f.dtype)
            elif f.dtype == "float64":
                cols[f.name] = col.copy()
            elif f.dtype.startswith(("Int", "UInt", "Float")):  # pandas' nullable numbers
                cols[f.name] = pd.array(np.rint(col) if f.dtype[0] in "IU" else col, dtype=f.dtype)
            else:
                cols[f.name] = col.astype(f.dtype)
        if extra:
            cols.update(extra)
        return frame_of_columns(cols, len(arr), index)

    def _check_codes(self, arr: np.ndarray) -> None:
        """ValueError naming the first categorical column of ``arr`` holding a value that is no
        category code (NaN, a fraction, negative, past the last category)."""
        cache = self.__dict__.setdefault("_code_columns", {})
        if "columns" not in cache:
            cats = [j for j, f in enumerate(self.features) if f.categories is not None]
            cache["columns"] = np.array(cats, dtype=np.intp)
            cache["counts"] = np.array([len(self.features[j].categories) for j in cats], dtype=np.float64)
        columns, counts = cache["columns"], cache["counts"]
        if len(columns) == 0 or len(arr) == 0:
            return
        v = arr[:, columns]
        ok = (v >= 0) & (v < counts) & (v == np.floor(v))  # NaN fails every comparison
        if not ok.all():
            i, k = np.argwhere(~ok)[0]
            f = self.features[columns[k]]
            raise ValueError(f"column {f.name!r}: {float(v[i, k])!r} at row {int(i)} is no code of its {len(f.categories)} categories")


def frame_of_columns(cols: dict[str, Any], n: int, index: Sequence[Any] | None = None) -> pd.DataFrame:
    """``pd.DataFrame(cols, index=index)`` for ``n`` rows, built from its blocks (one 2-D array
    per numpy dtype, one per categorical) where every column is a numeric, bool or categorical
    array of ``n`` values: the dict constructor infers and consolidates what is known here, five
    times the cost on a frame of a few rows (two per explanation). Any other column (strings,
    which pandas would infer as its string dtype) takes the dict constructor."""
    if create_dataframe_from_blocks is None or (index is not None and len(index) != n):
        return pd.DataFrame(cols, index=index)
    by_dtype: dict[np.dtype, list[int]] = {}
    blocks: list[tuple[Any, np.ndarray]] = []
    values = list(cols.values())
    for j, v in enumerate(values):
        if isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype.kind in "biuf" and len(v) == n:
            by_dtype.setdefault(v.dtype, []).append(j)
        elif isinstance(v, pd.Categorical) and len(v) == n:
            blocks.append((v, np.array([j], dtype=np.intp)))
        else:
            return pd.DataFrame(cols, index=index)
    for js in by_dtype.values():
        blocks.append((np.stack([values[j] for j in js]), np.array(js, dtype=np.intp)))
    rows = pd.RangeIndex(n) if index is None else index if isinstance(index, pd.Index) else pd.Index(index)
    return create_dataframe_from_blocks(blocks, index=rows, columns=_column_index(tuple(cols)).copy())


@functools.lru_cache(maxsize=64)
def _column_index(names: tuple[str, ...]) -> pd.Index:
    """The column Index of ``names``, built once (inferring its dtype costs 10 us a frame); each
    frame takes a copy, as the dict constructor gives each its own."""
    return pd.Index(list(names))
