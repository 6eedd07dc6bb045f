"""Canonical PLAF text of a tree, with the fewest parentheses that keep its shape.

Why canonical: ``parse(str(p)) == p`` for every program (the round trip the tests check), and
grounded rules print readably in ``geco check`` ("cf.age >= 43"). Binding strength is a printing
concern only, so it lives here, not on the nodes.
"""

from __future__ import annotations

import math
import re
from typing import Any

from plaf_grammar.visitor import Visitor

__all__ = ["DIRECTIONS", "KEYWORDS", "Printer", "format_literal", "format_name", "format_string"]

KEYWORDS = frozenset(
    ["group", "fixed", "immutable", "increasing", "decreasing", "if", "then", "and", "or", "not",
     "in", "true", "false", "abs", "cf", "x"]
)  # fmt: skip
#: the directions of a ``cost`` statement (keywords only right after ``cost``)
DIRECTIONS = frozenset(["up", "down"])
_IDENT = re.compile(r"[^\W\d]\w*\Z")


def format_name(name: str) -> str:
    """A feature name as PLAF writes it: bare if it is an identifier, else double-quoted."""
    if _IDENT.match(name) and name not in KEYWORDS:
        return name
    return format_string(name)


def format_string(value: str) -> str:
    """A double-quoted PLAF string literal (escapes backslash, quote, newline, carriage return, tab)."""
    esc = (
        value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    )
    return f'"{esc}"'


def format_literal(value: Any) -> str:
    """A literal value as PLAF writes it: ``true``/``false``, a quoted string, or a number."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return format_string(value)
    if isinstance(value, int):
        return str(value)
    return repr(float(value))


def _negative(value: Any) -> bool:
    return not isinstance(value, (bool, str)) and (value < 0 or math.copysign(1.0, value) < 0)


class Precedence(Visitor[int]):
    """How tightly a node binds (higher binds tighter); atoms are 8."""

    def __default__(self, node: Any) -> int:
        return 8

    def Num(self, e: Any) -> int:
        return 7 if _negative(e.value) else 8

    def Category(self, e: Any) -> int:
        return 7 if _negative(e.label) else 8

    def Neg(self, e: Any) -> int:
        return 7

    def BinOp(self, e: Any) -> int:
        return 5 if e.op in ("+", "-") else 6

    def Compare(self, e: Any) -> int:
        return 4

    def InSet(self, e: Any) -> int:
        return 4

    def Not(self, e: Any) -> int:
        return 3

    def BoolOp(self, e: Any) -> int:
        return 2 if e.op == "and" else 1


_PREC = Precedence()


class Printer(Visitor[str]):
    """Node -> canonical PLAF text."""

    def wrap(self, e: Any, paren: bool) -> str:
        return f"({self.visit(e)})" if paren else self.visit(e)

    def binary(self, e: Any) -> str:
        p = _PREC.visit(e)
        left = self.wrap(e.left, _PREC.visit(e.left) < p)
        right = self.wrap(e.right, _PREC.visit(e.right) <= p)
        return f"{left} {e.op} {right}"

    # --- expressions
    def Num(self, e: Any) -> str:
        return format_literal(e.value)

    def Str(self, e: Any) -> str:
        return format_string(e.value)

    def Bool(self, e: Any) -> str:
        return "true" if e.value else "false"

    def Category(self, e: Any) -> str:
        return format_literal(e.label)

    def Ref(self, e: Any) -> str:
        return f"{e.kind}.{format_name(e.name)}"

    def Neg(self, e: Any) -> str:
        inner = self.wrap(e.operand, _PREC.visit(e.operand) < 7)
        return f"- {inner}" if inner.startswith("-") else f"-{inner}"

    def Abs(self, e: Any) -> str:
        return f"abs({self.visit(e.operand)})"

    def BinOp(self, e: Any) -> str:
        return self.binary(e)

    def Compare(self, e: Any) -> str:
        left = self.wrap(e.left, _PREC.visit(e.left) <= 4)
        right = self.wrap(e.right, _PREC.visit(e.right) <= 4)
        return f"{left} {e.op} {right}"

    def InSet(self, e: Any) -> str:
        kw = "not in" if e.negated else "in"
        items = ", ".join(self.visit(i) for i in e.items)
        return f"{self.wrap(e.operand, _PREC.visit(e.operand) <= 4)} {kw} {{{items}}}"

    def Not(self, e: Any) -> str:
        return f"not {self.wrap(e.operand, _PREC.visit(e.operand) < 3)}"

    def BoolOp(self, e: Any) -> str:
        return self.binary(e)

    # --- statements
    def names(self, s: Any) -> str:
        return f"{s.keyword} {', '.join(format_name(n) for n in s.names)}"

    Group = Fixed = Increasing = Decreasing = names

    def Cost(self, s: Any) -> str:
        names = [format_name(n) for n in s.names]
        if names and names[0] in DIRECTIONS:  # a feature named like a direction is quoted
            names[0] = format_string(names[0])
        head = f"cost {s.direction} " if s.direction else "cost "
        return f"{head}{', '.join(names)} {format_literal(s.value)}"

    def Rule(self, s: Any) -> str:
        return self.visit(s.expr)

    def Implication(self, s: Any) -> str:
        return f"if {self.visit(s.condition)} then {self.visit(s.consequence)}"

    def Program(self, p: Any) -> str:
        return "".join(f"{self.visit(s)}\n" for s in p.statements)
