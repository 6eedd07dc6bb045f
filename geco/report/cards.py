"""One card per explained instance: x, each counterfactual with its changes highlighted, the
probability before and after (the notebook view, ``Explanation._repr_html_``, as static HTML).

The table is turned on its side - a column per row (x, then #1, #2, ... numbered as the printed
explanation numbers them), a line per feature that some row changes - and the features no row
changes are listed once below it, so a card fits the page's width on a laptop or a phone
without scrolling sideways. The card's ``data-*`` attributes carry what the page's filters
need: the outcome and the features changed by the best counterfactual and by any of them."""

from __future__ import annotations

from html import escape

import numpy as np

from geco.report.numbers import format_change, format_number, format_probability, format_value
from geco.report.outcomes import BADGES, FOUND
from geco.report.summary import InstanceView

__all__ = ["DISTANCE_DIGITS", "card", "format_value", "outcome"]

#: significant digits of a distance: enough to rank the rows, short enough for a phone's width
DISTANCE_DIGITS = 3


def outcome(v: InstanceView) -> str:
    """The card's outcome: one of ``geco.report.outcomes.OUTCOMES``."""
    return v.outcome


def _feature_list(names: list[str]) -> str:
    """``|a|b|`` - the page's filter looks for ``|name|``."""
    return escape("|" + "|".join(names) + "|")


def _move(v: InstanceView, row: int, j: int) -> str:
    """``<b>f</b> a → b``, with the signed change after a number: ``(+28,400)``."""
    a, b = v.x[j], v.values[row, j]
    text = f"<b>{escape(v.features[j])}</b> {escape(format_value(a))} → {escape(format_value(b))}"
    if v.numeric[j]:
        text += f" ({escape(format_change(float(b) - float(a)))})"
    return text


def _breakable(name: str) -> str:
    """A feature name that may wrap after its underscores (``hours_per_week``) on a narrow card."""
    return "_<wbr>".join(escape(part) for part in name.split("_"))


def _score(e) -> tuple[str, object]:
    """The name of the model's number for ``e``'s target (:attr:`Explanation.score_name`) and how
    it is written: a probability to three decimals, a margin or a prediction to five digits."""
    name = e.score_name
    return name, format_probability if name == "p" else (lambda v: format_number(float(v), 5))


def _label(v: InstanceView, i: int) -> str:
    if v.is_cf[i]:
        return f"<th>#{i + 1}</th>"
    return f'<th class="nc" title="best candidate, not a counterfactual">#{i + 1}*</th>'


def _table(v: InstanceView, shown: np.ndarray) -> str:
    """x and every reported row side by side: p, distance, changes, then the features in
    ``shown`` (their indices), changed cells highlighted."""
    e = v.explanation
    n = len(v.values)
    head = "".join(_label(v, i) for i in range(n))
    out = [f'<table class="cf"><thead><tr><th></th><th>x</th>{head}</tr></thead><tbody>']
    name, written = _score(e)
    out.append(f'<tr class="m"><th>{name}</th><td>{written(e.x_probability)}</td>'
               + "".join(f"<td>{written(p)}</td>" for p in v.probability) + "</tr>")  # fmt: skip
    out.append('<tr class="m"><th>distance</th><td></td>'
               + "".join(f"<td>{escape(format_number(d, DISTANCE_DIGITS))}</td>" for d in v.distance) + "</tr>")  # fmt: skip
    out.append('<tr class="m sep"><th>changes</th><td></td>'
               + "".join(f"<td>{int(c)}</td>" for c in v.n_changed) + "</tr>")  # fmt: skip
    for j in shown:
        cells = "".join(
            f'<td class="{"c" if v.changed[i, j] else "u"}">{escape(format_value(v.values[i, j]))}</td>'
            for i in range(n)
        )
        row_class = ' class="n"' if v.numeric[j] else ""  # numbers never wrap inside
        out.append(f"<tr{row_class}><th>{_breakable(v.features[j])}</th><td>{escape(format_value(v.x[j]))}</td>{cells}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _values(v: InstanceView, idx: np.ndarray, label: str) -> str:
    items = " · ".join(
        f'<span class="fv"><b>{escape(v.features[j])}</b> {escape(format_value(v.x[j]))}</span>' for j in idx
    )
    return f'<p class="same"><span class="lbl">{escape(label)}</span> {items}</p>' if len(idx) else ""


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
    name, written = _score(e)
    if v.found:
        p_after = f" → {written(v.probability[v.best])}"
    elif len(v.probability):  # the best candidates the search reached, none a counterfactual:
        closest = v.probability.max() if name == "p" else v.probability[0]  # the closest shown first
        p_after = f" (best candidate {written(closest)})"
    else:
        p_after = ""
    meta = [f"{n_cf} counterfactual{'' if n_cf == 1 else 's'}"] if kind == FOUND or len(v.values) else []
    if "seconds_total" in e.stats:
        meta.append(f"{float(e.stats['seconds_total']):.2f} s")
    out = [
        f'<article class="card" id="{escape(anchor)}" data-outcome="{kind}" '
        f'data-best="{_feature_list(best)}" data-any="{_feature_list(anyc)}">',
        f'<h3><span class="rid">row {escape(format_value(e.x.index[0]))}</span>'
        f'<span class="badge {kind}">{BADGES[kind]}</span>'
        f'<span class="pp">{name} {written(e.x_probability)}{p_after}</span>'
        f'<span class="meta">{" · ".join(meta)}</span></h3>',
    ]
    if v.found:
        b = v.best
        moves = "; ".join(_move(v, b, j) for j in range(len(feats)) if v.changed[b, j])
        out.append(f'<p class="best">best (#{b + 1}): {moves}</p>')
    if e.reason:
        out.append(f'<p class="reason">{escape(e.reason)}</p>')
    if len(v.values):
        changed = v.changed.any(axis=0)
        out.append(_table(v, np.flatnonzero(changed)))
        out.append(_values(v, np.flatnonzero(~changed), "unchanged in every row:"))
    else:
        out.append(_values(v, np.arange(len(feats)), "x:"))
    out.append("</article>")
    return "".join(out)
