"""The public entry point: ``Explainer(model, X, constraints).explain(x)``.

An Explainer is built once per (model, data, constraints): it infers the schema, checks the
constraints against it, computes every group's domain and prepares the fastest scoring engine the
model allows. ``explain`` then grounds the constraints on one instance and runs the search. The
knobs carry the paper's names and defaults and can be overridden per call.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import plaf_grammar
from codegen import ModelScorer, UnsupportedModel
from codegen.registry import scorer_for
from geco.admissible import check_data, check_instance
from geco.distance import DistanceSpec, feature_ranges
from geco.feasible_space import feasible_space, group_domains
from geco.operators import Context, implication_spaces
from geco.result import Explanation
from geco.scoring import ENGINES, BlackBoxScorer
from geco.search import SearchConfig, SearchOutcome, run_search
from plaf_grammar import Schema, SchemaError

__all__ = ["ENGINES", "Explainer"]


def _prefer_new_changes(rows: np.ndarray, x: np.ndarray, cand: np.ndarray, k: int) -> np.ndarray:
    """Pick ``k`` of the candidates (given best first), skipping any that repeats all the changes
    of a better pick and adds more: "raise capital gain to 7,896" makes "raise capital gain to
    7,896 and work one more hour" redundant. Such candidates only fill up when fewer than ``k``
    others exist. Returned in the original (score) order."""
    changed = rows[cand] != x
    chosen: list[int] = []
    skipped: list[int] = []
    for i in range(len(cand)):
        if len(chosen) == k:
            break
        if chosen:
            prev = np.asarray(chosen)
            covers = np.all((rows[cand[prev]] == rows[cand[i]]) | ~changed[prev], axis=1)
            if covers.any():
                skipped.append(i)
                continue
        chosen.append(i)
    chosen += skipped[: k - len(chosen)]
    return cand[np.sort(np.asarray(chosen, dtype=np.intp))]


class Explainer:
    """Counterfactual explanations for a fitted classifier over a data set (GeCo).

    Parameters
    ----------
    model : fitted classifier with ``predict_proba`` (any sklearn classifier or Pipeline), or a
        callable mapping a DataFrame to probabilities.
    X : DataFrame the feasible values are drawn from (usually the training data); its dtypes
        define the schema (numbers numeric, category/object/bool categorical, ordered categorical
        ordinal). No NaN allowed.
    constraints : a ``.plaf`` path, PLAF text, a ``plaf_grammar.Program`` (parsed), a
        ``plaf_grammar.CheckedProgram`` (checked, e.g. by ``plaf_grammar.load``) or None.
    desired_class : the favourable class label.
    engine : "auto" (compiled when the model allows, else black box), "jit", "numpy" or "blackbox".
    Other knobs as in the paper: k, q, m_init, m_mut, min_generations, max_generations, threshold,
    norm_weights (l0, l1, l2, linf), representation ("delta" or "full"), mutate_top.
    """

    def __init__(
        self,
        model: Any,
        X: pd.DataFrame,
        constraints: str | Path | plaf_grammar.Program | plaf_grammar.CheckedProgram | None = None,
        desired_class: Any = 1,
        *,
        engine: str = "auto",
        schema: Schema | None = None,
        k: int = 5,
        q: int = 100,
        m_init: int = 20,
        m_mut: int = 5,
        min_generations: int = 3,
        max_generations: int = 100,
        threshold: float = 0.5,
        norm_weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
        representation: str = "delta",
        mutate_top: int | None = None,
    ):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        if len(X) == 0:
            raise ValueError("X is empty: geco draws feasible values from the data")
        self.model = model
        self.desired_class = desired_class
        self.schema = schema if schema is not None else Schema.from_dataframe(X)
        self.data = self.schema.encode(X, what="X")
        self.blackbox = BlackBoxScorer(model, self.schema, desired_class)
        #: what the search draws from X; every such value was asked of the model once
        self._data_values = check_data(self.blackbox.predict, self.schema, self.data, X.index)
        self.config = SearchConfig(
            k=k, q=q, m_init=m_init, m_mut=m_mut, min_generations=min_generations,
            max_generations=max_generations, threshold=threshold,
            norm_weights=tuple(float(w) for w in norm_weights),
            representation=representation, mutate_top=mutate_top,
        )  # fmt: skip
        self.config.validate()
        # fail now, not at the first explanation, on bad distance weights
        DistanceSpec(np.zeros(1), np.ones(1), np.zeros(1, bool), self.config.norm_weights)

        if isinstance(constraints, plaf_grammar.CheckedProgram):
            constraints = constraints if constraints.schema == self.schema else constraints.program
        if isinstance(constraints, plaf_grammar.Program):
            self.program = plaf_grammar.check(constraints, self.schema)
        elif isinstance(constraints, plaf_grammar.CheckedProgram):
            self.program = constraints
        else:
            self.program = plaf_grammar.load("" if constraints is None else constraints, self.schema)
        self.groups: list[tuple[str, ...]] = list(self.program.groups)
        self.domains = group_domains(self.groups, self.schema.names, self.data)
        self.group_of_feature = np.empty(len(self.schema), dtype=np.intp)
        for gi, group in enumerate(self.groups):
            for name in group:
                self.group_of_feature[self.schema.index(name)] = gi
        self.ranges = feature_ranges(self.schema, self.data)
        self.categorical = np.array([f.kind == "categorical" for f in self.schema.features])

        self._check_model(X)
        #: why the model is scored by the black box under engine="auto" ("" when compiled)
        self.engine_reason = ""
        self.scorer: ModelScorer = self._choose_scorer(engine)
        if self.scorer is not self.blackbox:
            self._warm_up()

    def _choose_scorer(self, engine: str) -> ModelScorer:
        """One registry call; under "auto" an unsupported model falls back to the black box."""
        if engine == self.blackbox.name:
            return self.blackbox
        try:
            return scorer_for(self.model, self.schema, self.desired_class, engine)
        except UnsupportedModel as exc:
            if engine != "auto":
                raise UnsupportedModel(
                    f"engine={engine!r} cannot compile {type(self.model).__name__}: {exc.reason}"
                ) from None
            self.engine_reason = exc.reason
            return self.blackbox

    def _warm_up(self) -> None:
        """Compile a compiled engine's once-per-process kernels now (fit-once object), so the
        first explanation is as fast as the others."""
        bound = self.scorer.bind(self.data[0])
        cols = np.ascontiguousarray(self.data[:256, :1])
        for _ in range(2):  # the second round finds the Δ warm: the partial evaluator runs too
            for delta, block in (((), np.empty((1, 0))), ((0,), cols)):
                bound.score_block(delta, block)

    @property
    def engine(self) -> str:
        """The engine scoring now (a compiled engine may switch tier once it is measured)."""
        return self.scorer.name

    def _check_model(self, X: pd.DataFrame) -> None:
        try:
            p = self.blackbox.predict(self.data[:2])
        except Exception as exc:
            raise UnsupportedModel(
                f"the model failed to score rows of X ({type(exc).__name__}: {exc}); was it fitted "
                "on a DataFrame with these columns?"
            ) from exc
        if p.shape != (min(2, len(X)),) or not np.all(np.isfinite(p)):
            raise UnsupportedModel(
                f"the model's probabilities have shape {p.shape} or are not finite; expected one "
                "probability per row"
            )

    def __repr__(self) -> str:
        return (
            f"Explainer({type(self.model).__name__}, {len(self.data)} rows x {len(self.schema)} "
            f"features, {len(self.groups)} groups, engine={self.engine!r})"
        )

    # ------------------------------------------------------------------ helpers
    def _encode_instance(self, x: Any) -> tuple[np.ndarray, pd.DataFrame]:
        if isinstance(x, pd.Series):
            x = x.to_frame().T
        elif isinstance(x, dict):
            x = pd.DataFrame([x])
        if not isinstance(x, pd.DataFrame):
            raise TypeError(
                f"x must be a one-row DataFrame, a Series or a dict, got {type(x).__name__}"
            )
        if len(x) != 1:
            raise ValueError(f"explain() takes exactly one row, got {len(x)}; use explain_many()")
        x = x.infer_objects()
        enc = self.schema.encode(x, what="instance")[0]
        check_instance(self.blackbox.predict, self.schema, self._data_values, self.ranges, enc)
        return enc, self.schema.decode(enc[None], index=x.index)

    def _config(self, overrides: dict[str, Any]) -> SearchConfig:
        fields = set(SearchConfig.__dataclass_fields__)
        bad = set(overrides) - fields
        if bad:
            raise TypeError(f"unknown option(s) {sorted(bad)}; valid: {sorted(fields)}")
        if "norm_weights" in overrides:
            overrides["norm_weights"] = tuple(float(w) for w in overrides["norm_weights"])
        cfg = replace(self.config, **overrides)
        cfg.validate()
        return cfg

    # ------------------------------------------------------------------ explain
    def explain(self, x: Any, *, random_state: Any = None, **overrides: Any) -> Explanation:
        """Counterfactual explanations for one instance (a one-row DataFrame or Series).

        Options override the Explainer's knobs for this call. ``random_state`` (int or
        ``numpy.random.Generator``) makes the result reproducible."""
        t_start = time.perf_counter()
        cfg = self._config(dict(overrides))
        x_enc, x_frame = self._encode_instance(x)
        rng = np.random.default_rng(random_state)
        bound = self.scorer.bind(x_enc)
        p_x = float(self._model_proba(bound, x_enc[None])[0])
        stats: dict[str, Any] = {}
        if p_x > cfg.threshold:
            return self._empty(
                x_frame, p_x, stats, t_start,
                f"the instance is already classified as the desired class {self.desired_class!r} "
                f"(p = {p_x:.3f} > threshold {cfg.threshold}); there is nothing to explain",
            )  # fmt: skip

        t0 = time.perf_counter()
        ground = self.program.ground(x_enc)
        dist_spec = DistanceSpec(x_enc, self.ranges, self.categorical, cfg.norm_weights)
        spaces = feasible_space(self.domains, x_enc, ground.group_filters, dist_spec)
        imp_spaces = implication_spaces(spaces, ground.implications)
        required = self._required_groups(x_enc, ground)
        stats["seconds_feasible_space"] = time.perf_counter() - t0
        empty_required = [g for g in np.flatnonzero(required) if len(spaces[g]) == 0]
        if all(len(s) == 0 for s in spaces) or empty_required:
            broken = [str(r) for g in empty_required for r in ground.violated_rules(g)]
            why = (
                "the constraints leave no feature group any feasible value"
                if not empty_required
                else f"x breaks rule {', '.join(broken)} and no value in the data satisfies it"
            )
            return self._empty(x_frame, p_x, stats, t_start, why)

        ctx = Context(
            x=x_enc, names=self.schema.names, spaces=spaces,
            group_of_feature=self.group_of_feature, implications=list(ground.implications),
            implication_spaces=imp_spaces, cross_rules=list(ground.cross_rules), rng=rng,
        )  # fmt: skip
        outcome = run_search(ctx, bound, dist_spec, cfg, required)
        return self._result(
            x_frame, x_enc, p_x, outcome, ground, dist_spec, cfg, stats, t_start, bound
        )

    def explain_many(
        self, X: pd.DataFrame, *, random_state: Any = None, **overrides: Any
    ) -> list[Explanation]:
        """One explanation per row of ``X`` (sequential). Seeds derive from ``random_state``."""
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        seeds = np.random.SeedSequence(random_state).spawn(len(X))
        return [
            self.explain(X.iloc[[i]], random_state=np.random.default_rng(seeds[i]), **overrides)
            for i in range(len(X))
        ]

    # ------------------------------------------------------------------ internals
    def _required_groups(self, x_enc: np.ndarray, ground: Any) -> np.ndarray:
        """Groups whose value in x breaks one of the group's own rules."""
        req = np.zeros(len(self.groups), dtype=bool)
        for gi, flt in enumerate(ground.group_filters):
            if flt is None:
                continue
            cols = {n: x_enc[self.schema.index(n)][None] for n in self.groups[gi]}
            req[gi] = not bool(np.asarray(flt(cols), dtype=bool)[0])
        return req

    def _empty(self, x_frame, p_x, stats, t_start, reason) -> Explanation:
        stats["engine"] = self.engine
        stats["seconds_total"] = time.perf_counter() - t_start
        cols = [*self.schema.names, "probability", "distance", "n_changed", "counterfactual"]
        empty = self.schema.decode(np.empty((0, len(self.schema))))
        for c in cols[len(self.schema.names) :]:
            empty[c] = pd.Series(dtype=float if c in ("probability", "distance") else int)
        return Explanation(x_frame, empty, False, reason, self.desired_class, p_x, stats)

    def _model_proba(self, bound: Any, rows: np.ndarray) -> np.ndarray:
        """The model's own P(desired) for full rows: from an engine that is bit-identical to
        ``predict_proba`` (trees, the black box), else from ``predict_proba`` itself - a model
        call costs tens of milliseconds on a large forest, so this saves two per explanation."""
        if self.scorer.exact:
            return np.asarray(bound.score_block(tuple(range(rows.shape[1])), rows), dtype=np.float64)
        return self.blackbox.predict(rows)

    def _model_decisions(self, outcome: SearchOutcome, threshold: float) -> tuple[SearchOutcome, np.ndarray]:
        """The final candidates with the model's own probabilities, and which of them are
        counterfactuals. An engine that is not bit-exact (MLP) rounds differently from
        ``predict_proba`` and may put a row on the other side of the threshold, so its scores
        are replaced by ``predict_proba``'s (one model call on the final population)."""
        if self.scorer.exact or len(outcome.rows) == 0:
            return outcome, outcome.score == outcome.dist
        prob = self.blackbox.predict(outcome.rows)
        return replace(outcome, prob=prob), prob > threshold

    def _result(self, x_frame, x_enc, p_x, outcome, ground, dist_spec, cfg, stats, t_start, bound):
        outcome, is_cf = self._model_decisions(outcome, cfg.threshold)
        rows = outcome.rows
        if len(rows):
            ok = np.asarray(ground.check(dict(zip(self.schema.names, rows.T))), dtype=bool)
        else:
            ok = np.zeros(0, dtype=bool)
        cand = np.flatnonzero(is_cf & ok)
        reason = ""
        if len(cand):
            picked = _prefer_new_changes(rows, x_enc, cand, cfg.k)
            prob = self._model_proba(bound, rows[picked])  # the model's own probabilities
            good = prob > cfg.threshold
            if not good.all():  # a compiled engine disagreed with the model: never report it
                picked, prob = picked[good], prob[good]
            flags = np.ones(len(picked), dtype=bool)
            if len(picked) < cfg.k:
                reason = f"only {len(picked)} distinct counterfactual(s) found (k = {cfg.k})"
        else:
            picked = np.flatnonzero(ok)[: cfg.k] if ok.any() else np.arange(min(cfg.k, len(rows)))
            prob = self._model_proba(bound, rows[picked]) if len(picked) else np.empty(0)
            flags = np.zeros(len(picked), dtype=bool)
            reason = (
                f"no counterfactual found in {outcome.generations} generations "
                f"({outcome.candidates_scored} candidates scored); best probability reached "
                f"{float(outcome.prob.max()) if len(outcome.prob) else 0.0:.3f}; showing the best "
                "candidates instead (the constraints may be too tight, or try more generations)"
            )
        frame = self.schema.decode(rows[picked])
        frame["probability"] = prob
        frame["distance"] = dist_spec(np.arange(len(x_enc)), rows[picked]) if len(picked) else []
        frame["n_changed"] = np.count_nonzero(rows[picked] != x_enc, axis=1)
        frame["counterfactual"] = flags
        frame.index = pd.RangeIndex(len(frame))
        stats.update(
            engine=self.engine,
            generations=outcome.generations,
            converged=outcome.converged,
            candidates_scored=outcome.candidates_scored,
            blocks_scored=outcome.blocks_scored,
            peak_population_bytes=outcome.peak_population_bytes,
            seconds=dict(outcome.seconds),
            seconds_total=time.perf_counter() - t_start,
        )
        return Explanation(x_frame, frame, bool(flags.any()), reason, self.desired_class, p_x, stats)

    # ------------------------------------------------------------------ IR inspection
    def ir(self, x: Any, delta: Sequence[str], optimized: bool = False) -> str:
        """LLVM IR of the model specialised to ``x`` and the features ``delta`` (the only ones
        left free); every other feature is folded in as a constant."""
        x_enc, _ = self._encode_instance(x)
        unknown = [f for f in delta if f not in self.schema]
        if unknown:
            raise SchemaError(f"unknown feature(s) in delta: {unknown}; features: {list(self.schema.names)}")
        idx = tuple(sorted(self.schema.index(f) for f in delta))
        if self.scorer is self.blackbox:
            why = self.engine_reason or "engine='blackbox' was requested"
            raise UnsupportedModel(
                f"no LLVM IR: this Explainer scores {type(self.model).__name__} with the black box "
                f"({why})"
            )
        return self.scorer.ir(x_enc, idx, optimized)
