"""PLAF: the constraint language of geco (grammar, syntax tree, checks, grounding, predicates).

Typical use::

    import plaf_grammar
    program = plaf_grammar.load("examples/adult.plaf", data.X)   # parse + check
    g = program.ground(data.X.iloc[0])                            # bind x
    g.group_filters, g.group_rules, g.implications, g.cross_rules, g.check(columns)
    program.costs.up, program.costs.down                          # price per feature (cost)
    plaf_grammar.holds(program, x, cf)                            # reference evaluator

Layers: ``parse`` gives a :class:`Program` (syntax only); ``check`` (or ``load``, which does
both) pairs it with a :class:`Schema` as a :class:`CheckedProgram`; ``CheckedProgram.ground``
binds an instance. Every problem with a program raises :class:`PLAFError`; with data,
:class:`SchemaError`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from plaf_grammar.ast import Program, SourceRule
from plaf_grammar.check import CheckedProgram, check
from plaf_grammar.costs import FeatureCosts
from plaf_grammar.errors import (
    PLAFCycleError,
    PLAFError,
    PLAFFileNotFoundError,
    PLAFNameError,
    PLAFSyntaxError,
    PLAFTypeError,
    PLAFValueError,
)
from plaf_grammar.ground import GroundImplication, GroundProgram
from plaf_grammar.parser import parse
from plaf_grammar.predicates import Predicate
from plaf_grammar.reference import holds
from plaf_grammar.schema import Feature, Schema, SchemaError
from plaf_grammar.source import resolve
from plaf_grammar.table import EncodedTable

__all__ = [
    "CheckedProgram",
    "EncodedTable",
    "Feature",
    "FeatureCosts",
    "GroundImplication",
    "GroundProgram",
    "PLAFCycleError",
    "PLAFError",
    "PLAFFileNotFoundError",
    "PLAFNameError",
    "PLAFSyntaxError",
    "PLAFTypeError",
    "PLAFValueError",
    "Predicate",
    "Program",
    "Schema",
    "SchemaError",
    "SourceRule",
    "check",
    "holds",
    "load",
    "parse",
]


def load(
    path_or_text: str | bytes | Path, schema_or_dataframe: Schema | pd.DataFrame
) -> CheckedProgram:
    """Parse and check a PLAF program against a schema (or a DataFrame whose schema is inferred).

    ``path_or_text`` is a ``pathlib.Path``, a string naming an existing file (of any suffix),
    PLAF text, or UTF-8 bytes. A one-line string that names no file but looks like a path
    (``rules.txt``, ``./my_rules``, ``conf/adult_rules``, ``missing.plaf``: see
    ``source.looks_like_path``) raises :class:`PLAFFileNotFoundError` ("no such file: ...", also
    a ``FileNotFoundError``) instead of being parsed. Raises :class:`PLAFError` for a bad
    program, including text that is not UTF-8."""
    text, filename = resolve(path_or_text)
    return check(parse(text, filename), schema_or_dataframe)
