"""TEMPORARY: the engine contract (codegen.registry.choose_engine) over today's engines, until
codegen's engines implement it themselves. Deleted when they do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen import UnsupportedModel
from codegen.registry import scorer_for
from geco.scoring import BlackBoxScorer


class _Wrapped:
    def __init__(self, inner, compiled):
        self._inner = inner
        self.compiled = compiled
        self.merge_below = 32 if compiled else 0
        self.merge_min_blocks = 128

    def __getattr__(self, attr):
        if attr == "_inner":
            raise AttributeError(attr)
        return getattr(self._inner, attr)

    @property
    def name(self):
        return self._inner.name

    @property
    def exact(self):
        return self._inner.exact

    def bind(self, x):
        return self._inner.bind(x)

    def ir(self, *a, **k):
        return self._inner.ir(*a, **k)

    def score_rows(self, rows):
        if not self.compiled:
            return self._inner.predict(rows)
        return np.asarray(self._inner.bind(rows[0]).score_block(tuple(range(rows.shape[1])), rows), dtype=np.float64)

    def error_bound(self, rows):
        if self.exact:
            return np.zeros(len(rows))
        eb = getattr(self._inner, "error_bound", None)
        return eb(rows) if eb is not None else np.full(len(rows), np.inf)

    def warm_up(self, rows):
        if not self.compiled:
            return
        head = rows[:256]
        bound = self.bind(head[0])
        cols = np.ascontiguousarray(head[:, :1])
        for _ in range(2):
            for delta, block in (((), np.empty((1, 0))), ((0,), cols)):
                bound.score_block(delta, block)


@dataclass(frozen=True)
class EngineChoice:
    scorer: Any
    reference: Any
    fallback_reason: str
    model: Any
    requested: str

    @property
    def description(self) -> str:
        model = type(self.model).__name__
        steps = getattr(self.model, "steps", None)
        if steps:
            model += f"({type(steps[-1][1]).__name__})"
        if self.scorer.compiled:
            return f"compiled engine {self.scorer.name!r}: the codegen layer compiles {model}"
        if self.requested == "blackbox":
            return "black box (predict_proba): engine='blackbox' was requested"
        return f"black box (predict_proba): no compiled engine for {model} ({self.fallback_reason})"


def choose_engine(model, schema, desired_class, engine="auto") -> EngineChoice:
    ref = BlackBoxScorer(model, schema, desired_class)
    box = _Wrapped(ref, False)
    if engine == "blackbox":
        return EngineChoice(box, ref, "", model, engine)
    try:
        return EngineChoice(_Wrapped(scorer_for(model, schema, desired_class, engine), True), ref, "", model, engine)
    except UnsupportedModel as exc:
        if engine != "auto":
            raise UnsupportedModel(
                f"engine={engine!r} cannot compile {type(model).__name__}: {exc.reason}"
            ) from None
        return EngineChoice(box, ref, exc.reason, model, engine)
