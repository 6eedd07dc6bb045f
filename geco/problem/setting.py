"""What every explanation of one Explainer shares, built once from (model, X, constraints).

The schema and the encoded data, the checked PLAF program, each group's domain (its value
tuples in the data, counted), the features' ranges, the engines (the one that scores - compiled
where the model allows - and the model's own ``predict_proba``) and the data rows scored once,
where searches find their seeds. :meth:`Setting.instance` and :meth:`Setting.problem` turn it
into one instance's problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

import plaf_grammar
from codegen import BlackBoxScorer, EngineChoice, UnsupportedModel
from codegen.registry import choose_engine
from geco.problem.admissible import DataValues, check_data, check_instance, model_error
from geco.problem.diagnosis import required_groups
from geco.problem.distance import DistanceSpec, feature_ranges
from geco.problem.feasible_space import (
    GroupDomain,
    SingleDomains,
    SpaceMemo,
    feasible_space,
    group_domains,
)
from geco.problem.problem import Instance, Problem
from geco.problem.seed_index import SeedIndex, domain_codes
from plaf_grammar import CheckedProgram, EncodedTable, Schema

__all__ = ["SEED_POOL_ROWS", "SeedPool", "Setting", "checked_program"]

#: at most this many data rows (a fixed random subset beyond) are scored once per Explainer to
#: find the rows of the desired class that seed the search
SEED_POOL_ROWS = 50_000


@dataclass(frozen=True)
class SeedPool:
    """Distinct data rows and the model's P(desired) of each: where searches look for seeds."""

    rows: np.ndarray
    proba: np.ndarray

    def desired(self, threshold: float) -> np.ndarray:
        """The rows the model scores above ``threshold``."""
        return self.rows[self.proba > threshold]


def checked_program(constraints: Any, schema: Schema) -> CheckedProgram:
    """``constraints`` (a ``.plaf`` path, PLAF text, a parsed or checked program, or None)
    checked against ``schema``; a program checked against another schema is checked again."""
    if isinstance(constraints, plaf_grammar.CheckedProgram):
        if constraints.schema == schema:
            return constraints
        constraints = constraints.program
    if isinstance(constraints, plaf_grammar.Program):
        return plaf_grammar.check(constraints, schema)
    return plaf_grammar.load("" if constraints is None else constraints, schema)


@dataclass
class Setting:
    """The data-level half of every explanation (see the module docstring)."""

    schema: Schema
    desired_class: Any
    #: X encoded, column by column in the smallest exact dtypes (about X's own memory)
    table: EncodedTable
    program: CheckedProgram
    domains: list[GroupDomain]
    group_of_feature: np.ndarray  # (d,) group index of each feature
    ranges: np.ndarray
    categorical: np.ndarray
    #: what the search draws from X; every such value was asked of the model once
    data_values: DataValues
    engines: EngineChoice
    seed_pool: SeedPool
    #: the seed pool's domain codes (built at the first search) and, per set of rows a target
    #: accepts, their index (a few targets at most: the Explainer's and per-call thresholds)
    seed_codes: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    seed_indexes: dict[bytes, SeedIndex] = field(default_factory=dict, repr=False)
    #: the one-feature groups' domains end to end, for the feasible spaces (built at first use)
    single_domains: SingleDomains | None = field(default=None, repr=False)

    @classmethod
    def build(
        cls, model: Any, X: pd.DataFrame, constraints: Any, desired_class: Any, engine: str,
        schema: Schema | None,
    ) -> Setting:  # fmt: skip
        """Everything the explanations share; ``X`` holds the model's columns only. Raises
        SchemaError / PLAFError / UnsupportedModel naming what is wrong."""
        schema = schema if schema is not None else Schema.from_dataframe(X)
        table = schema.encode_table(X, what="X")
        reference = BlackBoxScorer(model, schema, desired_class)  # the model's own numbers
        data_values = check_data(reference.predict, schema, table, X.index)
        program = checked_program(constraints, schema)
        domains = group_domains(list(program.groups), schema.names, table)
        group_of_feature = np.empty(len(schema), dtype=np.intp)
        for domain in domains:
            group_of_feature[domain.features] = domain.index
        categorical = np.array([f.kind == "categorical" for f in schema.features])
        check_model(reference.predict, table)
        engines = choose_engine(model, schema, desired_class, engine)
        if engines.scorer.compiled:  # compile the once-per-process kernels now (fit-once object)
            engines.scorer.warm_up(table.take(slice(0, 256)))
        setting = cls(
            schema, desired_class, table, program, domains, group_of_feature, feature_ranges(schema, table),
            categorical, data_values, engines, SeedPool(np.empty((0, len(schema))), np.empty(0)),
        )  # fmt: skip
        setting.seed_pool = setting.score_seed_pool()
        return setting

    @property
    def scorer(self) -> Any:
        """The engine that scores candidates (a ``codegen.ModelScorer``)."""
        return self.engines.scorer

    @property
    def groups(self) -> list[tuple[str, ...]]:
        return [domain.names for domain in self.domains]

    def score_seed_pool(self) -> SeedPool:
        """Distinct data rows (a fixed random subset of at most ``SEED_POOL_ROWS``) and the
        model's P(desired) for each; an exact compiled engine gives predict_proba's numbers at a
        fraction of its cost."""
        n = len(self.table)
        if n > SEED_POOL_ROWS:
            pick = np.random.default_rng(0).choice(n, SEED_POOL_ROWS, replace=False)
            rows = self.table.take(np.sort(pick))
        else:
            rows = self.table.take(slice(None))
        rows = np.unique(rows, axis=0)
        scorer = self.scorer
        predict = scorer.score_rows if scorer.compiled and scorer.exact else self.engines.reference.predict
        proba = np.concatenate([predict(rows[i : i + 8192]) for i in range(0, len(rows), 8192)])
        return SeedPool(rows, np.asarray(proba, dtype=np.float64))

    def seed_index(self, desired: np.ndarray) -> SeedIndex:
        """The index of the seed pool's rows where ``desired`` (a (pool,) mask) holds, built once
        per mask (see :mod:`geco.problem.seed_index`)."""
        key = np.packbits(desired).tobytes()
        index = self.seed_indexes.get(key)
        if index is None:
            if self.seed_codes is None:
                self.seed_codes = domain_codes(self.domains, self.seed_pool.rows)
            codes, offsets = self.seed_codes
            positions = np.flatnonzero(desired)
            columns = np.ascontiguousarray(self.seed_pool.rows[positions].T)
            index = SeedIndex(positions, columns, np.ascontiguousarray(codes[:, positions]), offsets)
            if len(self.seed_indexes) >= 4:
                self.seed_indexes.pop(next(iter(self.seed_indexes)))
            self.seed_indexes[key] = index
        return index

    def space_memo(self) -> SpaceMemo:
        """The feasible spaces computed for earlier instances (:class:`SpaceMemo`: built at the
        first use, never pickled: it holds grounded predicates)."""
        memo = self.__dict__.get("_space_memo")
        if memo is None:
            memo = self.__dict__["_space_memo"] = SpaceMemo()
        return memo

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_space_memo", None)
        return state

    def one_feature_domains(self) -> SingleDomains:
        """The one-feature groups' domains end to end (built at the first call)."""
        if self.single_domains is None:
            self.single_domains = SingleDomains.of(self.domains)
        return self.single_domains

    def model_proba(self, rows: np.ndarray, bound: Any = None) -> np.ndarray:
        """The model's own P(desired) for full encoded rows: from the engine when it is
        bit-identical to ``predict_proba`` (trees, the black box), else from ``predict_proba``
        itself - a model call costs tens of milliseconds on a large forest. ``bound``: the
        engine bound to an instance (``ModelScorer.bind``), which scores the rows as one block
        with every feature free instead of binding the engine again (an exact engine's numbers
        do not depend on the instance it is bound to)."""
        if len(rows) == 0:
            return np.empty(0)
        if self.scorer.exact:
            if bound is not None:
                every = tuple(range(rows.shape[1]))
                return np.asarray(bound.score_block(every, np.ascontiguousarray(rows, dtype=np.float64)), dtype=np.float64)
            return np.asarray(self.scorer.score_rows(rows), dtype=np.float64)
        return np.asarray(self.engines.reference.predict(rows), dtype=np.float64)

    def instance(self, x: pd.DataFrame) -> Instance:
        """One instance (a one-row frame of the model's columns) encoded and checked against
        what the data and the model admit, with the engine bound to it and its P(desired)."""
        enc = self.schema.encode(x, what="instance")[0]
        check_instance(self.engines.reference.predict, self.schema, self.data_values, self.ranges, enc)
        frame = self.schema.decode(enc[None], index=x.index)
        bound = self.scorer.bind(enc)
        return Instance(enc, frame, bound, float(self.model_proba(enc[None], bound)[0]))

    def problem(self, instance: Instance, norm_weights: tuple[float, ...]) -> Problem:
        """The instance's problem: the program grounded on it, the distance to it (priced by the
        program's ``cost`` statements; the search's scaled, see ``DistanceSpec.for_search``),
        every group's feasible values and the groups every counterfactual must change."""
        grounded = self.program.ground(instance.x)
        priced = DistanceSpec(instance.x, self.ranges, self.categorical, norm_weights, self.program.costs)
        distance = priced.for_search()
        spaces = feasible_space(self.domains, instance.x, grounded.group_filters, distance, self.one_feature_domains(),
                                self.space_memo(), tuple(float(w) for w in norm_weights))  # fmt: skip
        required = required_groups(grounded, self.domains, instance.x)
        return Problem(self, instance, grounded, distance, spaces, required, priced)


def check_model(predict: Any, table: EncodedTable) -> None:
    """Refuse a model that cannot score rows of its own data with one finite probability each."""
    try:
        p = predict(table.take(slice(0, 2)))
    except Exception as exc:
        if type(exc).__name__ == "NotFittedError":  # scikit-learn's, and the boosting libraries'
            raise UnsupportedModel(f"the model is not fitted: call its fit first ({model_error(exc)})") from exc
        raise UnsupportedModel(
            f"the model failed to score rows of X ({model_error(exc)}); was it fitted "
            "on a DataFrame with these columns?"
        ) from exc
    if p.shape != (min(2, len(table)),) or not np.all(np.isfinite(p)):
        raise UnsupportedModel(
            f"the model's probabilities have shape {p.shape} or are not finite; expected one "
            "probability per row"
        )
