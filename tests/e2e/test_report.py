"""The HTML batch report (geco.report), the JSONL round trip and ``geco report``, without a browser."""

import json
import os
import re
import subprocess
import sys
from collections import Counter
from html import escape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

import geco
from geco.cli import main
from geco.models import one_hot_pipeline
from geco.report import render
from geco.result import Explanation, read_jsonl, write_jsonl

pytest.importorskip("matplotlib")

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compas():
    """COMPAS with ChargeDegree as a category (so there are categorical transitions), a small
    forest, 12 declined rows, 2 rows already scored as desired and 1 row under rules that fix
    every feature: at least 3 failures, with different reasons."""
    ds = geco.datasets.load_compas()
    X = ds.X.copy()
    X["ChargeDegree"] = X["ChargeDegree"].map({1: "misdemeanor", 2: "felony"}).astype("category")
    model = one_hot_pipeline(X, RandomForestClassifier(n_estimators=20, max_depth=6, random_state=0))
    model.fit(X, ds.y)
    plaf = Path(ds.constraints).read_text()
    explainer = geco.Explainer(model, X, plaf, desired_class=ds.desired_class)
    p = model.predict_proba(X)[:, list(model.classes_).index(ds.desired_class)]
    bad, good = np.flatnonzero(p <= 0.5), np.flatnonzero(p > 0.5)
    batch = explainer.explain_many(X.iloc[np.r_[bad[:12], good[:2]]], random_state=0)
    frozen = geco.Explainer(model, X, "fixed AgeGroup, Race, Sex, PriorsCount, ChargeDegree",
                            desired_class=ds.desired_class)  # fmt: skip
    batch.append(frozen.explain(X.iloc[[bad[12]]], random_state=0))
    return batch, plaf


@pytest.fixture(scope="module")
def page(compas):
    batch, plaf = compas
    return render(batch, dataset="compas", plaf=plaf, constraints_file="compas.plaf")


def _tile(html: str, ident: str) -> str:
    return re.search(rf'<b id="{ident}">([^<]*)</b>', html).group(1)


def _feature_counts(html: str) -> dict[str, tuple[int, int]]:
    rows = re.findall(
        r'<tr data-feature="([^"]+)" data-filter-feature=.*?<td class="num best">(\d+)</td>'
        r'.*?<td class="num any">(\d+)</td>',
        html,
    )
    return {f: (int(b), int(a)) for f, b, a in rows}


def test_batch_has_successes_and_failures(compas):
    batch, _ = compas
    assert sum(e.success for e in batch) >= 8
    reasons = [e.reason for e in batch if not e.success]
    assert sum("already classified" in r for r in reasons) == 2
    assert any("no feature may change" in r for r in reasons)


def test_overview_counts_match_the_explanations(compas, page):
    batch, _ = compas
    html = page
    n_found = sum(e.success for e in batch)
    n_desired = sum("already classified" in e.reason for e in batch)
    assert n_desired == 2
    assert _tile(html, "n-instances") == str(len(batch))
    assert _tile(html, "n-found") == str(n_found)
    assert _tile(html, "n-desired") == "2" and _tile(html, "n-error") == "0"
    assert _tile(html, "n-not-found") == str(len(batch) - n_found - n_desired)
    assert _tile(html, "n-needed") == str(len(batch) - n_desired)
    # the rows already desired needed no explaining: not failures, not in the rate
    assert _tile(html, "success-rate") == f"{100 * n_found / (len(batch) - n_desired):.0f}%"

    # per-feature counts, computed here from Explanation.changes()
    best, anyc = Counter(), Counter()
    for e in batch:
        if not e.success:
            continue
        ch = e.changes()
        is_cf = e.counterfactuals["counterfactual"].to_numpy()
        ch = ch[is_cf[ch["counterfactual"].to_numpy() - 1]] if len(ch) else ch  # numbered from 1
        best.update(ch.loc[ch["counterfactual"] == 1, "feature"])
        anyc.update(set(ch["feature"]))
    counts = _feature_counts(html)
    assert set(counts) == set(batch[0].features)
    assert counts == {f: (best[f], anyc[f]) for f in counts}
    assert sum(a for _, a in counts.values()) > 0
    assert counts["Race"] == counts["Sex"] == (0, 0)  # fixed in compas.plaf
    assert "Data set</th><td>compas" in html and "compas.plaf" in html


def test_numeric_and_categorical_changes_match(compas, page):
    batch, _ = compas
    html = page
    deltas, trans = [], Counter()
    for e in batch:
        if not e.success:
            continue
        x = e.x.iloc[0]
        for _, row in e.counterfactuals[e.counterfactuals["counterfactual"]].iterrows():
            if row["PriorsCount"] != x["PriorsCount"]:
                deltas.append(row["PriorsCount"] - x["PriorsCount"])
            if row["ChargeDegree"] != x["ChargeDegree"]:
                trans[(x["ChargeDegree"], row["ChargeDegree"])] += 1
    assert deltas and trans
    row = re.search(r'<tr data-feature="PriorsCount"><th>PriorsCount</th><td class="num">(\d+)</td>'
                    r'.*?<td>(up|down|either way)</td><td class="num">([^<]+)</td>', html)  # fmt: skip
    assert int(row.group(1)) == len(deltas)
    assert float(row.group(3)) == pytest.approx(float(np.median(deltas)))
    (a, b), n = trans.most_common(1)[0]
    assert (f'<tr data-feature="ChargeDegree"><th>ChargeDegree</th><td>{a}</td><td>→</td>'
            f'<td>{b}</td><td class="num">{n}</td></tr>') in html  # fmt: skip


def test_failures_are_listed_with_reasons(compas, page):
    batch, _ = compas
    html = page
    desired = [e for e in batch if "already classified" in e.reason]
    failed = [e for e in batch if not e.success and "already classified" not in e.reason]
    assert failed and desired
    assert f"No counterfactual found ({len(failed)})" in html
    section = html[html.index('id="not-found"') : html.index('id="desired"')]
    for e in failed:
        assert f"row {e.x.index[0]}</a>: {escape(e.reason)}" in section
    for e in desired:
        assert f"row {e.x.index[0]}</a>" not in section
    section = html[html.index('id="desired"') : html.index('id="instances"')]
    assert f"Already desired: nothing to explain ({len(desired)})" in section
    for e in desired:
        assert f"row {e.x.index[0]}</a>" in section
    assert 'id="errors"' not in html  # no row errored
    cards = html[html.index('id="instances"') :]
    assert cards.count('data-outcome="not-found"') == len(failed)
    assert cards.count('data-outcome="desired"') == len(desired)
    assert cards.count('data-outcome="found"') == len(batch) - len(failed) - len(desired)


def test_cards_highlight_every_change(compas, page):
    batch, _ = compas
    html = page
    cards = html[html.index('id="instances"') :]
    assert cards.count('<article class="card"') == len(batch)
    changed_cells = sum(int(e.counterfactuals["n_changed"].sum()) for e in batch)
    assert changed_cells > 0
    assert cards.count('<td class="c">') == changed_cells
    e = next(e for e in batch if e.success)
    assert f"p {e.x_probability:.3f} → {e.counterfactuals['probability'].iloc[0]:.3f}" in cards


def test_counterfactuals_are_numbered_from_one_as_printed(compas, page):
    batch, _ = compas
    cards = page[page.index('id="instances"') :].split('<article class="card"')[1:]
    for e, html in zip(batch, cards):
        n = len(e.counterfactuals)
        labels = re.findall(r"<th(?: class=\"nc\"[^>]*)?>#(\d+)\*?</th>", html)
        assert labels == [str(i) for i in range(1, n + 1)]
        assert [line.split()[0] for line in str(e).splitlines() if line.startswith("#")] == [f"#{i}" for i in labels]
        if e.success:  # the best is #1 and its changes are changes() numbered 1
            first = e.changes().query("counterfactual == 1")
            best = re.search(r'<p class="best">best \(#1\): (.*?)</p>', html).group(1)
            assert re.findall(r"<b>([^<]+)</b>", best) == list(first["feature"])
    assert not re.search(r">#0\b", page)


def test_plaf_text_with_line_numbers(compas, page):
    _, plaf = compas
    html = page
    lines = plaf.rstrip("\n").split("\n")
    assert len(lines) >= 5
    for i, line in enumerate(lines, 1):
        assert f'<span class="ln">{i}</span>{escape(line)}</span>' in html
    assert f'<span class="ln">{len(lines) + 1}</span>' not in html


def test_plaf_comes_with_the_explanations(compas):
    """geco.report(list) without plaf=: the program the explanations were made under, from
    their stats; "unknown" - not "none" - when they do not record it."""
    batch, plaf = compas
    html = render(batch[:2])
    first = plaf.rstrip("\n").split("\n")[0]
    assert f'<span class="ln">1</span>{escape(first)}</span>' in html
    assert "No constraints" not in html and "unknown" not in html
    frozen = batch[-1]  # made under other rules (given as text)
    assert frozen.stats["plaf"] == "fixed AgeGroup, Race, Sex, PriorsCount, ChargeDegree"
    mixed = render([batch[0], frozen])
    assert "Used for 1 row:" in mixed and escape(frozen.stats["plaf"]) in mixed
    bare = [Explanation(e.x, e.counterfactuals, e.success, e.reason, e.desired_class, e.x_probability,
                        {k: v for k, v in e.stats.items() if k not in ("plaf", "constraints_file")})
            for e in batch[:2]]  # fmt: skip
    unknown = render(bare)
    assert "Constraints unknown" in unknown and "No constraints" not in unknown
    assert "Constraints unknown for 1 row" in render([batch[0], bare[1]])
    assert "No constraints: every feature could change" in render(bare, plaf="")


def test_page_is_self_contained(compas, tmp_path):
    batch, _ = compas
    out = geco.report(batch, tmp_path / "r.html", dataset="compas")
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<script src" not in html and 'rel="stylesheet"' not in html
    assert html.count("<svg") == 4 and "<style>" in html and "<script>" in html
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), "duplicate element ids across the inlined charts"


def test_all_failed_batch_still_renders(compas):
    batch, _ = compas
    html = render([e for e in batch if not e.success])
    assert _tile(html, "success-rate") == "0%" and html.count("no counterfactual found") >= 2


def test_bad_input():
    with pytest.raises(ValueError, match="no explanations"):
        render([])
    with pytest.raises(TypeError, match="geco.Explanation"):
        render([{"x": 1}])


def test_without_matplotlib_report_names_the_extra(compas, tmp_path, monkeypatch):
    batch, _ = compas
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"geco-cf\[report\]"):
        geco.report(batch, tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


def test_import_geco_does_not_load_matplotlib():
    code = "import sys; import geco; assert callable(geco.report); print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, check=True)  # fmt: skip
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------- JSONL round trip
def _assert_same(a: Explanation, b: Explanation) -> None:
    pd.testing.assert_frame_equal(a.x, b.x)
    if len(a.counterfactuals):
        pd.testing.assert_frame_equal(a.counterfactuals, b.counterfactuals)
    else:
        assert len(b.counterfactuals) == 0
        assert list(b.counterfactuals.columns) == list(a.counterfactuals.columns)
    assert (a.success, a.reason, a.desired_class, a.x_probability) == (
        b.success, b.reason, b.desired_class, b.x_probability)  # fmt: skip
    assert a.stats == b.stats
    assert a.to_dict() == b.to_dict()


def test_jsonl_round_trip(compas, tmp_path):
    batch, plaf = compas
    meta = {"dataset": "compas", "model": "RF-20", "plaf": plaf, "constraints_file": "compas.plaf"}
    path = tmp_path / "results.jsonl"
    assert write_jsonl(iter(batch), path, meta=meta) == len(batch)  # a generator streams
    lines = path.read_text().splitlines()
    assert len(lines) == len(batch) + 1
    header = json.loads(lines[0])["geco_meta"]
    assert header["format"] == 1 and header["categories"]["ChargeDegree"]["values"] == ["felony", "misdemeanor"]
    back, got_meta = read_jsonl(path)
    assert {k: got_meta[k] for k in meta} == meta
    assert len(back) == len(batch)
    for a, b in zip(batch, back):
        _assert_same(a, b)
    assert back[0].x.index[0] == batch[0].x.index[0]


def test_jsonl_without_header_and_from_dict(compas, tmp_path):
    batch, _ = compas
    path = tmp_path / "plain.jsonl"
    path.write_text("".join(e.to_json() + "\n\n" for e in batch))  # blank lines are skipped
    back, meta = read_jsonl(path)
    assert meta == {} and len(back) == len(batch)
    e = next(e for e in batch if e.success)
    again = Explanation.from_dict(e.to_dict())  # no header: the categories seen in e
    assert isinstance(again.x["ChargeDegree"].dtype, pd.CategoricalDtype)
    assert again.to_dict() == e.to_dict() and str(again) == str(e)
    old = {k: v for k, v in e.to_dict().items() if k not in ("index", "dtypes")}  # older --json output
    legacy = Explanation.from_dict(old)
    assert pd.api.types.is_integer_dtype(legacy.x["PriorsCount"].dtype)
    assert legacy.counterfactuals["PriorsCount"].dtype == legacy.x["PriorsCount"].dtype
    assert legacy.to_dict()["counterfactuals"] == old["counterfactuals"]


def test_read_jsonl_errors(compas, tmp_path):
    batch, _ = compas
    good = batch[0].to_json()
    cases = {
        "notjson.jsonl": (good + "\n{oops\n", r"line 2: not JSON"),
        "missing.jsonl": (json.dumps({"x": {"a": 1}}) + "\n", r"line 1: not an explanation.*missing key"),
        "header.jsonl": (good + '\n{"geco_meta": {}}\n', r"line 2: the geco_meta header must be the first"),
        "list.jsonl": ("[1, 2]\n", r"line 1: expected a JSON object"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(ValueError, match=message):
            read_jsonl(tmp_path / name)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_jsonl(tmp_path / "absent.jsonl")
    with pytest.raises(ValueError, match="reserved"):
        write_jsonl(batch, tmp_path / "x.jsonl", meta={"format": 2})


def test_report_from_jsonl_path_uses_the_header(compas, tmp_path):
    batch, plaf = compas
    path = tmp_path / "results.jsonl"
    write_jsonl(batch, path, meta={"dataset": "compas-from-header", "plaf": plaf})
    out = geco.report(path, tmp_path / "r.html", title="Audit")
    html = out.read_text()
    assert "<title>Audit</title>" in html and "compas-from-header" in html
    assert '<span class="ln">1</span>' in html


# ---------------------------------------------------------------------- CLI
def test_cli_report(compas, tmp_path, capsys):
    batch, _ = compas
    path = tmp_path / "results.jsonl"
    write_jsonl(batch, path, meta={"dataset": "compas"})
    out = tmp_path / "out.html"
    assert main(["report", str(path), "-o", str(out), "--title", "Today"]) == 0
    assert f"wrote {out} ({len(batch)} instances" in capsys.readouterr().out
    html = out.read_text()
    assert "<title>Today</title>" in html and html.count('<article class="card"') == len(batch)
    assert main(["report", str(path)]) == 0  # default: next to the input
    assert path.with_suffix(".html").is_file()


def test_cli_report_errors(compas, tmp_path, capsys):
    batch, _ = compas
    assert main(["report", str(tmp_path / "absent.jsonl")]) == 2
    assert "absent.jsonl: no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(batch[0].to_json() + "\nnot json\n")
    assert main(["report", str(bad)]) == 2
    assert "bad.jsonl, line 2: not JSON" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"geco_meta": {"dataset": "x"}}\n')
    assert main(["report", str(empty)]) == 2
    assert "no explanations in the file" in capsys.readouterr().err
    assert not bad.with_suffix(".html").exists()


def test_cli_report_bad_file_no_traceback(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{broken\n")
    proc = subprocess.run([sys.executable, "-m", "geco.cli", "report", str(bad)], capture_output=True,
                          text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    assert proc.returncode == 2
    assert "line 1: not JSON" in proc.stderr and "Traceback" not in proc.stderr
