"""Statements the data cannot prove, written as questions for the person reviewing the draft:
columns to keep ``fixed`` (the same value on every row, an identifier, a name that says who a
person is, a value that never changes within an entity), columns that may only grow
(``increasing``, by their names: age, tenure, totals) and the ranges seen. Never active."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from geco.laws.columns import ColumnFacts, codes
from geco.laws.law import Law
from geco.laws.text import count, literal, name

__all__ = ["fixed_candidates", "monotone_candidates", "ranges"]

IDENTITY_WORDS = frozenset(
    ["sex", "gender", "male", "female", "race", "ethnicity", "ethnic", "native", "nationality",
     "country", "birth", "birthplace", "religion"]
)  # fmt: skip
GROWING_WORDS = frozenset(
    ["age", "tenure", "seniority", "experience", "years", "education", "history", "priors",
     "prior", "total", "cumulative", "lifetime", "since"]
)  # fmt: skip


def words(column: str) -> list[str]:
    """The words of a column name, lower case: ``isMale`` -> ``is, male``; ``native_country`` ->
    ``native, country``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", column)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def _fixed(f: ColumnFacts, n: int, why: str) -> Law:
    return Law("fixed", (f.name,), f"fixed {name(f.name)}", n, 0, False, why)


def fixed_candidates(
    X: pd.DataFrame, facts: Sequence[ColumnFacts], entity: str | None = None
) -> list[Law]:
    """Columns a person may want ``fixed``: constant, identifier-like (a different integer or
    category on every row), named for who a person is, or (with ``entity``) never changing within
    an entity."""
    n = len(X)
    laws = []
    varies = _varies_within(X, facts, entity) if entity is not None else {}
    for f in facts:
        if f.n_distinct == 1:
            laws.append(
                _fixed(f, n, "the same value on every row: it can never help a counterfactual")
            )
        elif f.n_distinct == n and f.integer and n > 1:
            laws.append(_fixed(f, n, "a different value on every row: an identifier? leave it out "
                                     "of the model's input, or fix it"))  # fmt: skip
        elif IDENTITY_WORDS.intersection(words(f.name)):
            laws.append(_fixed(f, n, "its name says who a person is: fix it?"))
        elif entity is not None and f.name in varies and varies[f.name] == 0:
            n_entities = X[entity].nunique()
            laws.append(
                _fixed(
                    f,
                    n,
                    f"never changes within an entity ({entity}; {count(n_entities)} entities): fix it?",
                )
            )
    return laws


def _varies_within(X: pd.DataFrame, facts: Sequence[ColumnFacts], entity: str) -> dict[str, int]:
    """Per column: rows whose value differs from the previous row of the same entity."""
    e, _ = codes(X[entity])
    order = np.argsort(e, kind="stable")
    same = e[order][1:] == e[order][:-1]
    out = {}
    for f in facts:
        c = codes(X[f.name])[0][order]
        out[f.name] = int(np.count_nonzero((c[1:] != c[:-1]) & same))
    return out


def monotone_candidates(facts: Sequence[ColumnFacts], n: int) -> list[Law]:
    """Numeric columns whose names suggest they only grow (age, tenure, totals), as questions."""
    return [
        Law("monotone", (f.name,), f"increasing {name(f.name)}", n, 0, False,
            f"question: can {f.name} only grow? (its name suggests so; the data cannot tell)")
        for f in facts
        if f.numeric and f.n_distinct > 1 and GROWING_WORDS.intersection(words(f.name))
    ]  # fmt: skip


def ranges(facts: Sequence[ColumnFacts], n: int) -> list[Law]:
    """The range of each numeric column, for reference: every candidate meets it already."""
    return [
        Law("range", (f.name,), f"cf.{name(f.name)} >= {literal(f.low)} and cf.{name(f.name)} <= {literal(f.high)}",
            n, 0, False, f"the range seen on {count(n)} rows")
        for f in facts
        if f.numeric and f.n_distinct > 1
    ]  # fmt: skip
