"""PLAF: the constraint language of geco (grammar, AST, checks, grounding, predicates).

Typical use::

    import plaf_grammar
    program = plaf_grammar.load("examples/adult.plaf", data.X)   # parse + check
    g = program.ground(data.X.iloc[0])                            # bind x
    g.group_filters, g.implications, g.cross_rules, g.check(columns)
    plaf_grammar.holds(program, x, cf)                            # reference evaluator
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from plaf_grammar.ast import Program
from plaf_grammar.check import check
from plaf_grammar.errors import (
    PLAFCycleError,
    PLAFError,
    PLAFNameError,
    PLAFSyntaxError,
    PLAFTypeError,
    PLAFValueError,
)
from plaf_grammar.ground import GroundImplication, GroundProgram
from plaf_grammar.parser import parse
from plaf_grammar.predicates import CandidateRule, Predicate
from plaf_grammar.reference import holds
from plaf_grammar.schema import Feature, Schema, SchemaError

__all__ = [
    "CandidateRule",
    "Feature",
    "GroundImplication",
    "GroundProgram",
    "PLAFCycleError",
    "PLAFError",
    "PLAFNameError",
    "PLAFSyntaxError",
    "PLAFTypeError",
    "PLAFValueError",
    "Predicate",
    "Program",
    "Schema",
    "SchemaError",
    "check",
    "holds",
    "load",
    "parse",
]


def _looks_like_path(s: str) -> bool:
    return "\n" not in s and len(s) < 4096 and s.endswith(".plaf")


def load(path_or_text: str | Path, schema_or_dataframe: Schema | pd.DataFrame) -> Program:
    """Parse and check a PLAF program against a schema (or a DataFrame whose schema is inferred).

    ``path_or_text`` is a ``pathlib.Path``, a string naming an existing file, or PLAF text.
    A string ending in ``.plaf`` that names no file is an error (a typo in a path should not be
    parsed as a program). Raises :class:`PLAFError` for a bad program."""
    if isinstance(path_or_text, Path):
        text, filename = path_or_text.read_text(encoding="utf-8"), str(path_or_text)
    elif isinstance(path_or_text, str):
        p = Path(path_or_text) if "\n" not in path_or_text and len(path_or_text) < 4096 else None
        try:
            is_file = p is not None and p.is_file()
        except OSError:
            is_file = False
        if is_file:
            text, filename = p.read_text(encoding="utf-8"), path_or_text  # type: ignore[union-attr]
        elif _looks_like_path(path_or_text):
            raise FileNotFoundError(f"no such PLAF file: {path_or_text}")
        else:
            text, filename = path_or_text, None
    else:
        raise TypeError(f"expected a path or PLAF text, got {type(path_or_text).__name__}")
    return check(parse(text, filename), schema_or_dataframe)
