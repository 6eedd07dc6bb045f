"""The miner: every ordering the data obeys is found and counted exactly (brute force over all
column pairs), dependencies and 1:1 codes become groups, a law one row breaks is never active,
and the sample only screens - every count is made on all rows."""

import itertools

import numpy as np
import pandas as pd
import pytest

import geco
from geco.laws import Law, mine
from geco.laws.dependencies import fd_broken
from geco.laws.questions import words


@pytest.fixture(scope="module")
def credit():
    return geco.datasets.load_credit().X


def _orderings(laws):
    return {law.columns: law for law in laws if law.kind == "ordering"}


def test_every_ordering_credit_obeys_is_proposed(credit):
    laws = _orderings(mine(credit))
    n = len(credit)
    for a, b in itertools.permutations(credit.columns, 2):
        broken = int((credit[a] < credit[b]).sum())
        if broken:
            continue
        law = laws.get((a, b)) or laws.get((b, a))
        assert law is not None, f"{a} >= {b} holds on every row but is not proposed"
        if law.statement.endswith(f"cf.{b}"):
            assert law.statement == f"cf.{a} >= cf.{b}" or " == " in law.statement
        assert law.broken == 0 and law.rows == n
        already_met = credit[a].min() >= credit[b].max()
        assert law.active == (not already_met), law
        assert f"holds on {n:,} of {n:,} rows" in law.note


def test_the_orderings_of_the_issue_are_active(credit):
    active = {law.statement for law in mine(credit) if law.active}
    assert "cf.MaxBillAmountOverLast6Months >= cf.MostRecentBillAmount" in active
    assert "cf.MaxPaymentAmountOverLast6Months >= cf.MostRecentPaymentAmount" in active
    assert "cf.TotalMonthsOverdue >= cf.TotalOverdueCounts" in active


def test_ordering_counts_are_exact(credit):
    for law in _orderings(mine(credit)).values():
        a, b = law.columns
        assert law.broken == int((~(credit[a] >= credit[b])).sum()), law


def test_a_law_one_row_breaks_is_a_commented_near_law():
    rng = np.random.default_rng(0)
    hi = rng.integers(10, 100, 5000)
    X = pd.DataFrame({"hi": hi, "lo": hi - rng.integers(0, 10, 5000)})
    X.loc[1234, "lo"] = X.loc[1234, "hi"] + 1
    (law,) = [law for law in mine(X) if law.kind == "ordering"]
    assert law.statement == "cf.hi >= cf.lo"
    assert law.broken == 1 and not law.active and not law.holds
    assert law.note == "broken by 1 of 5,000 rows"
    text = geco.suggest(X)
    line = next(line for line in text.splitlines() if "cf.hi >= cf.lo" in line)
    assert line.startswith("# ") and "holds" not in line


def test_the_sample_only_screens(credit):
    """With a tiny sample the counts are still those of every row, and no law is missed."""
    small = {law.statement: law.broken for law in mine(credit, sample=200)}
    full = {law.statement: law.broken for law in mine(credit)}
    for statement, broken in full.items():
        if broken == 0:
            assert small[statement] == 0, statement
    for statement, broken in small.items():
        assert broken == full.get(statement, broken), statement


def test_one_breaking_row_outside_the_sample_is_counted():
    rng = np.random.default_rng(1)
    a = rng.normal(size=50_000)
    X = pd.DataFrame({"a": a, "b": a - 1.0})
    X.loc[49_999, "b"] = 5.0
    (law,) = [law for law in mine(X, sample=1000) if law.kind == "ordering"]
    assert law.broken == 1 and not law.active


def test_equal_columns_are_one_equality():
    X = pd.DataFrame({"a": [1, 2, 3, 4] * 5, "b": [1, 2, 3, 4] * 5})
    orderings = [law for law in mine(X) if law.kind == "ordering"]
    assert [law.statement for law in orderings] == ["cf.a == cf.b"]
    assert orderings[0].active


def test_adult_education_is_a_group():
    laws = mine(geco.datasets.load_adult().X)
    groups = [law for law in laws if law.kind == "group" and law.active]
    assert [law.statement for law in groups] == ["group education, education_num"]
    assert groups[0].note.startswith("1:1 codes: education <-> education_num")


def test_a_dependency_becomes_a_group_keyed_by_its_determinant(credit):
    groups = [law for law in mine(credit) if law.kind == "group"]
    active = [law for law in groups if law.active]
    assert [law.statement for law in active] == ["group TotalOverdueCounts, HasHistoryOfOverduePayments"]
    # the other determinant of HasHistoryOfOverduePayments is a comment: groups are disjoint
    assert any(not law.active and law.columns == ("TotalMonthsOverdue", "HasHistoryOfOverduePayments")
               for law in groups)  # fmt: skip


def test_near_dependency_is_commented_with_its_count():
    rng = np.random.default_rng(2)
    city = rng.integers(0, 50, 20_000)
    X = pd.DataFrame({"city": city, "region": city // 10, "noise": rng.integers(0, 5, 20_000)})
    X.loc[[3, 77, 512], "region"] = 9
    laws = [law for law in mine(X, near=0.001) if law.kind == "group"]
    assert [(law.statement, law.broken, law.active) for law in laws] == [("group city, region", 3, False)]
    assert "except on 3 of 20,000 rows" in laws[0].note


def test_fd_broken_matches_group_by():
    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b = rng.integers(0, 7, 300), rng.integers(0, 4, 300)
        df = pd.DataFrame({"a": a, "b": b})
        expected = 300 - int(df.groupby("a")["b"].agg(lambda s: s.value_counts().max()).sum())
        assert fd_broken(a, b, 4) == expected


def test_questions_are_never_active(credit):
    laws = mine(credit)
    assert all(not law.active for law in laws if law.kind in ("fixed", "monotone", "range"))
    assert any(law.statement == "fixed isMale" for law in laws)
    assert any(law.statement == "increasing AgeGroup" for law in laws)


def test_constant_identifier_and_entity_columns_are_flagged():
    X = pd.DataFrame({
        "customer": np.repeat(np.arange(100), 5),
        "row_id": np.arange(500),
        "country_code": np.repeat(np.arange(100) % 7, 5),
        "balance": np.arange(500) % 13,
        "const": 1,
    })  # fmt: skip
    fixed = {law.columns[0]: law.note for law in mine(X, entity="customer") if law.kind == "fixed"}
    assert "customer" not in fixed
    assert "identifier" in fixed["row_id"]
    assert "same value on every row" in fixed["const"]
    assert "never changes within an entity" in fixed["country_code"] or "who a person is" in fixed["country_code"]
    assert "balance" not in fixed
    X["plan"] = np.repeat(np.arange(100) % 3, 5)
    fixed = {law.columns[0]: law.note for law in mine(X, entity="customer") if law.kind == "fixed"}
    assert "never changes within an entity (customer; 100 entities)" in fixed["plan"]


def test_words_of_column_names():
    assert words("isMale") == ["is", "male"]
    assert words("native_country") == ["native", "country"]
    assert words("HasHistoryOfOverduePayments") == ["has", "history", "of", "overdue", "payments"]


def test_an_active_law_cannot_be_broken():
    with pytest.raises(ValueError, match="cannot be active"):
        Law("ordering", ("a", "b"), "cf.a >= cf.b", 10, 1, True, "")


def test_bad_input():
    with pytest.raises(TypeError, match="DataFrame"):
        mine(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="no rows"):
        mine(pd.DataFrame({"a": []}))
    with pytest.raises(ValueError, match="entity"):
        mine(pd.DataFrame({"a": [1, 2]}), entity="who")


def test_planted_laws_in_a_wide_table_are_found():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from bench_suggest import plant_laws
    from make_wide import make_wide

    X, _, _ = make_wide(30_000, 115)
    active = {law.statement for law in mine(plant_laws(X)) if law.active}
    assert active == {"cf.num13 >= cf.num14", "group cat098, cat099"}
    assert not [law for law in mine(X) if law.active]


def _monotone_function(a: np.ndarray, b: np.ndarray) -> bool:
    """Brute force: equal ``a``, equal ``b``, and ``b`` ordered as ``a`` (or reversed) on every row."""
    pairs = set(zip(a.tolist(), b.tolist()))
    if len({x for x, _ in pairs}) != len(pairs):
        return False
    ranked = [y for _, y in sorted(pairs)]
    return ranked == sorted(ranked) or ranked == sorted(ranked, reverse=True)


def derived_table(n=5_000, seed=4):
    rng = np.random.default_rng(seed)
    income = rng.normal(50, 20, n).round(2)
    return pd.DataFrame({
        "income": income,
        "age": rng.integers(18, 80, n),
        "total_paid": income * 3,                                     # another unit
        "noise": rng.normal(size=n),
        "log_income": np.log(np.clip(income, 1, None)),                # not 1:1 below 1
        "band": np.digitize(income, [30, 50, 70]),                     # a bracket
        "months_left": 12 * (80 - rng.integers(18, 80, n)),            # unrelated to age's draw
        "score": rng.integers(300, 850, n).astype(float),
        "score_falling": 0,
    })  # fmt: skip


def test_derived_columns_are_a_group_and_every_map_in_it_holds():
    X = derived_table()
    X["score_falling"] = 1000 - 2 * X["score"]
    groups = [law for law in mine(X) if law.kind == "group"]
    assert [(law.statement, law.active) for law in groups] == [
        ("group income, total_paid, log_income, band", True),
        ("group score, score_falling", True),
    ]
    assert groups[0].note == (
        "derived columns, on every row: total_paid rises with income (and determines it); log_income rises with "
        "income; band rises with income; holds on 5,000 of 5,000 rows"
    )
    assert "score_falling falls with score (and determines it)" in groups[1].note
    for law in groups:  # each column is a monotone function of the first, checked by brute force
        head = X[law.columns[0]].to_numpy()
        assert all(_monotone_function(head, X[c].to_numpy()) for c in law.columns[1:]), law.statement
    draft = geco.suggest(X)
    assert "\ngroup income, total_paid, log_income, band  " in draft
    import plaf_grammar

    plaf_grammar.load(draft, X)  # the draft checks against the data's schema


def test_a_derived_column_broken_by_one_row_outside_the_sample_is_no_group():
    X = derived_table(50_000)
    X.loc[49_999, "total_paid"] = X["total_paid"].max() + 1  # out of order; in no sample of 1,000 rows drawn with this seed
    assert 49_999 not in set(np.random.default_rng(0).choice(len(X), 1_000, replace=False).tolist())
    groups = {law.columns: law for law in mine(X, sample=1_000) if law.kind == "group"}
    assert ("income", "log_income", "band") in groups  # total_paid is no longer a function of income
    assert not any("total_paid" in columns for columns in groups)


def test_unrelated_columns_of_many_values_are_never_derived():
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(20_000, 12)), columns=[f"x{i}" for i in range(12)])
    X["rank"] = rng.permutation(len(X))  # every value distinct, ordered by nothing
    X["few"] = rng.integers(0, 3, len(X))
    assert not [law for law in mine(X) if law.kind == "group"]


def test_a_dependency_the_dependency_miner_reported_is_not_repeated(credit):
    groups = [law for law in mine(credit) if law.kind == "group"]
    columns = [law.columns for law in groups]
    assert len(columns) == len(set(map(frozenset, columns)))


def test_a_derived_column_with_a_missing_value_is_no_group():
    """A column with a missing value is in no derived group (nothing says where its row goes,
    and a NaN sorts last whatever the others hold); mining goes on for the others."""
    X = derived_table(2_000)
    X.loc[X["total_paid"].idxmax(), "income"] = np.nan  # where a NaN, sorted last, breaks no order
    groups = {law.columns for law in mine(X) if law.kind == "group"}
    assert ("total_paid", "log_income", "band") in groups
    assert not any("income" in columns for columns in groups)
