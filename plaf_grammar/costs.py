"""What changing each feature costs, as a program's ``cost`` statements price it.

Why a table of its own: a cost is not a rule (it admits every counterfactual) but a weight of the
distance the search minimises. The checker gathers the statements into one price per feature and
direction, in schema order, so the distance reads two arrays and never the statements.

Semantics: a changed feature's normalised difference is multiplied by the cost of the direction
it moves in (``up``: to a larger value, or a later category of an ordered categorical; ``down``:
the other way; an unordered categorical has one cost for any change), in l1, l2 and linf alike,
and its l0 count (1 per changed feature) weighs that cost too. A feature no statement prices
costs 1 both ways, so a program without ``cost`` gives the distance it always gave.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from plaf_grammar.ast import SourceRule

__all__ = ["MAX_COST", "FeatureCosts", "cost_problem"]

#: the largest cost accepted: beyond it one feature swamps every other, and squared differences
#: of far-away values overflow
MAX_COST = 1e6


def cost_problem(value: int | float) -> str | None:
    """Why ``value`` cannot be a cost (negative, not finite, above :data:`MAX_COST`), or None."""
    if not math.isfinite(value):
        return f"a cost must be a finite number, got {value!r}"
    if value < 0:
        return f"a cost must be zero or positive, got {value!r} (a cost is a price, not a reward)"
    if value > MAX_COST:
        return f"a cost must be at most {int(MAX_COST)}, got {value!r}"
    return None


@dataclass(frozen=True)
class FeatureCosts:
    """One price per feature and direction, in schema order (``names``), and the ``cost``
    statements they come from, as written (``rules``; empty when the program has none)."""

    names: tuple[str, ...]
    up: tuple[float, ...]
    down: tuple[float, ...]
    rules: tuple[SourceRule, ...] = ()

    @classmethod
    def uniform(cls, names: tuple[str, ...]) -> FeatureCosts:
        """Cost 1 everywhere: what a program without ``cost`` statements means."""
        ones = (1.0,) * len(names)
        return cls(names, ones, ones)

    @property
    def is_uniform(self) -> bool:
        """True when every change costs 1 (the distance is the unpriced one)."""
        return all(c == 1.0 for c in self.up) and all(c == 1.0 for c in self.down)

    def of(self, name: str) -> tuple[float, float]:
        """(up, down) cost of feature ``name``."""
        j = self.names.index(name)
        return self.up[j], self.down[j]

    def describe(self) -> list[str]:
        """The costs that differ from 1, one line per feature: ``income 2`` when both directions
        cost the same, else ``income up 2, down 1``."""
        out = []
        for name, up, down in zip(self.names, self.up, self.down):
            if up == 1.0 and down == 1.0:
                continue
            out.append(f"{name} {up:g}" if up == down else f"{name} up {up:g}, down {down:g}")
        return out
