"""Read a fitted preprocessing pipeline into per-model-column maps from the user's encoded columns.

Why: the compiled scorers take the *user's* columns (the :class:`plaf_grammar.Schema` encoding:
numbers as numbers, categoricals/ordinals as integer category codes), but the estimator at the end
of a ``Pipeline`` sees the output of a ``ColumnTransformer`` (one-hot columns, scaled columns, ...).
This module describes, for every column the final estimator receives, how it is computed from
exactly one schema feature. The tree compiler uses it to move splits back onto the user's
features (a split on a one-hot column becomes a test on the category code, a split on a scaled
column gets its threshold mapped back); the MLP compiler uses it to fold the preprocessing into the
first layer's weights. No llvmlite import here.

Usage::

    mi = read_model_input(model, schema)      # model: Pipeline or bare estimator
    mi.estimator                               # the final fitted estimator
    mi.columns[j]                              # ColumnMap for estimator input column j
    mi.transform(X_encoded)                    # (n, len(columns)) float64, exactly what
                                               # pipeline[:-1].transform(schema.decode(X)) gives

A :class:`ColumnMap` has a ``kind``:

``"identity"``  model value = the numeric schema value ``v``.
``"affine"``    model value = ``ops`` applied to ``v`` in order, each one IEEE operation exactly as
                sklearn's transformer does it (``("sub", mean)``, ``("div", scale)``, ``("mul", s)``,
                ``("add", b)``, ``("clip", lo, hi)``). Every supported op sequence is monotone non-decreasing in ``v``.
``"onehot"``    source is categorical/ordinal; model value = ``table[code]``, with ``table`` 0/1;
                ``hot_codes`` lists the codes that give 1.0 (usually one; none if the category was
                dropped or is unknown to the encoder).
``"codemap"``   source is categorical/ordinal; model value = ``table[code]`` (ordinal encoders,
                numeric category labels passed through, a scaler applied after an encoder ...).

For every categorical source, ``table`` (float64, one entry per schema category code) is computed
by running the fitted transformers themselves on every category, so it is exact by construction,
including ``drop=``, infrequent categories and ``handle_unknown``.

Supported: ``Pipeline`` (nested pipelines flattened), ``ColumnTransformer`` (any column selector,
``remainder``, ``'passthrough'``/``'drop'``), ``OneHotEncoder``, ``OrdinalEncoder``,
``StandardScaler``, ``MinMaxScaler``, ``MaxAbsScaler``, ``RobustScaler``, identity
``FunctionTransformer``, ``SimpleImputer``/``KNNImputer``/``IterativeImputer`` (the identity: no
row holds a missing value), feature selectors (``VarianceThreshold``, ``SelectKBest``,
``SelectFromModel``, ``RFE``, ...: the columns their support keeps), and HistGradientBoosting's
internal categorical preprocessor.
Anything else raises :class:`codegen.UnsupportedModel` with a one-line reason.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from codegen.errors import UnsupportedModel
from codegen.estimator import split_pipeline
from plaf_grammar import Schema

__all__ = ["ColumnMap", "ModelInput", "read_model_input"]

MapKind = Literal["identity", "affine", "onehot", "codemap"]


@dataclass(frozen=True, eq=False)
class ColumnMap:
    """How one estimator input column is computed from one schema feature (see module doc)."""

    kind: MapKind
    source: int  # schema feature index
    name: str  # the column's name on the model side (for IR comments and messages)
    ops: tuple[tuple, ...] = ()  # affine: exact op sequence
    table: np.ndarray | None = None  # onehot/codemap: model value per category code

    @property
    def hot_codes(self) -> tuple[int, ...]:
        """onehot: the category codes whose model value is 1.0."""
        if self.table is None:
            return ()
        return tuple(int(i) for i in np.flatnonzero(self.table == 1.0))

    def apply(self, v: np.ndarray) -> np.ndarray:
        """Model values for schema values ``v`` (float64), exactly as the pipeline computes them."""
        v = np.asarray(v, dtype=np.float64)
        if self.kind == "identity":
            return v.copy()
        if self.kind == "affine":
            return apply_ops(self.ops, v)
        assert self.table is not None
        return self.table[v.astype(np.int64)]

    def describe(self, schema: Schema | None = None) -> str:
        """One line for IR comments, e.g. ``age_scaled = (age - 38.5) / 13.6``."""
        src = schema.names[self.source] if schema is not None else f"x{self.source}"
        if self.kind == "identity":
            return f"{self.name} = {src}"
        if self.kind == "affine":
            expr = src
            for op in self.ops:
                if op[0] == "clip":
                    expr = f"clip({expr}, {op[1]!r}, {op[2]!r})"
                else:
                    sym = {"sub": "-", "add": "+", "mul": "*", "div": "/"}[op[0]]
                    expr = f"({expr} {sym} {op[1]!r})"
            return f"{self.name} = {expr}"
        if self.kind == "onehot":
            codes = self.hot_codes
            if schema is not None:
                cats = schema.features[self.source].categories or ()
                shown = [repr(cats[c]) for c in codes]
            else:
                shown = [str(c) for c in codes]
            return f"{self.name} = [{src} in {{{', '.join(shown)}}}]"
        return f"{self.name} = table[{src}]"


def apply_ops(ops: Sequence[tuple], v: np.ndarray) -> np.ndarray:
    """Apply an affine op sequence with the same IEEE operations, in the same order, as sklearn."""
    out = np.array(v, dtype=np.float64, copy=True)
    for op in ops:
        if op[0] == "sub":
            out -= op[1]
        elif op[0] == "add":
            out += op[1]
        elif op[0] == "mul":
            out *= op[1]
        elif op[0] == "div":
            out /= op[1]
        elif op[0] == "clip":
            np.clip(out, op[1], op[2], out=out)
        else:  # pragma: no cover - constructed here only
            raise ValueError(op)
    return out


@dataclass
class ModelInput:
    """The final estimator plus a :class:`ColumnMap` for each of its input columns."""

    estimator: Any
    columns: tuple[ColumnMap, ...]
    schema: Schema

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Schema-encoded rows ``(n, d)`` -> estimator input ``(n, len(columns))`` float64."""
        X = np.asarray(X, dtype=np.float64)
        out = np.empty((len(X), len(self.columns)), dtype=np.float64)
        for j, c in enumerate(self.columns):
            out[:, j] = c.apply(X[:, c.source])
        return out


# --------------------------------------------------------------------------- internal state
# While reading steps we track, for each current column, either a ColumnMap or a "raw label"
# column (a categorical schema feature not yet encoded: the transformer sees its labels).


@dataclass(frozen=True, eq=False)
class _Raw:
    source: int
    name: str


_Col = ColumnMap | _Raw


def _label_table(schema: Schema, source: int) -> np.ndarray:
    """Numeric category labels as float64 (a categorical fed straight to a model), else raise."""
    f = schema.features[source]
    try:
        t = np.asarray([float(c) for c in f.categories or ()], dtype=np.float64)
    except (TypeError, ValueError):
        raise UnsupportedModel(
            f"categorical column {f.name!r} reaches the model without an encoder"
        ) from None
    return t


def _as_numeric(col: _Col, schema: Schema) -> ColumnMap:
    if isinstance(col, _Raw):
        return ColumnMap("codemap", col.source, col.name, table=_label_table(schema, col.source))
    return col


def _with_ops(col: _Col, schema: Schema, ops: list[tuple], name: str) -> ColumnMap:
    """Append exact ops to a column: affine for numeric sources, a new table for categorical."""
    col = _as_numeric(col, schema)
    if col.kind in ("onehot", "codemap"):
        assert col.table is not None
        table = apply_ops(ops, col.table)
        return ColumnMap("codemap", col.source, name, table=table)
    all_ops = (*col.ops, *ops)
    for op in all_ops:  # keeps the map monotone non-decreasing (the tree fold relies on it)
        if op[0] in ("mul", "div") and not op[1] > 0:
            raise UnsupportedModel(f"column {name!r}: non-positive scale {op[1]!r} is not supported")
    return ColumnMap("affine", col.source, name, ops=all_ops)


def _names_out(trans: Any, n: int, default: Sequence[str]) -> list[str]:
    try:
        names = [str(s) for s in trans.get_feature_names_out()]
        if len(names) == n:
            return names
    except Exception:
        pass
    return list(default)[:n] + [f"col{i}" for i in range(len(default), n)]


def _scaler_ops(trans: Any, i: int) -> list[tuple]:
    """Exact per-column ops of a fitted scaler on dense input (sklearn's ``transform``)."""
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, RobustScaler, StandardScaler

    if isinstance(trans, StandardScaler):
        ops: list[tuple] = []
        if trans.with_mean:
            ops.append(("sub", float(trans.mean_[i])))
        if trans.with_std:
            ops.append(("div", float(trans.scale_[i])))
        return ops
    if isinstance(trans, MinMaxScaler):
        ops = [("mul", float(trans.scale_[i])), ("add", float(trans.min_[i]))]
        if trans.clip:
            ops.append(("clip", float(trans.feature_range[0]), float(trans.feature_range[1])))
        return ops
    if isinstance(trans, MaxAbsScaler):
        ops = [("div", float(trans.scale_[i]))]
        if getattr(trans, "clip", False):
            ops.append(("clip", -1.0, 1.0))
        return ops
    if isinstance(trans, RobustScaler):
        ops = []
        if trans.with_centering:
            ops.append(("sub", float(trans.center_[i])))
        if trans.with_scaling:
            ops.append(("div", float(trans.scale_[i])))
        return ops
    raise AssertionError(trans)  # pragma: no cover


#: scikit-learn's imputers, which fill missing values only
_IMPUTERS = ("SimpleImputer", "KNNImputer", "IterativeImputer")


def _is_imputer(trans: Any) -> bool:
    """Whether ``trans`` is one of scikit-learn's imputers (by module: ``IterativeImputer`` is
    reachable from ``sklearn.impute`` only once its experimental flag is imported)."""
    kind = type(trans)
    return kind.__module__.startswith("sklearn.impute") and kind.__name__ in _IMPUTERS


def _is_identity_function(trans: Any) -> bool:
    from sklearn.preprocessing import FunctionTransformer
    from sklearn.utils import check_array

    if not isinstance(trans, FunctionTransformer):
        return False
    func = trans.func
    if func is None:
        return True
    # HistGradientBoosting's internal preprocessor: FunctionTransformer(partial(check_array, ...))
    return isinstance(func, functools.partial) and func.func is check_array


class _Reader:
    def __init__(self, schema: Schema):
        self.schema = schema

    # ------------------------------------------------------------------ probes
    def _probe(self, cols: Sequence[_Col], as_frame: bool, names: Sequence[str] | None) -> tuple:
        """Rows that enumerate every category of every categorical input column (numeric inputs
        are not probed: encoders reject them). Returns (X_probe, n_codes per column)."""
        import pandas as pd

        n_codes = []
        for c in cols:
            if isinstance(c, _Raw):
                n_codes.append(len(self.schema.features[c.source].categories or ()))
            elif c.table is not None:
                n_codes.append(len(c.table))
            else:
                raise UnsupportedModel(
                    f"an encoder is applied to numeric column {self.schema.names[c.source]!r}"
                )
        n = max([*n_codes, 1])
        if as_frame:
            enc = np.zeros((n, len(self.schema)), dtype=np.float64)
            data = {}
            for k, c in enumerate(cols):
                codes = np.minimum(np.arange(n), n_codes[k] - 1)
                if isinstance(c, _Raw):
                    enc[:, c.source] = codes
                else:
                    data[k] = c.table[codes]
            frame = self.schema.decode(enc)
            out = {}
            for k, c in enumerate(cols):
                name = names[k] if names is not None else c.name
                out[name] = frame[self.schema.names[c.source]] if isinstance(c, _Raw) else data[k]
            return pd.DataFrame(out), n_codes
        arr = np.empty((n, len(cols)), dtype=object)
        for k, c in enumerate(cols):
            codes = np.minimum(np.arange(n), n_codes[k] - 1)
            if isinstance(c, _Raw):
                cats = np.asarray(self.schema.features[c.source].categories, dtype=object)
                arr[:, k] = cats[codes]
            else:
                arr[:, k] = c.table[codes]
        if all(not isinstance(c, _Raw) for c in cols):
            arr = arr.astype(np.float64)
        return arr, n_codes

    # ------------------------------------------------------------------ one transformer
    def transformer(self, trans: Any, cols: list[_Col], in_frame: bool) -> list[_Col]:
        """Columns after a fitted transformer applied to ``cols`` (in order)."""
        from sklearn.pipeline import Pipeline
        from sklearn.preprocessing import (
            MaxAbsScaler,
            MinMaxScaler,
            OneHotEncoder,
            OrdinalEncoder,
            RobustScaler,
            StandardScaler,
        )

        if trans is None or (isinstance(trans, str) and trans == "passthrough"):
            return list(cols)
        if isinstance(trans, str) and trans == "drop":
            return []
        if _is_identity_function(trans):
            return list(cols)
        if isinstance(trans, Pipeline):
            for _, step in trans.steps:
                cols = self.transformer(step, cols, in_frame)
                in_frame = False
            return cols
        from sklearn.compose import ColumnTransformer

        if isinstance(trans, ColumnTransformer):
            return self.column_transformer(trans, cols, in_frame)
        if isinstance(trans, (StandardScaler, MinMaxScaler, MaxAbsScaler, RobustScaler)):
            names = _names_out(trans, len(cols), [c.name for c in cols])
            return [
                _with_ops(c, self.schema, _scaler_ops(trans, i), names[i]) for i, c in enumerate(cols)
            ]
        if isinstance(trans, (OneHotEncoder, OrdinalEncoder)):
            return self.encoder(trans, cols, in_frame)
        if _is_imputer(trans):
            return self.imputer(trans, cols)
        from sklearn.feature_selection import SelectorMixin

        if isinstance(trans, SelectorMixin):
            return self.selector(trans, cols)
        raise UnsupportedModel(f"pipeline step {type(trans).__name__} is not supported")

    @staticmethod
    def imputer(imp: Any, cols: list[_Col]) -> list[_Col]:
        """An imputer (``SimpleImputer``, ``KNNImputer``, ``IterativeImputer``) replaces missing
        values only, and no row reaching the model holds one (the schema refuses them in the
        data, the instance and every candidate): its columns pass through, unless it replaces a
        value the data may hold (a sentinel ``missing_values``), adds indicator columns or drops
        a column it saw empty."""
        import pandas as pd

        name = type(imp).__name__
        missing = imp.missing_values
        if not (missing is None or missing is pd.NA or (isinstance(missing, float) and np.isnan(missing))):
            raise UnsupportedModel(f"{name}(missing_values={missing!r}) replaces a value the data may hold")
        if imp.add_indicator:
            raise UnsupportedModel(f"{name}(add_indicator=True) adds columns the engine does not read")
        if len(imp.get_feature_names_out()) != len(cols):
            raise UnsupportedModel(f"{name} drops the columns it saw without a value")
        return list(cols)

    @staticmethod
    def selector(sel: Any, cols: list[_Col]) -> list[_Col]:
        """A feature selector (``VarianceThreshold``, ``SelectKBest``, ``SelectFromModel``,
        ``RFE``, ...: scikit-learn's ``SelectorMixin``) keeps the columns its support marks, as
        they are: its ``transform`` is ``X[:, get_support()]``."""
        try:
            keep = np.asarray(sel.get_support(), dtype=bool)
        except Exception as exc:  # not fitted, or a selector without a support mask
            raise UnsupportedModel(f"{type(sel).__name__} gives no support mask: {exc}") from None
        if keep.shape != (len(cols),):
            raise UnsupportedModel(f"{type(sel).__name__} selects among {keep.size} columns, {len(cols)} reach it")
        return [c for c, kept in zip(cols, keep) if kept]

    def encoder(self, enc: Any, cols: list[_Col], in_frame: bool) -> list[_Col]:
        from sklearn.preprocessing import OneHotEncoder

        names_in = getattr(enc, "feature_names_in_", None)
        as_frame = in_frame and names_in is not None
        X, n_codes = self._probe(cols, as_frame, list(names_in) if as_frame else None)
        unknown = np.zeros((len(X), len(cols)), dtype=bool)
        if getattr(enc, "handle_unknown", None) == "error":
            # A schema category the encoder never saw makes the pipeline raise on rows holding it;
            # such values never come from the observed data, so mark them NaN instead of failing.
            import copy

            enc = copy.deepcopy(enc)
            for k in range(len(cols)):
                col = X.iloc[:, k] if as_frame else X[:, k]
                unknown[:, k] = ~np.isin(np.asarray(col, dtype=object), np.asarray(enc.categories_[k], dtype=object))
            if isinstance(enc, OneHotEncoder):
                enc.handle_unknown = "ignore"
            else:
                enc.handle_unknown, enc.unknown_value = "use_encoded_value", np.nan
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = enc.transform(X)
        except Exception as exc:
            raise UnsupportedModel(f"{type(enc).__name__} cannot encode the schema's categories: {exc}") from None
        if hasattr(out, "toarray"):
            out = out.toarray()
        out = np.asarray(out, dtype=np.float64)
        widths = list(enc._n_features_outs) if isinstance(enc, OneHotEncoder) else [1] * len(cols)
        if sum(widths) != out.shape[1] or len(widths) != len(cols):
            raise UnsupportedModel(f"cannot match {type(enc).__name__} outputs to its inputs")
        names = _names_out(enc, out.shape[1], [])
        res: list[_Col] = []
        start = 0
        for k, c in enumerate(cols):
            for j in range(start, start + widths[k]):
                table = np.array(out[: n_codes[k], j])
                table[unknown[: n_codes[k], k]] = np.nan
                onehot = isinstance(enc, OneHotEncoder) and bool(np.all((table == 0) | (table == 1) | np.isnan(table)))
                res.append(ColumnMap("onehot" if onehot else "codemap", c.source, names[j], table=table))
            start += widths[k]
        return res

    def column_transformer(self, ct: Any, cols: list[_Col], in_frame: bool) -> list[_Col]:
        to_idx = getattr(ct, "_transformer_to_input_indices", None)
        out_idx = getattr(ct, "output_indices_", None)
        if to_idx is None or out_idx is None:
            raise UnsupportedModel("ColumnTransformer is not fitted (or too old a scikit-learn)")
        n_out = max((s.stop for s in out_idx.values()), default=0)
        result: list[_Col | None] = [None] * n_out
        for name, trans, _ in ct.transformers_:
            sl = out_idx.get(name)
            idx = list(to_idx.get(name, []))
            if sl is None or sl.stop == sl.start:
                continue
            sub = [cols[i] for i in idx]
            got = self.transformer(trans, sub, in_frame)
            if len(got) != sl.stop - sl.start:
                raise UnsupportedModel(
                    f"ColumnTransformer part {name!r}: expected {sl.stop - sl.start} columns, read {len(got)}"
                )
            result[sl] = got
        if any(c is None for c in result):
            raise UnsupportedModel("ColumnTransformer output has columns that no transformer produced")
        return [c for c in result if c is not None]


def read_model_input(model: Any, schema: Schema) -> ModelInput:
    """Describe the final estimator's input columns in terms of the schema's features.

    ``model`` is a fitted ``Pipeline`` (transformers, then an estimator) or a bare estimator; it is
    assumed to receive ``schema.decode(rows)`` (the user's DataFrame, columns in schema order), as
    the black-box scorer (:class:`codegen.BlackBoxScorer`) does. Raises :class:`UnsupportedModel`."""
    steps, est = split_pipeline(model)
    names_in = getattr(model, "feature_names_in_", None)
    if names_in is not None and tuple(str(n) for n in names_in) != schema.names:
        raise UnsupportedModel("the model was fitted on different columns than the data's schema")
    n_in = getattr(model, "n_features_in_", None)
    if n_in is not None and n_in != len(schema):
        raise UnsupportedModel(f"the model expects {n_in} columns, the data has {len(schema)}")
    reader = _Reader(schema)
    cols: list[_Col] = [
        ColumnMap("identity", i, f.name) if f.categories is None else _Raw(i, f.name)
        for i, f in enumerate(schema.features)
    ]
    in_frame = True
    for _name, step in steps:
        cols = reader.transformer(step, cols, in_frame)
        in_frame = in_frame and getattr(step, "_sklearn_output_config", {}).get("transform") == "pandas"
    pre = getattr(est, "_preprocessor", None)
    if pre is not None:  # HistGradientBoosting with categorical features: its own ColumnTransformer
        cols = reader.transformer(pre, cols, in_frame)
    maps = tuple(_as_numeric(c, schema) for c in cols)
    n_est = getattr(est, "n_features_in_", None)
    if n_est is not None and n_est != len(maps):
        raise UnsupportedModel(
            f"read {len(maps)} columns from the pipeline but {type(est).__name__} expects {n_est}"
        )
    return ModelInput(est, maps, schema)
