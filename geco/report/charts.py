"""The report's charts, drawn with matplotlib as static SVG text to inline in the page.

No pyplot (no global figure state); text stays text (``svg.fonttype: none``) to keep the SVG
small; element ids get a per-chart prefix so several charts can share one HTML page. Numbers
on the axes and bars are written as in the tables (:mod:`geco.report.numbers`: ``28,400``, not
``2.84e+04`` or an offset)."""

from __future__ import annotations

import io
import re

import numpy as np

from geco.report.numbers import format_count, format_number
from geco.report.summary import BatchSummary

__all__ = ["distance_chart", "feature_change_chart", "n_changed_chart", "require_matplotlib", "seconds_chart"]

BEST = "#1f5fa8"
ANY = "#9cc3e6"
_RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "geco-report",
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
}


def require_matplotlib():
    """The matplotlib module, or an ImportError that names the extra to install."""
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError(
            "geco.report draws its charts with matplotlib, which is not installed: "
            "pip install 'geco-cf[report]'"
        ) from exc
    return matplotlib


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def _to_svg(fig, prefix: str) -> str:
    """The figure as an inline ``<svg>`` element (no XML prolog, no metadata, prefixed ids)."""
    matplotlib = require_matplotlib()
    buf = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    text = re.sub(r'\bid="', f'id="{prefix}-', text)
    text = re.sub(r"url\(#", f"url(#{prefix}-", text)
    text = re.sub(r'href="#', f'href="#{prefix}-', text)
    return text.strip()


def _draw(width: float, height: float, prefix: str, paint) -> str:
    matplotlib = require_matplotlib()
    with matplotlib.rc_context(_RC):
        fig = _figure(width, height)
        ax = fig.add_subplot()
        paint(ax)
        fig.tight_layout()
    return _to_svg(fig, prefix)


def _integer_axis(axis) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))
    _number_axis(axis)


def _number_axis(axis) -> None:
    """Tick labels as the tables write numbers (thousands separators, no exponent or offset)."""
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda v, _pos: format_number(v)))


def _placeholder(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#666")
    ax.set_axis_off()


def feature_change_chart(s: BatchSummary) -> str:
    """Horizontal bars per feature: instances whose best counterfactual changes it, and
    instances where any of the k does; most changed first, never-changed features last."""
    order = sorted(s.features, key=lambda f: (-s.any_counts[f], -s.best_counts[f], s.features.index(f)))
    best = np.array([s.best_counts[f] for f in order])
    anyc = np.array([s.any_counts[f] for f in order])

    def paint(ax):
        if not s.n_found:
            _placeholder(ax, "no counterfactual found")
            return
        y = np.arange(len(order))
        h = 0.4
        ax.barh(y - h / 2, best, h, color=BEST, label="best counterfactual")
        ax.barh(y + h / 2, anyc, h, color=ANY, label="any of the k")
        for yi, b, a in zip(y, best, anyc):
            if a:  # no labels on never-changed features: the table lists their zeros
                ax.text(b, yi - h / 2, f" {format_count(b)}", va="center", fontsize=7)
                ax.text(a, yi + h / 2, f" {format_count(a)}", va="center", fontsize=7)
        ax.set_yticks(y, order)
        ax.invert_yaxis()
        ax.set_xlim(0, max(1, int(anyc.max())) * 1.12)
        _integer_axis(ax.xaxis)
        ax.set_xlabel(f"instances (of {format_count(s.n_found)} with a counterfactual)")
        ax.set_title("How often each feature is changed")
        ax.legend(loc="lower right", frameon=False)

    return _draw(6.4, 1.0 + 0.32 * len(order), "fc", paint)


def n_changed_chart(s: BatchSummary) -> str:
    """Bars: how many features the best counterfactual changes, per instance."""

    def paint(ax):
        if not len(s.n_changed_best):
            _placeholder(ax, "no counterfactual found")
            return
        values, counts = np.unique(s.n_changed_best, return_counts=True)
        ax.bar(values, counts, 0.7, color=BEST)
        ax.set_xticks(np.arange(values.min(), values.max() + 1))
        _number_axis(ax.xaxis)
        _integer_axis(ax.yaxis)
        ax.set_xlabel("features changed (best counterfactual)")
        ax.set_ylabel("instances")
        ax.set_title("Number of features changed")

    return _draw(3.6, 2.6, "nc", paint)


def _histogram(values: np.ndarray, xlabel: str, title: str, prefix: str, empty: str) -> str:
    def paint(ax):
        if not len(values):
            _placeholder(ax, empty)
            return
        bins = min(20, max(1, len(np.unique(values))))
        ax.hist(values, bins=bins, color=BEST, edgecolor="white", linewidth=0.5)
        _number_axis(ax.xaxis)
        _integer_axis(ax.yaxis)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("instances")
        ax.set_title(title)

    return _draw(3.6, 2.6, prefix, paint)


def distance_chart(s: BatchSummary) -> str:
    """Histogram of the best counterfactual's distance to x."""
    return _histogram(s.distance_best, "distance (best counterfactual)", "How far the counterfactual is",
                      "dc", "no counterfactual found")  # fmt: skip


def seconds_chart(s: BatchSummary) -> str:
    """Histogram of the time spent per search (rows already desired or that errored left out)."""
    return _histogram(s.seconds, "seconds per search", "Time per explanation", "sc", "no timings recorded")
