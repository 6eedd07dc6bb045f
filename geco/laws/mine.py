"""Mine a table's laws: orderings, dependencies, and the questions the data cannot answer."""

from __future__ import annotations

import numpy as np
import pandas as pd

from geco.laws.columns import column_facts
from geco.laws.dependencies import mine_groups
from geco.laws.derived import mine_derived
from geco.laws.law import Law
from geco.laws.orderings import mine_orderings
from geco.laws.questions import fixed_candidates, monotone_candidates, ranges
from geco.seeding import random_generator

__all__ = ["NEAR", "SAMPLE", "mine"]

NEAR = 0.001  # a near-law: broken by at most this share of the rows (shown as a comment)
SAMPLE = 20_000  # rows the pairwise screens look at (every proposal is verified on all rows)


def mine(
    X: pd.DataFrame,
    *,
    entity: str | None = None,
    near: float = NEAR,
    sample: int = SAMPLE,
    random_state: int = 0,
) -> list[Law]:
    """The laws of ``X`` (the model's input columns), each checked on every row: orderings
    between numeric columns, functional dependencies, 1:1 codes and derived columns (monotone
    functions of another) as groups, columns to
    consider fixed, columns that may only grow, ranges. ``entity``: a column naming who each row
    is about (several rows per entity); it is left out of the laws and used to find the columns
    that never change within an entity."""
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"suggest needs a pandas DataFrame, got {type(X).__name__}")
    if len(X) == 0:
        raise ValueError("the table has no rows: there is nothing to mine")
    if entity is not None and entity not in X.columns:
        raise ValueError(f"entity {entity!r} is not a column ({list(X.columns)})")
    if not 0 <= near < 1:
        raise ValueError(f"near must be in [0, 1), got {near}")
    X = X.reset_index(drop=True)
    facts = [column_facts(X[c]) for c in X.columns if c != entity]
    n = len(X)
    rng = random_generator(random_state)
    rows = np.arange(n) if n <= sample else np.sort(rng.choice(n, size=sample, replace=False))
    varying = [f for f in facts if f.n_distinct > 1]
    groups = mine_groups(X, [f for f in varying if f.n_distinct < n], rows, near)
    return [
        *mine_orderings(X, varying, rows, near),
        *groups,
        *mine_derived(X, varying, rows, groups),
        *fixed_candidates(X, facts, entity),
        *monotone_candidates(facts, n),
        *ranges(facts, n),
    ]
