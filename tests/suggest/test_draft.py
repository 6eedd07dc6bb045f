"""The draft: it parses and checks against the data's schema, alone and added to the bundled
program; only laws no row breaks are active, and every "holds on" is on all rows; ``geco
suggest`` writes it and ``geco check`` accepts it; the answers under it respect its laws."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import geco
import plaf_grammar
from geco.cli import main
from geco.laws import breaks, mine


@pytest.fixture(scope="module", params=["credit", "adult", "compas"])
def bundled(request):
    ds = geco.datasets.load_dataset(request.param)
    return ds, geco.suggest(ds.X, source=request.param)


def test_the_draft_checks_alone(bundled):
    ds, text = bundled
    plaf_grammar.load(text, ds.X)


def test_a_draft_fitted_to_the_bundled_program_checks_added_to_it(bundled):
    ds, _ = bundled
    text = geco.suggest(ds.X, base=Path(ds.constraints))
    assert f"# To be added to {Path(ds.constraints).name}:" in text
    plaf_grammar.load(Path(ds.constraints).read_text(encoding="utf-8") + "\n" + text, ds.X)


def test_what_the_base_states_or_cannot_take_is_commented():
    X = geco.datasets.load_adult().X
    text = geco.suggest(X, base="group education, occupation\n")
    assert "# group education, education_num" in text and "your program cannot take it" in text
    text = geco.suggest(X, base=geco.datasets.load_adult().constraints)
    assert "your program states it already" in text
    with pytest.raises(plaf_grammar.PLAFError):
        geco.suggest(X, base="cf.nope >= 1\n")


def test_active_lines_are_the_laws_no_row_breaks(bundled):
    ds, text = bundled
    active = {law.statement for law in mine(ds.X) if law.active}
    lines = [line.split("  #")[0].strip() for line in text.splitlines() if line and not line.startswith("#")]
    assert set(lines) == active and len(lines) == len(active)
    for held, total in re.findall(r"holds on ([\d,]+) of ([\d,]+) rows", text):
        assert held == total


def test_credit_draft_names_support_and_breaks():
    text = geco.suggest(geco.datasets.load_credit().X, source="credit")
    assert text.startswith("# Draft PLAF program mined by geco suggest from credit (29,623 rows x 14 columns).")
    line = next(line for line in text.splitlines() if line.startswith("cf.MaxPaymentAmountOverLast6Months >="))
    assert "holds on 29,623 of 29,623 rows" in line
    assert "# cf.EducationLevel >= cf.TotalOverdueCounts" in text
    assert "broken by 4 of 29,623 rows" in text


def test_cli_suggest_and_check(tmp_path, capsys):
    draft = tmp_path / "draft.plaf"
    assert main(["suggest", "--dataset", "credit", "-o", str(draft)]) == 0
    assert "active statements" in capsys.readouterr().err
    assert main(["check", str(draft), "--dataset", "credit"]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["suggest", "--dataset", "adult"]) == 0
    assert "\ngroup education, education_num" in capsys.readouterr().out
    adult = str(geco.datasets.load_adult().constraints)
    assert main(["suggest", "--dataset", "adult", "--constraints", adult, "-o", str(draft)]) == 0
    combined = tmp_path / "combined.plaf"
    combined.write_text(Path(adult).read_text() + "\n" + draft.read_text())
    assert main(["check", str(combined), "--dataset", "adult"]) == 0


def test_cli_suggest_on_a_csv_with_and_without_target(tmp_path, capsys):
    rng = np.random.default_rng(0)
    hi = rng.integers(10, 100, 400)
    frame = pd.DataFrame({"hi": hi, "lo": hi - 3, "kind": rng.choice(["a", "b"], 400), "y": rng.integers(0, 2, 400)})
    csv = tmp_path / "d.csv"
    frame.to_csv(csv, index=False)
    assert main(["suggest", "--data", str(csv), "--target", "y"]) == 0
    with_target = capsys.readouterr().out
    assert "cf.hi >= cf.lo" in with_target and "cf.y" not in with_target
    assert main(["suggest", "--data", str(csv)]) == 0
    assert "(400 rows x 4 columns)" in capsys.readouterr().out
    assert main(["suggest", "--data", str(tmp_path / "missing.csv")]) == 2


def test_credit_answers_under_the_draft_respect_its_laws():
    from geco.models import default_model

    ds = geco.datasets.load_credit()
    laws = mine(ds.X)
    program = Path(ds.constraints).read_text(encoding="utf-8") + "\n" + geco.suggest(ds.X)
    explainer = geco.Explainer(default_model(ds.X, ds.y, cache=True), ds.X, program, desired_class=ds.desired_class)
    p = explainer.blackbox.predict(explainer.table.take(slice(0, 200)))
    rows = np.flatnonzero(p <= 0.5)[:4]
    found = 0
    for r in rows:
        result = explainer.explain(ds.X.iloc[[r]], random_state=int(r))
        if result.success:
            found += 1
            assert not breaks(laws, result.counterfactuals, ds.X).to_numpy().any()
    assert found


def test_breaks_marks_orderings_and_unseen_group_tuples():
    X = pd.DataFrame({"a": [2, 3, 4], "b": [1, 3, 0], "c": ["x", "y", "z"]})
    laws = [law for law in mine(X) if law.active]
    assert {law.statement for law in laws} >= {"cf.a >= cf.b"}
    cf = pd.DataFrame({"a": [5, 1], "b": [1, 2], "c": ["x", "x"]})
    out = breaks(laws, cf, X)
    assert out["cf.a >= cf.b"].tolist() == [False, True]


def test_the_readme_sample_lines_are_in_the_credit_draft():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Drafting a program from the data"):]
    block = section.split("```")[3]  # the second code block: lines of the draft
    text = geco.suggest(geco.datasets.load_credit().X)
    lines = {" ".join(line.split()) for line in text.splitlines()}
    sample = [" ".join(line.split()) for line in block.strip().splitlines()]
    assert sample and all(line in lines for line in sample), [line for line in sample if line not in lines]
