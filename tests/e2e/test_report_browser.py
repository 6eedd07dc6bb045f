"""The HTML report in a real browser: headless Chromium renders the charts without console
errors, loads fast, and the filters change which instance cards are visible.

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
    n_failed = sum(not e.success for e in batch)
    with_priors = sum(
        bool((cf["PriorsCount"] != e.x["PriorsCount"].iloc[0]).any())
        for e in batch
        if e.success
        for cf in [e.counterfactuals[e.counterfactuals["counterfactual"]]]
    )
    assert 0 < n_failed < n and 0 < with_priors < n

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

        page.select_option("#outcome", "failed")
        assert _visible(page) == n_failed
        page.select_option("#outcome", "")

        page.select_option("#feature", "PriorsCount")
        assert _visible(page) == with_priors
        page.select_option("#scope", "best")
        best_counts = Counter(
            f for e in batch if e.success for f in e.changes().query("counterfactual == 0")["feature"]
        )
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
