"""PLAF syntax: every construct parses to the tree it means; syntax errors point at the place,
including for hostile text (bytes that are not UTF-8, huge numbers, deep nesting, long lines)."""

from __future__ import annotations

import pytest

import plaf_grammar
from plaf_grammar import PLAFError, PLAFSyntaxError, PLAFValueError, parse
from plaf_grammar.ast import (
    Abs,
    BinOp,
    Bool,
    BoolOp,
    Compare,
    Decreasing,
    Fixed,
    Group,
    Implication,
    Increasing,
    InSet,
    Neg,
    Not,
    Num,
    Ref,
    Rule,
    Str,
)
from plaf_grammar.parser import MAX_DEPTH
from plaf_grammar.visitor import Visitor

cf = lambda n: Ref("cf", n)  # noqa: E731
x = lambda n: Ref("x", n)  # noqa: E731


def expression(text: str):
    """The expression of a one-rule program."""
    (stmt,) = parse(text).statements
    assert isinstance(stmt, Rule)
    return stmt.expr


ISSUE_EXAMPLE = """\
# Adult: what an applicant can change
group education, education_num          # features sampled together
fixed sex, race, native_country, marital_status, relationship
increasing age, education_num           # cf.f >= x.f      (also: decreasing)
cf.hours_per_week <= 80
cf.capital_gain <= x.capital_gain + 20000
cf.workclass != "Without-pay"
cf.occupation not in {"Armed-Forces", "Priv-house-serv"}
if cf.education_num > x.education_num then cf.age >= x.age + 4
if x.age < 25 and cf.education_num > x.education_num + 1 then cf.age >= 25
"""


def test_issue_example_parses_to_expected_statements():
    p = parse(ISSUE_EXAMPLE)
    assert p.statements == (
        Group(("education", "education_num")),
        Fixed(("sex", "race", "native_country", "marital_status", "relationship")),
        Increasing(("age", "education_num")),
        Rule(Compare("<=", cf("hours_per_week"), Num(80))),
        Rule(Compare("<=", cf("capital_gain"), BinOp("+", x("capital_gain"), Num(20000)))),
        Rule(Compare("!=", cf("workclass"), Str("Without-pay"))),
        Rule(InSet(cf("occupation"), (Str("Armed-Forces"), Str("Priv-house-serv")), True)),
        Implication(
            Compare(">", cf("education_num"), x("education_num")),
            Compare(">=", cf("age"), BinOp("+", x("age"), Num(4))),
        ),
        Implication(
            BoolOp(
                "and",
                Compare("<", x("age"), Num(25)),
                Compare(">", cf("education_num"), BinOp("+", x("education_num"), Num(1))),
            ),
            Compare(">=", cf("age"), Num(25)),
        ),
    )


@pytest.mark.parametrize(
    "text, tree",
    [
        ("cf.a > 1e3", Compare(">", cf("a"), Num(1000.0))),
        ("cf.a > -2.5", Compare(">", cf("a"), Num(-2.5))),
        ("cf.a > .5E-1", Compare(">", cf("a"), Num(0.05))),
        ("cf.a == 7", Compare("==", cf("a"), Num(7))),
        ("cf.b == true", Compare("==", cf("b"), Bool(True))),
        ("cf.b != false", Compare("!=", cf("b"), Bool(False))),
        ('cf."capital-gain" >= 0', Compare(">=", cf("capital-gain"), Num(0))),
        ('cf.s == "a \\"q\\" \\\\ b"', Compare("==", cf("s"), Str('a "q" \\ b'))),
        ("cf.a + 2 * cf.b < 3", Compare("<", BinOp("+", cf("a"), BinOp("*", Num(2), cf("b"))), Num(3))),
        ("(cf.a + 2) * cf.b < 3", Compare("<", BinOp("*", BinOp("+", cf("a"), Num(2)), cf("b")), Num(3))),
        ("cf.a - 1 - 2 > 0", Compare(">", BinOp("-", BinOp("-", cf("a"), Num(1)), Num(2)), Num(0))),
        ("cf.a / 2 / 4 > 0", Compare(">", BinOp("/", BinOp("/", cf("a"), Num(2)), Num(4)), Num(0))),
        ("-cf.a > 0", Compare(">", Neg(cf("a")), Num(0))),
        ("abs(cf.a - x.a) <= 3", Compare("<=", Abs(BinOp("-", cf("a"), x("a"))), Num(3))),
        ("cf.a in {1, -2, 3.5}", InSet(cf("a"), (Num(1), Num(-2), Num(3.5)))),
        ('cf.c not in {"r"}', InSet(cf("c"), (Str("r"),), True)),
        ("not cf.a > 1", Not(Compare(">", cf("a"), Num(1)))),
        (
            "cf.a > 1 or cf.a < 0 and cf.b == 1",
            BoolOp(
                "or",
                Compare(">", cf("a"), Num(1)),
                BoolOp("and", Compare("<", cf("a"), Num(0)), Compare("==", cf("b"), Num(1))),
            ),
        ),
        (
            "(cf.a > 1 or cf.a < 0) and cf.b == 1",
            BoolOp(
                "and",
                BoolOp("or", Compare(">", cf("a"), Num(1)), Compare("<", cf("a"), Num(0))),
                Compare("==", cf("b"), Num(1)),
            ),
        ),
        (  # a newline inside parentheses does not end the statement
            "(cf.a > 1 and\n  cf.b > 2)",
            BoolOp("and", Compare(">", cf("a"), Num(1)), Compare(">", cf("b"), Num(2))),
        ),
    ],
)
def test_expressions(text, tree):
    assert expression(text) == tree


def test_statement_kinds_and_separators():
    p = parse("group a, b; fixed c\nimmutable d ; increasing e\n\n decreasing f, g # done\n")
    assert p.statements == (
        Group(("a", "b")),
        Fixed(("c",)),
        Fixed(("d",)),  # immutable is an alias of fixed
        Increasing(("e",)),
        Decreasing(("f", "g")),
    )


def test_quoted_names_in_lists_and_keywords_as_names():
    p = parse('group "capital-gain", "x y"\nfixed group, x\ncf.group > 0')
    assert p.statements[0] == Group(("capital-gain", "x y"))
    assert p.statements[1] == Fixed(("group", "x"))
    assert p.statements[2] == Rule(Compare(">", cf("group"), Num(0)))


def test_names_in_any_alphabet_are_bare_names_and_print_bare():
    """Columns are named in their users' languages: a letter of any alphabet starts a bare name
    (letters, digits and underscores follow, as in Python); the printer writes such a name
    bare and anything else quoted, so printing and parsing agree."""
    from plaf_grammar.printer import format_name

    p = parse("increasing âge, Größe\nif cf.Größe > x.Größe then cf.年齢 >= x.年齢 + 1\nfixed _ñ2")
    assert p.statements[0] == Increasing(("âge", "Größe"))
    assert p.statements[1].consequence == Compare(">=", cf("年齢"), BinOp("+", x("年齢"), Num(1)))
    assert p.statements[2] == Fixed(("_ñ2",))
    assert parse(str(p)) == p
    assert [format_name(n) for n in ("âge", "年齢", "2nd", "a b", "if", "e\u0301t\u00e9")] == [
        "âge", "年齢", '"2nd"', '"a b"', '"if"', '"e\u0301t\u00e9"']  # a combining accent: quoted
    for text in ("increasing 2nd", "increasing e\u0301té"):
        with pytest.raises(PLAFSyntaxError):
            parse(text)


def test_positions_are_recorded():
    p = parse("\n  fixed a,  b\ncf.a > x.b")
    fx, rule = p.statements
    assert fx.pos[:2] == (2, 3)
    assert fx.name_pos[1][:2] == (2, 13)
    assert rule.expr.right.pos[:2] == (3, 8)


def test_empty_and_comment_only_programs():
    assert parse("").statements == ()
    assert parse("# nothing\n\n;;\n").statements == ()


@pytest.mark.parametrize(
    "text",
    [
        ISSUE_EXAMPLE,
        "cf.a - (cf.b - 2) == 3 * -cf.q / 2 or not not cf.\"x\\\"y\" in {1, -2.5, true}",
        "-(cf.a + 1) > - -cf.b; abs(-cf.a) < 2",
        "(cf.a < 1) == (cf.b < 2)",
        "not (cf.a > 1 and cf.b > 2) or cf.c in {-0.0}",
        'group "a b", "tab\\there"',
        "if (cf.a > 1 or cf.b > 2) then not cf.c == 3",
    ],
)
def test_round_trip_examples(text):
    p = parse(text)
    again = parse(str(p))
    assert again == p
    assert str(again) == str(p)


# ------------------------------------------------------------------------------ syntax errors
@pytest.mark.parametrize(
    "text, line, column, fragment",
    [
        ("cf.age >= ", 1, 11, "expected an expression"),
        ("fixed sex\ncf.age >= 3 4", 2, 13, "unexpected number 4"),
        ("cf.age >= 3 4", 1, 13, "end of the statement"),
        ("cf.a = 3", 1, 6, "'=='"),
        ('fixed a\ncf.w == "abc\n', 2, 9, "unterminated string"),
        ("cf.a > 3 @", 1, 10, "unexpected character '@'"),
        ("if cf.a > 1 cf.b < 2", 1, 13, "'then'"),
        ("age > 3", 1, 1, "cf.age or x.age"),
        ("y.age > 3", 1, 1, "not y.NAME"),
        ("1 < cf.a < 3", 1, 10, "cannot be chained"),
        ("cf.a > (3", 1, 10, "expected ')'"),
        ("group a b", 1, 9, "','"),
        ("cf.a && cf.b", 1, 6, "use 'and'"),
        ("fixed", 1, 6, "a name"),
        ("cf.a in {}", 1, 10, "a number"),
        ("cf.a in {cf.b}", 1, 10, "a string"),
        ("cf.a >\n 3", 1, 7, "end of line"),
        ("if cf.a > 3 then cf.b > 1 else cf.c > 1", 1, 27, "no else"),
        ("cf.a > 'x'", 1, 8, "double quotes"),
        ("cf.flag == True", 1, 12, "booleans are written true, in lower case"),
        ("cf.1st_payment > 3", 1, 4, 'feature name \'1st_payment\' starts with a digit; quote it: cf."1st_payment"'),
        ("fixed a\nx.2nd >= cf.a", 2, 3, 'quote it: x."2nd"'),
        ("cf.flag != FALSE", 1, 12, "booleans are written false, in lower case"),
    ],
)
def test_syntax_errors_have_position_and_say_what_was_expected(text, line, column, fragment):
    with pytest.raises(PLAFSyntaxError) as ei:
        parse(text, filename="rules.plaf")
    e = ei.value
    assert (e.line, e.column) == (line, column), str(e)
    assert fragment in e.message, str(e)
    assert e.filename == "rules.plaf"


@pytest.mark.parametrize(
    "text, column, written, meant",
    [
        ("cf.age <== 3", 8, "<==", "<="),
        ("cf.age >== 3", 8, ">==", ">="),
        ("cf.age =< 3", 8, "=<", "<="),
        ("cf.age => 3", 8, "=>", ">="),
        ("cf.age =! 3", 8, "=!", "!="),
        ("cf.age !== 3", 8, "!==", "!="),
        ("cf.age === 3", 8, "===", "=="),
        ("cf.age <> 3", 8, "<>", "!="),
    ],
)
def test_a_mistyped_operator_names_the_one_most_likely_meant(text, column, written, meant):
    with pytest.raises(PLAFSyntaxError) as ei:
        parse(text, filename="rules.plaf")
    e = ei.value
    assert str(e).startswith(f"rules.plaf:1:{column}: '{written}' is not an operator; did you mean '{meant}'?")
    assert str(e).split("\n")[2] == "    " + " " * (column - 1) + "^" + "~" * (len(written) - 1)


def test_a_single_equals_sign_suggests_the_comparison():
    with pytest.raises(PLAFSyntaxError) as ei:
        parse("cf.age = 3", filename="rules.plaf")
    assert str(ei.value).startswith("rules.plaf:1:8: unexpected character '='; to compare use '=='")


@pytest.mark.parametrize(
    "text, column, fix",
    [
        ("cf.F.Undergrad >= x.F.Undergrad", 4, """feature name 'F.Undergrad' contains '.'; quote it: cf."F.Undergrad\""""),
        ("cf.a >= x.F.Undergrad", 11, """contains '.'; quote it: x."F.Undergrad\""""),
        ("fixed age, F.Undergrad", 12, """contains '.'; quote it: "F.Undergrad\""""),
        ("cf.capital-gain <= 100", 4, """feature name 'capital-gain' contains '-'; quote it: cf."capital-gain\""""),
        ("increasing hours-per-week", 12, """contains '-'; quote it: "hours-per-week\""""),
    ],
)
def test_a_bare_name_with_a_dot_or_dash_says_how_to_quote_it(text, column, fix):
    with pytest.raises(PLAFSyntaxError) as ei:
        parse("fixed age\n" + text, filename="rules.plaf")
    assert str(ei.value).startswith(f"rules.plaf:2:{column}: ")
    assert fix in ei.value.message, str(ei.value)


def test_quoted_dotted_names_and_plain_subtraction_still_parse():
    assert expression('cf."F.Undergrad" >= x."F.Undergrad"') == Compare(">=", cf("F.Undergrad"), x("F.Undergrad"))
    assert expression("cf.a-cf.b > 0") == Compare(">", BinOp("-", cf("a"), cf("b")), Num(0))


def test_error_format_file_line_col_source_and_caret():
    with pytest.raises(PLAFError) as ei:
        parse("fixed a\ncf.b >= 3 4\n", filename="r.plaf")
    lines = str(ei.value).split("\n")
    assert lines[0].startswith("r.plaf:2:11: unexpected number 4")
    assert lines[1] == "    cf.b >= 3 4"
    assert lines[2] == "    " + " " * 10 + "^"


def test_error_without_filename_uses_string_placeholder():
    with pytest.raises(PLAFError) as ei:
        parse("cf.a >")
    assert str(ei.value).startswith("<string>:1:7:")


def test_number_out_of_range_is_a_plaf_error():
    with pytest.raises(PLAFValueError) as ei:
        parse("cf.a > 1\ncf.b < 1e999")
    assert (ei.value.line, ei.value.column) == (2, 8)


def test_parse_rejects_what_is_not_text():
    with pytest.raises(TypeError):
        parse(12)  # type: ignore[arg-type]


def test_program_is_pure_syntax():
    p = parse("group a, b\nfixed c")
    assert not hasattr(p, "ground") and not hasattr(p, "schema") and not hasattr(p, "groups")
    assert repr(p) == "<Program <string>: 2 statements>"


# ------------------------------------------------------------------------------ hostile text
@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_every_line_end_ends_a_statement_and_counts_in_positions(end):
    """Unix, Windows and classic Mac OS line ends: the same program, errors on the same line."""
    text = end.join(["fixed a", "# comment", "cf.b > x.b", ""])
    assert parse(text) == parse("fixed a\ncf.b > x.b\n")
    with pytest.raises(PLAFSyntaxError) as ei:
        parse(end.join(["fixed a", "", "cf.b > +"]))
    assert (ei.value.line, ei.value.column) == (3, 8), str(ei.value)
    assert str(ei.value).split("\n")[1] == "    cf.b > +"


def test_a_carriage_return_in_a_name_is_written_escaped_and_read_back():
    """A raw carriage return ends a line, so a name holding one is printed as ``\\r``."""
    from plaf_grammar.printer import format_string

    assert format_string("a\rb") == '"a\\rb"'
    quoted = format_string("a\rb")
    (stmt,) = parse(f"group {quoted}, c").statements
    assert stmt.names == ("a\rb", "c")



def test_bytes_are_utf8_text():
    assert parse("cf.a == \"é\"".encode()) == parse('cf.a == "é"')
    assert parse(b"\xef\xbb\xbfcf.a > 1") == parse("cf.a > 1")  # a byte-order mark is dropped


@pytest.mark.parametrize(
    "data, line, column",
    [
        (b"fixed a\n  cf.b > \xff 3", 2, 10),
        (b"cf.a > 1 # caf\xe9\n", 1, 15),  # latin-1, even in a comment
        (b"cf.\"\xc3\xa9t\xe9\" > 1", 1, 7),  # column counts characters, not bytes
        (b"\xef\xbb\xbf\xc3", 1, 1),  # after a byte-order mark
        (b"fixed a\r\nfixed \x80b", 2, 7),
        (b"fixed a\rfixed b\r\n\rcf.a > \x80", 4, 8),  # lone carriage returns end lines too
    ],
)
def test_bytes_that_are_not_utf8_fail_at_their_place(data, line, column):
    with pytest.raises(PLAFSyntaxError) as ei:
        parse(data, filename="r.plaf")
    e = ei.value
    assert (e.filename, e.line, e.column) == ("r.plaf", line, column), str(e)
    assert "not valid UTF-8" in e.message
    caret = str(e).split("\n")[2]
    assert caret == "    " + " " * (column - 1) + "^"


@pytest.mark.parametrize(
    "literal",
    ["9" * 5000, "1" + "0" * 309, "1e309", "1.5e99999999999999999999", "9" * 400 + ".5"],
)
def test_numbers_too_large_for_a_float_fail_at_their_place(literal):
    with pytest.raises(PLAFValueError) as ei:
        parse(f"fixed a\ncf.a > {literal}", filename="r.plaf")
    e = ei.value
    assert (e.line, e.column) == (2, 8)
    assert "out of range" in e.message and len(e.message) < 120
    assert len(str(e).split("\n")[1]) < 120  # a long line is shown around the error


def test_long_numbers_that_fit_are_numbers():
    assert expression("cf.a > " + "0" * 5000 + "7") == Compare(">", cf("a"), Num(7))
    assert expression("cf.a > 1" + "0" * 308) == Compare(">", cf("a"), Num(10**308))
    assert expression("cf.a > 0." + "0" * 5000 + "1") == Compare(">", cf("a"), Num(0.0))


def test_nesting_is_limited_with_a_positioned_error():
    ok = "cf.a > " + "-" * (MAX_DEPTH - 5) + "cf.b"
    assert parse(ok).statements[0].expr.left == cf("a")
    for deep in (
        "cf.a > " + "-" * 3000 + "cf.b",
        "cf.a > 1" + " + cf.b" * 500,
        "not " * 500 + "cf.a > 1",
        "cf.a > " + "(" * 2000 + "-" * 200 + "cf.b" + ")" * 2000,
    ):
        with pytest.raises(PLAFSyntaxError) as ei:
            parse(deep)
        assert "nested too deeply" in ei.value.message
        assert ei.value.line == 1 and ei.value.column is not None


def test_deep_parentheses_alone_are_not_nesting():
    assert expression("cf.a > " + "(" * 3000 + "1" + ")" * 3000) == Compare(">", cf("a"), Num(1))


def test_long_lines_parse_and_errors_show_a_window_of_them():
    line = "; ".join(f"cf.a > {i}" for i in range(800))
    assert len(parse(line).statements) == 800
    with pytest.raises(PLAFSyntaxError) as ei:
        parse(line + " @ " + line)
    e = ei.value
    assert e.column == len(line) + 2
    _, shown, caret = str(e).split("\n")
    assert len(shown) < 120 and shown.startswith("    ...") and shown.endswith("...")
    assert shown[len(caret) - 1] == "@"  # the caret still points at the character


def test_control_characters_keep_the_caret_aligned():
    with pytest.raises(PLAFSyntaxError) as ei:
        parse("cf.a\t>\x0c1 @")
    _, shown, caret = str(ei.value).split("\n")
    assert shown[len(caret) - 1] == "@"
    assert ei.value.line == 1  # a form feed does not start a line


# ------------------------------------------------------------------------------ visitor
def test_visitor_dispatches_on_class_name_and_defaults_loudly():
    class CountRefs(Visitor[int]):
        def Ref(self, e):
            return 1

        def Compare(self, e):
            return self.visit(e.left) + self.visit(e.right)

    e = expression("cf.a > x.b")
    assert CountRefs().visit(e) == 2
    with pytest.raises(TypeError, match="CountRefs does not handle Num nodes"):
        CountRefs().visit(expression("cf.a > 1"))


def test_plaf_error_is_picklable():
    import pickle

    with pytest.raises(PLAFError) as ei:
        parse("cf.a >", filename="f.plaf")
    e2 = pickle.loads(pickle.dumps(ei.value))
    assert str(e2) == str(ei.value)
    assert isinstance(e2, PLAFSyntaxError)


def test_public_names():
    for name in ("parse", "load", "holds", "PLAFError", "Program", "GroundProgram", "Schema"):
        assert hasattr(plaf_grammar, name)
