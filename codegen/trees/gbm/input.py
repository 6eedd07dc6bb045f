"""How XGBoost and LightGBM models (bare, or at the end of a sklearn ``Pipeline``) read the user's
columns, and their trees folded onto those columns: a :class:`codegen.trees.fold.Forest` whose
``predict`` equals the model's ``predict_proba`` column bit for bit.

What differs from sklearn trees is only how the model reads the user's DataFrame:

* pandas categorical columns reach a bare model as category codes. XGBoost >= 3.1 and LightGBM
  store the categories they were trained with and re-code a DataFrame's categoricals to them, so
  the model value of schema code ``c`` is the position of the schema's category ``c`` in the
  model's list (LightGBM reads a category it does not know as NaN; XGBoost rejects it, so such a
  schema is refused). XGBoost < 3.1 reads the DataFrame's own codes.
* XGBoost treats the entries a scipy sparse matrix leaves out as missing, so behind a pipeline
  whose output is sparse, 0.0 goes to each node's missing side (``zero_missing`` marks the nodes
  where that differs from the compare; :func:`codegen.trees.fold.fold` rewrites them exactly).
* LightGBM copies a dense row without the values ``|v| <= 1e-35`` (read as 0.0) but a sparse
  row as it is, so behind a sparse output those values are compared as they are
  (split rule ``"lightgbm-sparse"``).
* LightGBM stores a column name with its spaces written as ``_``
  (:func:`codegen.estimator.stored_name`) and reads a DataFrame by position, so a bare model's
  names are compared in that form.

A ``Booster`` has no ``classes_``: its classes are the column indices of its probabilities
(``0, 1`` for a binary model: ``[1 - p, p]``), as :func:`codegen.class_index` reads a
``desired_class`` for a model without classes. No llvmlite import, and neither library is
imported here (models are recognised by their module).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.errors import UnsupportedModel
from codegen.estimator import split_pipeline, stored_name
from codegen.pipeline import ColumnMap, ModelInput, read_model_input
from codegen.trees.fold import Forest, fold
from codegen.trees.gbm.lightgbm_reader import is_lightgbm, lightgbm_categories, read_lightgbm
from codegen.trees.gbm.xgboost_reader import is_xgboost, read_xgboost, xgboost_categories
from codegen.trees.reader import RawEnsemble, raw_goes_left
from plaf_grammar import Schema

__all__ = ["GBMInput", "gbm_forest", "gbm_raw", "read_gbm", "read_gbm_forest", "read_gbm_input"]


@dataclass
class GBMInput(ModelInput):
    """A :class:`ModelInput` that also says whether the estimator receives a scipy sparse matrix
    (XGBoost then reads the entries left out as missing; LightGBM keeps tiny values)."""

    sparse: bool = False


def read_gbm(estimator: Any) -> RawEnsemble:
    """XGBoost or LightGBM classifier / Booster -> :class:`RawEnsemble` (its default iterations)."""
    if is_xgboost(estimator):
        return read_xgboost(estimator)
    if is_lightgbm(estimator):
        return read_lightgbm(estimator)
    raise UnsupportedModel(f"{type(estimator).__name__} is not an XGBoost or LightGBM model")


def _model_categories(model: Any, schema: Schema) -> dict[int, list] | None:
    """Schema feature index -> the model's category list for it, or None: the frame's own codes."""
    if is_xgboost(model):
        by_index = xgboost_categories(model)
        return by_index or None
    cats = lightgbm_categories(model)
    if cats is None:
        return None
    frame_cats = [i for i, f in enumerate(schema.features) if f.dtype == "category"]
    if len(frame_cats) != len(cats):
        raise UnsupportedModel("the model was trained on other categorical columns than the schema's")
    return dict(zip(frame_cats, cats))


def _code_table(schema: Schema, i: int, model_cats: list | None, xgb: bool) -> np.ndarray:
    f = schema.features[i]
    cats = list(f.categories or ())
    if model_cats is None:
        return np.arange(len(cats), dtype=np.float64)
    pos = {}
    for j, c in enumerate(model_cats):
        pos.setdefault(c, j)
        pos.setdefault(str(c), j)
    table = np.array([pos.get(c, pos.get(str(c), np.nan)) for c in cats], dtype=np.float64)
    if xgb and np.isnan(table).any():
        unknown = [c for c, t in zip(cats, table) if np.isnan(t)]
        raise UnsupportedModel(f"column {f.name!r}: categories {unknown[:3]!r} unknown to the XGBoost model")
    return table


def _label_values(schema: Schema, i: int) -> np.ndarray:
    f = schema.features[i]
    try:
        return np.asarray([float(c) for c in f.categories or ()], dtype=np.float64)
    except (TypeError, ValueError):
        raise UnsupportedModel(f"column {f.name!r} reaches the model as non-numeric values") from None


def _feature_names(model: Any) -> Any:
    names = getattr(model, "feature_names_in_", None)
    if names is None and not hasattr(model, "fit"):  # a Booster
        try:
            names = model.feature_names if is_xgboost(model) else model.feature_name()
        except Exception:
            names = None
    return names


def _bare_input(model: Any, schema: Schema) -> ModelInput:
    names = _feature_names(model)
    stored = tuple(stored_name(model, n) for n in schema.names)  # LightGBM: spaces as "_"
    if names is not None and tuple(str(n) for n in names) != stored:
        raise UnsupportedModel("the model was fitted on different columns than the data's schema")
    model_cats = _model_categories(model, schema)
    cols = []
    for i, f in enumerate(schema.features):
        if f.categories is None:
            cols.append(ColumnMap("identity", i, f.name))
        elif f.dtype == "category":
            mc = None if model_cats is None else model_cats.get(i)
            table = _code_table(schema, i, mc, is_xgboost(model))
            cols.append(ColumnMap("codemap", i, f.name, table=table))
        else:  # bool or object labels: the model reads the labels as numbers
            cols.append(ColumnMap("codemap", i, f.name, table=_label_values(schema, i)))
    return ModelInput(model, tuple(cols), schema)


def _sparse_output(model: Any, schema: Schema) -> bool:
    """Whether the steps before the final estimator produce a scipy sparse matrix."""
    from scipy import sparse

    steps, _ = split_pipeline(model)
    if not steps:
        return False
    probe = schema.decode(np.zeros((1, len(schema))))
    try:
        for _, step in steps:
            if step is not None and step != "passthrough":
                probe = step.transform(probe)
    except Exception as exc:
        raise UnsupportedModel(f"cannot run the pipeline's preprocessing: {exc}") from None
    return bool(sparse.issparse(probe))


def read_gbm_input(model: Any, schema: Schema) -> GBMInput:
    """The input reader of the XGBoost/LightGBM registry entries: :class:`GBMInput` for ``model``
    (a bare model or a Pipeline ending in one) fed ``schema.decode(rows)``."""
    steps, est = split_pipeline(model)
    mi = read_model_input(model, schema) if steps else _bare_input(est, schema)
    sparse = _sparse_output(model, schema)
    return GBMInput(mi.estimator, mi.columns, mi.schema, sparse=sparse)


def gbm_raw(mi: ModelInput) -> RawEnsemble:
    """The trees of the XGBoost/LightGBM model behind ``mi`` as it reads its input (a sparse
    input's zeros marked where they go the missing way)."""
    raw = read_gbm(mi.estimator)
    if not is_xgboost(mi.estimator):
        return dataclasses.replace(raw, split="lightgbm-sparse") if getattr(mi, "sparse", False) else raw
    if getattr(mi, "sparse", False):
        # 0.0 is missing; mark the nodes where that changes its side
        split = np.flatnonzero(raw.feature >= 0)
        zero = np.zeros(raw.n_nodes, dtype=bool)
        zero[split] = raw_goes_left(raw, split, np.zeros(len(split))) != raw.missing_left[split]
        raw = dataclasses.replace(raw, zero_missing=zero)
    return raw


def gbm_forest(mi: ModelInput, desired_class: Any) -> Forest:
    """The folded :class:`Forest` of the XGBoost/LightGBM model behind ``mi``."""
    return fold(gbm_raw(mi), mi, desired_class)


def read_gbm_forest(model: Any, schema: Schema, desired_class: Any) -> Forest:
    """XGBoost/LightGBM model or pipeline -> :class:`Forest` (raises :class:`UnsupportedModel`)."""
    return gbm_forest(read_gbm_input(model, schema), desired_class)
