"""Lark's parse errors -> :class:`PLAFSyntaxError` a person can act on.

Why a module of its own: Lark reports the terminals it expected; a user needs readable names
("an expression", "end of statement") and, for the slips people actually make, the fix: the
operator they most likely meant (``<==``, ``=<``, ``=``), ``&&``, a bare name, a feature name
with a ``.`` or ``-`` that must be quoted. Every error keeps ``file:line:col``.
"""

from __future__ import annotations

import contextlib
import re

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from plaf_grammar.errors import PLAFSyntaxError
from plaf_grammar.printer import format_name

__all__ = ["intended_operator", "shorten", "syntax_error"]

_EXPR_START = {"NUMBER", "STRING", "TRUE", "FALSE", "REF_KIND", "ABS", "LPAR", "MINUS", "NOT"}
_STMT_START = {"GROUP", "FIXED", "IMMUTABLE", "INCREASING", "DECREASING", "COST", "IF"}
_END = {"_NL", "SEMICOLON", "$END"}
_ARITH = {"PLUS", "MINUS", "STAR", "SLASH"}
_NAMED = {
    "NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "REF_KIND": "'cf' or 'x'",
    "COMP_OP": "a comparison (== != < <= > >=)",
}
_OPERATOR_CHARS = "<>=!"

#: A feature name written bare although it holds '.' or '-' (``cf.F.Undergrad``,
#: ``x.capital-gain``, ``fixed F.Undergrad``): an optional ``cf.``/``x.``, then the name.
_ODD_NAME = re.compile(r'(?<![\w."])((?:cf|x)\.)?([^\W\d][\w.\-]*\w)')
#: A name starting with a digit, as written after "cf." ("1st_payment").
_DIGIT_NAME = re.compile(r"\d[\w.\-]*\w")


def shorten(text: str, n: int = 40) -> str:
    """``text``, or its start and end around '...' when it is longer than ``n`` characters."""
    return text if len(text) <= n else f"{text[: n - 12]}...{text[-6:]} ({len(text)} characters)"


def intended_operator(written: str) -> str:
    """The comparison someone most likely meant by a run of ``< > = !`` that is not one:
    ``<==`` and ``=<`` mean ``<=``, ``>==`` and ``=>`` mean ``>=``, ``=!`` and ``!==`` mean
    ``!=``, ``<>`` means ``!=``, a single ``=`` or ``===`` means ``==``."""
    if "<" in written and ">" in written:
        return "!="
    if "<" in written:
        return "<="
    if ">" in written:
        return ">="
    if "!" in written:
        return "!="
    return "=="


def _operator_run(text: str, pos: int) -> tuple[int, int]:
    """[start, end) of the run of operator characters around ``text[pos]``."""
    start, end = pos, pos
    while start > 0 and text[start - 1] in _OPERATOR_CHARS:
        start -= 1
    while end < len(text) and text[end] in _OPERATOR_CHARS:
        end += 1
    return start, end


def _odd_name(text: str, pos: int) -> re.Match[str] | None:
    """The bare name holding '.' or '-' that spans ``text[pos]``, if there is one."""
    line_start = text.rfind("\n", 0, pos) + 1
    line_end = text.find("\n", pos)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    for m in _ODD_NAME.finditer(line):
        if m.start() <= pos - line_start < m.end() and any(c in m.group(2) for c in ".-"):
            return m
    return None


def _quote_hint(m: re.Match[str], line: int, text: str, filename: str | None) -> PLAFSyntaxError:
    """The error for a bare name with '.' or '-': how to write it quoted, at the name."""
    prefix, name = m.group(1) or "", m.group(2)
    col = m.start(2) + 1
    odd = "'.'" if "." in name else "'-'"
    return PLAFSyntaxError(
        f"feature name {name!r} contains {odd}; quote it: {prefix}{format_name(name)}",
        line, col, filename, text, end_column=m.end(2) + 1,
    )  # fmt: skip


def _terminal_text(parser: Lark, name: str) -> str:
    try:
        pat = parser.get_terminal(name).pattern
    except KeyError:
        return name
    if pat.type == "str":
        return f"'{pat.value}'"
    return name


def _describe_expected(parser: Lark, expected: set[str]) -> str:
    exp = set(expected)
    parts: list[str] = []
    if {"NUMBER", "REF_KIND", "LPAR"} <= exp:
        if exp >= _STMT_START:
            parts.append("a statement")
            exp -= _STMT_START | _END
        else:
            parts.append("an expression")
        exp -= _EXPR_START
    if exp & _END and exp & {"_NL", "SEMICOLON"}:
        parts.append("the end of the statement (a newline or ';')")
        exp -= _END
    if exp >= _ARITH:
        parts.append("an operator (+ - * /)")
        exp -= _ARITH
    for name in sorted(exp):
        if name == "$END":
            parts.append("the end of the input")
        elif name in _NAMED:
            parts.append(_NAMED[name])
        else:
            parts.append(_terminal_text(parser, name))
    if not parts:
        return "something else"
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def _describe_token(tok: Token) -> str:
    t = tok.type
    if t == "$END":
        return "end of input"
    if t == "_NL":
        return "end of line"
    if t == "NAME":
        return f"name '{shorten(tok)}'"
    if t == "NUMBER":
        return f"number {shorten(tok)}"
    if t == "STRING":
        return f"string {shorten(tok)}"
    return f"'{shorten(tok)}'"


def _end_pos(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1


def _unexpected_character(e: UnexpectedCharacters, text: str, filename: str | None) -> PLAFSyntaxError:
    pos = e.pos_in_stream
    ch = text[pos] if 0 <= pos < len(text) else ""
    line, col = e.line, e.column
    if ch == '"':
        msg = "unterminated string (no closing '\"' before the end of the line)"
        end = len(text.split("\n")[line - 1]) + 1
        return PLAFSyntaxError(msg, line, col, filename, text, end_column=end)
    if ch == "=":
        start, end = _operator_run(text, pos)
        written = text[start:end]
        meant = intended_operator(written)
        if written == "=":
            msg = f"unexpected character '='; to compare use {meant!r}"
            return PLAFSyntaxError(msg, line, col, filename, text)
        msg = f"{written!r} is not an operator; did you mean {meant!r}?"
        first = col - (pos - start)
        return PLAFSyntaxError(msg, line, first, filename, text, end_column=first + len(written))
    msg = f"unexpected character {ch!r}"
    rest = text[pos : pos + 2]
    if rest in ("&&", "||"):
        msg += f"; use '{'and' if ch == '&' else 'or'}'"
    elif ch == "!":
        msg += "; use 'not' or '!='"
    elif ch == "'":
        msg += "; strings and quoted names use double quotes"
    return PLAFSyntaxError(msg, line, col, filename, text)


def _unexpected_token(
    parser: Lark, e: UnexpectedToken, text: str, filename: str | None
) -> PLAFSyntaxError:
    tok = e.token
    expected = set(e.expected) if e.expected else set()
    with contextlib.suppress(Exception):  # the exact set (LALR's look-ahead lists too much)
        expected = set(e.interactive_parser.accepts()) or expected
    if tok.type == "$END":
        line, col = _end_pos(text)
        end_col = None
    else:
        line, col, end_col = tok.line, tok.column, tok.end_column
    if tok.type in ("DOT", "MINUS", "NAME") and tok.start_pos is not None:
        odd = _odd_name(text, tok.start_pos)
        # a NAME is the part after a '-' ("cf.capital-gain"); "y.age" is a misspelt reference
        if odd is not None and (tok.type != "NAME" or (odd.group(1) and "-" in odd.group(2))):
            return _quote_hint(odd, line, text, filename)
    if tok.type == "NUMBER" and tok.start_pos is not None:
        digit = _DIGIT_NAME.match(text, tok.start_pos)  # cf.1st_payment: a name starting with a digit
        if digit is not None and text[max(0, tok.start_pos - 1)] == "." and digit.group(0) != str(tok):
            name = digit.group(0)
            prefix = next((p for p in ("cf.", "x.") if text.endswith(p, 0, tok.start_pos)), "")
            return PLAFSyntaxError(
                f"feature name {name!r} starts with a digit; quote it: {prefix}{format_name(name)}",
                line, col, filename, text, end_column=col + len(name),
            )  # fmt: skip
    if tok.type == "COMP_OP" and tok.start_pos is not None:
        start, end = _operator_run(text, tok.start_pos)
        written = text[start:end]
        if written == "<>":
            first = col - (tok.start_pos - start)
            msg = f"'<>' is not an operator; did you mean {intended_operator(written)!r}?"
            return PLAFSyntaxError(msg, line, first, filename, text, end_column=first + 2)
    msg = f"unexpected {_describe_token(tok)}; expected {_describe_expected(parser, expected)}"
    after = text[tok.end_pos : tok.end_pos + 1] if tok.end_pos is not None else ""
    if tok.type == "NAME" and "REF_KIND" in expected and after == ".":
        msg += f" (a feature is written cf.NAME or x.NAME, not {shorten(tok)}.NAME)"
    elif tok.type == "NAME" and "REF_KIND" in expected and str(tok).lower() in ("true", "false"):
        msg += f" (booleans are written {str(tok).lower()}, in lower case)"
    elif tok.type == "NAME" and "REF_KIND" in expected:
        msg += f" (features are written cf.{shorten(tok)} or x.{shorten(tok)})"
    elif tok.type == "COMP_OP" and "AND" in expected:
        msg += " (comparisons cannot be chained; combine them with 'and')"
    elif tok.type == "_NL" and "RPAR" in expected:
        msg += " (unclosed '(')"
    elif tok.type == "NAME" and str(tok) in ("elif", "else"):
        msg += " (an implication is 'if COND then CONSEQ'; there is no else)"
    elif "THEN" in expected:
        msg += " (an implication is 'if COND then CONSEQ')"
    elif tok.type == "NUMBER" and (word := _direction_before(text, tok.start_pos)):
        msg += f" (a cost is 'cost [up|down] FEATURES NUMBER'; a feature named {word!r} is written \"{word}\")"
    elif str(tok) in ("up", "down") and _in_cost(text, tok.start_pos):
        msg += f" (the direction comes right after 'cost': 'cost {tok} FEATURES NUMBER')"
    return PLAFSyntaxError(msg, line, col, filename, text, end_column=end_col)


_COST_DIRECTION = re.compile(r"\bcost\s+(up|down)\s*\Z")
_COST_START = re.compile(r"\A[ \t]*cost\b")


def _line_before(text: str, pos: int) -> str:
    """The text of ``pos``'s line before it."""
    return text[text.rfind("\n", 0, pos) + 1 : pos]


def _in_cost(text: str, pos: int | None) -> bool:
    """Whether the line holding ``pos`` is a ``cost`` statement (up to ``pos``)."""
    return pos is not None and _COST_START.match(_line_before(text, pos)) is not None


def _direction_before(text: str, pos: int | None) -> str | None:
    """``up`` / ``down`` when the text before ``pos`` on its line is ``cost up`` / ``cost down``
    (read as a direction, so a feature of that name must be quoted), else None."""
    found = None if pos is None else _COST_DIRECTION.search(_line_before(text, pos))
    return found.group(1) if found else None


def syntax_error(
    parser: Lark, e: UnexpectedInput, text: str, filename: str | None
) -> PLAFSyntaxError:
    """The positioned :class:`PLAFSyntaxError` for Lark's error ``e`` on ``text``."""
    if isinstance(e, UnexpectedCharacters):
        return _unexpected_character(e, text, filename)
    if isinstance(e, UnexpectedToken):
        return _unexpected_token(parser, e, text, filename)
    if isinstance(e, UnexpectedEOF):  # pragma: no cover - LALR reports UnexpectedToken($END)
        line, col = _end_pos(text)
        return PLAFSyntaxError("unexpected end of input", line, col, filename, text)
    line = getattr(e, "line", None)  # pragma: no cover
    col = getattr(e, "column", None)  # pragma: no cover
    return PLAFSyntaxError(str(e), line, col, filename, text)  # pragma: no cover
