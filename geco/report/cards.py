"""One card per explained instance: x, each counterfactual with its changes highlighted, the
probability before and after (the notebook view, ``Explanation._repr_html_``, as static HTML).

The card's ``data-*`` attributes carry what the page's filters need: the outcome and the
features changed by the best counterfactual and by any of them."""

from __future__ import annotations

from html import escape
from typing import Any

import numpy as np

from geco.report.summary import InstanceView

__all__ = ["card", "format_value", "outcome"]


def format_value(v: Any) -> str:
    """A feature value as a person reads it: floats to 4 significant digits, the rest as is."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def outcome(v: InstanceView) -> str:
    """``found`` when a counterfactual was found, else ``failed``."""
    return "found" if v.found else "failed"


def _feature_list(names: list[str]) -> str:
    """``|a|b|`` - the page's filter looks for ``|name|``."""
    return escape("|" + "|".join(names) + "|")


def card(v: InstanceView, anchor: str) -> str:
    """The HTML card for one explanation; ``anchor`` is its element id."""
    e = v.explanation
    feats = v.features
    kind = outcome(v)
    if v.found:
        best = [f for f, c in zip(feats, v.changed[v.best]) if c]
        anyc = [f for f, c in zip(feats, v.changed[v.is_cf].any(axis=0)) if c]
    else:
        best = anyc = []
    n_cf = int(v.is_cf.sum())
    if v.found:
        p_after = f" → {v.probability[v.best]:.3f}"
    else:  # the best candidates the search reached, none of them a counterfactual
        p_after = f" (best candidate {v.probability.max():.3f})" if len(v.probability) else ""
    meta = [f"{n_cf} counterfactual{'' if n_cf == 1 else 's'}"]
    if "seconds_total" in e.stats:
        meta.append(f"{float(e.stats['seconds_total']):.2f} s")
    badge = "found" if kind == "found" else "not found"
    out = [
        f'<article class="card" id="{escape(anchor)}" data-outcome="{kind}" '
        f'data-best="{_feature_list(best)}" data-any="{_feature_list(anyc)}">',
        f'<h3><span class="rid">row {escape(format_value(e.x.index[0]))}</span>'
        f'<span class="badge {kind}">{badge}</span>'
        f'<span class="pp">p {e.x_probability:.3f}{p_after}</span>'
        f'<span class="meta">{" · ".join(meta)}</span></h3>',
    ]
    if v.found:
        b = v.best
        moves = "; ".join(
            f"<b>{escape(f)}</b> {escape(format_value(v.x[j]))} → {escape(format_value(v.values[b, j]))}"
            for j, f in enumerate(feats)
            if v.changed[b, j]
        )
        out.append(f'<p class="best">best: {moves}</p>')
    if e.reason:
        out.append(f'<p class="reason">{escape(e.reason)}</p>')
    head = "".join(f"<th>{escape(f)}</th>" for f in feats)
    # p, distance and changes first: they stay in view when a wide table scrolls
    out.append('<div class="tw"><table class="cf"><thead><tr><th></th><th>p</th><th>distance</th>'
               f'<th class="sep">changes</th>{head}</tr></thead><tbody>')  # fmt: skip
    xcells = "".join(f"<td>{escape(format_value(a))}</td>" for a in v.x)
    out.append(f'<tr class="x"><th>x</th><td>{e.x_probability:.3f}</td><td></td><td class="sep"></td>{xcells}</tr>')
    for i in range(len(v.values)):
        cells = "".join(
            f'<td class="{"c" if c else "u"}">{escape(format_value(a))}</td>'
            for a, c in zip(v.values[i], v.changed[i])
        )
        label = f"#{i + 1}" if v.is_cf[i] else f"#{i + 1}*"
        cls = "" if v.is_cf[i] else ' class="nc" title="best candidate, not a counterfactual"'
        out.append(
            f"<tr{cls}><th>{label}</th><td>{v.probability[i]:.3f}</td><td>{v.distance[i]:.4f}</td>"
            f'<td class="sep">{v.n_changed[i]}</td>{cells}</tr>'
        )
    out.append("</tbody></table></div></article>")
    return "".join(out)
