"""Data laws: mine the laws a table's rows obey and draft them as a PLAF program to review.

``geco.suggest(X)`` returns the draft's text; ``mine(X)`` the laws themselves
(:class:`Law`: statement, rows checked, rows breaking it, active or a comment). A law is only
ever active when no row breaks it; the draft is for a person to read, never applied by itself.
"""

from __future__ import annotations

import pandas as pd

from geco.laws.draft import draft
from geco.laws.law import KINDS, Law
from geco.laws.mine import NEAR, SAMPLE, mine
from geco.laws.respect import breaks

__all__ = ["KINDS", "Law", "breaks", "draft", "mine", "suggest"]


def suggest(
    X: pd.DataFrame,
    *,
    entity: str | None = None,
    near: float = NEAR,
    sample: int = SAMPLE,
    source: str = "the data",
    random_state: int = 0,
) -> str:
    """A commented draft PLAF program of the laws of ``X`` (see :func:`mine` for the options;
    ``source`` names the data in the draft's header). It parses and checks against ``X``'s
    schema, alone or added to a program written for the same columns."""
    laws = mine(X, entity=entity, near=near, sample=sample, random_state=random_state)
    n_columns = X.shape[1] - (entity is not None)
    return draft(laws, rows=len(X), columns=n_columns, source=source)
