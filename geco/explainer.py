"""The public entry point: ``Explainer(model, X, constraints).explain(x)``.

An Explainer is built once per (model, data, constraints): it keeps the columns the model was
fitted on, infers the schema, checks the constraints against it, computes every group's domain,
prepares the fastest scoring engine the model allows and scores the data once, so that every
explanation can seed its search with the rows of the desired class. ``explain`` then grounds the
constraints on one instance, runs the search and returns up to k distinct counterfactuals - or,
when there is none, the reason in terms of the rules as written (:mod:`geco.problem.diagnosis`). The knobs
carry the paper's names and defaults and can be overridden per call.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import plaf_grammar
from codegen import ENGINES, BlackBoxScorer, ModelScorer, UnsupportedModel
from codegen.registry import scorer_for
from geco.problem.admissible import check_data, check_instance
from geco.problem.diagnosis import blocking_rules, cite, emptying_rules, rules_x_breaks
from geco.problem.distance import DistanceSpec, feature_ranges
from geco.problem.feasible_space import feasible_space, group_domains, project
from geco.result import Explanation
from geco.search import MAX_RESTARTS, MERGE_BELOW, SearchConfig, SearchOutcome, run_search
from geco.search.diversity import pick_distinct
from geco.search.operators import Context, action_cascade, implication_spaces
from geco.search.population import Candidates
from plaf_grammar import Schema, SchemaError

__all__ = ["ENGINES", "Explainer", "load"]

#: at most this many data rows (a fixed random subset beyond) are scored once per Explainer to
#: find the rows of the desired class that seed the search
SEED_POOL_ROWS = 50_000



def model_columns(model: Any, X: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The columns of ``X`` the model was fitted on (``feature_names_in_`` of the estimator or
    Pipeline), in the model's order, and the names of the columns left out. A model without
    feature names (a callable, or fitted on an array) takes all of ``X``."""
    try:
        names = model.feature_names_in_
    except AttributeError:
        return X, []
    names = [str(n) for n in names]
    have = {str(c): c for c in X.columns}
    missing = [n for n in names if n not in have]
    if missing:
        raise SchemaError(
            f"X lacks column(s) {missing} that the model was fitted on (feature_names_in_)"
        )
    extra = [str(c) for c in X.columns if str(c) not in set(names)]
    return X[[have[n] for n in names]], extra


def _nearest(dist: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` smallest of ``dist`` in stable sorted order: what
    ``np.argsort(dist, kind="stable")[:count]`` gives, without sorting everything."""
    if len(dist) <= count:
        return np.argsort(dist, kind="stable")
    bound = np.partition(dist, count - 1)[count - 1]
    within = np.flatnonzero(dist <= bound)  # ties at the bound included, in index order
    return within[np.argsort(dist[within], kind="stable")][:count]


class Explainer:
    """Counterfactual explanations for a fitted classifier over a data set (GeCo).

    Parameters
    ----------
    model : fitted classifier with ``predict_proba`` (any sklearn classifier or Pipeline), or a
        callable mapping a DataFrame to probabilities.
    X : DataFrame the feasible values are drawn from (usually the training data); its dtypes
        define the schema (numbers numeric, category/object/bool categorical, ordered categorical
        ordinal). No NaN allowed. When the model knows its input columns
        (``feature_names_in_``), those are the features: other columns of ``X`` (an id, the
        label) are ignored with a warning naming them, and a missing one is an error.
    constraints : a ``.plaf`` path, PLAF text, a ``plaf_grammar.Program`` (parsed), a
        ``plaf_grammar.CheckedProgram`` (checked, e.g. by ``plaf_grammar.load``) or None.
    desired_class : the favourable class label.
    engine : "auto" (compiled when the model allows, else black box), "jit", "numpy" or
        "blackbox". ``engine_reason`` says which engine scores and why.
    schema : a ``plaf_grammar.Schema`` to use instead of inferring one from ``X``.

    Search knobs (the paper's names and defaults; each may be overridden per ``explain`` call):

    k : number of counterfactuals returned (5).
    q : population size kept after each selection (100).
    m_init : samples per feature group in the initial population (20).
    m_mut : samples per group and parent in mutation and selective mutation (5).
    min_generations, max_generations : bounds on the number of generations (3, 100).
    threshold : a candidate is a counterfactual when P(desired) > threshold (0.5).
    norm_weights : weights of the l0, l1, l2 and linf norms in the distance
        (0.25, 0.25, 0.25, 0.25).
    representation : "delta" (population stored per changed-group set, the paper's Δ) or
        "full" (whole rows; same search, for comparison).
    mutate_top : mutate only the best this many rows of each Δ (None: every population row).

    Knobs added to the paper's:

    seeds : how many of the data's rows the model scores as desired, nearest to ``x`` once
        moved onto what the rules allow, join the initial population (10; 0 = the paper's
        initial population only). Later ones restart a search that stagnates without any
        counterfactual.
    patience : generations without improvement (of the best score while no counterfactual is
        found, else of the top k) after which the search stops or, without a counterfactual,
        restarts at most twice (5).
    diversity : the k counterfactuals returned differ in what they change: a candidate that
        changes the same features as a better one (or those and more) is skipped unless one of
        those features differs from it by at least this fraction of the feature's range (a
        category counts as 1). 0 returns the paper's plain top k; the first counterfactual is the
        same either way (0.1).
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
        seeds: int = 10,
        patience: int = 5,
        diversity: float = 0.1,
    ):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        if len(X) == 0:
            raise ValueError("X is empty: geco draws feasible values from the data")
        self.model = model
        self.desired_class = desired_class
        X, self.ignored_columns = model_columns(model, X)
        if self.ignored_columns:
            warnings.warn(
                f"ignoring column(s) {self.ignored_columns} of X: the model was not fitted on them",
                UserWarning, stacklevel=2,
            )  # fmt: skip
        self.schema = schema if schema is not None else Schema.from_dataframe(X)
        #: X encoded, column by column in the smallest exact dtypes (about X's own memory)
        self.table = self.schema.encode_table(X, what="X")
        self.blackbox = BlackBoxScorer(model, self.schema, desired_class)
        #: what the search draws from X; every such value was asked of the model once
        self._data_values = check_data(self.blackbox.predict, self.schema, self.table, X.index)
        self.config = SearchConfig(
            k=k, q=q, m_init=m_init, m_mut=m_mut, min_generations=min_generations,
            max_generations=max_generations, threshold=threshold,
            norm_weights=tuple(float(w) for w in norm_weights),
            representation=representation, mutate_top=mutate_top, seeds=seeds,
            patience=patience, diversity=diversity,
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
        self.domains = group_domains(self.groups, self.schema.names, self.table)
        self.group_of_feature = np.empty(len(self.schema), dtype=np.intp)
        for gi, group in enumerate(self.groups):
            for name in group:
                self.group_of_feature[self.schema.index(name)] = gi
        self.ranges = feature_ranges(self.schema, self.table)
        self.categorical = np.array([f.kind == "categorical" for f in self.schema.features])

        self._check_model(X)
        #: why the model is scored by the black box under engine="auto" ("" when compiled)
        self.engine_reason = ""
        self.scorer: ModelScorer = self._choose_scorer(engine)
        if self.scorer is not self.blackbox:
            self._warm_up()
        self.engine_reason = self._describe_engine(engine, self.engine_reason)
        self._pool, self._pool_proba = self._seed_pool()


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

    def _describe_engine(self, requested: str, fallback_reason: str) -> str:
        """Which engine scores and why, in one line."""
        model = type(self.model).__name__
        steps = getattr(self.model, "steps", None)  # a Pipeline: name its estimator too
        if steps:
            model += f"({type(steps[-1][1]).__name__})"
        if self.scorer is not self.blackbox:
            return f"compiled engine {self.engine!r}: the codegen layer compiles {model}"
        if requested == "blackbox":
            return "black box (predict_proba): engine='blackbox' was requested"
        return f"black box (predict_proba): no compiled engine for {model} ({fallback_reason})"

    def _seed_pool(self) -> tuple[np.ndarray, np.ndarray]:
        """Distinct data rows (a fixed random subset of at most ``SEED_POOL_ROWS``) and the
        model's P(desired) for each: where the search looks for seeds."""
        n = len(self.table)
        if n > SEED_POOL_ROWS:
            pick = np.random.default_rng(0).choice(n, SEED_POOL_ROWS, replace=False)
            rows = self.table.take(np.sort(pick))
        else:
            rows = self.table.take(slice(None))
        rows = np.unique(rows, axis=0)
        predict = self.blackbox.predict
        if self.scorer is not self.blackbox and self.scorer.exact:
            # the compiled full-forest kernel gives predict_proba's numbers at a fraction of its cost
            bound, every = self.scorer.bind(rows[0]), tuple(range(rows.shape[1]))
            predict = lambda part: bound.score_block(every, part)  # noqa: E731
        proba = np.concatenate([predict(rows[i : i + 8192]) for i in range(0, len(rows), 8192)])
        return rows, np.asarray(proba, dtype=np.float64)

    def _warm_up(self) -> None:
        """Compile a compiled engine's once-per-process kernels now (fit-once object), so the
        first explanation is as fast as the others."""
        head = self.table.take(slice(0, 256))
        bound = self.scorer.bind(head[0])
        cols = np.ascontiguousarray(head[:, :1])
        for _ in range(2):  # the second round finds the Δ warm: the partial evaluator runs too
            for delta, block in (((), np.empty((1, 0))), ((0,), cols)):
                bound.score_block(delta, block)

    @property
    def data(self) -> np.ndarray:
        """X encoded as one ``(n, d)`` float64 array (built on first use and kept; the search
        itself reads :attr:`table`, which holds the same values at about X's own size)."""
        return self.table.to_array()

    @property
    def engine(self) -> str:
        """The engine scoring now (a compiled engine may switch tier once it is measured)."""
        return self.scorer.name

    def _check_model(self, X: pd.DataFrame) -> None:
        try:
            p = self.blackbox.predict(self.table.take(slice(0, 2)))
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
            f"Explainer({type(self.model).__name__}, {len(self.table)} rows x {len(self.schema)} "
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
        x = x.drop(columns=[c for c in x.columns if str(c) in self.ignored_columns]).infer_objects()
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
        ``numpy.random.Generator``) makes the result reproducible. When no counterfactual is
        found, ``success`` is False and ``reason`` says why: the rule that removes every value
        of a group ``x`` must change, or that the model never reaches the desired class within
        what the rules allow (with the best candidates, whose probabilities the reason quotes)."""
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
        why = self._empty_space_reason(x_enc, ground, spaces, required)
        if why:
            return self._empty(x_frame, p_x, stats, t_start, why)

        ctx = Context(
            x=x_enc, names=self.schema.names, spaces=spaces,
            group_of_feature=self.group_of_feature, implications=list(ground.implications),
            implication_spaces=imp_spaces, cross_rules=list(ground.cross_rules), rng=rng,
        )  # fmt: skip
        t0 = time.perf_counter()
        seeds = self._seeds(ctx, ground, dist_spec, cfg, required)
        stats["seconds_seeds"] = time.perf_counter() - t0
        # a compiled engine scores tiny Δ blocks together as full rows when a generation has
        # hundreds (wide data): per-Δ calls would cost more than the rows. An inexact engine
        # (MLP) may then differ by rounding from scoring the Δ alone, within its error bound,
        # and the same seed still gives the same blocks, so the same explanation.
        merge = MERGE_BELOW if self.scorer is not self.blackbox else 0
        outcome = run_search(ctx, bound, dist_spec, cfg, required, seeds, merge_below=merge)
        return self._result(
            x_frame, x_enc, p_x, outcome, ground, ctx, dist_spec, cfg, stats, t_start, bound
        )

    def explain_many(
        self,
        X: pd.DataFrame,
        *,
        n_jobs: int | None = 1,
        backend: str = "loky",
        progress: bool = True,
        random_state: Any = None,
        client: Any = None,
        as_frame: bool = False,
        chunk_size: int | None = None,
        **overrides: Any,
    ) -> list[Explanation] | pd.DataFrame:
        """One explanation per row of ``X``, in ``X``'s order (see :mod:`geco.batch`).

        Row ``i`` is explained with the seed ``geco.batch.row_seeds(random_state, len(X))[i]``
        (``numpy.random.SeedSequence(random_state).spawn(len(X))[i]``) whatever ``n_jobs`` or
        ``backend``, so ``explain(X.iloc[[i]], random_state=<that seed>)`` gives the same
        explanation. A row that fails gives a failed Explanation (``success`` False, ``reason``
        and ``stats["error"]`` say why); the batch goes on.

        ``n_jobs``: worker processes (``backend="loky"``; 1 runs here, -1 every core).
        ``backend="dask"``: run on ``client`` (a ``dask.distributed.Client``), or on a LocalCluster
        of ``n_jobs`` workers made for this call (needs ``geco[dask]``). ``progress``: a tqdm bar
        on stderr for batches longer than a second in a terminal. ``as_frame``: return one tidy
        DataFrame (:func:`geco.batch.explanations_frame`) instead of the list. ``chunk_size``:
        rows per task (default: up to 16). Other options override the knobs as in ``explain``."""
        from geco.batch import explanations_frame, iter_explain

        self._config(dict(overrides))  # a bad option: one error now, not a failed row per row
        results = list(
            iter_explain(
                self, X, n_jobs=n_jobs, backend=backend, progress=progress, random_state=random_state,
                client=client, chunk_size=chunk_size, overrides=overrides,
            )
        )  # fmt: skip
        return explanations_frame(results) if as_frame else results

    # ------------------------------------------------------------------ saving
    def __setstate__(self, state: dict[str, Any]) -> None:
        # an Explainer saved before the column store kept X as one float64 array
        if "table" not in state and "data" in state:
            state["table"] = plaf_grammar.EncodedTable.from_array(state.pop("data"))
        self.__dict__.update(state)

    def save(self, path: str | Path) -> Path:
        """Write this Explainer to ``path`` (a pickle, through joblib); ``geco.load(path)`` reads
        it back in any process. Compiled code is not written: the loaded Explainer rebuilds it
        on first use (from the disk cache when it can), and explains exactly as this one."""
        import pickle

        import joblib  # ships with scikit-learn

        path = Path(path)
        try:
            joblib.dump(self, path)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            raise TypeError(
                f"cannot save this Explainer: {exc} (a model given as a local function or lambda "
                "does not pickle; pass a fitted estimator or a module-level function)"
            ) from exc
        return path

    # ------------------------------------------------------------------ internals
    def _required_groups(self, x_enc: np.ndarray, ground: Any) -> np.ndarray:
        """Groups whose value in x breaks one of the group's own rules (every counterfactual
        must change them)."""
        return np.array([bool(rules_x_breaks(ground, dom, x_enc)) for dom in self.domains], dtype=bool)

    def _names(self, g: int) -> str:
        return ", ".join(self.groups[g])

    def _empty_space_reason(self, x_enc, ground, spaces, required) -> str:
        """Why no candidate can exist at all ("" when some can): a group ``x`` must change
        has no allowed value, or no group has any."""
        for g in np.flatnonzero(required):
            if len(spaces[g]) == 0:
                broken = cite(rules_x_breaks(ground, self.domains[g], x_enc))
                emptying = emptying_rules(ground, self.domains[g], x_enc)
                why = (
                    f"{cite(emptying)} removes every other value of it"
                    if emptying else "the data holds no other value of it"
                )  # fmt: skip
                return (
                    f"x breaks {broken} on {self._names(g)}, so every counterfactual must change "
                    f"{self._names(g)}; but {why}"
                )
        if any(len(sp) for sp in spaces):
            return ""
        blamed = [(g, emptying_rules(ground, self.domains[g], x_enc)) for g in range(len(spaces))]
        by_rule: dict[str, list[str]] = {}
        for g, rules in blamed:
            if rules:
                by_rule.setdefault(cite(rules), []).append(self._names(g))
        parts = [f"{rule} removes every other value of {', '.join(names)}" for rule, names in by_rule.items()]
        free = [self._names(g) for g, rules in blamed if not rules]
        if free:
            parts.append(f"the data holds no other value of {', '.join(free)}")
        return "no feature may change: " + "; ".join(parts)

    def _seeds(self, ctx: Context, ground: Any, dist_spec, cfg: SearchConfig, required) -> Candidates:
        """The data's rows of the desired class as starting points, nearest first: rows that
        satisfy every rule for ``x`` as they are (proven counterfactuals), and rows moved onto
        the feasible space group by group, then repaired by the action cascade. The first batch
        holds half of each kind (the nearest of each); the search takes a batch per restart, so
        only the nearest ``seeds * (1 + MAX_RESTARTS)`` of each kind are kept."""
        d, G = len(ctx.x), ctx.n_groups
        desired = self._pool[self._pool_proba > cfg.threshold]
        if cfg.seeds == 0 or len(desired) == 0:
            return Candidates.empty(d, G)
        rows, changed = project(ctx.spaces, ctx.x, desired, required)
        intact = np.all(rows == desired, axis=1) & np.asarray(
            ground.check(dict(zip(self.schema.names, desired.T))), dtype=bool
        )
        moved = Candidates(rows[~intact], changed[~intact])
        moved = action_cascade(ctx, moved.take(np.flatnonzero(moved.changed.any(axis=1))))
        proven = Candidates(rows[intact], changed[intact])
        usable = cfg.seeds * (1 + MAX_RESTARTS)
        parts, dists = [], []
        for c in (proven, moved):
            dist = dist_spec(np.arange(d), c.rows)  # projected data rows change most groups
            order = _nearest(dist, usable)
            parts.append(c.take(order))
            dists.append(dist[order])
        half = max(1, cfg.seeds // 2)
        n_head = [min(half, len(parts[0]))]
        n_head.append(min(cfg.seeds - n_head[0], len(parts[1])))
        head = [part.take(np.arange(n)) for part, n in zip(parts, n_head)]
        rest = Candidates.concat([part.take(np.arange(n, len(part))) for part, n in zip(parts, n_head)], d, G)
        rest_dist = np.concatenate([dist[n:] for dist, n in zip(dists, n_head)])
        rest = rest.take(np.argsort(rest_dist, kind="stable"))
        return Candidates.concat([*head, rest], d, G)

    def _empty(self, x_frame, p_x, stats, t_start, reason) -> Explanation:
        stats.update(
            engine=self.engine, engine_reason=self.engine_reason, generations=0, candidates_scored=0,
            stop="nothing to search",
        )  # fmt: skip
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
        if len(rows) == 0:
            return np.empty(0)
        if self.scorer.exact:
            return np.asarray(bound.score_block(tuple(range(rows.shape[1])), rows), dtype=np.float64)
        return self.blackbox.predict(rows)

    def _model_decisions(self, outcome: SearchOutcome, threshold: float) -> tuple[SearchOutcome, np.ndarray]:
        """The final candidates, and which of them are counterfactuals by the model's own
        ``predict_proba``. An engine that is not bit-exact (MLP) rounds differently and may put
        a row on the other side of the threshold: the rows its error bound cannot place (score
        within the bound of the threshold, or NaN; every row of an engine without a bound) get
        ``predict_proba``'s probability, in one model call; the others keep the engine's, on the
        same side as the model's. (The counterfactuals reported are confirmed by
        ``predict_proba`` again when picked.)"""
        if self.scorer.exact or len(outcome.rows) == 0:
            return outcome, (outcome.score == outcome.dist) & (outcome.score < 1.0)
        prob = np.array(outcome.prob, dtype=np.float64)
        error_bound = getattr(self.scorer, "error_bound", None)  # none given: every row is unsure
        margin = error_bound(outcome.rows) if error_bound is not None else np.inf
        unsure = ~(np.abs(prob - threshold) > margin)
        if unsure.any():
            prob[unsure] = self.blackbox.predict(outcome.rows[unsure])
        return replace(outcome, prob=prob), prob > threshold

    def _pick_counterfactuals(self, rows, cand, x_enc, cfg, bound) -> tuple[np.ndarray, np.ndarray, int]:
        """Up to k distinct counterfactuals among ``cand`` (indices into ``rows``, best first),
        each confirmed by the model's own probabilities; a candidate a compiled engine scored
        above the threshold but the model does not is dropped and the next one taken. Returns
        the picks, their probabilities and how many were dropped."""
        dropped = 0
        cand = np.asarray(cand, dtype=np.intp)
        while len(cand):
            sel = pick_distinct(rows[cand], x_enc, cfg.k, cfg.diversity, self.ranges, self.categorical)
            prob = self._model_proba(bound, rows[cand[sel]])
            good = prob > cfg.threshold
            if good.all():
                return cand[sel], prob, dropped
            dropped += int((~good).sum())
            cand = np.delete(cand, sel[~good])
        return np.empty(0, dtype=np.intp), np.empty(0), dropped

    def _result(self, x_frame, x_enc, p_x, outcome: SearchOutcome, ground, ctx, dist_spec, cfg,
                stats, t_start, bound) -> Explanation:  # fmt: skip
        outcome, is_cf = self._model_decisions(outcome, cfg.threshold)
        rows = outcome.rows
        ok = np.asarray(ground.check(dict(zip(self.schema.names, rows.T))), dtype=bool) if len(rows) else np.zeros(0, bool)
        cand = np.flatnonzero(is_cf & ok)
        picked, prob, dropped = self._pick_counterfactuals(rows, cand, x_enc, cfg, bound)
        flags = np.ones(len(picked), dtype=bool)
        reason = ""
        if len(picked):
            if len(picked) < cfg.k:
                reason = (
                    f"only {len(picked)} distinct counterfactual(s) found (k = {cfg.k}"
                    + (f", diversity = {cfg.diversity}; diversity=0 lists the plain top k)" if cfg.diversity else ")")
                )
        else:
            # the best feasible candidates, and the most probable one among them
            pool = np.flatnonzero(ok)
            if len(pool):
                pool_prob = self._model_proba(bound, rows[pool])
                shown = list(pool[: cfg.k])
                top = int(pool[np.argmax(pool_prob)])
                if top not in shown:
                    shown[-1] = top
                picked = np.asarray(shown, dtype=np.intp)
                prob = pool_prob[np.searchsorted(pool, picked)]
                order = np.argsort(-prob, kind="stable")
                picked, prob = picked[order], prob[order]
            flags = np.zeros(len(picked), dtype=bool)
            reason = self._failure_reason(outcome, ground, ctx, cfg, len(cand), dropped, prob)
        frame = self.schema.decode(rows[picked])
        frame["probability"] = prob
        frame["distance"] = dist_spec(np.arange(len(x_enc)), rows[picked]) if len(picked) else []
        frame["n_changed"] = np.count_nonzero(rows[picked] != x_enc, axis=1)
        frame["counterfactual"] = flags
        frame.index = pd.RangeIndex(len(frame))
        stats.update(
            engine=self.engine,
            engine_reason=self.engine_reason,
            generations=outcome.generations,
            polish_rounds=outcome.polish_rounds,
            converged=outcome.converged,
            stop=outcome.stop,
            restarts=outcome.restarts,
            seeds_used=outcome.seeds_used,
            candidates_scored=outcome.candidates_scored,
            blocks_scored=outcome.blocks_scored,
            peak_population_bytes=outcome.peak_population_bytes,
            seconds=dict(outcome.seconds),
            seconds_total=time.perf_counter() - t_start,
        )
        return Explanation(x_frame, frame, bool(flags.any()), reason, self.desired_class, p_x, stats)

    def _failure_reason(self, outcome, ground, ctx, cfg, n_cand, dropped, shown_prob) -> str:
        """Why the search returns no counterfactual, naming only rules that are there."""
        desired = repr(self.desired_class)
        if n_cand and dropped:
            return (
                f"the compiled engine scored {n_cand} candidate(s) above the threshold, but the "
                f"model's own predict_proba puts all {dropped} checked at or below {cfg.threshold}; "
                "engine='blackbox' searches with the model's own numbers"
            )
        if outcome.stop == "no_candidates":
            killers = sorted(ctx.rejected.items(), key=lambda kv: -kv[1])
            rules = [
                (ground.cross_rules if kind == "cross" else ground.implications)[i]
                for (kind, i), n in killers if n
            ]
            tried = sum(ctx.rejected.values())
            if not rules:
                return "no candidate survived the rules"
            return (
                f"no candidate satisfies {cite(rules[:3])}: "
                f"{'it rejects' if len(rules) == 1 else 'together they reject'} all {tried} "
                "candidates tried (each group changed alone, and the data's rows of the desired class)"
            )
        why_stop = (
            f"no improvement for {cfg.patience} generations" if outcome.stop == "stagnated"
            else "the generation limit"
        )  # fmt: skip
        if outcome.restarts:
            why_stop += f", {outcome.restarts} restart(s)"
        run = f"after {outcome.generations} generations and {outcome.candidates_scored} candidates ({why_stop})"
        best = (
            f"the best candidates shown reach p = {float(np.max(shown_prob)):.3f}"
            if len(shown_prob) else "no candidate satisfies every rule"
        )
        ruled = (
            any(f is not None for f in ground.group_filters) or ground.implications or ground.cross_rules
        )
        msg = (
            f"the model never scores a candidate as {desired} (p > {cfg.threshold})"
            + (" within what the rules allow" if ruled else "") + f": {best} {run}"
        )
        desired_rows = self._pool[self._pool_proba > cfg.threshold]
        if len(desired_rows) == 0:
            return msg + f"; the model scores none of the {len(self._pool)} data rows as {desired}"
        feasible = np.asarray(ground.check(dict(zip(self.schema.names, desired_rows.T))), dtype=bool)
        if feasible.any():  # only when a compiled engine disagrees with the model near the threshold
            return msg + (
                f"; {int(feasible.sum())} data row(s) the model scores as {desired} satisfy the "
                "rules: engine='blackbox' or more generations may find them"
            )
        blocking = blocking_rules(ground, self.schema.names, desired_rows)
        top = ", ".join(
            f"{rule} rejects {n}" + (" of them" if i == 0 else "") for i, (rule, n) in enumerate(blocking[:3])
        )
        return (
            msg + f"; none of the {len(desired_rows)} data rows the model scores as {desired} "
            f"satisfies the rules for this x: {top}"
        )

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


def load(path: str | Path) -> Explainer:
    """An Explainer written by :meth:`Explainer.save` (a pickle: load only files you trust)."""
    import joblib  # ships with scikit-learn

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    obj = joblib.load(path)
    if not isinstance(obj, Explainer):
        raise TypeError(f"{path} holds a {type(obj).__name__}, not a geco Explainer")
    return obj
