"""Search quality: found wherever one exists, distinct options, honest and fast failures."""

import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

import geco
import plaf_grammar
from geco.problem.feasible_space import GroupSpace, project
from geco.search.diversity import pick_distinct
from geco.search.operators import Context, walk_back
from geco.search.population import Candidates
from plaf_grammar import SchemaError


def _proba(p: np.ndarray) -> np.ndarray:
    return np.column_stack([1 - p, p])


@pytest.fixture(scope="module")
def people():
    """Four numeric features; the model wants income + 2 * hours high."""
    rng = np.random.default_rng(0)
    n = 600
    X = pd.DataFrame(
        {
            "age": rng.integers(20, 65, n),
            "income": rng.integers(0, 100, n) * 1000,
            "hours": rng.integers(10, 60, n),
            "debt": rng.integers(0, 50, n) * 500,
        }
    )

    def model(frame):
        score = frame["income"].to_numpy() / 100_000 + frame["hours"].to_numpy() / 60 - frame["debt"].to_numpy() / 50_000
        return _proba(1 / (1 + np.exp(-8 * (score - 1.0))))

    p = model(X)[:, 1]
    return X, model, np.flatnonzero(p < 0.3), np.flatnonzero(p > 0.7)


def test_already_desired_instance_says_so_without_unknowns(people):
    X, model, _, good = people
    result = geco.Explainer(model, X).explain(X.iloc[[good[0]]])
    assert not result.success and len(result.counterfactuals) == 0
    assert "already classified as the desired class 1" in result.reason
    text = str(result)
    assert "?" not in text and text.startswith("No counterfactual for desired class 1")
    assert result.stats["generations"] == 0 and result.stats["candidates_scored"] == 0


def test_rule_no_candidate_meets_is_named_not_a_crash(people):
    X, model, bad, _ = people
    explainer = geco.Explainer(model, X, "fixed age\ncf.income + cf.hours < 0\n")
    result = explainer.explain(X.iloc[[bad[0]]], random_state=0)
    assert not result.success
    assert "no candidate satisfies `cf.income + cf.hours < 0` (<string>:2)" in result.reason
    assert result.stats["stop"] == "no_candidates"


def test_x_breaking_a_group_rule_names_the_rule_and_its_line(people, tmp_path):
    X, model, bad, _ = people
    rules = tmp_path / "limits.plaf"
    rules.write_text("# what may change\nfixed age\ncf.hours > 100     # nobody works that much\n")
    result = geco.Explainer(model, X, rules).explain(X.iloc[[bad[0]]], random_state=0)
    assert not result.success
    assert f"x breaks `cf.hours > 100` ({rules}:3) on hours" in result.reason
    assert f"`cf.hours > 100` ({rules}:3) removes every other value of it" in result.reason
    assert "('hours',)" not in result.reason


def test_nothing_may_change_names_each_rule(people):
    X, model, bad, _ = people
    result = geco.Explainer(model, X, "fixed age, income\nfixed hours\ncf.debt == x.debt\n").explain(X.iloc[[bad[0]]])
    assert not result.success
    assert result.reason.startswith("no feature may change:")
    for text, line in (("fixed age, income", 1), ("fixed hours", 2), ("cf.debt == x.debt", 3)):
        assert f"`{text}` (<string>:{line})" in result.reason


def test_unreachable_class_fails_fast_blames_no_rule_and_quotes_the_shown_probability(people):
    X, _, _, _ = people

    def capped(frame):  # never reaches the desired class
        return _proba(0.05 + 0.3 * (frame["hours"].to_numpy() > 40) + 0.002 * (frame["age"].to_numpy() > 50))

    result = geco.Explainer(capped, X).explain(X.iloc[[0]], random_state=0)
    assert not result.success
    assert result.stats["stop"] == "stagnated" and result.stats["generations"] < 30
    assert result.reason.startswith("none found within the search's budget: no candidate it tried is scored as 1")
    assert "scores none of the" in result.reason
    assert "rule" not in result.reason and "constraint" not in result.reason
    shown = result.counterfactuals["probability"].to_numpy()
    assert len(shown) and not result.counterfactuals["counterfactual"].any()
    assert f"reach p = {shown.max():.3f}" in result.reason
    assert shown[0] == shown.max()  # the candidate the message quotes comes first


def test_rules_keeping_the_desired_rows_away_are_named(people):
    X, model, bad, _ = people
    rules = "fixed income, hours\ncf.debt >= x.debt\n"
    explainer = geco.Explainer(model, X, rules)
    result = explainer.explain(X.iloc[[bad[0]]], random_state=0)
    assert not result.success
    assert "none of the" in result.reason and "satisfies the rules for this x" in result.reason
    assert "`fixed income, hours` (<string>:1)" in result.reason


def test_engine_disagreeing_with_the_model_is_reported(people):
    X, model, bad, _ = people
    explainer = geco.Explainer(model, X, engine="blackbox")
    real = explainer.scorer

    class Optimistic:  # an engine that scores everything above the threshold, without a bound
        name, exact, compiled, merge_below, merge_min_blocks = "optimistic", False, True, 32, 128

        def error_bound(self, rows):
            return np.full(len(rows), np.inf)

        def score_rows(self, rows):
            return np.maximum(real.score_rows(rows), 0.9)

        def bind(self, x):
            inner = real.bind(x)

            class Bound:
                def score_block(self, delta, cols):
                    return np.maximum(inner.score_block(delta, cols), 0.9)

                def score_blocks(self, blocks):
                    return [self.score_block(d, c) for d, c in blocks]

            return Bound()

    explainer.setting.engines = replace(explainer.setting.engines, scorer=Optimistic())
    x = X.iloc[[bad[0]]]
    result = explainer.explain(x, random_state=0, max_generations=3, min_generations=0)
    assert "distinct counterfactual(s) found" not in result.reason
    probs = result.counterfactuals["probability"].to_numpy()
    np.testing.assert_array_equal(probs, model(result.counterfactuals[list(X.columns)])[:, 1])
    if not result.success:  # the reason quotes the model's probability, never the engine's 0.9
        assert f"p = {probs.max():.3f}" in result.reason or "predict_proba puts all" in result.reason
    assert (probs[result.counterfactuals["counterfactual"].to_numpy()] > 0.5).all()


# ----------------------------------------------------------------------------- diversity
def _redundant(a: pd.Series, b: pd.Series, x: pd.Series, ranges: pd.Series, gap: float) -> bool:
    """b repeats a: changes all a changes, each within gap of a or carried farther."""
    a_ch = [f for f in x.index if a[f] != x[f]]
    if not all(b[f] != x[f] for f in a_ch):
        return False
    for f in a_ch:
        close = abs(b[f] - a[f]) / ranges[f] < gap
        farther = np.sign(b[f] - x[f]) == np.sign(a[f] - x[f]) and abs(b[f] - x[f]) >= abs(a[f] - x[f])
        if not (close or farther):
            return False
    return True


def test_diverse_options_and_the_same_first(people):
    X, model, bad, _ = people
    explainer = geco.Explainer(model, X, "fixed age\n")
    ranges = X.max() - X.min()
    checked = 0
    for r in bad[:3]:
        x = X.iloc[[r]]
        diverse = explainer.explain(x, random_state=int(r))
        plain = explainer.explain(x, random_state=int(r), diversity=0)
        assert diverse.success and plain.success
        pd.testing.assert_series_equal(diverse.counterfactuals.iloc[0], plain.counterfactuals.iloc[0])
        cfs = diverse.counterfactuals
        assert len(cfs) == 5, diverse.reason
        assert (np.diff(cfs["distance"].to_numpy()) >= 0).all()
        for i in range(len(cfs)):
            for j in range(i + 1, len(cfs)):
                assert not _redundant(cfs.iloc[i], cfs.iloc[j], x.iloc[0], ranges, 0.1), (i, j)
        # the plain top k: the k best rows, here variants of few kinds of change
        assert len(plain.counterfactuals) == 5
        assert plain.counterfactuals["distance"].iloc[-1] <= cfs["distance"].iloc[-1]
        checked += 1
    assert checked == 3


def test_pick_distinct_skips_repeats_only():
    x = np.array([0.0, 0.0, 0.0])
    rows = np.array(
        [
            [5.0, 0.0, 0.0],  # best: feature 0 to 5
            [5.2, 0.0, 0.0],  # same change, 0.2 of the range away: a repeat
            [5.0, 1.0, 0.0],  # the best's change plus another: a repeat
            [9.0, 0.0, 0.0],  # the same change carried farther: a repeat
            [0.0, 2.0, 0.0],  # a different change
            [2.0, 0.0, 3.0],  # feature 0 changed less, with feature 2: a different option
        ]
    )
    ranges, cat = np.array([10.0, 10.0, 10.0]), np.zeros(3, dtype=bool)
    assert pick_distinct(rows, x, 5, 0.1, ranges, cat).tolist() == [0, 4, 5]
    assert pick_distinct(rows, x, 2, 0.1, ranges, cat).tolist() == [0, 4]
    assert pick_distinct(rows, x, 4, 0.0, ranges, cat).tolist() == [0, 1, 2, 3]


# ----------------------------------------------------------------------------- success
@pytest.fixture(scope="module")
def joint():
    """30 free numeric columns; the desired class needs 8 of them non-negative at once (the
    model gives almost no hint before that)."""
    rng = np.random.default_rng(1)
    n, d = 3000, 30
    X = pd.DataFrame(rng.normal(size=(n, d)).round(3), columns=[f"f{i}" for i in range(d)])
    need = [f"f{i}" for i in range(0, 24, 3)]

    def model(frame):
        ok = (frame[need].to_numpy() >= 0).sum(axis=1)
        return _proba(np.where(ok == len(need), 0.8, 0.2 + 0.01 * ok / len(need)))

    p = model(X)[:, 1]
    return X, model, np.flatnonzero(p <= 0.5), np.flatnonzero(p > 0.5)


def test_counterfactual_needing_many_features_together_is_found(joint):
    X, model, bad, good = joint
    assert len(good) >= 5, "the data holds rows of the desired class: a counterfactual exists"
    explainer = geco.Explainer(model, X)
    found = 0
    for r in bad[:2]:
        result = explainer.explain(X.iloc[[r]], random_state=int(r))
        assert result.success, result.reason
        best = result.counterfactuals.iloc[0]
        assert model(result.counterfactuals[list(X.columns)])[0, 1] > 0.5
        assert best["n_changed"] < 30  # walked back from the seed towards x
        found += 1
    assert found == 2
    # the paper's initial population alone rarely gets there in a few generations
    paper = explainer.explain(X.iloc[[bad[0]]], random_state=0, seeds=0, max_generations=5, patience=5)
    assert not paper.success


# ----------------------------------------------------------------------------- columns
def test_model_feature_names_decide_the_columns(people):
    X, model, bad, _ = people
    y = (model(X)[:, 1] > 0.5).astype(int)
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X[["income", "hours", "debt"]], y)
    with_id = X.assign(customer_id=np.arange(len(X)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explainer = geco.Explainer(tree, with_id)
    msgs = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert msgs == ["ignoring column(s) ['age', 'customer_id'] of X: the model was not fitted on them"]
    assert explainer.schema.names == ("income", "hours", "debt")
    assert explainer.engine != "blackbox" and explainer.engine_reason.startswith("compiled engine")
    result = explainer.explain(with_id.iloc[[bad[0]]], random_state=0)
    assert list(result.x.columns) == ["income", "hours", "debt"]
    with pytest.raises(SchemaError, match=r"lacks column\(s\) \['debt'\]"):
        geco.Explainer(tree, X.drop(columns=["debt"]))
    blackbox = geco.Explainer(tree, X[["income", "hours", "debt"]], engine="blackbox")
    assert blackbox.engine_reason == "black box (predict_proba): engine='blackbox' was requested"
    callable_model = geco.Explainer(model, X)
    assert callable_model.engine_reason.startswith("black box (predict_proba): no compiled engine")


# ----------------------------------------------------------------------------- operators
def test_project_takes_feasible_groups_whole_and_keeps_x_elsewhere():
    x = np.array([0.0, 0.0, 0.0])
    spaces = [
        GroupSpace(0, ("a", "b"), np.array([0, 1]), np.array([[1.0, 1.0], [2.0, 2.0]]),
                   np.ones(2), np.cumsum(np.ones(2)), np.array([0.1, 0.2])),
        GroupSpace(1, ("c",), np.array([2]), np.array([[5.0]]), np.ones(1), np.ones(1), np.array([0.5])),
    ]  # fmt: skip
    rows = np.array([[2.0, 2.0, 7.0], [1.0, 2.0, 5.0], [0.0, 0.0, 5.0]])
    out, changed = project(spaces, x, rows, np.array([False, False]))
    assert out.tolist() == [[2.0, 2.0, 0.0], [0.0, 0.0, 5.0], [0.0, 0.0, 5.0]]
    assert changed.tolist() == [[True, False], [False, True], [False, True]]
    out, changed = project(spaces, x, rows, np.array([False, True]))  # c must change
    assert out[:, 2].tolist() == [5.0, 5.0, 5.0] and changed[:, 1].all()


def test_walk_back_only_reverts():
    x = np.zeros(6)
    rows = np.array([[1.0, 2, 3, 4, 5, 6], [1.0, 0, 0, 0, 0, 0]])
    changed = rows != 0
    ctx = Context(
        x=x, names=tuple("abcdef"), spaces=[None] * 6, group_of_feature=np.arange(6),
        implications=[], implication_spaces=[], cross_rules=[], rng=np.random.default_rng(0),
    )  # fmt: skip
    kids = walk_back(ctx, Candidates(rows, changed))
    assert len(kids) > 0
    assert np.all((kids.rows == rows[0]) | (kids.rows == 0))  # only the 6-change parent has kids
    assert np.array_equal(kids.changed, kids.rows != 0)
    sizes = sorted(set(kids.changed.sum(axis=1)))
    assert sizes == [3, 5]  # 3 of 6 reverted, then 1 (the sizes halve: 3, 1)


def test_holds_agrees_with_every_counterfactual(people):
    X, model, bad, _ = people
    rules = "fixed age\ncf.debt <= x.debt\nif cf.hours > x.hours + 10 then cf.income >= x.income\n"
    explainer = geco.Explainer(model, X, rules)
    checked = 0
    for r in bad[:3]:
        result = explainer.explain(X.iloc[[r]], random_state=int(r))
        xd = result.x.iloc[0].to_dict()
        for _, row in result.counterfactuals.iterrows():
            assert plaf_grammar.holds(explainer.program, xd, row[list(X.columns)].to_dict())
            checked += 1
    assert checked > 0
