"""The report counts, per law the data obeys, the answers that break it."""

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

import geco
from geco.laws import breaks, mine
from geco.report.page import render

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def credit_batch():
    ds = geco.datasets.load_credit()
    X, y = ds.X.iloc[:5000], ds.y.iloc[:5000]
    model = RandomForestClassifier(20, max_depth=6, random_state=0, n_jobs=1).fit(X, y)
    explainer = geco.Explainer(model, X, ds.constraints, ds.desired_class)
    bad = np.flatnonzero(model.predict_proba(X.iloc[:300])[:, 1] <= 0.5)[:8]
    return X, explainer.explain_many(X.iloc[bad], random_state=0, progress=False)


def test_laws_section_counts_the_answers_that_break_each_law(credit_batch):
    X, batch = credit_batch
    laws = mine(X)
    html = render(batch, laws=laws, data=X)
    assert '<section id="laws">' in html
    active = [law for law in laws if law.active and law.kind in ("ordering", "group")]
    assert any(law.kind == "ordering" for law in active)
    found = [e for e in batch if e.success]
    cfs = [e.counterfactuals[e.counterfactuals["counterfactual"]] for e in found]
    best = np.concatenate([np.arange(len(c)) == 0 for c in cfs])
    frame = pd.concat([c[list(X.columns)] for c in cfs], ignore_index=True)
    expected = breaks(active, frame, X)
    for law in active:
        bad = expected[law.statement].to_numpy()
        row = re.search(re.escape(f"<code>{law.statement}</code>") + r".*?</tr>", html.replace("&gt;", ">"))
        assert row, law.statement
        counts = re.findall(r"(\d+) of (\d+)", row.group(0))
        assert counts == [(str(int(bad[best].sum())), str(int(best.sum()))), (str(int(bad.sum())), str(len(bad)))]


def test_no_laws_section_unless_asked(credit_batch):
    _, batch = credit_batch
    assert '<section id="laws">' not in render(batch)
