"""Names and types of PLAF expressions against a schema, with messages that say what to write.

Why before grounding: a misspelt feature, a category that does not exist, ``<`` on an unordered
categorical or arithmetic on a string is found once, at its position, before any search starts;
grounding and the vectorised predicates can then assume a well-typed program.

Types: ``"num"``, ``"bool"`` (a condition), ``"str"`` (a string literal) or ``("cat", Feature)``.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from plaf_grammar.ast import Abs, BinOp, Bool, Expr, InSet, Neg, Num, Pos, Ref, Str
from plaf_grammar.errors import PLAFError, PLAFNameError, PLAFTypeError, PLAFValueError
from plaf_grammar.printer import format_literal, format_name, format_string
from plaf_grammar.schema import Feature, Schema, SchemaError
from plaf_grammar.visitor import Visitor

__all__ = ["TypeChecker", "error_at", "order_hint"]


def order_hint(name: str) -> str:
    """How a user gives a categorical feature an order: PLAF's ``<``, ``increasing`` and
    ``decreasing`` follow the categories of an ordered pandas Categorical (text columns have
    none; sorting them alphabetically would be a guess)."""
    return (
        f"give it an order with an ordered pandas Categorical: X[{name!r}] = "
        f"pd.Categorical(X[{name!r}], categories=[...in order...], ordered=True)"
    )


def error_at(cls: type[PLAFError], msg: str, pos: Pos | None) -> PLAFError:
    """A PLAF error of class ``cls`` at ``pos`` (the caret spans the node if on one line)."""
    if pos is None:
        return cls(msg)
    line, col, eline, ecol = pos
    return cls(msg, line, col, end_column=ecol if eline == line else None)


def _valid_list(values: Sequence[Any], n: int = 6) -> str:
    shown = ", ".join(format_string(v) if isinstance(v, str) else repr(v) for v in values[:n])
    return shown + (f", ... ({len(values)} in all)" if len(values) > n else "")


def _num_cats(f: Feature) -> bool:
    return any(isinstance(c, (int, float)) and not isinstance(c, bool) for c in f.categories or ())


def constant_value(e: Expr) -> float | None:
    """The number an expression of literals alone folds to (float64 arithmetic, as the rules
    compute), None where it reads a feature or is no number."""
    if isinstance(e, Num):
        return float(e.value)
    if isinstance(e, (Neg, Abs)):
        v = constant_value(e.operand)
        return None if v is None else (-v if isinstance(e, Neg) else abs(v))
    if isinstance(e, BinOp):
        a, b = constant_value(e.left), constant_value(e.right)
        if a is None or b is None:
            return None
        if e.op == "/":
            return a / b if b != 0 else None  # a zero divisor inside is reported on its own node
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    return None


class TypeChecker(Visitor[Any]):
    """``visit(expr)`` is the type of ``expr``; a problem raises a positioned PLAFError."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema

    # --- names and categories
    def feature(self, name: str, pos: Pos | None) -> Feature:
        """The schema's feature ``name``, or PLAFNameError with the closest name."""
        if name in self.schema:
            return self.schema[name]
        names = list(self.schema.names)
        msg = f"unknown feature {name!r}"
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        if not close:
            lower = {n.lower(): n for n in names}
            if name.lower() in lower:
                close = [lower[name.lower()]]
        if close:
            msg += f"; did you mean {close[0]!r}?"
        else:
            msg += f" (features: {', '.join(names[:8])}{', ...' if len(names) > 8 else ''})"
        raise error_at(PLAFNameError, msg, pos)

    def category(self, f: Feature, lit: Str | Bool | Num) -> int:
        """The code of a literal among ``f``'s categories, or PLAFValueError with a suggestion."""
        try:
            return self.schema.category_code(f.name, lit.value)
        except SchemaError:
            pass
        cats = f.categories or ()
        msg = f"unknown category {lit} for feature {format_name(f.name)!r}"
        unquoted = [c for c in cats if not isinstance(c, str) and str(c) == lit.value] if isinstance(lit.value, str) else []
        if unquoted:  # "2" for the category 2 (a code column made categorical)
            msg += f"; did you mean {format_literal(unquoted[0])} (without quotes)?"
        elif isinstance(lit.value, str):
            close = difflib.get_close_matches(lit.value, [str(c) for c in cats], n=1, cutoff=0.6)
            if close:
                msg += f"; did you mean {format_string(close[0])}?"
        msg += f" (valid: {_valid_list(cats)})"
        raise error_at(PLAFValueError, msg, lit.pos)

    # --- the type of each node
    def Num(self, e: Num) -> Any:
        return "num"

    def Str(self, e: Str) -> Any:
        return "str"

    def Bool(self, e: Bool) -> Any:
        return "bool"

    def Ref(self, e: Ref) -> Any:
        f = self.feature(e.name, e.pos)
        return "num" if f.is_numeric else ("cat", f)

    def Neg(self, e: Any) -> Any:
        self.expect_num(e.operand, "-" if isinstance(e, Neg) else "abs()")
        return "num"

    Abs = Neg

    def BinOp(self, e: Any) -> Any:
        self.expect_num(e.left, e.op)
        self.expect_num(e.right, e.op)
        if e.op == "/" and constant_value(e.right) == 0:  # every row: inf or NaN, surely not meant
            what = "" if isinstance(e.right, Num) else f": `{e.right}` is 0"
            raise error_at(PLAFValueError, f"division by zero{what}", e.right.pos)
        return "num"

    def Compare(self, e: Any) -> Any:
        self.compare(e)
        return "bool"

    def InSet(self, e: InSet) -> Any:
        self.in_set(e)
        return "bool"

    def Not(self, e: Any) -> Any:
        self.expect_bool(e.operand, "'not'")
        return "bool"

    def BoolOp(self, e: Any) -> Any:
        self.expect_bool(e.left, f"'{e.op}'")
        self.expect_bool(e.right, f"'{e.op}'")
        return "bool"

    # --- expectations
    @staticmethod
    def describe(e: Expr, t: Any) -> str:
        if isinstance(t, tuple):
            kind = "bool" if t[1].dtype in ("bool", "boolean") else t[1].kind
            return f"{kind} feature {t[1].name!r}"
        if t == "str":
            return f"the string {e}"
        if t == "bool":
            return "a condition"
        if isinstance(e, Ref):
            return f"numeric feature {e.name!r}"
        return "a number"

    def expect_num(self, e: Expr, op: str) -> None:
        t = self.visit(e)
        if t != "num":
            raise error_at(PLAFTypeError, f"arithmetic ({op}) on {self.describe(e, t)}", e.pos)

    def expect_bool(self, e: Expr, where: str) -> None:
        t = self.visit(e)
        if t != "bool":
            example = "true" if isinstance(t, tuple) and t[1].dtype in ("bool", "boolean") else "..."
            hint = f"; compare it, e.g. {e} == {example}" if isinstance(e, Ref) else ""
            raise error_at(
                PLAFTypeError, f"{where} needs a condition, got {self.describe(e, t)}{hint}", e.pos
            )

    def compare(self, e: Any) -> None:
        lt = "lit" if isinstance(e.left, (Str, Bool)) else self.visit(e.left)
        rt = "lit" if isinstance(e.right, (Str, Bool)) else self.visit(e.right)
        ordered_op = e.op not in ("==", "!=")
        for side, t in ((e.left, lt), (e.right, rt)):
            if t == "bool":
                raise error_at(
                    PLAFTypeError,
                    f"cannot compare a condition with {e.op!r}; combine conditions with and/or/not",
                    side.pos,
                )
        if lt == "num" and rt == "num":
            return
        cats = [(s, t[1]) for s, t in ((e.left, lt), (e.right, rt)) if isinstance(t, tuple)]
        if len(cats) == 2:
            (_, f), (_, g) = cats
            if f.categories != g.categories:
                raise error_at(
                    PLAFTypeError,
                    f"cannot compare {f.kind} feature {f.name!r} with {g.kind} feature {g.name!r}: "
                    "they have different categories",
                    e.pos,
                )
            if ordered_op and not f.is_ordered:
                raise error_at(
                    PLAFTypeError,
                    f"{e.op!r} on unordered categorical feature {f.name!r}; use == or != or "
                    f"'in', or {order_hint(f.name)}",
                    e.pos,
                )
            return
        if len(cats) == 1:
            side, f = cats[0]
            other = e.right if side is e.left else e.left
            ot = rt if side is e.left else lt
            if ot == "lit" or (isinstance(other, Num) and ot == "num" and _num_cats(f)):
                if isinstance(other, Bool) and not any(isinstance(c, bool) for c in f.categories or ()):
                    raise error_at(
                        PLAFTypeError,
                        f"comparing {f.kind} feature {f.name!r} with {other}; write a category "
                        f"such as {format_string(str(f.categories[0])) if f.categories else '...'}",
                        other.pos,
                    )
                self.category(f, other)
                if ordered_op and not f.is_ordered:
                    raise error_at(
                        PLAFTypeError,
                        f"{e.op!r} on unordered categorical feature {f.name!r}; use == or != or "
                        f"'in', or {order_hint(f.name)}",
                        e.pos,
                    )
                return
            raise error_at(
                PLAFTypeError,
                f"comparing {f.kind} feature {f.name!r} with {self.describe(other, ot)}"
                + ("; write the category as a string" if ot == "num" else ""),
                other.pos,
            )
        # no categorical side: num vs literal, or literal vs literal
        for side, t in ((e.left, lt), (e.right, rt)):
            if t == "lit":
                other = e.right if side is e.left else e.left
                ot = rt if side is e.left else lt
                what = "a string" if isinstance(side, Str) else str(side)
                if ot == "num":
                    raise error_at(
                        PLAFTypeError, f"comparing {self.describe(other, ot)} with {what}", side.pos
                    )
                raise error_at(
                    PLAFTypeError, f"{what} can only be compared with a categorical feature", side.pos
                )
        raise AssertionError("unreachable")  # pragma: no cover

    def in_set(self, e: InSet) -> None:
        t = self.visit(e.operand)
        if t == "num":
            for item in e.items:
                if not isinstance(item, Num):
                    raise error_at(
                        PLAFTypeError,
                        f"set of numbers for {self.describe(e.operand, t)} contains {item}",
                        item.pos,
                    )
            return
        if isinstance(t, tuple):
            f = t[1]
            for item in e.items:
                if isinstance(item, Num) and not _num_cats(f):
                    raise error_at(
                        PLAFTypeError,
                        f"comparing {f.kind} feature {f.name!r} with a number; write the category "
                        "as a string",
                        item.pos,
                    )
                self.category(f, item)
            return
        raise error_at(
            PLAFTypeError,
            f"'in' needs a feature or a number on its left, got {self.describe(e.operand, t)}",
            e.operand.pos,
        )
