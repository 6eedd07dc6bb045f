"""The public entry point: ``Explainer(model, X, constraints).explain(x)``.

An Explainer is built once per (model, data, constraints): it validates its arguments and keeps
what every explanation shares (:class:`geco.problem.setting.Setting`: the schema, the encoded
data, the checked program, the group domains, the engines and the data rows scored once).
``explain`` builds one instance's problem (:mod:`geco.problem.problem`), runs the search on it
(:mod:`geco.search`) and shapes the answer (:mod:`geco.answers`): up to k distinct
counterfactuals or, when there is none, the reason in terms of the rules as written. The knobs
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
from codegen import ENGINES, UnsupportedModel, input_columns
from geco import answers
from geco.fitted_state import FittedState
from geco.problem.diagnosis import empty_space_reason
from geco.problem.distance import DistanceSpec
from geco.problem.problem import Problem
from geco.problem.setting import Setting
from geco.result import RESERVED_COLUMNS, Explanation
from geco.search import SearchConfig
from geco.search.exact import ExactBudget
from geco.search.start import search
from geco.search.target import Target
from geco.search.timing import RecentSeconds
from geco.seeding import random_generator
from geco.targets import stated_target
from plaf_grammar import Schema, SchemaError

__all__ = ["ENGINES", "Explainer", "exact_budget", "load"]


def model_columns(model: Any, X: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The columns of ``X`` the model reads (:func:`codegen.input_columns`: by its
    ``feature_names_in_``, in its order), and the names of the columns left out. A model
    without feature names (a callable, or fitted on an array) takes all of ``X``."""
    kept, extra = input_columns(model, list(X.columns))
    if not extra and kept == list(X.columns):
        return X, []
    return X[kept], [str(c) for c in extra]


def categorical_schema(X: pd.DataFrame, categorical: Any, ignored: Sequence[str]) -> Schema:
    """The schema of ``X`` with the columns named in ``categorical`` (a name or a list of names)
    unordered categorical whatever their dtype: an integer code is a category, not a number.
    Raises ValueError for a name that is not a feature."""
    names = [categorical] if isinstance(categorical, str) else list(categorical)
    unknown = [n for n in names if n not in X.columns]
    if unknown:
        why = (
            "the model was not fitted on them" if set(map(str, unknown)) <= set(ignored)
            else f"they are not columns of X (features: {[str(c) for c in X.columns]})"
        )  # fmt: skip
        raise ValueError(f"categorical={names!r}: cannot declare {unknown} categorical: {why}")
    return Schema.from_dataframe(X, overrides={n: "categorical" for n in names})


def cost_stats(program: plaf_grammar.CheckedProgram) -> dict[str, Any]:
    """``stats["costs"]`` of an explanation under ``program``: ``{feature: {"up": c, "down": c}}``
    for each feature a ``cost`` statement prices other than 1 (no key when none does)."""
    costs = program.costs
    if costs.is_uniform:
        return {}
    priced = {
        name: {"up": up, "down": down}
        for name, up, down in zip(costs.names, costs.up, costs.down)
        if up != 1.0 or down != 1.0
    }
    return {"costs": priced}


def budget_left(cfg: SearchConfig, t_start: float, reserve: float = 0.0) -> SearchConfig:
    """The search's knobs with what is left of the explanation's time budget (counted from
    ``t_start``) less ``reserve`` seconds kept for the answer, so that the loop, which counts
    from its own start, ends the explanation on time; ``cfg`` itself without a budget."""
    if cfg.time_budget is None:
        return cfg
    left = cfg.time_budget - (time.perf_counter() - t_start) - reserve
    return replace(cfg, time_budget=max(0.0, left))


#: seconds kept back for the answer before an Explainer has timed one (the model's own numbers
#: of the picks and the result frame: 1-4 ms on a forest of 100 trees)
ANSWER_RESERVE = 0.003


#: seconds of branch and bound ``explain(exact=True)`` may spend (ExactBudget(seconds=None): no limit)
EXACT_SECONDS = 10.0


def exact_budget(exact: Any) -> ExactBudget | None:
    """What ``explain(exact=...)`` asks for: None (False: the heuristic search alone), the
    default budget (True: ``EXACT_SECONDS`` of branch and bound, less if the call's
    ``time_budget`` ends first) or the given ExactBudget."""
    if exact is False or exact is None:
        return None
    if exact is True:
        return ExactBudget(seconds=EXACT_SECONDS)
    if isinstance(exact, ExactBudget):
        return exact
    raise TypeError(f"exact must be True, False or a geco.ExactBudget, got {exact!r}")


class Explainer:
    """Counterfactual explanations for a fitted classifier or regressor over a data set (GeCo).

    Parameters
    ----------
    model : fitted classifier with ``predict_proba`` (any sklearn classifier or Pipeline), or a
        callable mapping a DataFrame to probabilities; with ``desired_range``, a fitted regressor
        with ``predict`` (or a callable mapping a DataFrame to predictions).
    X : DataFrame the feasible values are drawn from (usually the training data); its dtypes
        define the schema (numbers numeric, category/object/bool categorical, ordered categorical
        ordinal). No NaN allowed. When the model knows its input columns
        (``feature_names_in_``), those are the features: other columns of ``X`` (an id, the
        label) are ignored with a warning naming them, and a missing one is an error.
    constraints : a ``.plaf`` path, PLAF text, a ``plaf_grammar.Program`` (parsed), a
        ``plaf_grammar.CheckedProgram`` (checked, e.g. by ``plaf_grammar.load``) or None.
    desired_class : the favourable class label, or a list of labels ("grade A or B", "any class
        but 0"): P(desired) is then the sum of their probabilities.
    margin_range : ``(lo, hi)``: the target is the raw score before the link (``decision_function``,
        XGBoost's ``output_margin``, LightGBM's ``raw_score``) within ``[lo, hi]``, for a binary
        boosting model; refused where the model has no such score (a random forest's probability
        is its score: use ``threshold``).
    desired_range : ``(lo, hi)``: for a regression model, the target is a prediction within
        ``[lo, hi]`` (either end may be infinite). The ``probability`` column of an explanation
        then carries the prediction, the margin for ``margin_range``; ``threshold`` is unused.
    engine : "auto" (compiled when the model allows, else black box), "jit", "numpy" or
        "blackbox". ``engine_reason`` says which engine scores and why.
    schema : a ``plaf_grammar.Schema`` to use instead of inferring one from ``X``.
    categorical : column(s) of ``X`` that are unordered categories whatever their dtype (an
        integer-coded customer type: 33 -> 34 is another type, not a small step). Such a column
        counts 0/1 in the distance, changes to another of its values in the data, and refuses
        ``increasing``; the model still receives its original values. Not with ``schema``.

    Search knobs (the paper's names and defaults; each may be overridden per ``explain`` call):

    k : number of counterfactuals returned (5).
    q : population size kept after each selection (100).
    m_init : samples per feature group in the initial population (20).
    m_mut : samples per group and parent in mutation and selective mutation (5).
    min_generations, max_generations : bounds on the number of generations (3, 100).
    threshold : a candidate is a counterfactual when P(desired) > threshold (0.5); the cutoff of
        the desired class(es), e.g. 0.7 for "p(approved) >= 0.7" in effect.
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
        restarts at most twice (5); at most 2 once the top k are settled counterfactuals and only
        more distinct options are missing.
    diversity : the k counterfactuals returned differ in what they change: a candidate that
        changes the same features as a better one (or those and more) is skipped unless one of
        those features differs from it by at least this fraction of the feature's range (a
        category counts as 1). 0 returns the paper's plain top k; the first counterfactual is the
        same either way (0.1).
    time_budget : seconds one explanation may take (None: no limit), counted from the call's
        start. The search keeps back what shaping the answer has lately cost, starts a
        generation (or polishing round) only while the last one's cost still fits, and returns
        the best found so far; ``stats["stop"]`` is then "time_budget", ``reason`` says what
        was left out and ``stats["budget"]`` lists it (``stats["time_budget"]`` holds the budget
        whenever there is one). Past the budget the bound and gap of a found answer are skipped
        and a certificate stops where it is (its bound stays sound; it never claims a proof it
        did not finish). A run may overrun by one generation when one takes longer than the last.

    Costs: ``cost`` statements in ``constraints`` (``cost income 2``, ``cost up income 2``,
    ``cost down debt 0.5``) price changes: a changed feature's normalised difference is
    multiplied by the cost of the direction it moves in, in l0, l1, l2 and linf alike (see
    :mod:`plaf_grammar.costs`). The costs that applied are in ``stats["costs"]`` and printed
    with the explanation; without ``cost`` statements the distance is the unpriced one.
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
        categorical: str | Sequence[str] | None = None,
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
        time_budget: float | None = None,
        margin_range: tuple[float, float] | None = None,
        desired_range: tuple[float, float] | None = None,
    ):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        if len(X) == 0:
            raise ValueError("X is empty: geco draws feasible values from the data")
        self.model = model
        self.desired_class = desired_class
        self.stated_target = stated_target(desired_class, margin_range, desired_range)
        self.config = SearchConfig(
            k=k, q=q, m_init=m_init, m_mut=m_mut, min_generations=min_generations,
            max_generations=max_generations, threshold=threshold,
            norm_weights=tuple(float(w) for w in norm_weights),
            representation=representation, mutate_top=mutate_top, seeds=seeds,
            patience=patience, diversity=diversity, time_budget=time_budget,
        )  # fmt: skip
        self.config.validate()
        # fail now, not at the first explanation, on bad distance weights
        DistanceSpec(np.zeros(1), np.ones(1), np.zeros(1, bool), self.config.norm_weights)
        X, self.ignored_columns = model_columns(model, X)
        taken = [str(c) for c in X.columns if str(c) in RESERVED_COLUMNS]
        if taken:
            raise ValueError(
                f"X has column(s) {taken} named as columns geco's answers add beside the features "
                f"{list(RESERVED_COLUMNS)}; an answer would show its own number in their place: rename them"
            )
        if self.ignored_columns:
            warnings.warn(
                f"ignoring column(s) {self.ignored_columns} of X: the model was not fitted on them",
                UserWarning, stacklevel=2,
            )  # fmt: skip
        if categorical is not None:
            if schema is not None:
                raise ValueError("give categorical= or schema=, not both (declare the kinds in the schema)")
            schema = categorical_schema(X, categorical, self.ignored_columns)
        self.answer_seconds = RecentSeconds(ANSWER_RESERVE)  # what answers under a budget cost lately
        self.setting = Setting.build(model, X, constraints, self.stated_target.output, engine, schema)
        target = self.stated_target.target(self.config.threshold, self.setting.seed_pool.proba)
        self.config = replace(self.config, target=target)
        #: the model's fitted state as the Explainer read it: a model fitted again is refused
        self.fitted_state = FittedState(model)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("fitted_state", None)  # taken again from the model as it is unpickled
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.fitted_state = FittedState(self.model)

    def check_model(self) -> None:
        """Refuse to go on with a model fitted again (or changed) since this Explainer read
        it (:class:`geco.fitted_state.ModelChangedError`): its compiled copy and the data's
        scores would be the old model's."""
        self.fitted_state.check(self.model)

    @property
    def target(self) -> Target:
        """What a counterfactual must reach (:class:`geco.search.target.Target`) at the
        Explainer's own threshold."""
        return self.config.goal

    # ------------------------------------------------------------------ what it holds
    @property
    def schema(self) -> Schema:
        return self.setting.schema

    @property
    def table(self) -> plaf_grammar.EncodedTable:
        """X encoded, column by column in the smallest exact dtypes (about X's own memory)."""
        return self.setting.table

    @property
    def data(self) -> np.ndarray:
        """X encoded as one ``(n, d)`` float64 array (built on first use and kept; the search
        itself reads :attr:`table`, which holds the same values at about X's own size)."""
        return self.table.to_array()

    @property
    def program(self) -> plaf_grammar.CheckedProgram:
        return self.setting.program

    @property
    def groups(self) -> list[tuple[str, ...]]:
        return self.setting.groups

    @property
    def domains(self) -> list:
        return self.setting.domains

    @property
    def group_of_feature(self) -> np.ndarray:
        return self.setting.group_of_feature

    @property
    def ranges(self) -> np.ndarray:
        return self.setting.ranges

    @property
    def categorical(self) -> np.ndarray:
        return self.setting.categorical

    @property
    def scorer(self) -> Any:
        """The engine that scores candidates (a ``codegen.ModelScorer``)."""
        return self.setting.scorer

    @property
    def blackbox(self) -> Any:
        """The model's own ``predict_proba`` as an engine (``codegen.BlackBoxScorer``)."""
        return self.setting.engines.reference

    @property
    def engine(self) -> str:
        """The engine scoring now (a compiled engine may switch tier once it is measured)."""
        return self.scorer.name

    @property
    def engine_reason(self) -> str:
        """Which engine scores and why, in one line."""
        return self.setting.engines.description

    def __repr__(self) -> str:
        return (
            f"Explainer({type(self.model).__name__}, {len(self.table)} rows x {len(self.schema)} "
            f"features, {len(self.groups)} groups, engine={self.engine!r})"
        )

    # ------------------------------------------------------------------ explain
    def _frame(self, x: Any) -> pd.DataFrame:
        """``x`` as a one-row frame of the model's columns. The columns of X the model was not
        fitted on are dropped, and so, with a warning naming them, are those X did not have."""
        if isinstance(x, pd.Series):
            x = x.to_frame().T
        elif isinstance(x, dict):
            x = pd.DataFrame([x])
        if not isinstance(x, pd.DataFrame):
            raise TypeError(f"x must be a one-row DataFrame, a Series or a dict, got {type(x).__name__}")
        if len(x) != 1:
            raise ValueError(f"explain() takes exactly one row, got {len(x)}; use explain_many()")
        ignored = set(self.ignored_columns)
        unseen = [c for c in x.columns if c not in self.schema and str(c) not in ignored]
        if unseen:
            warnings.warn(
                f"ignoring column(s) {[str(c) for c in unseen]} of x: the Explainer's X did not have them",
                UserWarning, stacklevel=3,
            )  # fmt: skip
        extra = [c for c in x.columns if c not in self.schema]
        kept = x.drop(columns=extra) if extra else x
        # object columns (a row taken from a mixed frame) get their own dtypes; a frame without
        # any is read as it is (no copy: encoding only reads it)
        return kept.infer_objects() if any(dt == np.dtype(object) for dt in kept.dtypes) else kept

    def _config(self, overrides: dict[str, Any]) -> SearchConfig:
        fields = set(SearchConfig.__dataclass_fields__) - {"target"}  # set by the Explainer's arguments
        bad = set(overrides) - fields
        if bad:
            raise TypeError(f"unknown option(s) {sorted(bad)}; valid: {sorted(fields)}")
        if "norm_weights" in overrides:
            overrides["norm_weights"] = tuple(float(w) for w in overrides["norm_weights"])
        cfg = replace(self.config, **overrides)
        cfg.validate()
        return cfg

    def problem(self, x: Any, **overrides: Any) -> Problem:
        """One instance's problem as ``explain`` builds it: encoded and checked, the engine
        bound to it and the model's P(desired) of it, the program grounded on it, GeCo's distance
        to it and every group's feasible values. For the baselines, diagnosis and debugging."""
        self.check_model()
        cfg = self._config(dict(overrides))
        return self.setting.problem(self.setting.instance(self._frame(x)), cfg.norm_weights)

    def explain(
        self, x: Any, *, random_state: Any = None, exact: bool | ExactBudget = False, **overrides: Any
    ) -> Explanation:
        """Counterfactual explanations for one instance (a one-row DataFrame or Series).

        Options override the Explainer's knobs for this call. ``random_state`` (an int, a
        ``numpy.random.Generator`` or ``RandomState``: :func:`geco.seeding.random_generator`)
        makes the result reproducible. When no counterfactual is found, ``success`` is False
        and ``reason`` says why: the rule that removes every value of a group ``x`` must change,
        or that the model never reaches the desired class within what the rules allow (with the
        best candidates, whose probabilities the reason quotes).

        ``exact=True`` (or a :class:`geco.ExactBudget` of seconds, nodes, groups) then runs branch
        and bound from the search's best (:mod:`geco.search.exact`): the first counterfactual is
        the closest one within the rules and ``gap`` 0.0, or, at the budget, the best found and
        the relative distance gap still open; ``stats["exact"]`` says what it cost."""
        t_start = time.perf_counter()
        self.check_model()
        budget = exact_budget(exact)
        cfg = self._config(dict(overrides))
        if budget is not None and not answers.certifiable(cfg.goal):
            raise ValueError(
                "exact=True needs a probability target for one desired class (the bounds speak "
                f"of it), not {cfg.goal.describe()}"
            )
        rng = random_generator(random_state)
        instance = self.setting.instance(self._frame(x))
        stats: dict[str, Any] = cost_stats(self.setting.program)
        if cfg.time_budget is not None:
            stats["time_budget"] = cfg.time_budget
        goal = cfg.goal
        if goal.meets(instance.probability):
            return answers.nothing_to_search(
                self.setting, instance, stats, t_start, answers.already_desired_reason(goal, instance.probability, cfg.threshold),
                already_desired=True, target=goal,
            )  # fmt: skip
        t0 = time.perf_counter()
        problem = self.setting.problem(instance, cfg.norm_weights)
        stats["seconds_feasible_space"] = time.perf_counter() - t0
        why = empty_space_reason(problem)
        if why:
            return answers.nothing_to_search(self.setting, instance, stats, t_start, why, target=goal)
        reserve = self.answer_seconds.estimate() if cfg.time_budget is not None else 0.0
        outcome, ctx, seconds = search(problem, budget_left(cfg, t_start, reserve), rng)
        stats.update(seconds)
        t_answer = time.perf_counter()
        if budget is None:
            result = answers.explanation(problem, outcome, ctx.rejected, cfg, stats, t_start)
        else:
            result = answers.exact_explanation(
                problem, outcome, ctx.rejected, cfg, stats, t_start, budget
            )
        if cfg.time_budget is not None:
            if outcome.stop == "time_budget":
                self.answer_seconds.add(time.perf_counter() - t_answer)
            answers.note_budget(result, outcome, cfg.time_budget, reserve)
        return result

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
        exact: bool | ExactBudget = False,
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
        of ``n_jobs`` workers made for this call (needs ``geco-cf[dask]``). ``progress``: a tqdm bar
        on stderr for batches longer than a second in a terminal. ``as_frame``: return one tidy
        DataFrame (:func:`geco.batch.explanations_frame`) instead of the list. ``chunk_size``:
        rows per task (default: up to 16). ``exact`` and the other options act as in ``explain``."""
        from geco.batch import explanations_frame, iter_explain

        self.check_model()
        self._config(dict(overrides))  # a bad option: one error now, not a failed row per row
        if exact_budget(exact) is not None:  # exact mode per row (a bad value: one error now)
            overrides = {**overrides, "exact": exact}
        results = list(
            iter_explain(
                self, X, n_jobs=n_jobs, backend=backend, progress=progress, random_state=random_state,
                client=client, chunk_size=chunk_size, overrides=overrides,
            )
        )  # fmt: skip
        return explanations_frame(results) if as_frame else results

    # ------------------------------------------------------------------ IR inspection
    def ir(self, x: Any, delta: Sequence[str], optimized: bool = False) -> str:
        """LLVM IR of the model specialised to ``x`` and the features ``delta`` (the only ones
        left free); every other feature is folded in as a constant."""
        self.check_model()
        instance = self.setting.instance(self._frame(x))
        unknown = [f for f in delta if f not in self.schema]
        if unknown:
            raise SchemaError(f"unknown feature(s) in delta: {unknown}; features: {list(self.schema.names)}")
        idx = tuple(sorted(self.schema.index(f) for f in delta))
        if not self.scorer.compiled:
            why = self.setting.engines.fallback_reason or "engine='blackbox' was requested"
            raise UnsupportedModel(
                f"no LLVM IR: this Explainer scores {type(self.model).__name__} with the black box "
                f"({why})"
            )
        return self.scorer.ir(instance.x, idx, optimized)

    # ------------------------------------------------------------------ saving
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


def load(path: str | Path) -> Explainer:
    """An Explainer written by :meth:`Explainer.save` (a pickle: load only files you trust)."""
    import joblib  # ships with scikit-learn

    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory; expected a file written by Explainer.save")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        obj = joblib.load(path)
    except (ImportError, AttributeError) as exc:  # saved where other classes or versions were installed
        raise ValueError(f"{path}: cannot load: it needs what this Python lacks ({type(exc).__name__}: {exc}); "
                         "install the geco and model library versions it was saved with") from exc  # fmt: skip
    except Exception as exc:  # not a pickle: struct.error, UnpicklingError, EOFError, ...
        raise ValueError(f"{path}: not a file written by Explainer.save (cannot unpickle it: "
                         f"{type(exc).__name__}: {exc})") from exc  # fmt: skip
    if not isinstance(obj, Explainer):
        raise TypeError(f"{path} holds a {type(obj).__name__}, not a geco Explainer")
    return obj
