"""PLAF ``cost`` statements: parsing, printing, the checks (with file:line:col), the table of
prices on the checked program, and that a cost is no rule."""

from __future__ import annotations

import pandas as pd
import pytest

from plaf_grammar import (
    FeatureCosts,
    PLAFNameError,
    PLAFSyntaxError,
    PLAFTypeError,
    PLAFValueError,
    holds,
    load,
    parse,
)
from plaf_grammar.ast import Cost, Fixed, Rule
from plaf_grammar.costs import MAX_COST
from plaf_grammar.source import looks_like_path


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "income": [1.0, 2.0, 3.0],
            "debt": [0.0, 5.0, 1.0],
            "edu": pd.Categorical(["lo", "hi", "mid"], categories=["lo", "mid", "hi"], ordered=True),
            "color": pd.Categorical(["red", "green", "red"]),
            "up": [0, 1, 2],
        }
    )


@pytest.mark.parametrize(
    "text, stmt",
    [
        ("cost income 2", Cost(("income",), value=2)),
        ("cost up income 2", Cost(("income",), direction="up", value=2)),
        ("cost down debt 0.5", Cost(("debt",), direction="down", value=0.5)),
        ("cost income, debt 3", Cost(("income", "debt"), value=3)),
        ('cost "up" 3', Cost(("up",), value=3)),
        ("cost up up 3", Cost(("up",), direction="up", value=3)),
        ("cost income -1", Cost(("income",), value=-1)),  # refused by the checker, not the parser
        ("cost income 1e3", Cost(("income",), value=1000.0)),
    ],
)
def test_cost_statements_parse(text, stmt):
    (parsed,) = parse(text).statements
    assert parsed == stmt


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("cost   income,debt  2", "cost income, debt 2\n"),
        ("cost up up 3", 'cost up "up" 3\n'),
        ('cost "up", down 3', 'cost "up", down 3\n'),
        ('cost down "capital-gain" 0.25', 'cost down "capital-gain" 0.25\n'),
        ("cost income -1", "cost income -1\n"),
    ],
)
def test_cost_statements_print_canonically_and_round_trip(text, canonical):
    p = parse(text)
    assert str(p) == canonical
    assert parse(str(p)) == p


def test_cost_is_a_keyword_only_where_a_statement_starts():
    p = parse("fixed cost, up, down\ncf.cost > 1")
    assert p.statements == (Fixed(("cost", "up", "down")), Rule(parse("cf.cost > 1").statements[0].expr))
    assert not looks_like_path("cost income 2.5")  # a PLAF statement, not a file name


def test_a_cost_without_its_number_is_a_syntax_error():
    with pytest.raises(PLAFSyntaxError) as e:
        parse("cost income")
    assert (e.value.line, e.value.column) == (1, 12)
    with pytest.raises(PLAFSyntaxError) as e:  # "up" is the direction here: quote a feature named so
        parse("fixed a\ncost up 3")
    assert (e.value.line, e.value.column) == (2, 9)
    assert "a feature named 'up' is written \"up\"" in str(e.value)
    for text, column in (("cost income up 2", 13), ("fixed a\n  cost income, debt down 0.5", 21)):  # the direction last
        with pytest.raises(PLAFSyntaxError) as e:
            parse(text)
        assert e.value.column == column
        word = text.split()[-2]
        assert f"(the direction comes right after 'cost': 'cost {word} FEATURES NUMBER')" in str(e.value)


def test_checked_program_has_one_price_per_feature_and_direction():
    p = load("cost up income 2\ncost down debt 0.5\ncost color, edu 3", frame())
    c = p.costs
    assert isinstance(c, FeatureCosts)
    assert c.names == ("income", "debt", "edu", "color", "up")
    assert c.up == (2.0, 1.0, 3.0, 3.0, 1.0)
    assert c.down == (1.0, 0.5, 3.0, 3.0, 1.0)
    assert c.of("debt") == (1.0, 0.5)
    assert not c.is_uniform
    assert c.describe() == ["income up 2, down 1", "debt up 1, down 0.5", "edu 3", "color 3"]
    assert [r.line for r in c.rules] == [1, 2, 3]
    assert c.rules[1].text == "cost down debt 0.5"


def test_no_cost_statement_means_cost_one_everywhere():
    for text in ("", "fixed income", "cost income 1"):
        c = load(text, frame()).costs
        assert c.is_uniform
        assert c.up == c.down == (1.0,) * 5


def test_both_directions_may_be_priced_apart():
    c = load("cost up income 2\ncost down income 0", frame()).costs
    assert c.of("income") == (2.0, 0.0)


@pytest.mark.parametrize(
    "text, cls, line, column, fragments",
    [
        ("cost incme 2", PLAFNameError, 1, 6, ["unknown feature 'incme'", "did you mean 'income'"]),
        ("fixed debt\ncost income, income 2", PLAFNameError, 2, 14, ["named twice"]),
        ("cost up color 2", PLAFTypeError, 1, 9, ["unordered categorical feature 'color'", "cost color 2"]),
        ("cost down color 2", PLAFTypeError, 1, 11, ["no direction"]),
        ("cost income -1", PLAFValueError, 1, 13, ["zero or positive", "-1"]),
        ("cost income -0.5", PLAFValueError, 1, 13, ["-0.5"]),
        ("cost income 1e7", PLAFValueError, 1, 13, [f"at most {int(MAX_COST)}"]),
        ("cost income 1e999", PLAFValueError, 1, 13, ["out of range"]),
        ("cost income 2\ncost up income 3", PLAFNameError, 2, 9, ["already given on line 1"]),
        ("cost down income 2\ncost income 3", PLAFNameError, 2, 6, ["already given on line 1", "both directions"]),
        ("cost income, debt 2\ncost debt 3", PLAFNameError, 2, 6, ["'debt'"]),
    ],
)
def test_cost_errors_are_positioned(text, cls, line, column, fragments):
    with pytest.raises(cls) as e:
        load(text, frame())
    err = e.value
    assert (err.line, err.column) == (line, column), str(err)
    for f in fragments:
        assert f in str(err), str(err)
    assert str(err).startswith(f"<string>:{line}:{column}: ")


def test_cost_errors_name_the_file(tmp_path):
    path = tmp_path / "prices.plaf"
    path.write_text("fixed debt\ncost up color 2\n")
    with pytest.raises(PLAFTypeError) as e:
        load(path, frame())
    assert str(e.value).startswith(f"{path}:2:9: ")


def test_a_cost_is_not_a_rule():
    p = load("cost income 10\ncost down debt 0\ncf.debt <= 5", frame())
    x = {"income": 1.0, "debt": 0.0, "edu": "lo", "color": "red", "up": 0}
    assert holds(p, x, dict(x, income=3.0, color="green"))
    assert not holds(p, x, dict(x, debt=6.0))
    g = p.ground(x)
    assert g.implications == [] and g.cross_rules == []
    assert sum(f is not None for f in g.group_filters) == 1  # the rule on debt only


def test_the_check_command_lists_the_costs(tmp_path, capsys):
    from plaf_grammar.__main__ import main

    frame().to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "p.plaf").write_text("cost up income 2\ncost debt 0.5\n")
    assert main(["check", str(tmp_path / "p.plaf"), "--data", str(tmp_path / "d.csv")]) == 0
    assert "costs: income up 2, down 1; debt 0.5 (every other change costs 1)" in capsys.readouterr().out
    (tmp_path / "q.plaf").write_text("fixed debt\n")
    assert main(["check", str(tmp_path / "q.plaf"), "--data", str(tmp_path / "d.csv")]) == 0
    assert "costs" not in capsys.readouterr().out
