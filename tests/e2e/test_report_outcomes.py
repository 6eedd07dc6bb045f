"""The report's outcomes and constraints on real batches: rows already desired are neither
successes nor failures, errors are their own kind, the counts agree with ``geco explain``'s
summary line, and the program the explanations were made under is shown."""

import re
from html import escape
from pathlib import Path

import joblib
import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

import geco
from geco.cli import main
from geco.models import one_hot_pipeline
from geco.report import render
from geco.report.outcomes import DESIRED, ERROR, FOUND, NOT_FOUND, outcome_of
from geco.result import Explanation, read_jsonl

pytest.importorskip("matplotlib")

RULES = "fixed Race, Sex\nincreasing AgeGroup\n"


def _tile(html: str, ident: str) -> str:
    return re.search(rf'<b id="{ident}">([^<]*)</b>', html).group(1)


@pytest.fixture(scope="module")
def mixed():
    """COMPAS, a small forest: 6 declined rows, 2 already desired, 1 under rules that leave
    nothing (not found) and 1 with a missing value (an error)."""
    ds = geco.datasets.load_compas()
    model = one_hot_pipeline(ds.X, RandomForestClassifier(n_estimators=20, max_depth=6, random_state=0))
    model.fit(ds.X, ds.y)
    explainer = geco.Explainer(model, ds.X, RULES, desired_class=ds.desired_class)
    p = model.predict_proba(ds.X)[:, list(model.classes_).index(ds.desired_class)]
    bad, good = np.flatnonzero(p <= 0.5), np.flatnonzero(p > 0.5)
    batch = explainer.explain_many(ds.X.iloc[np.r_[bad[:6], good[:2]]], random_state=0, progress=False)
    frozen = geco.Explainer(model, ds.X, "fixed AgeGroup, Race, Sex, PriorsCount, ChargeDegree",
                            desired_class=ds.desired_class)  # fmt: skip
    batch += frozen.explain_many(ds.X.iloc[bad[6:7]], random_state=0, progress=False)
    broken = ds.X.iloc[bad[7:8]].astype({"PriorsCount": float})
    broken.iloc[0, broken.columns.get_loc("PriorsCount")] = np.nan
    batch += explainer.explain_many(broken, random_state=0, progress=False)
    return batch


def test_each_row_has_one_outcome(mixed):
    kinds = [outcome_of(e) for e in mixed]
    assert kinds.count(DESIRED) == 2 and kinds.count(ERROR) == 1 and kinds[-2] == NOT_FOUND
    assert kinds.count(FOUND) == sum(e.success for e in mixed) >= 4
    assert [e.stats["outcome"] for e in mixed] == [k.replace("-", " ").replace("desired", "already desired")
                                                   for k in kinds]  # fmt: skip
    # without the recorded outcome (an older file): the same kinds
    bare = [Explanation(e.x, e.counterfactuals, e.success, e.reason, e.desired_class, e.x_probability,
                        {k: v for k, v in e.stats.items() if k != "outcome"}) for e in mixed]  # fmt: skip
    assert [outcome_of(e) for e in bare] == kinds


def test_tiles_and_sections_count_each_outcome(mixed):
    html = render(mixed)
    n_found = sum(e.success for e in mixed)
    assert _tile(html, "n-instances") == "10"
    assert _tile(html, "n-found") == str(n_found)
    assert _tile(html, "n-desired") == "2" and _tile(html, "n-error") == "1"
    assert _tile(html, "n-not-found") == str(7 - n_found)
    assert _tile(html, "n-needed") == "7"  # not the desired rows, not the error
    assert _tile(html, "success-rate") == f"{100 * n_found / 7:.0f}%"
    not_found = html[html.index('id="not-found"') : html.index('id="errors"')]
    assert "no feature may change" in not_found and "already classified" not in not_found
    assert "missing value" not in not_found
    errors = html[html.index('id="errors"') : html.index('id="desired"')]
    assert "Failed with an error (1)" in errors and "missing value (NaN)" in errors
    cards = html[html.index('id="instances"') :]
    for kind, n in ((FOUND, n_found), (NOT_FOUND, 7 - n_found), (DESIRED, 2), (ERROR, 1)):
        assert cards.count(f'data-outcome="{kind}"') == n
        assert f'<option value="{kind}">' in html
    error_card = html[html.rindex('<article class="card"') :]
    assert "<span class=\"pp\">p –</span>" in error_card  # its probability is unknown, not "nan"


def test_report_agrees_with_the_cli_summary(tmp_path, capsys):
    """``geco explain --rows ... --out`` prints rows / with counterfactuals / failed; the report
    of the file it wrote shows the same three numbers, and its rows already desired apart."""
    ds = geco.datasets.load_compas()
    frame = ds.X.assign(label=ds.y)
    frame.to_csv(tmp_path / "compas.csv", index=False)
    model = DecisionTreeClassifier(max_depth=4, random_state=0).fit(ds.X, ds.y)
    joblib.dump(model, tmp_path / "model.joblib")
    (tmp_path / "rules.plaf").write_text(RULES)
    p = model.predict_proba(ds.X)[:, list(model.classes_).index(ds.desired_class)]
    rows = np.r_[np.flatnonzero(p <= 0.5)[:6], np.flatnonzero(p > 0.5)[:3]]
    out = tmp_path / "r.jsonl"
    argv = ["explain", "--data", str(tmp_path / "compas.csv"), "--target", "label", "--desired-class",
            str(ds.desired_class), "--model", str(tmp_path / "model.joblib"), "--constraints",
            str(tmp_path / "rules.plaf"), "--rows", ",".join(map(str, rows)), "--out", str(out),
            "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    summary = re.search(r"(\d+) rows, (\d+) with counterfactuals, (\d+) failed", capsys.readouterr().err)
    n_rows, n_found, n_failed = map(int, summary.groups())
    assert main(["report", str(out), "-o", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text()
    assert (_tile(html, "n-instances"), _tile(html, "n-found"), _tile(html, "n-error")) == tuple(
        map(str, (n_rows, n_found, n_failed)))  # fmt: skip
    assert _tile(html, "n-desired") == "3"
    assert _tile(html, "success-rate") == f"{100 * n_found / (n_rows - 3 - n_failed):.0f}%"
    explanations, _ = read_jsonl(out)
    assert all(e.stats["plaf"] == RULES for e in explanations)
    assert f'<span class="ln">1</span>{escape(RULES.splitlines()[0])}</span>' in html


def test_constraints_none_a_file_or_several(mixed):
    """No program is "No constraints" (not "unknown"); a program read from a file is shown with
    the file's name; a batch made under two programs shows both."""
    ds = geco.datasets.load_compas()
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(ds.X, ds.y)
    p = model.predict_proba(ds.X)[:, list(model.classes_).index(ds.desired_class)]
    rows = ds.X.iloc[np.flatnonzero(p <= 0.5)[:2]]
    free = geco.Explainer(model, ds.X, None, desired_class=ds.desired_class).explain_many(rows, progress=False)
    assert all(e.stats["plaf"] == "" and "constraints_file" not in e.stats for e in free)
    html = render(free)
    assert "No constraints: every feature could change" in html and "unknown" not in html
    both = render([*free, mixed[0]])  # two programs: each with its rows
    assert "Used for 2 rows:" in both and "Used for 1 row:" in both
    filed = geco.Explainer(model, ds.X, ds.constraints, desired_class=ds.desired_class).explain_many(
        rows, progress=False)  # fmt: skip
    assert all(e.stats["constraints_file"] == "compas.plaf" for e in filed)
    html = render(filed)
    assert "Constraints</th><td>compas.plaf" in html
    first = Path(ds.constraints).read_text(encoding="utf-8").splitlines()[0]
    assert f'<span class="ln">1</span>{escape(first)}</span>' in html


def test_cards_name_the_number_the_target_speaks_of(tmp_path):
    """A regression's cards show its predictions as such, to their digits, not as a probability
    ("p 30.874"); a classifier's stay "p" to three decimals."""
    import pandas as pd
    from sklearn.ensemble import RandomForestRegressor

    from geco.report.numbers import format_number

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(18, 70, 300), "hours": rng.integers(10, 60, 300)})
    pay = X["age"] * 2.5 + X["hours"] * 10.25
    model = RandomForestRegressor(10, max_depth=5, random_state=0).fit(X, pay)
    low = np.flatnonzero(model.predict(X) < 400)[:2]
    results = geco.Explainer(model, X, desired_range=(600, 700), k=1).explain_many(X.iloc[low], random_state=0)
    assert all(r.success for r in results)
    html = Path(geco.report(results, tmp_path / "r.html")).read_text(encoding="utf-8")
    assert '<span class="pp">prediction ' in html and '<tr class="m"><th>prediction</th>' in html
    assert '<span class="pp">p ' not in html and "<th>p</th>" not in html
    assert format_number(float(results[0].counterfactuals["probability"].iloc[0]), 5) in html
