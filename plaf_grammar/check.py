"""A program checked against a data schema: what ``load`` and ``check`` return.

Why a type of its own: a :class:`Program` is syntax (what the parser read); a
:class:`CheckedProgram` pairs it with a :class:`Schema` and the :class:`Analysis` (groups, where
each rule acts, implication order), so only a checked program can be grounded on an instance.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import pandas as pd

from plaf_grammar.analysis import Analysis, analyse
from plaf_grammar.ast import Program
from plaf_grammar.costs import FeatureCosts
from plaf_grammar.errors import PLAFError
from plaf_grammar.ground import GroundingMemo, GroundProgram, ground
from plaf_grammar.schema import Schema

__all__ = ["CheckedProgram", "check", "to_schema"]

#: each checked program's grounding memo, alive as long as the program
_MEMOS: weakref.WeakKeyDictionary[CheckedProgram, GroundingMemo] = weakref.WeakKeyDictionary()


def to_schema(schema_or_dataframe: Schema | pd.DataFrame) -> Schema:
    """Accept a Schema or infer one from a DataFrame (see ``Schema.from_dataframe``)."""
    if isinstance(schema_or_dataframe, Schema):
        return schema_or_dataframe
    if isinstance(schema_or_dataframe, pd.DataFrame):
        return Schema.from_dataframe(schema_or_dataframe)
    raise TypeError(
        f"expected a plaf_grammar.Schema or a pandas DataFrame, got {type(schema_or_dataframe).__name__}"
    )


@dataclass(frozen=True, eq=False)
class CheckedProgram:
    """A :class:`Program` checked against a schema, with its analysis.

    ``groups``: every feature in exactly one group (declared groups first, in declaration
    order, then each other feature alone in schema column order). ``costs``: the price of
    changing each feature (:class:`FeatureCosts`). ``ground(x)`` binds ``x.*``
    to an instance. ``str()`` is the program's canonical text."""

    program: Program
    analysis: Analysis

    @property
    def schema(self) -> Schema:
        return self.analysis.schema

    @property
    def groups(self) -> list[tuple[str, ...]]:
        return list(self.analysis.groups)

    @property
    def costs(self) -> FeatureCosts:
        """What changing each feature costs, per direction (1 where no ``cost`` statement
        prices it; see :mod:`plaf_grammar.costs`). A program pickled before costs existed has
        none: cost 1 everywhere."""
        costs = getattr(self.analysis, "costs", None)
        return costs if costs is not None else FeatureCosts.uniform(self.schema.names)

    def ground(self, x: Any) -> GroundProgram:
        """Bind ``x.*`` to the instance ``x`` (Series, 1-row DataFrame, dict of user values, or
        an encoded 1-D float64 array); see :func:`plaf_grammar.ground.ground`. Rules met before
        with the same ``x`` values are not grounded again (:class:`GroundingMemo`, one per
        checked program, never pickled)."""
        memo = _MEMOS.get(self)
        if memo is None:
            memo = _MEMOS[self] = GroundingMemo()
        return ground(self.analysis, x, memo)

    def __str__(self) -> str:
        return str(self.program)

    def __repr__(self) -> str:
        p = self.program
        return (
            f"<CheckedProgram {p.filename or '<string>'}: {len(p.statements)} statements, "
            f"{len(self.analysis.groups)} groups>"
        )


def check(program: Program, schema_or_dataframe: Schema | pd.DataFrame) -> CheckedProgram:
    """Check ``program`` against a schema (or a DataFrame whose schema is inferred). Raises a
    :class:`PLAFError` subclass, positioned, on the first problem."""
    if not isinstance(program, Program):
        raise TypeError(f"expected a plaf_grammar.Program, got {type(program).__name__}")
    schema = to_schema(schema_or_dataframe)
    try:
        analysis = analyse(program, schema)
    except PLAFError as e:
        raise e.with_context(program.filename, program.text) from None
    return CheckedProgram(program, analysis)
