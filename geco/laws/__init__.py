"""Data laws: mine the laws a table's rows obey and draft them as a PLAF program to review.

``geco.suggest(X)`` returns the draft's text; ``mine(X)`` the laws themselves
(:class:`Law`: statement, rows checked, rows breaking it, active or a comment). A law is only
ever active when no row breaks it; the draft is for a person to read, never applied by itself.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from geco.laws.base import fit_to_base
from geco.laws.draft import draft
from geco.laws.law import KINDS, Law
from geco.laws.mine import NEAR, SAMPLE, mine
from geco.laws.respect import breaks
from plaf_grammar.source import resolve

__all__ = ["KINDS", "Law", "breaks", "draft", "fit_to_base", "mine", "suggest"]


def suggest(
    X: pd.DataFrame,
    *,
    entity: str | None = None,
    near: float = NEAR,
    sample: int = SAMPLE,
    base: str | Path | None = None,
    source: str = "the data",
    random_state: int = 0,
) -> str:
    """A commented draft PLAF program of the laws of ``X`` (see :func:`mine` for the options;
    ``source`` names the data in the draft's header). It parses and checks against ``X``'s
    schema. ``base``: the program (text or file) the draft is to be added to; what it states
    already or cannot take (a group clashing with one of its groups) is commented, so the two
    together check as well."""
    laws = mine(X, entity=entity, near=near, sample=sample, random_state=random_state)
    base_name = None
    if base is not None:
        text, filename = resolve(base)
        laws = fit_to_base(laws, X, text)
        base_name = Path(filename).name if filename else "the given program"
    n_columns = X.shape[1] - (entity is not None)
    return draft(laws, rows=len(X), columns=n_columns, source=source, base=base_name)
