"""Numbers in the report are written for people, the same way in cards, tables and charts:
thousands separators, no exponents, a sign on every change."""

import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

import geco
from geco.report import charts, render
from geco.report.numbers import (
    format_change,
    format_count,
    format_number,
    format_probability,
    format_value,
)
from geco.report.summary import BatchSummary

pytest.importorskip("matplotlib")

EXPONENT = re.compile(r"\d[eE][+-]?\d")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (28400.0, "28,400"), (28437.6, "28,438"), (1234567, "1,234,567"), (np.int64(-4200), "-4,200"),
        (999.94, "999.9"), (12.3456, "12.35"), (40.0, "40"), (0.1234567, "0.1235"), (0.000123456, "0.0001235"),
        (0.0, "0"), (-0.5, "-0.5"), (float("nan"), "nan"),
    ],
)  # fmt: skip
def test_format_number(value, text):
    assert format_number(value) == text


def test_changes_counts_values_probabilities():
    assert format_change(28400.0) == "+28,400" and format_change(-3) == "-3" and format_change(0.0) == "0"
    assert format_change(0.25) == "+0.25"
    assert format_count(12000) == "12,000"
    assert format_value("Self-emp") == "Self-emp" and format_value(True) == "True" and format_value(7) == "7"
    assert format_value(np.float64(25000.0)) == "25,000"
    assert format_probability(0.61234) == "0.612" and format_probability(float("nan")) == "–"


@pytest.fixture(scope="module")
def money():
    """Loans decided by income (tens of thousands): a counterfactual raises income by
    thousands - the values the report once wrote as ``+2.84e+04``."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"income": rng.integers(10_000, 120_000, 600) * 1.0, "age": rng.integers(20, 70, 600)})
    y = (X["income"] > 60_000).astype(int)
    model = RandomForestClassifier(n_estimators=10, max_depth=4, random_state=0).fit(X, y)
    explainer = geco.Explainer(model, X, "fixed age", desired_class=1)
    rows = X.index[(model.predict_proba(X)[:, 1] <= 0.5) & (X["income"] < 30_000)][:4]
    return explainer.explain_many(X.loc[rows], random_state=0, progress=False)


def _outside_svg(html: str) -> str:
    return re.sub(r"<svg.*?</svg>", "", html, flags=re.S)


def test_money_has_separators_and_signs(money):
    assert all(e.success for e in money)
    html = render(money)
    deltas = [float(v) - float(e.x["income"].iloc[0]) for e in money
              for v in e.counterfactuals.loc[e.counterfactuals["counterfactual"], "income"]]  # fmt: skip
    assert np.median(deltas) > 10_000
    row = re.search(r'<tr data-feature="income">.*?</tr>', html).group(0)
    median_change, median_abs = re.findall(r'<td class="num">([^<]+)</td>', row)[-2:]
    assert median_change == format_change(float(np.median(deltas)))
    assert re.fullmatch(r"\+\d{1,3}(,\d{3})+", median_change)
    assert median_abs == format_number(float(np.median(np.abs(deltas))))
    e = money[0]
    x, cf = float(e.x["income"].iloc[0]), float(e.counterfactuals["income"].iloc[0])
    assert f"<b>income</b> {format_number(x)} → {format_number(cf)} ({format_change(cf - x)})" in html
    assert f'<td class="c">{format_number(cf)}</td>' in html
    assert not EXPONENT.search(re.sub(r"<(style|script)>.*?</\1>", "", _outside_svg(html), flags=re.S))


def test_chart_numbers_match_the_tables():
    """Counts of thousands on the feature chart's bars and axis: ``12,000``, never ``1.2e+04``."""
    n = 12_000
    s = BatchSummary(
        n=n, n_found=n, n_not_found=0, n_desired=0, n_error=0, features=["income", "age"],
        numeric={"income": True, "age": True}, seconds=np.full(10, 0.02),
        best_counts={"income": n, "age": 3_500}, any_counts={"income": n, "age": 4_200},
        n_changed_best=np.ones(n, dtype=int), distance_best=np.full(n, 0.1), n_counterfactuals=n,
        numeric_changes=[], transitions={}, not_found=[], errors=[], desired=[], engines=Counter(),
    )  # fmt: skip
    svg = charts.feature_change_chart(s)
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert " 12,000" in texts and " 4,200" in texts and "10,500" in texts  # bar labels, an axis tick
    assert "of 12,000 with a counterfactual" in svg
    for chart in (svg, charts.n_changed_chart(s), charts.seconds_chart(s)):
        assert not any(EXPONENT.search(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", chart))
