"""The report's data-laws section: for each law the data obeys (``geco.laws.mine``), how many of
the batch's answers respect it - a counterfactual can meet every rule written and still break a
law every row of the data keeps (a maximum payment below the latest one)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

import numpy as np
import pandas as pd

from geco.report.numbers import format_count
from geco.result import Explanation

__all__ = ["laws_section"]


def _answers(explanations: Sequence[Explanation]) -> tuple[pd.DataFrame, np.ndarray]:
    """Every counterfactual of the batch (features only) and which of them is an answer's #1."""
    parts = []
    for e in explanations:
        cf = e.counterfactuals
        if len(cf) and "counterfactual" in cf:
            cf = cf[cf["counterfactual"].to_numpy(dtype=bool)]
            parts.append(cf[list(e.features)].assign(_best=np.arange(len(cf)) == 0))
    if not parts:
        return pd.DataFrame(), np.zeros(0, dtype=bool)
    frame = pd.concat(parts, ignore_index=True)
    return frame.drop(columns="_best"), frame["_best"].to_numpy(dtype=bool)


def laws_section(explanations: Sequence[Explanation], laws: Sequence[Any], data: pd.DataFrame | None) -> str:
    """The section's HTML: per active ordering or group law, the answers that break it (the
    best of each instance, and any of the k); group laws need ``data``, the table they were mined
    from (the value tuples it holds)."""
    from geco.laws import breaks  # the miner lives beside the search, not below the report

    active = [law for law in laws if law.active and law.kind in ("ordering", "group")]
    if data is None:
        active = [law for law in active if law.kind == "ordering"]
    cfs, best = _answers(explanations)
    head = '<section id="laws"><h2>Data laws the answers respect</h2>'
    if not active:
        return head + '<p class="note">No ordering or group law to check.</p></section>'
    if len(cfs) == 0:
        return head + '<p class="note">No counterfactual to check.</p></section>'
    broken = breaks(active, cfs, data if data is not None else cfs)
    rows = []
    for law in active:
        bad = broken[law.statement].to_numpy(dtype=bool)
        rows.append(
            f"<tr><td><code>{escape(law.statement)}</code></td><td>{escape(law.kind)}</td>"
            f'<td class="num">{format_count(int(bad[best].sum()))} of {format_count(int(best.sum()))}</td>'
            f'<td class="num">{format_count(int(bad.sum()))} of {format_count(len(bad))}</td></tr>'
        )
    return (
        head + '<p class="note">Laws every row of the data keeps (geco suggest); a counterfactual that '
        "breaks one describes a customer the data has never seen. Add them to the program to enforce "
        "them.</p>"
        '<div class="scroll"><table class="laws"><tr><th>law</th><th>kind</th><th>best (#1) breaking it</th>'
        f"<th>any counterfactual breaking it</th></tr>{''.join(rows)}</table></div></section>"
    )
