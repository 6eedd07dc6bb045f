"""Assemble the report: one HTML page with its styles, script, charts and data inlined.

The page loads nothing at view time (a Content-Security-Policy forbids it), so it can be
opened offline or sent as an e-mail attachment."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from geco.report import charts
from geco.report.cards import card
from geco.report.constraints import ProgramsUsed, constraints_block, programs_used
from geco.report.laws import laws_section
from geco.report.numbers import format_change, format_count, format_number, format_value
from geco.report.outcomes import BADGES, DESIRED, ERROR, FOUND, NOT_FOUND, OUTCOMES
from geco.report.summary import BatchSummary, instance_view, summarise
from geco.result import Explanation

__all__ = ["KNOWN_METADATA", "describe_model", "render"]

KNOWN_METADATA = ("title", "dataset", "model", "engine", "plaf", "constraints_file", "generated")
_HIDDEN = {"format", "categories"}  # JSONL header bookkeeping, not for people
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def _asset(name: str) -> str:
    return (resources.files("geco.report") / "assets" / name).read_text(encoding="utf-8")


def describe_model(model: Any) -> str:
    """A short description of a fitted model: its class (the steps of a Pipeline) and the
    size settings a reader asks about first (trees, depth, layers)."""
    if isinstance(model, str):
        return model
    steps = getattr(model, "steps", None)
    if steps:
        return " → ".join(describe_model(est) for _, est in steps)
    params = []
    for name in ("n_estimators", "max_depth", "hidden_layer_sizes"):
        value = getattr(model, name, None)
        if value is not None:
            params.append(f"{name}={value}")
    return f"{type(model).__name__}({', '.join(params)})"


def _metadata(meta: Mapping[str, Any], s: BatchSummary, used: ProgramsUsed) -> dict[str, str]:
    """Metadata as display strings (empty ones left out; the program itself is shown apart):
    the constraints file by its name, else the names the explanations record."""
    out = {k: v for k, v in meta.items() if v is not None and v != "" and k not in _HIDDEN and k != "plaf"}
    if "constraints_file" in out:
        out["constraints_file"] = Path(str(out["constraints_file"])).name
    elif used.files:
        out["constraints_file"] = ", ".join(used.files)
    if "model" in out:
        out["model"] = describe_model(out["model"])
    if "engine" not in out and s.engines:
        out["engine"] = ", ".join(f"{e} ({n} instances)" for e, n in s.engines.most_common())
    out.setdefault("generated", _dt.datetime.now().strftime("%Y-%m-%d %H:%M"))
    return {k: str(v) for k, v in out.items()}


def _pct(n: int, total: int) -> str:
    if not total:
        return "–"
    pct = 100.0 * n / total
    return "<1%" if 0 < pct < 1 else f"{pct:.0f}%"


def _seconds(v: float) -> str:
    return "–" if not np.isfinite(v) else (f"{v * 1000:.0f} ms" if v < 1 else f"{v:.2f} s")


def _tiles(s: BatchSummary) -> str:
    """The overview's numbers. Rows are counted as the CLI counts them (rows, with
    counterfactuals, failed with an error); the success rate is over the rows that needed
    explaining. A tile of an outcome filters the cards to it when clicked."""
    med_changed = format_number(float(np.median(s.n_changed_best))) if len(s.n_changed_best) else "–"
    tiles = [
        ("n-instances", format_count(s.n), "rows in the batch", None),
        ("n-needed", format_count(s.n_needed), "needed explaining", None),
        ("n-found", format_count(s.n_found), "with a counterfactual", FOUND),
        ("success-rate", _pct(s.n_found, s.n_needed), "success rate (of the rows that needed explaining)", None),
        ("n-not-found", format_count(s.n_not_found), "no counterfactual found", NOT_FOUND),
        ("n-desired", format_count(s.n_desired), "already desired: nothing to explain", DESIRED),
        ("n-error", format_count(s.n_error), "failed with an error", ERROR),
        ("seconds-median", _seconds(s.seconds_quantile(0.5)), "median time per search", None),
        ("seconds-p90", _seconds(s.seconds_quantile(0.9)), "90th percentile time", None),
        ("median-changed", med_changed, "median features changed (best)", None),
    ]
    return '<div class="tiles">' + "".join(_tile(*t) for t in tiles) + "</div>"


def _tile(ident: str, value: str, label: str, kind: str | None) -> str:
    click = "" if kind is None else f' data-filter-outcome="{kind}" title="show these rows"'
    return f'<div class="tile"{click}><b id="{ident}">{escape(value)}</b><span>{escape(label)}</span></div>'


def _feature_table(s: BatchSummary) -> str:
    rows = []
    for f in sorted(s.features, key=lambda f: (-s.any_counts[f], -s.best_counts[f], s.features.index(f))):
        b, a = s.best_counts[f], s.any_counts[f]
        rows.append(
            f'<tr data-feature="{escape(f)}" data-filter-feature="{escape(f)}" title="show the instances">'
            f"<th>{escape(f)}</th><td>{'numeric' if s.numeric[f] else 'categorical'}</td>"
            f'<td class="num best">{format_count(b)}</td><td class="num">{_pct(b, s.n_found)}</td>'
            f'<td class="num any">{format_count(a)}</td><td class="num">{_pct(a, s.n_found)}</td></tr>'
        )
    return (
        '<table class="grid" id="feature-changes"><thead><tr><th>feature</th><th>kind</th>'
        '<th class="num">best cf</th><th class="num">%</th><th class="num">any cf</th>'
        f'<th class="num">%</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def _numeric_table(s: BatchSummary) -> str:
    if not s.numeric_changes:
        return '<p class="note">No numeric feature is changed by any counterfactual.</p>'
    rows = []
    for c in sorted(s.numeric_changes, key=lambda c: -c.n):
        direction = "up" if c.n_up > c.n_down else "down" if c.n_down > c.n_up else "either way"
        rows.append(
            f'<tr data-feature="{escape(c.feature)}"><th>{escape(c.feature)}</th>'
            f'<td class="num">{format_count(c.n)}</td>'
            f'<td class="num">{_pct(c.n_up, c.n)}</td><td class="num">{_pct(c.n_down, c.n)}</td>'
            f'<td>{direction}</td><td class="num">{format_change(c.median_change)}</td>'
            f'<td class="num">{format_number(c.median_abs_change)}</td></tr>'
        )
    return (
        '<table class="grid" id="numeric-changes"><thead><tr><th>feature</th>'
        '<th class="num">counterfactuals changing it</th><th class="num">up</th><th class="num">down</th>'
        '<th>typically</th><th class="num">median change</th><th class="num">median |change|</th>'
        f'</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def _transition_table(s: BatchSummary) -> str:
    if not s.transitions:
        return '<p class="note">No categorical feature is changed by any counterfactual.</p>'
    rows = []
    for f, items in s.transitions.items():
        for a, b, n in items:
            rows.append(
                f'<tr data-feature="{escape(f)}"><th>{escape(f)}</th><td>{escape(format_value(a))}</td>'
                f'<td>→</td><td>{escape(format_value(b))}</td><td class="num">{format_count(n)}</td></tr>'
            )
    return (
        '<table class="grid" id="transitions"><thead><tr><th>feature</th><th>from</th><th></th>'
        f'<th>to</th><th class="num">counterfactuals</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def _row_link(anchor: str, row: object) -> str:
    return f'<a href="#{anchor}">row {escape(format_value(row))}</a>'


def _outcome_sections(explanations: Sequence[Explanation], kinds: list[str], anchors: list[str],
                      s: BatchSummary) -> str:  # fmt: skip
    """The rows without a counterfactual, each kind apart: not found (with the reasons),
    errors (with the errors), already desired (nothing to explain)."""

    def reasons(kind: str) -> str:
        return "".join(
            f"<li>{_row_link(anchors[i], e.x.index[0])}: {escape(e.reason or 'no reason given')}</li>"
            for i, e in enumerate(explanations) if kinds[i] == kind
        )  # fmt: skip

    items = reasons(NOT_FOUND)
    body = (f'<ul class="failed" id="failed">{items}</ul>' if items
            else '<p class="note">Every row that needed explaining has a counterfactual.</p>')  # fmt: skip
    out = [f'<section id="not-found"><h2>No counterfactual found ({format_count(s.n_not_found)})</h2>{body}</section>']
    if s.n_error:
        out.append(f'<section id="errors"><h2>Failed with an error ({format_count(s.n_error)})</h2>'
                   f'<ul class="failed">{reasons(ERROR)}</ul></section>')  # fmt: skip
    if s.n_desired:
        rows = ", ".join(_row_link(anchors[i], e.x.index[0]) for i, e in enumerate(explanations) if kinds[i] == DESIRED)
        out.append(f'<section id="desired"><h2>Already desired: nothing to explain ({format_count(s.n_desired)})</h2>'
                   '<p class="note">The model already gives these rows the desired class; they are not '
                   f"counted in the success rate.</p><p>{rows}</p></section>")  # fmt: skip
    return "".join(out)


def render(explanations: Sequence[Explanation], **metadata: Any) -> str:
    """The report page for ``explanations`` as one HTML string (see ``geco.report.report``)."""
    explanations = list(explanations)
    if not explanations:
        raise ValueError("no explanations to report")
    bad = [type(e).__name__ for e in explanations if not isinstance(e, Explanation)]
    if bad:
        raise TypeError(f"report() takes geco.Explanation objects, got {bad[0]}")
    charts.require_matplotlib()
    metadata = dict(metadata)
    laws, law_data = metadata.pop("laws", None), metadata.pop("data", None)
    views = [instance_view(e) for e in explanations]
    s = summarise(views)
    used = programs_used(explanations, metadata)
    meta = _metadata(metadata, s, used)
    title = meta.pop("title", None) or f"geco report{' · ' + meta['dataset'] if 'dataset' in meta else ''}"
    generated = meta.pop("generated")
    labels = {"dataset": "Data set", "model": "Model", "engine": "Engine", "constraints_file": "Constraints"}
    ordered = [k for k in labels if k in meta] + [k for k in meta if k not in labels]
    meta_rows = "".join(f"<tr><th>{escape(labels.get(k, k))}</th><td>{escape(meta[k])}</td></tr>" for k in ordered)
    anchors = [f"c{i}" for i in range(len(explanations))]
    kinds = [v.outcome for v in views]
    options = "".join(f'<option value="{escape(f)}">{escape(f)}</option>' for f in s.features)
    outcome_options = "".join(f'<option value="{k}">{escape(BADGES[k])}</option>' for k in OUTCOMES)
    cards = "".join(card(v, anchors[i]) for i, v in enumerate(views))
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        f"<title>{escape(title)}</title><style>{_asset('report.css')}</style></head><body>",
        f'<header class="top"><h1>{escape(title)}</h1><div class="gen">generated {escape(generated)} '
        "by geco</div></header><main>",
        '<section id="overview"><div class="split"><div><h2>Overview</h2>',
        f'<table class="meta">{meta_rows}</table>{_tiles(s)}</div>',
        f'<div id="constraints"><h2>Constraints (PLAF)</h2>{constraints_block(used)}</div></div></section>',
        '<section id="changes"><h2>What the counterfactuals change</h2><div class="charts">',
        f'<figure class="chart" id="chart-features">{charts.feature_change_chart(s)}</figure>',
        f'<div class="cols"><div class="scroll">{_feature_table(s)}<p class="note">Click a feature to list '
        "the instances whose counterfactuals change it.</p></div></div></div>",
        '<div class="charts">',
        f'<figure class="chart" id="chart-n-changed">{charts.n_changed_chart(s)}</figure>',
        f'<figure class="chart" id="chart-distance">{charts.distance_chart(s)}</figure>',
        f'<figure class="chart" id="chart-seconds">{charts.seconds_chart(s)}</figure></div>',
        '<h2>Numeric features: direction and size of the change</h2>',
        '<p class="note">Over all counterfactuals (any of the k) that change the feature; change = '
        "counterfactual − x.</p>",
        f'<div class="scroll">{_numeric_table(s)}</div>',
        "<h2>Categorical features: most common changes</h2>",
        f'<div class="scroll">{_transition_table(s)}</div>',
        "</section>",
        laws_section(explanations, laws, law_data) if laws is not None else "",
        _outcome_sections(explanations, kinds, anchors, s),
        '<section id="instances"><h2>Instances</h2><div class="filters">',
        '<input id="q" type="search" placeholder="Search values, reasons, row ids…" aria-label="search">',
        f'<select id="outcome" aria-label="outcome"><option value="">all outcomes</option>{outcome_options}</select>',
        f'<select id="feature" aria-label="feature changed"><option value="">any feature</option>{options}</select>',
        '<select id="scope" aria-label="which counterfactual"><option value="any">changed in any of the k'
        '</option><option value="best">changed in the best (#1)</option></select>',
        '<span id="shown"></span></div>',
        cards,
        "</section></main>",
        f"<script>{_asset('report.js')}</script></body></html>\n",
    ])  # fmt: skip
