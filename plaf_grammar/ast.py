"""The PLAF abstract syntax tree.

Why dataclasses: the checker, the grounding and the reference evaluator all walk the same small,
immutable tree; equality ignores source positions, so ``parse(str(p)) == p`` (the round trip) is a
plain ``==``. ``str(node)`` prints canonical PLAF with the fewest parentheses that keep the tree.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Union

if TYPE_CHECKING:  # pragma: no cover
    from plaf_grammar.check import Analysis
    from plaf_grammar.ground import GroundProgram
    from plaf_grammar.schema import Schema

__all__ = [
    "Abs",
    "BinOp",
    "Bool",
    "BoolOp",
    "Compare",
    "Decreasing",
    "Expr",
    "Fixed",
    "Group",
    "Implication",
    "InSet",
    "Increasing",
    "Neg",
    "Not",
    "Num",
    "Pos",
    "Program",
    "Ref",
    "Rule",
    "Statement",
    "Str",
    "format_name",
    "refs",
]

#: (line, column, end_line, end_column), 1-based, end exclusive, as Lark reports them.
Pos = tuple[int, int, int, int]

KEYWORDS = frozenset(
    ["group", "fixed", "immutable", "increasing", "decreasing", "if", "then", "and", "or", "not", "in", "true", "false", "abs", "cf", "x"]
)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def format_name(name: str) -> str:
    """A feature name as PLAF writes it: bare if it is an identifier, else double-quoted."""
    if _IDENT.match(name) and name not in KEYWORDS:
        return name
    return format_string(name)


def format_string(value: str) -> str:
    """A double-quoted PLAF string literal (escapes backslash, quote, newline, tab)."""
    esc = (
        value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    )
    return f'"{esc}"'


# ------------------------------------------------------------------------------ expressions
@dataclass(frozen=True)
class Expr:
    """Base of expression nodes; ``prec`` orders operators for printing (higher binds tighter)."""

    pos: Pos | None = field(default=None, compare=False, repr=False, kw_only=True)
    prec: ClassVar[int] = 8

    def __str__(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError


def _wrap(e: Expr, paren: bool) -> str:
    return f"({e})" if paren else str(e)


@dataclass(frozen=True)
class Num(Expr):
    value: int | float

    @property
    def prec(self) -> int:  # type: ignore[override]
        return 7 if (self.value < 0 or math.copysign(1.0, self.value) < 0) else 8

    def __str__(self) -> str:
        if isinstance(self.value, bool):  # pragma: no cover - defensive
            return "true" if self.value else "false"
        if isinstance(self.value, int):
            return str(self.value)
        return repr(float(self.value))


@dataclass(frozen=True)
class Str(Expr):
    value: str

    def __str__(self) -> str:
        return format_string(self.value)


@dataclass(frozen=True)
class Bool(Expr):
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass(frozen=True)
class Ref(Expr):
    """``cf.NAME`` (kind "cf", the counterfactual) or ``x.NAME`` (kind "x", the instance)."""

    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}.{format_name(self.name)}"


@dataclass(frozen=True)
class Neg(Expr):
    operand: Expr
    prec: ClassVar[int] = 7

    def __str__(self) -> str:
        inner = _wrap(self.operand, self.operand.prec < 7)
        return f"- {inner}" if inner.startswith("-") else f"-{inner}"


@dataclass(frozen=True)
class Abs(Expr):
    operand: Expr

    def __str__(self) -> str:
        return f"abs({self.operand})"


_BIN_PREC = {"+": 5, "-": 5, "*": 6, "/": 6}


@dataclass(frozen=True)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr

    @property
    def prec(self) -> int:  # type: ignore[override]
        return _BIN_PREC[self.op]

    def __str__(self) -> str:
        p = self.prec
        return f"{_wrap(self.left, self.left.prec < p)} {self.op} {_wrap(self.right, self.right.prec <= p)}"


@dataclass(frozen=True)
class Compare(Expr):
    op: str
    left: Expr
    right: Expr
    prec: ClassVar[int] = 4

    def __str__(self) -> str:
        return f"{_wrap(self.left, self.left.prec <= 4)} {self.op} {_wrap(self.right, self.right.prec <= 4)}"


@dataclass(frozen=True)
class InSet(Expr):
    operand: Expr
    items: tuple[Num | Str | Bool, ...]
    negated: bool = False
    prec: ClassVar[int] = 4

    def __str__(self) -> str:
        kw = "not in" if self.negated else "in"
        items = ", ".join(str(i) for i in self.items)
        return f"{_wrap(self.operand, self.operand.prec <= 4)} {kw} {{{items}}}"


@dataclass(frozen=True)
class Not(Expr):
    operand: Expr
    prec: ClassVar[int] = 3

    def __str__(self) -> str:
        return f"not {_wrap(self.operand, self.operand.prec < 3)}"


@dataclass(frozen=True)
class BoolOp(Expr):
    """``and`` / ``or``, binary and left-associative (as parsed)."""

    op: str
    left: Expr
    right: Expr

    @property
    def prec(self) -> int:  # type: ignore[override]
        return 2 if self.op == "and" else 1

    def __str__(self) -> str:
        p = self.prec
        return f"{_wrap(self.left, self.left.prec < p)} {self.op} {_wrap(self.right, self.right.prec <= p)}"


def children(e: Expr) -> tuple[Expr, ...]:
    """Direct sub-expressions of ``e`` (set items are literals and are not listed)."""
    if isinstance(e, (Neg, Abs, Not)):
        return (e.operand,)
    if isinstance(e, InSet):
        return (e.operand,)
    if isinstance(e, (BinOp, Compare, BoolOp)):
        return (e.left, e.right)
    return ()


def walk(e: Expr) -> Iterator[Expr]:
    """Every node of ``e``, pre-order."""
    yield e
    for c in children(e):
        yield from walk(c)


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
class Statement:
    pos: Pos | None = field(default=None, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True)
class _Names(Statement):
    names: tuple[str, ...]
    name_pos: tuple[Pos | None, ...] = field(default=(), compare=False, repr=False)
    keyword: ClassVar[str] = ""

    def __str__(self) -> str:
        return f"{self.keyword} {', '.join(format_name(n) for n in self.names)}"


@dataclass(frozen=True)
class Group(_Names):
    """``group f1, f2, ...``: features that change together (sampled as observed tuples)."""

    keyword: ClassVar[str] = "group"


@dataclass(frozen=True)
class Fixed(_Names):
    """``fixed f, ...`` (alias ``immutable``): ``cf.f == x.f``."""

    keyword: ClassVar[str] = "fixed"


@dataclass(frozen=True)
class Increasing(_Names):
    """``increasing f, ...``: ``cf.f >= x.f``."""

    keyword: ClassVar[str] = "increasing"


@dataclass(frozen=True)
class Decreasing(_Names):
    """``decreasing f, ...``: ``cf.f <= x.f``."""

    keyword: ClassVar[str] = "decreasing"


@dataclass(frozen=True)
class Rule(Statement):
    """A boolean expression every counterfactual must satisfy."""

    expr: Expr

    def __str__(self) -> str:
        return str(self.expr)


@dataclass(frozen=True)
class Implication(Statement):
    """``if COND then CONSEQ``; the search repairs violations by resampling CONSEQ's group."""

    condition: Expr
    consequence: Expr

    def __str__(self) -> str:
        return f"if {self.condition} then {self.consequence}"


Node = Union[Expr, Statement]  # noqa: UP007


# ------------------------------------------------------------------------------ program
@dataclass(eq=False)
class Program:
    """A PLAF program: its statements, and after :func:`plaf_grammar.load` its schema and the
    static analysis (groups, rule placement, implication order) that grounding uses.

    Equality compares the statements only (not positions, comments, file name or schema)."""

    statements: tuple[Statement, ...]
    filename: str | None = None
    text: str | None = None
    schema: Schema | None = None
    analysis: Analysis | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Program) and self.statements == other.statements

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        return "".join(f"{s}\n" for s in self.statements)

    def __repr__(self) -> str:
        state = "checked" if self.analysis is not None else "parsed"
        return f"<Program {self.filename or '<string>'}: {len(self.statements)} statements, {state}>"

    def source_of(self, stmt: Statement) -> str:
        """The statement's original text (single line if it spans several), else canonical."""
        if self.text is not None and stmt.pos is not None:
            line, col, eline, ecol = stmt.pos
            lines = self.text.splitlines()
            if line == eline and 1 <= line <= len(lines):
                return lines[line - 1][col - 1 : ecol - 1]
            if 1 <= line <= len(lines) and 1 <= eline <= len(lines):
                parts = [lines[line - 1][col - 1 :], *lines[line : eline - 1], lines[eline - 1][: ecol - 1]]
                return " ".join(p.strip() for p in parts)
        return str(stmt)

    # --- after load -------------------------------------------------------------------
    def _checked(self) -> Analysis:
        if self.analysis is None:
            from plaf_grammar.errors import PLAFError

            raise PLAFError(
                "this program has not been checked against a schema; use plaf_grammar.load()",
                filename=self.filename,
            )
        return self.analysis

    @property
    def groups(self) -> list[tuple[str, ...]]:
        """Every feature in exactly one group: declared groups first (declaration order), then
        each other feature as a singleton in schema column order. Before ``load`` only the
        declared groups are known, and those are returned."""
        if self.analysis is None:
            return [s.names for s in self.statements if isinstance(s, Group)]
        return list(self.analysis.groups)

    def group_of(self, name: str) -> int:
        """Index in :attr:`groups` of the group holding feature ``name``."""
        return self._checked().group_index[name]

    @property
    def implication_order(self) -> list[Implication]:
        """The implications in the topological order the action cascade applies them."""
        return [info.statement for info in self._checked().implications]

    def ground(self, x: Any) -> GroundProgram:
        """Bind ``x.*`` to the instance ``x`` (see :func:`plaf_grammar.ground.ground`)."""
        from plaf_grammar.ground import ground

        return ground(self, x)
