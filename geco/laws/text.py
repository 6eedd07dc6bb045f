"""How the draft writes names and numbers."""

from __future__ import annotations

from plaf_grammar.printer import format_literal, format_name

__all__ = ["count", "literal", "name"]


def name(column: str) -> str:
    """A column as PLAF writes it (quoted when it is not a plain identifier)."""
    return format_name(column)


def literal(value: object) -> str:
    """A number or category as PLAF writes it."""
    return format_literal(value)


def count(n: int) -> str:
    """A row count as people read it: ``29,623``."""
    return f"{n:,}"
