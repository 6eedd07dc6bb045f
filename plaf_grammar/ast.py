"""The PLAF syntax tree: what the parser returns, and nothing about data or checking.

Why dataclasses: every pass walks the same small, immutable tree; equality ignores source
positions, so ``parse(str(p)) == p`` (the round trip) is a plain ``==``. ``str(node)`` prints
canonical PLAF (see ``printer.py``). Checking a program against a schema gives a separate
:class:`plaf_grammar.CheckedProgram`; a :class:`Program` stays pure syntax.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from plaf_grammar.printer import Printer

__all__ = [
    "Abs",
    "BinOp",
    "Bool",
    "BoolOp",
    "Category",
    "Compare",
    "Cost",
    "Decreasing",
    "Expr",
    "Fixed",
    "Group",
    "Implication",
    "InSet",
    "Increasing",
    "Neg",
    "Node",
    "Not",
    "Num",
    "Pos",
    "Program",
    "Ref",
    "Rule",
    "SourceRule",
    "Statement",
    "Str",
    "cf_features",
    "children",
    "refs",
    "walk",
]

#: (line, column, end_line, end_column), 1-based, end exclusive, as Lark reports them.
Pos = tuple[int, int, int, int]

_PRINTER = Printer()


@dataclass(frozen=True)
class Node:
    """Base of every node: a source position (not compared) and canonical printing."""

    pos: Pos | None = field(default=None, compare=False, repr=False, kw_only=True)

    def __str__(self) -> str:
        return _PRINTER.visit(self)


# ------------------------------------------------------------------------------ expressions
@dataclass(frozen=True)
class Expr(Node):
    """Base of expression nodes."""


@dataclass(frozen=True)
class Num(Expr):
    value: int | float


@dataclass(frozen=True)
class Str(Expr):
    value: str


@dataclass(frozen=True)
class Bool(Expr):
    value: bool


@dataclass(frozen=True)
class Category(Expr):
    """A value of categorical feature ``feature`` given by its code; ``label`` is the category
    it stands for (printed). The parser never makes one: grounding puts it in place of ``x.f``."""

    feature: str
    code: int
    label: Any = field(compare=False)


@dataclass(frozen=True)
class Ref(Expr):
    """``cf.NAME`` (kind "cf", the counterfactual) or ``x.NAME`` (kind "x", the instance)."""

    kind: str
    name: str


@dataclass(frozen=True)
class Neg(Expr):
    operand: Expr


@dataclass(frozen=True)
class Abs(Expr):
    operand: Expr


@dataclass(frozen=True)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Compare(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class InSet(Expr):
    operand: Expr
    items: tuple[Num | Str | Bool, ...]
    negated: bool = False


@dataclass(frozen=True)
class Not(Expr):
    operand: Expr


@dataclass(frozen=True)
class BoolOp(Expr):
    """``and`` / ``or``, binary and left-associative (as parsed)."""

    op: str
    left: Expr
    right: Expr


def children(e: Expr) -> tuple[Expr, ...]:
    """Direct sub-expressions of ``e`` (set items are literals and are not listed)."""
    return tuple(v for name in _field_names(type(e)) if isinstance(v := getattr(e, name), Expr))


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    """A node class's field names (``dataclasses.fields`` builds them again on every call)."""
    return tuple(f.name for f in fields(cls))


def walk(e: Expr) -> Iterator[Expr]:
    """Every node of ``e``, pre-order."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def refs(e: Expr, kind: str | None = None) -> Iterator[Ref]:
    """Every feature reference in ``e`` (only ``cf`` or only ``x`` refs if ``kind`` is given)."""
    for n in walk(e):
        if isinstance(n, Ref) and (kind is None or n.kind == kind):
            yield n


def cf_features(e: Expr) -> tuple[str, ...]:
    """The distinct ``cf`` features ``e`` reads, in order of first appearance."""
    return tuple(dict.fromkeys(r.name for r in refs(e, "cf")))


# ------------------------------------------------------------------------------ statements
@dataclass(frozen=True)
class Statement(Node):
    """Base of statement nodes."""


@dataclass(frozen=True)
class _Names(Statement):
    names: tuple[str, ...]
    name_pos: tuple[Pos | None, ...] = field(default=(), compare=False, repr=False)
    keyword: ClassVar[str] = ""

    def name_position(self, i: int) -> Pos | None:
        """Where the ``i``-th name is written (the statement's position if unknown)."""
        return self.name_pos[i] if i < len(self.name_pos) else self.pos


@dataclass(frozen=True)
class Group(_Names):
    """``group f1, f2, ...``: features that change together (sampled as observed tuples)."""

    keyword: ClassVar[str] = "group"


@dataclass(frozen=True)
class Fixed(_Names):
    """``fixed f, ...`` (alias ``immutable``): ``cf.f == x.f``."""

    keyword: ClassVar[str] = "fixed"
    op: ClassVar[str] = "=="


@dataclass(frozen=True)
class Increasing(_Names):
    """``increasing f, ...``: ``cf.f >= x.f``."""

    keyword: ClassVar[str] = "increasing"
    op: ClassVar[str] = ">="


@dataclass(frozen=True)
class Decreasing(_Names):
    """``decreasing f, ...``: ``cf.f <= x.f``."""

    keyword: ClassVar[str] = "decreasing"
    op: ClassVar[str] = "<="


@dataclass(frozen=True)
class Cost(_Names):
    """``cost [up|down] f, ... VALUE``: changing ``f`` weighs ``value`` times in the distance
    (in the direction given, else in both). A price, not a rule: it admits every counterfactual.

    ``value`` is as written (the checker refuses a negative one, at ``value_pos``)."""

    direction: str | None = None
    value: int | float = 1
    value_pos: Pos | None = field(default=None, compare=False, repr=False)
    keyword: ClassVar[str] = "cost"


@dataclass(frozen=True)
class Rule(Statement):
    """A boolean expression every counterfactual must satisfy."""

    expr: Expr


@dataclass(frozen=True)
class Implication(Statement):
    """``if COND then CONSEQ``; the search repairs violations by resampling CONSEQ's group."""

    condition: Expr
    consequence: Expr


# ------------------------------------------------------------------------------ program
@dataclass(frozen=True)
class SourceRule:
    """A statement as the user wrote it, and where: what a message cites.

    ``text`` is the statement's source (one line), ``location`` ``file:line``."""

    text: str
    filename: str | None = None
    line: int | None = None

    @property
    def location(self) -> str:
        where = self.filename or "<string>"
        return f"{where}:{self.line}" if self.line is not None else where

    def __str__(self) -> str:
        return f"`{self.text}` ({self.location})"


@dataclass(eq=False)
class Program:
    """A parsed PLAF program: its statements, and the file name and text they came from.

    Equality compares the statements only (not positions, comments or file name)."""

    statements: tuple[Statement, ...]
    filename: str | None = None
    text: str | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Program) and self.statements == other.statements

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        return _PRINTER.visit(self)

    def __repr__(self) -> str:
        return f"<Program {self.filename or '<string>'}: {len(self.statements)} statements>"

    def source_of(self, stmt: Statement) -> str:
        """The statement's original text (single line if it spans several), else canonical."""
        if self.text is not None and stmt.pos is not None:
            line, col, eline, ecol = stmt.pos
            lines = self.text.split("\n")
            if line == eline and 1 <= line <= len(lines):
                return lines[line - 1][col - 1 : ecol - 1]
            if 1 <= line <= len(lines) and 1 <= eline <= len(lines):
                parts = [lines[line - 1][col - 1 :], *lines[line : eline - 1], lines[eline - 1][: ecol - 1]]
                return " ".join(p.strip() for p in parts)
        return str(stmt)

    def source_rule(self, stmt: Statement) -> SourceRule:
        """The statement's text and ``file:line``."""
        line = stmt.pos[0] if stmt.pos is not None else None
        return SourceRule(self.source_of(stmt), self.filename, line)
