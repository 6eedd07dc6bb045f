"""Which active laws a set of counterfactuals respects: an ordering compares the two columns of
each counterfactual; a group asks whether its tuple of values is one seen in the data."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from geco.laws.law import Law

__all__ = ["breaks"]


def breaks(laws: Sequence[Law], counterfactuals: pd.DataFrame, X: pd.DataFrame) -> pd.DataFrame:
    """One boolean column per active ordering or group law (named by its statement), one row
    per counterfactual: True where the counterfactual breaks the law. ``X`` is the data the laws
    were mined from (a group's tuples come from it)."""
    out = {}
    for law in laws:
        if not law.active:
            continue
        if law.kind == "ordering":
            a, b = (counterfactuals[c].to_numpy() for c in law.columns)
            ok = a == b if " == " in law.statement else a >= b
            out[law.statement] = ~ok
        elif law.kind == "group":
            cols = list(law.columns)
            seen = X[cols].drop_duplicates().assign(_seen=True)
            hit = counterfactuals[cols].merge(seen, how="left", on=cols)["_seen"]
            out[law.statement] = hit.isna().to_numpy()
    return pd.DataFrame(out, index=counterfactuals.index)
