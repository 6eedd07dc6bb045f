"""One mined law of a table: a PLAF statement with how many rows it was checked on and how many
break it, whether the draft proposes it active, and a note for the person reviewing it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "Law"]

# What a law says, in the order the draft lists them.
KINDS = ("ordering", "group", "fixed", "monotone", "range")


@dataclass(frozen=True)
class Law:
    """A candidate statement about the data.

    ``kind``: one of :data:`KINDS`; ``columns``: the columns it names; ``statement``: its PLAF
    text; ``rows``: the rows it was checked on (its support); ``broken``: how many of them break
    it (0 for a question, which the data cannot check); ``active``: proposed as a statement
    (only ever for a law no row breaks), else written as a comment; ``note``: why, in words."""

    kind: str
    columns: tuple[str, ...]
    statement: str
    rows: int
    broken: int
    active: bool
    note: str

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind of law {self.kind!r} (one of {', '.join(KINDS)})")
        if self.active and self.broken:
            raise ValueError(
                f"{self.statement!r} is broken by {self.broken} rows: it cannot be active"
            )

    @property
    def holds(self) -> bool:
        """True when every row it was checked on obeys it."""
        return self.broken == 0 and self.rows > 0
