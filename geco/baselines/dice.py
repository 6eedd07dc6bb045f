"""DiCE (the ``dice-ml`` package, extra ``geco-cf[compare]``) on the same instances and model.

DiCE cannot read PLAF. The program is translated as far as DiCE allows, per instance:
``features_to_vary`` holds the features of every group with a feasible value for ``x`` (so
``fixed`` features and groups a rule empties stay put), and ``permitted_range`` holds, per feature,
the span (numbers) or the set (categories) of its group's feasible values and ``x``'s own value
(``increasing``, bounds and group-local rules). Implications, rules spanning several groups and
the pairing of a group's values are lost; every answer is checked against the whole program
afterwards and the violations are counted in ``stats["violations"]``.

``dice_ml`` is imported when a DiCE object is built, so ``geco.baselines`` imports without it.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from typing import Any

import numpy as np
import pandas as pd

from geco.baselines.base import Baseline, Instance, Proposal

__all__ = ["DiCE"]

_OUTCOME = "__geco_outcome__"


@contextlib.contextmanager
def _quiet():
    """DiCE prints progress bars and raises pandas deprecation warnings on every call."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()), \
            contextlib.redirect_stdout(io.StringIO()):  # fmt: skip
        warnings.simplefilter("ignore")
        yield


class DiCE(Baseline):
    """DiCE's model-agnostic search (``method`` "random", "genetic" or "kdtree")."""

    name = "DiCE"

    def __init__(self, model: Any, X: pd.DataFrame, *args, method: str = "random", **kwargs):
        try:
            import dice_ml
        except ImportError as exc:
            raise ImportError(
                "the DiCE baseline needs the dice-ml package: pip install 'geco-cf[compare]'"
            ) from exc
        super().__init__(model, X, *args, **kwargs)
        if method not in ("random", "genetic", "kdtree"):
            raise ValueError(f"method must be 'random', 'genetic' or 'kdtree', got {method!r}")
        if not callable(getattr(model, "predict_proba", None)):
            raise TypeError(f"DiCE needs a model with predict_proba, got {type(model).__name__}")
        self.method = method
        self.column = 1 if self.explainer.blackbox.column is None else int(self.explainer.blackbox.column)
        frame = self.schema.decode(self.data)
        frame[_OUTCOME] = np.argmax(np.asarray(model.predict_proba(frame)), axis=1)
        self.continuous = [f.name for f in self.schema.features if f.kind == "numeric"]
        with _quiet():
            data = dice_ml.Data(dataframe=frame, continuous_features=self.continuous, outcome_name=_OUTCOME)
            self.dice = dice_ml.Dice(data, dice_ml.Model(model=model, backend="sklearn"), method=method)

    @property
    def stopping_threshold(self) -> float:
        """DiCE accepts a binary counterfactual when P(class 1) >= the threshold (target 1) or
        <= it (target 0); geco when P(desired) > ``threshold``. The nearest float on the right
        side makes the two agree."""
        if self.column == 1:
            return float(np.nextafter(self.threshold, 1.0))
        return float(np.nextafter(1.0 - self.threshold, 0.0))

    def translation(self, inst: Instance) -> tuple[list[str], dict[str, list]]:
        """``features_to_vary`` and ``permitted_range`` for one instance."""
        spaces = inst.spaces
        vary: list[str] = []
        permitted: dict[str, list] = {}
        for space in spaces:
            if len(space) == 0:
                continue
            for j, name in enumerate(space.names):
                col = space.features[j]
                values = np.append(space.values[:, j], inst.x[col])
                if self.schema.features[col].kind == "numeric":
                    lo, hi = float(values.min()), float(values.max())
                    if lo == hi:
                        continue
                    permitted[name] = [lo, hi]
                else:
                    codes = np.unique(values)
                    if len(codes) < 2:
                        continue
                    permitted[name] = [self.schema.decode_value(name, c) for c in codes]
                vary.append(name)
        return vary, permitted

    def _propose(self, inst: Instance) -> Proposal:
        vary, permitted = self.translation(inst)
        stats: dict[str, Any] = {"features_to_vary": len(vary), "method": self.method}
        empty = np.empty((0, len(inst.x)))
        if not vary:
            return Proposal(empty, np.zeros(0, dtype=bool), "no feature may vary for this instance", stats)
        seed = int(inst.rng.integers(2**31 - 1))
        options: dict[str, Any] = {"random_seed": seed} if self.method == "random" else {}
        if self.method != "random":
            np.random.seed(seed)  # DiCE's genetic and kdtree methods draw from numpy's global state
        try:
            with _quiet():
                out = self.dice.generate_counterfactuals(
                    inst.frame, total_CFs=inst.k, desired_class=self.column,
                    features_to_vary=vary, permitted_range=permitted,
                    stopping_threshold=self.stopping_threshold, verbose=False, **options,
                )  # fmt: skip
        except Exception as exc:  # DiCE reports "no counterfactual" and bad ranges as exceptions
            return Proposal(empty, np.zeros(0, dtype=bool), f"DiCE failed: {type(exc).__name__}: {exc}", stats)
        found = out.cf_examples_list[0].final_cfs_df
        if found is None or len(found) == 0:
            return Proposal(empty, np.zeros(0, dtype=bool), "DiCE found no counterfactual", stats)
        rows = self._encode(found.drop(columns=[_OUTCOME], errors="ignore"))
        order = np.argsort(inst.distances(rows), kind="stable")
        return Proposal(rows[order], np.ones(len(rows), dtype=bool), "", stats)

    def _encode(self, frame: pd.DataFrame) -> np.ndarray:
        """DiCE's rows (numbers may come back as floats or strings) in the schema's encoding."""
        frame = frame[list(self.schema.names)].copy()
        for f in self.schema.features:
            col = frame[f.name]
            if f.kind == "numeric":
                col = pd.to_numeric(col).astype(np.float64)
                if f.dtype.startswith(("int", "uint", "Int", "UInt")):
                    col = col.round()
                frame[f.name] = col
            else:
                frame[f.name] = col.astype(object)
        return self.schema.encode(frame.reset_index(drop=True), what="DiCE answer")
