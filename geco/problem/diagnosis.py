"""Why an explanation has no counterfactual, in words a user can act on.

Every message names the rule as written and where (``file:line``), never a constraint that is not
there: a group the rules empty, a rule ``x`` itself breaks, a rule no candidate meets, or the
rules that keep the data's rows of the desired class out of reach.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from geco.problem.feasible_space import GroupDomain

if TYPE_CHECKING:
    from geco.problem.problem import Problem

__all__ = [
    "blocking_rules", "cite", "empty_space_reason", "emptying_rules", "failure_reason",
    "required_groups", "rules_x_breaks",
]  # fmt: skip


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


def required_groups(ground: Any, domains: Sequence[GroupDomain], x: np.ndarray) -> np.ndarray:
    """(G,) groups whose value in x breaks one of the group's own rules (every counterfactual
    must change them)."""
    return np.array([bool(rules_x_breaks(ground, dom, x)) for dom in domains], dtype=bool)


def _group_names(problem: Problem, g: int) -> str:
    return ", ".join(problem.setting.domains[g].names)


def empty_space_reason(problem: Problem) -> str:
    """Why no candidate can exist at all ("" when some can): a group ``x`` must change has no
    allowed value, or no group has any."""
    ground, x, domains, spaces = problem.grounded, problem.x, problem.setting.domains, problem.spaces
    for g in np.flatnonzero(problem.required):
        if len(spaces[g]) == 0:
            broken = cite(rules_x_breaks(ground, domains[g], x))
            emptying = emptying_rules(ground, domains[g], x)
            why = (
                f"{cite(emptying)} removes every other value of it"
                if emptying else "the data holds no other value of it"
            )  # fmt: skip
            name = _group_names(problem, g)
            return f"x breaks {broken} on {name}, so every counterfactual must change {name}; but {why}"
    if any(len(sp) for sp in spaces):
        return ""
    blamed = [(g, emptying_rules(ground, domains[g], x)) for g in range(len(spaces))]
    by_rule: dict[str, list[str]] = {}
    for g, rules in blamed:
        if rules:
            by_rule.setdefault(cite(rules), []).append(_group_names(problem, g))
    parts = [f"{rule} removes every other value of {', '.join(names)}" for rule, names in by_rule.items()]
    free = [_group_names(problem, g) for g, rules in blamed if not rules]
    if free:
        parts.append(f"the data holds no other value of {', '.join(free)}")
    return "no feature may change: " + "; ".join(parts)


def failure_reason(
    problem: Problem, outcome: Any, rejected: Mapping[tuple[str, int], int], threshold: float,
    patience: int, n_above: int, dropped: int, shown_prob: np.ndarray, target: Any = None,
) -> str:  # fmt: skip
    """Why the search returns no counterfactual, naming only rules that are there.

    ``outcome``: the search's (``stop``, ``restarts``, ``generations``, ``candidates_scored``);
    ``rejected``: candidates each cross rule or implication dropped; ``n_above``: candidates the
    engine scored above the threshold, ``dropped`` of them refused by ``predict_proba``;
    ``shown_prob``: the probabilities of the best candidates shown. ``target``: a margin or
    prediction range (:class:`geco.search.target.Target`) in place of ``p > threshold``."""
    setting, ground = problem.setting, problem.grounded
    desired = repr(setting.desired_class)
    test = f"p > {threshold}"
    if target is not None:
        desired, test = "meeting the target", target.describe()
    if n_above and dropped:
        return (
            f"the compiled engine scored {n_above} candidate(s) above the threshold, but the "
            f"model's own predict_proba puts all {dropped} checked at or below {threshold}; "
            "engine='blackbox' searches with the model's own numbers"
        )
    if outcome.stop == "no_candidates":
        killers = sorted(rejected.items(), key=lambda kv: -kv[1])
        rules = [
            (ground.cross_rules if kind == "cross" else ground.implications)[i] for (kind, i), n in killers if n
        ]
        tried = sum(rejected.values())
        if not rules:
            return "no candidate survived the rules"
        return (
            f"no candidate satisfies {cite(rules[:3])}: "
            f"{'it rejects' if len(rules) == 1 else 'together they reject'} all {tried} "
            "candidates tried (each group changed alone, and the data's rows of the desired class)"
        )
    why_stop = {"stagnated": f"no improvement for {patience} generations", "time_budget": "the time budget"}.get(
        outcome.stop, "the generation limit"
    )
    if outcome.restarts:
        why_stop += f", {outcome.restarts} restart(s)"
    run = f"after {outcome.generations} generations and {outcome.candidates_scored} candidates ({why_stop})"
    best = (
        f"the best candidates shown reach p = {float(np.max(shown_prob)):.3f}"
        if len(shown_prob) else "no candidate satisfies every rule"
    )  # fmt: skip
    if target is not None and len(shown_prob):
        best = f"the closest candidate shown scores {float(shown_prob[0]):.6g}"
    ruled = any(f is not None for f in ground.group_filters) or ground.implications or ground.cross_rules
    # the search samples: not finding a counterfactual proves none exists only when the rules
    # leave no candidate at all (the cases above), so this says what was tried, no more
    msg = (
        "none found within the search's budget: no candidate it tried"
        + (" within what the rules allow" if ruled else "")
        + f" is scored as {desired} ({test}): {best} {run}"
    )  # fmt: skip
    pool = setting.seed_pool
    desired_rows = pool.desired(threshold) if target is None else pool.rows[target.meets(pool.proba)]
    if len(desired_rows) == 0:
        return msg + f"; the model scores none of the {len(setting.seed_pool.rows)} data rows as {desired}"
    feasible = problem.satisfies(desired_rows)
    if feasible.any():  # only when a compiled engine disagrees with the model near the threshold
        return msg + (
            f"; {int(feasible.sum())} data row(s) the model scores as {desired} satisfy the "
            "rules: engine='blackbox' or more generations may find them"
        )
    blocking = blocking_rules(ground, problem.names, desired_rows)
    top = ", ".join(
        f"{rule} rejects {n}" + (" of them" if i == 0 else "") for i, (rule, n) in enumerate(blocking[:3])
    )
    return (
        msg + f"; none of the {len(desired_rows)} data rows the model scores as {desired} "
        f"satisfies the rules for this x: {top}"
    )
