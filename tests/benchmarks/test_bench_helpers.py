"""The comparison benchmarks' own machinery (benchmarks/bench_phases.py, bench_treecf.py): the
encoded columns decode back to the user's row, the PLAF rules translate to treecf's constraints
one for one, and the phase clock is swapped to thread CPU time and back. treecf itself is not
needed: its constraint constructors are stood in by records of their arguments."""

import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_phases
import bench_treecf

import geco
from geco.datasets import load_adult, load_credit
from geco.models import one_hot_pipeline
from plaf_grammar import SchemaError


def _record(kind):
    return lambda *args: (kind, *args)


FAKE_TREECF = SimpleNamespace(**{k: _record(k) for k in ("Freeze", "Monotone", "Range", "OneHot")})


@pytest.fixture(scope="module")
def adult():
    data = load_adult()
    X, y = data.X.iloc[:3000], data.y.iloc[:3000]
    model = one_hot_pipeline(X, RandomForestClassifier(5, max_depth=4, random_state=0)).fit(X, y)
    return data, X, model  # the encoder's output is sparse, as default_model's


def test_encoded_rows_decode_to_the_users_rows(adult):
    _, X, model = adult
    enc = bench_treecf.encoding(model, X)
    assert enc.Z.shape == (len(X), model[-1].n_features_in_)
    for r in (0, 7, 123, 2999):
        row = enc.decode(enc.Z[r], X.iloc[[r]])
        assert row is not None
        assert [row[f].iloc[0] for f in X.columns] == [X[f].iloc[r] for f in X.columns]
        np.testing.assert_array_equal(bench_treecf.dense_row(model, row), enc.Z[r])


def test_a_categorical_not_exactly_one_hot_decodes_to_none(adult):
    _, X, model = adult
    enc = bench_treecf.encoding(model, X)
    z = enc.Z[0].copy()
    cols = [c for c, _ in enc.onehot["workclass"]]
    z[cols] = 0.0
    assert enc.decode(z, X.iloc[[0]]) is None
    z[cols[:2]] = 1.0
    assert enc.decode(z, X.iloc[[0]]) is None


def test_adult_rules_translate_to_freeze_monotone_range_and_one_hot(adult):
    data, X, model = adult
    enc = bench_treecf.encoding(model, X)
    names = tuple(f"f{j}" for j in range(enc.Z.shape[1]))
    program = geco.Explainer(model, X, str(data.constraints)).program
    rules, left = bench_treecf.treecf_rules(FAKE_TREECF, program, enc, names, X)
    fixed = ("sex", "race", "native_country", "marital_status", "relationship")
    frozen = {r[1] for r in rules if r[0] == "Freeze"}
    assert frozen == {names[c] for f in fixed for c, _ in enc.onehot[f]}
    monotone = {r[1:] for r in rules if r[0] == "Monotone"}
    assert monotone == {
        (names[enc.numeric["age"]], "increase"),
        (names[enc.numeric["education_num"]], "increase"),
    }
    ranges = {r[1]: r[2:] for r in rules if r[0] == "Range"}
    assert ranges[names[enc.numeric["hours_per_week"]]][1] == 80.0
    never = [names[c] for c, cat in enc.onehot["workclass"] if cat == "Never-worked"]
    assert all(ranges[n] == (0.0, 0.0) for n in never)
    assert len(ranges) == 1 + len(never)
    one_hot = [set(r[1]) for r in rules if r[0] == "OneHot"]
    assert one_hot == [{names[c] for c, _ in cols} for cols in enc.onehot.values()]
    assert sorted(left) == ["Group", "Implication"]


def test_credit_rules_leave_only_the_implications():
    data = load_credit()
    X = data.X.iloc[:2000]
    model = one_hot_pipeline(X, RandomForestClassifier(3, max_depth=3, random_state=0)).fit(
        X, data.y.iloc[:2000]
    )
    enc = bench_treecf.encoding(model, X)
    assert enc.onehot == {}
    names = tuple(X.columns)
    program = geco.Explainer(model, X, str(data.constraints)).program
    rules, left = bench_treecf.treecf_rules(FAKE_TREECF, program, enc, names, X)
    assert {r for r in rules if r[0] == "Freeze"} == {("Freeze", "isMale"), ("Freeze", "isMarried")}
    increasing = (
        "AgeGroup",
        "EducationLevel",
        "HasHistoryOfOverduePayments",
        "TotalOverdueCounts",
        "TotalMonthsOverdue",
    )
    assert {r for r in rules if r[0] == "Monotone"} == {
        ("Monotone", f, "increase") for f in increasing
    }
    assert left == ["Implication", "Implication"]


def test_phase_clock_is_thread_cpu_inside_and_wall_after():
    import geco.explainer
    import geco.search.timing

    with bench_phases.geco_clock_in_thread_cpu():
        assert geco.search.timing.time.perf_counter is time.thread_time
        assert geco.explainer.time.perf_counter is time.thread_time
        assert time.perf_counter is not time.thread_time  # the benchmark's own clock untouched
    assert geco.search.timing.time is time
    assert geco.explainer.time is time


def test_treecf_measure_is_the_weighted_l1_over_sigma_of_the_encoded_columns(adult):
    data, X, model = adult
    enc = bench_treecf.encoding(model, X)
    judge = bench_treecf.Judge(geco.Explainer(model, X, str(data.constraints)), model, X, 1)
    assert np.isnan(judge.treecf_distance(X.iloc[[0]], X.iloc[[1]]))
    w = np.linspace(1.0, 2.0, enc.Z.shape[1])
    sigma = np.linspace(0.5, 3.0, enc.Z.shape[1])
    judge.treecf_scale = (w, sigma)
    want = float(np.sum(w * np.abs(enc.Z[1] - enc.Z[0]) / sigma))
    assert judge.treecf_distance(X.iloc[[0]], X.iloc[[1]]) == pytest.approx(want, rel=1e-12)
    assert judge.treecf_distance(X.iloc[[0]], X.iloc[[0]]) == 0.0


def test_bench_phases_refuses_an_unknown_search(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench_phases.py", "--search", "numpy,fast", "--no-readme"])
    monkeypatch.setattr(bench_phases, "workload", lambda *a: pytest.fail("ran past a bad --search"))
    with pytest.raises(SystemExit) as exit_:
        bench_phases.main()
    assert exit_.value.code == 2
    assert "--search takes numpy, compiled (got 'numpy,fast')" in capsys.readouterr().err


def test_a_peers_answer_is_encoded_with_its_numbers_as_given(adult):
    """treecf sets a feature to a split's threshold plus an epsilon (7731.5 in an int64 column):
    the judge prices it as it is, where the schema refuses it as an instance's value."""
    _, X, model = adult
    explainer = geco.Explainer(model, X, desired_class=1)
    schema = explainer.schema
    whole = X.iloc[[5]]
    np.testing.assert_array_equal(bench_treecf.peer_row(schema, whole), schema.encode(whole))
    peer = whole.astype({"capital_gain": float}).assign(capital_gain=7731.5)
    row = bench_treecf.peer_row(schema, peer)
    assert row[0, schema.index("capital_gain")] == 7731.5
    with pytest.raises(SchemaError, match="cannot hold the value 7731.5"):
        schema.encode(peer)
