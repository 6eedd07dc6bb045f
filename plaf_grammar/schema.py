"""The data schema shared by PLAF, the search and the compiled scorers.

Why it exists: a counterfactual search works on numbers, a user works on a pandas DataFrame with
string categories. One object owns the translation both ways, so every layer agrees on it:

* every feature is stored internally as a ``float64`` column;
* a numeric feature keeps its value;
* a categorical or ordinal feature is stored as the integer *code* of its value in
  ``Feature.categories`` (for an ordinal feature the code order is the value order).

``Schema.encode`` validates a DataFrame (missing / extra columns, NaN, unknown categories,
non-numeric values in numeric columns) and raises :class:`SchemaError` naming the column and row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

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
        """Whether ``<``/``>`` mean something for this feature."""
        return self.kind in ("numeric", "ordinal")


def _feature_from_series(name: str, s: pd.Series) -> Feature:
    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        kind: Kind = "ordinal" if dt.ordered else "categorical"
        return Feature(name, kind, tuple(dt.categories.tolist()), "category")
    if pd.api.types.is_bool_dtype(dt):
        return Feature(name, "categorical", (False, True), "bool")
    if pd.api.types.is_numeric_dtype(dt):
        return Feature(name, "numeric", None, str(dt))
    # object / string columns: categories in sorted order
    values = pd.unique(s.dropna())
    try:
        cats = tuple(sorted(values.tolist()))
    except TypeError:
        cats = tuple(sorted(values.tolist(), key=str))
    return Feature(name, "categorical", cats, "object")


class Schema:
    """Ordered features of a data set, with encode/decode between pandas and float64 arrays."""

    def __init__(self, features: Iterable[Feature]):
        self.features: tuple[Feature, ...] = tuple(features)
        self.names: tuple[str, ...] = tuple(f.name for f in self.features)
        if len(set(self.names)) != len(self.names):
            raise SchemaError("duplicate column names in schema")
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
        feats = []
        for name in df.columns:
            if not isinstance(name, str):
                raise SchemaError(f"column names must be strings, got {name!r}")
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

    @property
    def categories(self) -> dict[str, tuple[Any, ...]]:
        """Categories of every categorical/ordinal feature (code -> label by position)."""
        return {f.name: f.categories for f in self.features if f.categories is not None}

    # ------------------------------------------------------------------ values
    def encode_value(self, name: str, value: Any) -> float:
        """One user value -> its internal float (category code for categoricals)."""
        f = self[name]
        if f.categories is None:
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise SchemaError(f"column {name!r}: {value!r} is not a number") from None
            return v
        try:
            return float(self._codes[name][value])
        except (KeyError, TypeError):
            valid = ", ".join(repr(c) for c in f.categories[:8])
            more = ", ..." if len(f.categories) > 8 else ""
            raise SchemaError(
                f"column {name!r}: unknown category {value!r} (valid: {valid}{more})"
            ) from None

    def decode_value(self, name: str, value: float) -> Any:
        """Internal float -> user value."""
        f = self[name]
        if f.categories is not None:
            return f.categories[int(value)]
        if f.dtype.startswith(("int", "uint", "Int", "UInt")):
            return int(round(value))  # noqa: RUF046 - numpy floats round to floats on old numpy
        return float(value)

    # ------------------------------------------------------------------ frames
    def encode(self, df: pd.DataFrame | pd.Series, *, what: str = "data") -> np.ndarray:
        """A DataFrame (or one row as a Series) in user form -> (n, d) float64 array.

        Raises SchemaError for a missing or extra column, NaN, an unknown category or a value of
        the wrong type, naming the column and the first offending row."""
        if isinstance(df, pd.Series):
            df = df.to_frame().T
        if not isinstance(df, pd.DataFrame):
            raise SchemaError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
        missing = [n for n in self.names if n not in df.columns]
        if missing:
            raise SchemaError(f"{what}: missing column(s) {missing}")
        extra = [c for c in df.columns if c not in self._index]
        if extra:
            raise SchemaError(f"{what}: unexpected column(s) {extra}")
        if len(df) == 1:
            return self._encode_one(df, what)
        out = np.empty((len(df), len(self.features)), dtype=np.float64)
        for j, f in enumerate(self.features):
            s = df[f.name]
            na = s.isna().to_numpy()
            if na.any():
                row = df.index[int(np.argmax(na))]
                raise SchemaError(f"{what}: column {f.name!r} has a missing value (NaN) at row {row!r}")
            if f.categories is None:
                if pd.api.types.is_bool_dtype(s.dtype) or not pd.api.types.is_numeric_dtype(s.dtype):
                    # try a lenient conversion, report the first bad value
                    conv = pd.to_numeric(s, errors="coerce")
                    bad = conv.isna().to_numpy()
                    if bad.any() or pd.api.types.is_bool_dtype(s.dtype):
                        i = int(np.argmax(bad)) if bad.any() else 0
                        raise SchemaError(
                            f"{what}: column {f.name!r} must be numeric, got dtype {s.dtype} "
                            f"(value {s.iloc[i]!r} at row {df.index[i]!r})"
                        )
                    s = conv
                out[:, j] = s.to_numpy(dtype=np.float64)
            else:
                if isinstance(s.dtype, pd.CategoricalDtype) and tuple(
                    s.dtype.categories.tolist()
                ) == f.categories:
                    out[:, j] = s.cat.codes.to_numpy()
                    continue
                codes = self._codes[f.name]
                vals = s.to_numpy(dtype=object)
                try:
                    out[:, j] = [codes[v] for v in vals]
                except (KeyError, TypeError):
                    for i, v in enumerate(vals):
                        if v not in codes:
                            valid = ", ".join(repr(c) for c in f.categories[:8])
                            more = ", ..." if len(f.categories) > 8 else ""
                            raise SchemaError(
                                f"{what}: column {f.name!r} has unknown category {v!r} at row "
                                f"{df.index[i]!r} (valid: {valid}{more})"
                            ) from None
                    raise
        return out

    def _encode_one(self, df: pd.DataFrame, what: str) -> np.ndarray:
        """One row with plain Python checks: per-column pandas calls cost ~1 ms each, which
        dominated encoding the instance of every explanation. Same errors as the bulk path."""
        row = df.index[0]
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
                if bad:
                    raise SchemaError(
                        f"{what}: column {f.name!r} must be numeric, got dtype {df[f.name].dtype} "
                        f"(value {values[f.name]!r} at row {row!r})"
                    )
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

    def decode(self, arr: np.ndarray, index: Sequence[Any] | None = None) -> pd.DataFrame:
        """(n, d) float64 array -> DataFrame in user form (original dtypes, string categories)."""
        arr = np.asarray(arr, dtype=np.float64)
        if arr.ndim == 1:
            arr = arr[None, :]
        cols: dict[str, Any] = {}
        for j, f in enumerate(self.features):
            col = arr[:, j]
            if f.categories is not None:
                codes = col.astype(np.int64)
                if f.dtype == "category":
                    cols[f.name] = pd.Categorical.from_codes(codes, dtype=self._dtype(f))
                elif f.dtype == "bool":
                    cols[f.name] = np.asarray(f.categories, dtype=bool)[codes]
                else:
                    cols[f.name] = np.asarray(f.categories, dtype=object)[codes]
            elif f.dtype.startswith(("int", "uint", "Int", "UInt")):
                cols[f.name] = np.rint(col).astype(f.dtype)
            else:
                cols[f.name] = col.astype(f.dtype) if f.dtype != "float64" else col.copy()
        return pd.DataFrame(cols, index=index)
