"""Write mined laws as a commented PLAF draft for a person to review.

Active statements hold on every row; everything else (near-laws with the rows that break them,
statements any candidate meets already, questions) is a comment a reviewer can uncomment. Each
line carries its evidence after ``#``."""

from __future__ import annotations

from collections.abc import Sequence

from geco.laws.law import KINDS, Law
from geco.laws.text import count

__all__ = ["draft"]

HEADINGS = {
    "ordering": "Orderings between numeric columns, on the counterfactual itself",
    "group": "Functional dependencies, 1:1 codes and derived columns: the group's values are taken together, as seen in the data",
    "fixed": "Columns to keep fixed? (never applied automatically)",
    "monotone": "Columns that may only grow? (questions)",
    "range": "Ranges seen (every candidate meets them already: its values are values seen in the data)",
}


def _line(law: Law, width: int) -> str:
    text = law.statement if law.active else f"# {law.statement}"
    return f"{text:<{width}}  # {law.note}"


def draft(
    laws: Sequence[Law], *, rows: int, columns: int, source: str = "the data", base: str | None = None
) -> str:
    """The PLAF text of ``laws``, by kind, active statements first within a kind; the header
    says what was mined (``rows`` x ``columns`` of ``source``), how to use the draft and, with
    ``base``, the program it was fitted to."""
    n_active = sum(law.active for law in laws)
    out = [
        f"# Draft PLAF program mined by geco suggest from {source} ({count(rows)} rows x {columns} columns).",
        "# Review it before use: a statement every row obeys is a law of this data, not",
        "# necessarily of the world. Active statements hold on every row; commented ones are",
        "# near-laws (with the rows that break them), statements already met, or questions.",
        f"# {n_active} active statement{'s' if n_active != 1 else ''}, "
        f"{len(laws) - n_active} commented.",
    ]
    if base is not None:
        out.append(f"# To be added to {base}: what it states already or cannot take is commented.")
    for kind in KINDS:
        group = sorted((law for law in laws if law.kind == kind), key=lambda law: not law.active)
        if not group:
            continue
        width = max(len(law.statement) + (0 if law.active else 2) for law in group)
        out += ["", f"# --- {HEADINGS[kind]}"]
        out += [_line(law, min(width, 72)) for law in group]
    return "\n".join(out) + "\n"
