"""PLAF text -> syntax tree, with syntax errors a person can act on.

Why a Lark LALR parser: it is fast and gives exact line/column positions; Lark's errors become
readable ones, with hints for common slips, in :mod:`plaf_grammar.syntax_errors`.
Hostile input ends in a :class:`PLAFError` too: bytes that are not UTF-8, a number too large for a
float, an expression nested deeper than :data:`MAX_DEPTH` (every later pass recurses over it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedInput, VisitError

from plaf_grammar.ast import (
    Abs,
    BinOp,
    Bool,
    BoolOp,
    Compare,
    Cost,
    Decreasing,
    Fixed,
    Group,
    Implication,
    Increasing,
    InSet,
    Neg,
    Not,
    Num,
    Pos,
    Program,
    Ref,
    Rule,
    Str,
)
from plaf_grammar.errors import PLAFError, PLAFSyntaxError, PLAFValueError
from plaf_grammar.source import decode, line_ends
from plaf_grammar.syntax_errors import shorten, syntax_error

__all__ = ["MAX_DEPTH", "parse"]

#: Deepest expression accepted (levels of operators): the checker, the grounding, the printer
#: and the evaluators recurse over the tree, and Python's stack is finite.
MAX_DEPTH = 100

#: An integer literal with more significant digits than this exceeds the largest float.
_MAX_INT_DIGITS = len(str(int(1.7976931348623157e308)))

_OPEN = {"LPAR", "LBRACE"}
_CLOSE = {"RPAR", "RBRACE"}


class _DropNewlinesInBrackets:
    """Post-lexer: a newline inside ( ) or { } does not end the statement."""

    always_accept = ("_NL",)

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        depth = 0
        for tok in stream:
            if tok.type in _OPEN:
                depth += 1
            elif tok.type in _CLOSE:
                depth = max(0, depth - 1)
            elif tok.type == "_NL" and depth > 0:
                continue
            yield tok


def _tok_pos(t: Token) -> Pos:
    return (t.line, t.column, t.end_line, t.end_column)  # type: ignore[return-value]


def _meta_pos(meta: Any) -> Pos | None:
    if getattr(meta, "empty", True):
        return None
    return (meta.line, meta.column, meta.end_line, meta.end_column)


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}


def _unquote(tok: Token) -> str:
    body = str(tok)[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body, flags=re.S)


def _out_of_range(tok: Token) -> PLAFValueError:
    return PLAFValueError(
        f"number {shorten(str(tok), 24)} is out of range (largest: 1.7976931348623157e308)",
        tok.line, tok.column, end_column=tok.end_column if tok.end_line == tok.line else None,
    )  # fmt: skip


def _number(tok: Token) -> int | float:
    s = str(tok)
    if s.isdigit():
        digits = s.lstrip("0") or "0"  # int() refuses very long strings, even of zeros
        if len(digits) > _MAX_INT_DIGITS or int(digits) > 1.7976931348623157e308:
            raise _out_of_range(tok)
        return int(digits)
    v = float(s)
    if v == float("inf"):
        raise _out_of_range(tok)
    return v


@v_args(meta=True)
class _ToAST(Transformer):
    """Lark parse events -> AST nodes, each with its source position."""

    def start(self, meta, children):
        return list(children)

    # --- names and statements
    def name(self, meta, children):
        (tok,) = children
        value = _unquote(tok) if tok.type == "STRING" else str(tok)
        return (value, _tok_pos(tok))

    def _names(self, cls, meta, children):
        return cls(
            names=tuple(n for n, _ in children),
            name_pos=tuple(p for _, p in children),
            pos=_meta_pos(meta),
        )

    def group_stmt(self, meta, children):
        return self._names(Group, meta, children)

    def fixed_stmt(self, meta, children):
        return self._names(Fixed, meta, children)

    def increasing_stmt(self, meta, children):
        return self._names(Increasing, meta, children)

    def decreasing_stmt(self, meta, children):
        return self._names(Decreasing, meta, children)

    def cost_stmt(self, meta, children):
        direction = children[0] if isinstance(children[0], str) else None
        names = children[1 if direction else 0 : -1]
        value, value_pos = children[-1]
        return Cost(
            names=tuple(n for n, _ in names),
            name_pos=tuple(p for _, p in names),
            direction=direction,
            value=value,
            value_pos=value_pos,
            pos=_meta_pos(meta),
        )

    def up(self, meta, children):
        return "up"

    def down(self, meta, children):
        return "down"

    def cost_value(self, meta, children):
        value = _number(children[-1])
        if len(children) == 2:  # a minus sign: kept, so that the checker can say what is wrong
            value = -value
        return (value, _meta_pos(meta))

    def implication(self, meta, children):
        c, q = children
        return Implication(condition=c, consequence=q, pos=_meta_pos(meta))

    def rule(self, meta, children):
        (e,) = children
        return Rule(expr=e, pos=_meta_pos(meta))

    # --- boolean
    def or_op(self, meta, children):
        return BoolOp("or", children[0], children[1], pos=_meta_pos(meta))

    def and_op(self, meta, children):
        return BoolOp("and", children[0], children[1], pos=_meta_pos(meta))

    def not_op(self, meta, children):
        return Not(children[0], pos=_meta_pos(meta))

    def compare(self, meta, children):
        left, op, right = children
        return Compare(str(op), left, right, pos=_meta_pos(meta))

    def in_set(self, meta, children):
        return InSet(children[0], children[1], False, pos=_meta_pos(meta))

    def not_in_set(self, meta, children):
        return InSet(children[0], children[1], True, pos=_meta_pos(meta))

    def set(self, meta, children):
        return tuple(children)

    # --- arithmetic
    def binop(self, meta, children):
        left, op, right = children
        return BinOp(str(op), left, right, pos=_meta_pos(meta))

    def neg(self, meta, children):
        operand = children[-1]
        if isinstance(operand, Num):  # a negative literal is a number, not an operation
            return Num(-operand.value, pos=_meta_pos(meta))
        return Neg(operand, pos=_meta_pos(meta))

    def abs_op(self, meta, children):
        return Abs(children[0], pos=_meta_pos(meta))

    # --- atoms
    def number(self, meta, children):
        return Num(_number(children[0]), pos=_tok_pos(children[0]))

    def neg_number(self, meta, children):
        return Num(-_number(children[-1]), pos=_meta_pos(meta))

    def string(self, meta, children):
        return Str(_unquote(children[0]), pos=_tok_pos(children[0]))

    def true(self, meta, children):
        return Bool(True, pos=_meta_pos(meta))

    def false(self, meta, children):
        return Bool(False, pos=_meta_pos(meta))

    def ref(self, meta, children):
        kind, (name, _) = children
        return Ref(str(kind), name, pos=_meta_pos(meta))


def _load_grammar() -> str:
    return (resources.files("plaf_grammar") / "plaf.lark").read_text(encoding="utf-8")


_PARSER = Lark(
    _load_grammar(),
    parser="lalr",
    lexer="contextual",
    propagate_positions=True,
    maybe_placeholders=False,
    postlex=_DropNewlinesInBrackets(),
)
_TO_AST = _ToAST()


def _check_depth(tree: Tree, text: str, filename: str | None) -> None:
    """Reject a parse tree deeper than MAX_DEPTH (iteratively: the tree may be very deep)."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH + 1:  # + 1: the level of the statement itself
            meta = node.meta
            line = getattr(meta, "line", None)
            col = getattr(meta, "column", None)
            raise PLAFSyntaxError(
                f"expression nested too deeply (more than {MAX_DEPTH} levels of operators); "
                "split it into several rules",
                line, col, filename, text,
            )  # fmt: skip
        stack.extend((c, depth + 1) for c in reversed(node.children) if isinstance(c, Tree))


def parse(text: str | bytes, filename: str | None = None) -> Program:
    """Parse PLAF ``text`` (a str, or UTF-8 bytes) into a :class:`Program` (syntax only; see
    ``check`` and ``load`` for the checks against data).

    Raises :class:`PLAFSyntaxError` (a :class:`PLAFError`) with the position and what was
    expected, :class:`PLAFValueError` for a number out of range."""
    if isinstance(text, (bytes, bytearray)):
        text = decode(bytes(text), filename)
    if not isinstance(text, str):
        raise TypeError(f"PLAF text must be a str or bytes, got {type(text).__name__}")
    text = text.removeprefix("\ufeff")  # a byte-order mark, as ``open(path).read()`` keeps it
    text = line_ends(text)  # a lone carriage return ends a line (classic Mac OS text)
    # the error is raised outside the handlers so it carries no chained parser exception: lark's
    # exceptions hold parser state that cannot be pickled (a worker reports errors by pickling)
    error: PLAFError | None = None
    try:
        tree = _PARSER.parse(text)
        _check_depth(tree, text, filename)
        stmts = _TO_AST.transform(tree)
    except UnexpectedInput as e:
        error = syntax_error(_PARSER, e, text, filename)
    except VisitError as e:  # an error raised by a transformer callback
        if not isinstance(e.orig_exc, PLAFError):
            raise  # pragma: no cover - a bug in a callback
        error = e.orig_exc.with_context(filename, text)
    except PLAFError as e:
        error = e.with_context(filename, text)
    except RecursionError:  # pragma: no cover - MAX_DEPTH keeps the tree shallow
        error = PLAFSyntaxError("expression nested too deeply", 1, 1, filename, text)
    if error is not None:
        error.__context__ = error.__cause__ = None
        raise error
    return Program(tuple(stmts), filename=filename, text=text)
