"""End-to-end behaviour of the GeCo search through the public API (black-box engine)."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression

import geco
import plaf_grammar
from codegen import UnknownClass
from geco.models import one_hot_pipeline
from plaf_grammar import PLAFError, SchemaError


@pytest.fixture(scope="module")
def adult():
    ds = geco.datasets.load_adult()
    model = one_hot_pipeline(ds.X, RandomForestClassifier(30, max_depth=8, random_state=0, n_jobs=1))
    model.fit(ds.X, ds.y)
    explainer = geco.Explainer(model, ds.X, ds.constraints, ds.desired_class, engine="blackbox")
    p = model.predict_proba(ds.X.iloc[:3000])[:, 1]
    return ds, model, explainer, np.flatnonzero(p <= 0.5), np.flatnonzero(p > 0.5)


@pytest.fixture(scope="module")
def credit():
    ds = geco.datasets.load_credit()
    model = RandomForestClassifier(30, max_depth=8, random_state=0, n_jobs=1).fit(ds.X, ds.y)
    explainer = geco.Explainer(model, ds.X, ds.constraints, ds.desired_class, engine="blackbox")
    p = model.predict_proba(ds.X.iloc[:3000])[:, 1]
    return ds, model, explainer, np.flatnonzero(p <= 0.5)


def _check_result(result, ds, model, program):
    cfs = result.counterfactuals
    x = result.x.iloc[0]
    feats = list(ds.X.columns)
    # the model's own probability, on the materialised counterfactual rows
    own = model.predict_proba(cfs[feats])[:, list(model.classes_).index(ds.desired_class)]
    np.testing.assert_array_equal(cfs["probability"].to_numpy(), own)
    assert (own > 0.5).all()
    # every counterfactual satisfies the whole program (independent reference evaluator)
    for _, row in cfs.iterrows():
        assert plaf_grammar.holds(program, x.to_dict(), row[feats].to_dict()), row[feats].to_dict()
    # no duplicates, sorted by distance, n_changed consistent
    assert not cfs[feats].astype(str).duplicated().any()
    assert (np.diff(cfs["distance"].to_numpy()) >= 0).all()
    n_changed = [(row[feats] != x[feats]).sum() for _, row in cfs.iterrows()]
    assert list(cfs["n_changed"]) == n_changed
    assert min(n_changed) >= 1


def test_counterfactuals_satisfy_constraints_adult(adult):
    ds, model, explainer, bad, _ = adult
    successes = 0
    for r in bad[:12]:
        result = explainer.explain(ds.X.iloc[[r]], random_state=int(r))
        _check_result(result, ds, model, explainer.program)
        successes += result.success
        if result.success:  # k = 5 distinct options, or fewer and the reason says so
            n = len(result.counterfactuals)
            assert n == 5 or f"only {n} distinct counterfactual(s)" in result.reason
    assert successes >= 10


def test_counterfactuals_satisfy_constraints_credit(credit):
    ds, model, explainer, bad = credit
    successes = 0
    for r in bad[:12]:
        result = explainer.explain(ds.X.iloc[[r]], random_state=int(r))
        _check_result(result, ds, model, explainer.program)
        successes += result.success
    assert successes >= 10


def test_same_seed_same_explanation_and_representations_agree(adult):
    ds, _, explainer, bad, _ = adult
    x = ds.X.iloc[[bad[0]]]
    a = explainer.explain(x, random_state=7)
    b = explainer.explain(x, random_state=7)
    full = explainer.explain(x, random_state=7, representation="full")
    pd.testing.assert_frame_equal(a.counterfactuals, b.counterfactuals)
    pd.testing.assert_frame_equal(a.counterfactuals, full.counterfactuals)
    assert a.stats["peak_population_bytes"] < full.stats["peak_population_bytes"]
    # the compiled search (one-call breeding, compiled cascade) in both representations too
    for representation in ("delta", "full"):
        native = explainer.explain(x, random_state=7, representation=representation, native=True)
        assert native.stats["compiled_search"]
        pd.testing.assert_frame_equal(a.counterfactuals, native.counterfactuals)


def test_random_state_takes_what_scikit_learn_takes_and_names_what_it_refuses(adult):
    """An int, a Generator (used as it is: its state moves on) and a legacy RandomState (one
    draw seeds the stream, as scikit-learn's estimators draw from it) give reproducible
    explanations; a seed numpy refuses is a ValueError naming ``random_state``, before any work,
    from explain and explain_many alike."""
    ds, _, explainer, bad, _ = adult
    x = ds.X.iloc[[bad[0]]]
    a = explainer.explain(x, random_state=np.random.RandomState(3), k=2)
    b = explainer.explain(x, random_state=np.random.RandomState(3), k=2)
    pd.testing.assert_frame_equal(a.counterfactuals, b.counterfactuals)
    gen = np.random.default_rng(5)
    c = explainer.explain(x, random_state=gen, k=2)
    assert gen.bit_generator.state != np.random.default_rng(5).bit_generator.state
    pd.testing.assert_frame_equal(c.counterfactuals, explainer.explain(x, random_state=np.random.default_rng(5), k=2).counterfactuals)
    for bad_seed in (-1, 1.5, "seven", [3, -4]):
        with pytest.raises(ValueError, match=r"random_state must be None, a non-negative int .*; got "):
            explainer.explain(x, random_state=bad_seed)
        with pytest.raises(ValueError, match=r"random_state must be None, a non-negative int"):
            explainer.explain_many(ds.X.iloc[bad[:2]], random_state=bad_seed)


def test_implication_is_repaired_by_the_cascade(adult):
    """Adult: raising education_num requires age >= x.age + 4; no counterfactual breaks it, and
    with a forced education change the cascade visibly ages the person."""
    ds, model, _, bad, _ = adult
    text = ds.constraints.read_text() + "\ncf.education_num >= x.education_num + 1\n"
    explainer = geco.Explainer(model, ds.X, text, ds.desired_class, engine="blackbox")
    rows = [r for r in bad[:6] if ds.X["education_num"].iloc[r] < 16][:4]
    assert len(rows) == 4
    for r in rows:
        x = ds.X.iloc[[r]]
        result = explainer.explain(x, random_state=0)
        assert result.success, result.reason
        _check_result(result, ds, model, explainer.program)
        for _, row in result.counterfactuals.iterrows():
            assert row["education_num"] > x["education_num"].iloc[0]
            assert row["age"] >= x["age"].iloc[0] + 4


def test_instance_breaking_a_group_rule_must_change_it(adult):
    ds, model, explainer, bad, _ = adult
    long_hours = [r for r in bad if ds.X["hours_per_week"].iloc[r] > 80]
    assert long_hours, "Adult has people working more than 80 hours"
    result = explainer.explain(ds.X.iloc[[long_hours[0]]], random_state=0)
    _check_result(result, ds, model, explainer.program)
    assert (result.counterfactuals["hours_per_week"] <= 80).all()


def test_mutate_top_and_paper_knobs(adult):
    ds, model, explainer, bad, _ = adult
    result = explainer.explain(ds.X.iloc[[bad[1]]], random_state=1, mutate_top=2, q=50, k=3, m_mut=3)
    _check_result(result, ds, model, explainer.program)
    assert len(result.counterfactuals) <= 3


def test_already_desired_instance_gets_a_clear_message(adult):
    ds, _, explainer, _, good = adult
    result = explainer.explain(ds.X.iloc[[good[0]]])
    assert not result.success
    assert "already classified as the desired class" in result.reason
    assert len(result.counterfactuals) == 0
    assert "already classified" in str(result)


def test_constraints_no_candidate_can_meet(credit):
    ds, model, _, bad = credit
    frozen = "fixed " + ", ".join(ds.X.columns)
    explainer = geco.Explainer(model, ds.X, frozen, ds.desired_class, engine="blackbox")
    result = explainer.explain(ds.X.iloc[[bad[0]]], random_state=0)
    assert not result.success
    assert result.reason.startswith("no feature may change: `fixed ")
    assert "(<string>:1) removes every other value of" in result.reason


def test_unreachable_class_reports_best_candidates(credit):
    """A model no allowed change can flip: success is False, with the reason and the best
    (highest-probability, closest) candidates found."""
    ds, _, _, _ = credit

    class Capped:
        classes_ = np.array([0, 1])

        def predict_proba(self, X):
            p = 0.1 + 0.3 * (X["MaxBillAmountOverLast6Months"].to_numpy() > 5000)
            return np.column_stack([1 - p, p])

    explainer = geco.Explainer(Capped(), ds.X, ds.constraints, 1, engine="blackbox")
    result = explainer.explain(ds.X.iloc[[0]], random_state=0, max_generations=5)
    assert not result.success
    assert result.reason.startswith("none found within the search's budget")
    assert "is scored as 1 (p > 0.5)" in result.reason and "after 5 generations" in result.reason
    assert "the best candidates shown reach p = 0.400" in result.reason
    cfs = result.counterfactuals
    assert 1 <= len(cfs) <= 5 and not cfs["counterfactual"].any()
    np.testing.assert_allclose(cfs["probability"], 0.4)  # the best the model allows
    assert (cfs["MaxBillAmountOverLast6Months"] > 5000).all()
    for _, row in cfs.iterrows():  # still feasible candidates
        assert plaf_grammar.holds(explainer.program, result.x.iloc[0].to_dict(), row[list(ds.X.columns)].to_dict())


def test_result_renders_and_serialises(adult):
    ds, _, explainer, bad, _ = adult
    result = explainer.explain(ds.X.iloc[[bad[2]]], random_state=3)
    assert result.success
    text = str(result)
    assert "Counterfactuals found" in text and "->" in text
    html = result._repr_html_()
    assert html.startswith("<p>") and "<table>" in html
    ch = result.changes()
    assert list(ch.columns) == ["counterfactual", "feature", "from", "to"]
    assert len(ch) == int(result.counterfactuals["n_changed"].sum())
    data = json.loads(result.to_json())
    assert data["success"] and len(data["counterfactuals"]) == len(result.counterfactuals)
    assert set(data["counterfactuals"][0]["changes"]) <= set(ds.X.columns)
    for key in ("generations", "candidates_scored", "seconds", "engine"):
        assert key in result.stats


def test_an_integer_feature_beside_floats_renders_as_an_integer():
    """x's row of an all-numeric frame read as one Series would be floats: the text, the HTML,
    changes() and the JSON show each value in its column's own type (40, not 40.0)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(18, 70, 400), "income": rng.normal(50, 15, 400).round(1),
                      "debt": rng.integers(0, 50, 400), "kids": pd.array(rng.integers(0, 4, 400), dtype="Int64")})  # fmt: skip
    y = ((X["income"] - X["debt"]) > 20).astype(int)
    model = RandomForestClassifier(20, max_depth=5, random_state=0).fit(X, y)
    explainer = geco.Explainer(model, X, constraints="fixed income", desired_class=1)
    row = int(np.flatnonzero(model.predict(X) == 0)[0])
    result = explainer.explain(X.iloc[[row]], k=2, random_state=0)
    assert result.success
    data = json.loads(result.to_json())
    for f in ("age", "debt", "kids"):
        assert type(data["x"][f]) is int and type(data["counterfactuals"][0]["values"][f]) is int
    assert type(data["x"]["income"]) is float
    debt = int(X["debt"].iloc[row])
    assert f"{debt}.0" not in str(result) and f">{debt}.0<" not in result._repr_html_()
    changed = result.changes()  # income is fixed: every change is of an integer feature
    assert len(changed) and all(type(v) is int for v in [*changed["from"], *changed["to"]])
    mixed = geco.Explainer(model, X, desired_class=1).explain(X.iloc[[row]], k=5, random_state=0).changes()
    kinds = {f: {type(v) for v in [*part["from"], *part["to"]]} for f, part in mixed.groupby("feature")}
    assert kinds.get("income") == {float} and len(kinds) > 1, kinds  # ints beside floats stay ints
    assert all(kinds[f] == {int} for f in kinds if f != "income"), kinds



def test_float32_values_are_shown_with_float32_digits():
    """A float32 column's values print, tabulate and serialise as the shortest decimal that reads
    back as them (1.304, not float64's 1.3040000200271606), and read back they are the same."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"f32": rng.normal(size=500).astype(np.float32), "u8": rng.integers(0, 200, 500).astype(np.uint8)})
    y = (X["f32"] + X["u8"] / 100 > 1.5).astype(int)
    model = RandomForestClassifier(20, max_depth=5, random_state=0).fit(X, y)
    row = int(np.flatnonzero(model.predict(X) == 0)[0])
    result = geco.Explainer(model, X, desired_class=1).explain(X.iloc[[row]], k=3, random_state=0)
    assert result.success and (result.changes()["feature"] == "f32").any()
    x32 = X["f32"].iloc[row]
    assert str(x32) in str(result) and repr(float(x32)) not in str(result)
    data = json.loads(result.to_json())
    assert data["x"]["f32"] == float(str(x32))
    values = pd.DataFrame([cf["values"] for cf in data["counterfactuals"]]).astype(X.dtypes.to_dict())
    np.testing.assert_array_equal(values.to_numpy(), result.counterfactuals[list(X.columns)].to_numpy())
    shown = [v for v in result.changes().query("feature == 'f32'")[["from", "to"]].to_numpy().ravel()]
    assert all(len(repr(v)) <= 14 for v in shown), shown  # float64 digits of float32 values: 17-20

def test_explain_many(adult):
    ds, _, explainer, bad, _ = adult
    results = explainer.explain_many(ds.X.iloc[bad[:3]], random_state=0)
    assert len(results) == 3
    again = explainer.explain_many(ds.X.iloc[bad[:3]], random_state=0)
    for a, b in zip(results, again):
        pd.testing.assert_frame_equal(a.counterfactuals, b.counterfactuals)


# ----------------------------------------------------------------------------- bad input
def test_bad_instances(adult):
    ds, _, explainer, bad, _ = adult
    x = ds.X.iloc[[bad[0]]]
    with pytest.raises(SchemaError, match="'age'.*NaN"):
        explainer.explain(x.assign(age=np.nan))
    with pytest.raises(SchemaError, match="missing column.*'sex'"):
        explainer.explain(x.drop(columns=["sex"]))
    with pytest.warns(UserWarning, match=r"ignoring column\(s\) \['salary'\] of x: the Explainer's X did not have"):
        assert explainer.problem(x.assign(salary=3)).instance.x.shape == (len(explainer.schema),)
    with pytest.raises(SchemaError, match="'age' must be numeric"):
        explainer.explain(x.assign(age="old"))
    with pytest.raises(SchemaError, match="unknown category 'Astronaut'"):
        explainer.explain(x.assign(occupation="Astronaut"))
    with pytest.raises(ValueError, match="exactly one row"):
        explainer.explain(ds.X.iloc[:2])
    with pytest.raises(TypeError, match="unknown option"):
        explainer.explain(x, generations=3)
    with pytest.raises(ValueError, match="k .* must not exceed q"):
        explainer.explain(x, k=10, q=5)


@pytest.mark.filterwarnings("ignore:X has feature names")  # the model below is fitted on an array on purpose
def test_bad_data_model_and_constraints(adult):
    ds, model, _, _, _ = adult
    with pytest.raises(SchemaError, match=r"'capital_gain'.*\(NaN\) at row 5"):
        geco.Explainer(model, ds.X.assign(capital_gain=ds.X["capital_gain"].where(ds.X.index != 5)))
    with pytest.raises(geco.UnsupportedModelError, match="no predict_proba"):
        geco.Explainer(object(), ds.X)
    with pytest.raises(UnknownClass, match=r"desired_class 'rich' is not one of the model's classes \[0, 1\]"):
        geco.Explainer(model, ds.X, desired_class="rich")
    numeric_only = LogisticRegression().fit(ds.X[["age", "hours_per_week"]].to_numpy(), ds.y)
    with pytest.raises(geco.UnsupportedModelError, match="failed to score rows of X"):
        geco.Explainer(numeric_only, ds.X)
    with pytest.raises(PLAFError) as err:
        geco.Explainer(model, ds.X, "fixed sex\ncf.salery <= 3\n")
    assert err.value.line == 2 and "salery" in str(err.value)
    with pytest.raises(ValueError, match="engine must be one of"):
        geco.Explainer(model, ds.X, engine="gpu")
    with pytest.raises(ValueError, match="norm_weights"):
        geco.Explainer(model, ds.X, norm_weights=(1, 0))
    with pytest.raises(ValueError, match=r"norm_weights must not all be 0 \(every distance would be 0"):
        geco.Explainer(model, ds.X, norm_weights=(0, 0, 0, 0))
    with pytest.raises(ValueError, match="norm_weights must not all be 0"):
        geco.Explainer(model, ds.X).explain(ds.X.iloc[[0]], norm_weights=(0.0, 0, 0, 0))
    # a feature named as a column the answers add would be shown overwritten by geco's number
    renamed = ds.X.rename(columns={"hours_per_week": "distance"})
    fitted = one_hot_pipeline(renamed, RandomForestClassifier(5, max_depth=4, random_state=0)).fit(renamed, ds.y)
    with pytest.raises(ValueError, match=r"column\(s\) \['distance'\] named as columns geco's answers add"):
        geco.Explainer(fitted, renamed)


def test_callable_model_is_a_black_box():
    X = pd.DataFrame({"a": np.arange(50) % 10, "b": np.arange(50) % 7})

    def model(frame):
        p = (frame["a"].to_numpy() >= 7).astype(float) * 0.9
        return np.column_stack([1 - p, p])

    explainer = geco.Explainer(model, X, desired_class=1)
    result = explainer.explain(X.iloc[[0]], random_state=0, norm_weights=(0, 1, 0, 0))
    assert result.success
    best = result.counterfactuals.iloc[0]
    assert best["a"] == 7 and best["b"] == 0  # the known optimum: a -> 7, nothing else
