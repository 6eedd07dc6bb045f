"""Why an explanation has no counterfactual, in words a user can act on.

Every message names the rule as written and where (``file:line``), never a constraint that is not
there: a group the rules empty, a rule ``x`` itself breaks, a rule no candidate meets, or the
rules that keep the data's rows of the desired class out of reach.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from geco.problem.feasible_space import GroupDomain

__all__ = ["blocking_rules", "cite", "emptying_rules", "rules_x_breaks"]


def _source_rules(obj: Any) -> list[Any]:
    """The source statements (``text``, ``location``) behind a grounded predicate or implication."""
    return list(obj.rules) if hasattr(obj, "rules") else [obj.rule]


def cite(objs: Sequence[Any]) -> str:
    """``"`rule` (file:line)"`` for each distinct source rule behind ``objs``, joined by "; "."""
    seen: dict[tuple[str, str], None] = {}
    for obj in objs:
        for r in _source_rules(obj):
            seen[(r.text, r.location)] = None
    return "; ".join(f"`{text}` ({loc})" for text, loc in seen)


def _parts(flt: Any) -> list[Any]:
    return list(flt.parts) if hasattr(flt, "parts") else [flt]


def _columns(names: Sequence[str], values: np.ndarray) -> dict[str, np.ndarray]:
    return {n: values[:, j] for j, n in enumerate(names)}


def rules_x_breaks(ground: Any, domain: GroupDomain, x: np.ndarray) -> list[Any]:
    """The parts of a group's filter that ``x``'s own value tuple breaks."""
    flt = ground.group_filters[domain.index]
    if flt is None:
        return []
    cols = _columns(domain.names, x[domain.features][None])
    return [p for p in _parts(flt) if not bool(np.asarray(p(cols), dtype=bool)[0])]


def emptying_rules(ground: Any, domain: GroupDomain, x: np.ndarray) -> list[Any]:
    """The filter parts that together remove every value of a group other than ``x``'s: each
    part that alone removes them all, else all parts (only their conjunction does). Empty when
    the data holds no other value of the group (no rule is to blame)."""
    flt = ground.group_filters[domain.index]
    other = np.any(domain.values != x[domain.features], axis=1)
    if flt is None or not other.any():
        return []
    cols = _columns(domain.names, domain.values[other])
    parts = _parts(flt)
    alone = [p for p in parts if not np.asarray(p(cols), dtype=bool).any()]
    return alone or parts


def blocking_rules(ground: Any, names: Sequence[str], rows: np.ndarray) -> list[tuple[str, int]]:
    """Every source rule (cited) with the number of ``rows`` (full encoded rows) it rejects,
    most first; rules rejecting none are left out. A statement that became several grounded
    pieces (``fixed a, b`` filters two groups) counts each row once."""
    if len(rows) == 0:
        return []
    cols = _columns(names, rows)
    rejected: dict[str, np.ndarray] = {}

    def add(obj: Any, bad: np.ndarray) -> None:
        key = cite([obj])
        rejected[key] = rejected.get(key, np.zeros(len(rows), dtype=bool)) | bad

    for flt in ground.group_filters:
        if flt is not None:
            for p in _parts(flt):
                add(p, ~np.asarray(p(cols), dtype=bool))
    for imp in ground.implications:
        add(imp, np.asarray(imp.condition(cols), dtype=bool) & ~np.asarray(imp.consequence(cols), dtype=bool))
    for r in ground.cross_rules:
        add(r, ~np.asarray(r(cols), dtype=bool))
    counts = [(key, int(bad.sum())) for key, bad in rejected.items() if bad.any()]
    counts.sort(key=lambda c: -c[1])
    return counts
