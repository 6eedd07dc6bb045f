"""The HTML report in a real browser: headless Chromium renders the charts without console
errors, loads fast, the filters change which instance cards are visible, and no card needs
sideways scrolling on a laptop (1280 px) or a phone (390 px).

Skipped when playwright or a Chromium binary is missing (CI installs Debian's chromium)."""

from collections import Counter

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

import geco
from geco.models import one_hot_pipeline

pytest.importorskip("matplotlib")
pytest.importorskip("playwright.sync_api")
from geco.report.browser import find_chromium, open_report, save_screenshot

if find_chromium() is None:
    pytest.skip("no Chromium binary (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def batch():
    """COMPAS, a small forest, 16 declined rows and 2 already desired (2+ failures)."""
    ds = geco.datasets.load_compas()
    model = one_hot_pipeline(ds.X, RandomForestClassifier(n_estimators=20, max_depth=6, random_state=0))
    model.fit(ds.X, ds.y)
    explainer = geco.Explainer(model, ds.X, ds.constraints, desired_class=ds.desired_class)
    p = model.predict_proba(ds.X)[:, list(model.classes_).index(ds.desired_class)]
    rows = np.r_[np.flatnonzero(p <= 0.5)[:16], np.flatnonzero(p > 0.5)[:2]]
    return explainer.explain_many(ds.X.iloc[rows], random_state=0)


def _visible(page) -> int:
    return page.locator("article.card:visible").count()


def test_report_in_headless_chromium(batch, tmp_path):
    constraints = geco.datasets.load_compas().constraints
    path = geco.report(batch, tmp_path / "report.html", dataset="compas", constraints_file=constraints)
    n = len(batch)
    n_desired = sum("already classified" in e.reason for e in batch)
    n_failed = sum(not e.success for e in batch) - n_desired
    with_priors = sum(
        bool((cf["PriorsCount"] != e.x["PriorsCount"].iloc[0]).any())
        for e in batch
        if e.success
        for cf in [e.counterfactuals[e.counterfactuals["counterfactual"]]]
    )
    assert n_desired == 2 and n - n_failed - n_desired > 0 and 0 < with_priors < n

    with open_report(path) as (page, check):
        assert check.svg_count == 4, "the four charts should be inline SVG"
        n_bars = page.locator('#chart-features svg g[id^="fc-patch"]').count()
        assert n_bars >= 2 * len(batch[0].features)  # two bars per feature (plus the axes patch)
        for chart in ("#chart-features", "#chart-n-changed", "#chart-distance", "#chart-seconds"):
            box = page.locator(f"{chart} svg").bounding_box()
            assert box["width"] > 200 and box["height"] > 150, (chart, box)
        assert check.load_seconds < 2.0, f"load took {check.load_seconds:.2f} s"
        print(f"\nload {check.load_seconds:.3f} s (navigation timing), {check.wall_seconds:.3f} s wall")

        assert _visible(page) == n
        assert page.locator("#shown").text_content() == f"{n} of {n} instances shown"

        page.select_option("#outcome", "not-found")
        assert _visible(page) == n_failed
        page.select_option("#outcome", "desired")
        assert _visible(page) == n_desired
        page.select_option("#outcome", "")
        page.click('.tile[data-filter-outcome="found"]')
        assert page.eval_on_selector("#outcome", "el => el.value") == "found"
        assert _visible(page) == n - n_failed - n_desired
        page.select_option("#outcome", "")

        page.select_option("#feature", "PriorsCount")
        assert _visible(page) == with_priors
        page.select_option("#scope", "best")
        best_counts = Counter(
            f for e in batch if e.success for f in e.changes().query("counterfactual == 1")["feature"]
        )  # the best is #1, as printed
        assert _visible(page) == best_counts["PriorsCount"]
        page.select_option("#scope", "any")
        page.select_option("#feature", "")

        page.fill("#q", "no such value anywhere")
        assert _visible(page) == 0 and page.locator("#shown").text_content().startswith("0 of")
        page.fill("#q", "already classified")  # the reason on the cards of rows already desired
        assert _visible(page) == sum("already classified" in e.reason for e in batch) > 0
        page.fill("#q", "")
        assert _visible(page) == n

        page.click('#feature-changes tr[data-feature="Race"]')  # fixed: no card changes it
        assert page.eval_on_selector("#feature", "el => el.value") == "Race"
        assert _visible(page) == 0

        page.select_option("#feature", "")
        size = save_screenshot(page, tmp_path / "report.png", height=1200)
        assert size > 10_000 and (tmp_path / "report.png").read_bytes()[:4] == b"\x89PNG"
        assert check.console_errors == []


#: every card and everything in it that could scroll: (id, what, scrollWidth, clientWidth)
_OVERFLOW = """() => { const bad = [];
  document.querySelectorAll('article.card').forEach(card => {
    [card, ...card.querySelectorAll('*')].forEach(el => {
      const scrolls = el === card || getComputedStyle(el).overflowX !== 'visible';
      if (scrolls && el.scrollWidth > el.clientWidth) bad.push([card.id, el.tagName, el.scrollWidth, el.clientWidth]);
    });
  });
  return bad; }"""


@pytest.fixture(scope="module")
def wide_batch():
    """Adult (13 features, long category names, money): the widest cards."""
    ds = geco.datasets.load_adult()
    X, y = ds.X.iloc[:4000], ds.y.iloc[:4000]
    model = one_hot_pipeline(X, RandomForestClassifier(n_estimators=20, max_depth=6, random_state=0)).fit(X, y)
    explainer = geco.Explainer(model, X, ds.constraints, desired_class=ds.desired_class)
    p = model.predict_proba(X)[:, list(model.classes_).index(ds.desired_class)]
    rows = np.r_[np.flatnonzero(p <= 0.5)[:5], np.flatnonzero(p > 0.5)[:1]]
    return explainer.explain_many(X.iloc[rows], random_state=0, progress=False)


@pytest.mark.parametrize("width", [1280, 390])
def test_cards_fit_without_sideways_scrolling(wide_batch, tmp_path, width):
    assert sum(e.success for e in wide_batch) >= 3
    assert max(len(e.counterfactuals) for e in wide_batch) == 5  # k columns beside x
    path = geco.report(wide_batch, tmp_path / "report.html", dataset="adult")
    with open_report(path, width=width) as (page, check):
        # lay out every card, not only those in view (they use content-visibility: auto)
        page.add_style_tag(content="article.card { content-visibility: visible !important; }")
        assert page.locator("article.card").count() == len(wide_batch)
        assert page.evaluate(_OVERFLOW) == []
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # nor the page
        assert check.console_errors == []
