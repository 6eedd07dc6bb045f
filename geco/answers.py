"""From a search's outcome to an :class:`~geco.result.Explanation`.

The candidates the engine scored as counterfactuals are confirmed by the model's own numbers
(an engine that is not bit-exact may put a row on the other side of the target's edge), up to k
distinct ones are picked, and when none is left the best feasible candidates are shown with the
reason (:mod:`geco.problem.diagnosis`). Every answer carries its outcome and the bound on what the
rules allow (:mod:`geco.problem.certificate`): "proven_none" when the bound shows no counterfactual
exists.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from geco.problem.certificate import answer_bounds, certify
from geco.problem.diagnosis import failure_reason
from geco.problem.problem import Instance, Problem
from geco.problem.setting import Setting
from geco.result import Explanation, ranked_index
from geco.search.compiled import compiled_kernels
from geco.search.config import SearchConfig, SearchOutcome
from geco.search.diversity import pick_distinct
from geco.search.exact import ExactBudget, exact_search, relative_gap
from geco.search.target import Target
from plaf_grammar import CheckedProgram

__all__ = [
    "already_desired_reason", "constraints_record", "exact_explanation", "explanation", "note_budget", "nothing_to_search",
]  # fmt: skip


def already_desired_reason(target: Target, score: float, threshold: float) -> str:
    """Why there is nothing to explain: the instance meets ``target`` already."""
    if target.is_probability:
        return (
            f"the instance is already classified as the desired class {target.desired!r} "
            f"(p = {score:.3f} > threshold {threshold}); there is nothing to explain"
        )
    what = "margin" if target.kind == "margin" else "prediction"
    return f"the model's {what} for the instance, {score:.6g}, already meets {target.describe()}; there is nothing to explain"


def desired_label(setting: Setting, target: Target | None) -> Any:
    """What an explanation names as desired: the class or classes of a probability target,
    None for a margin or prediction range."""
    if target is None:
        return setting.desired_class
    return target.desired


def constraints_record(program: CheckedProgram) -> dict[str, str]:
    """What an explanation keeps of the PLAF program it was made under (``stats`` keys, as a
    JSONL header names them): ``plaf``, the program's text ("" for no constraints), and
    ``constraints_file``, the name of the file it was read from, when it was read from one."""
    p = program.program
    record = {"plaf": p.text if p.text is not None else str(program)}
    if p.filename:
        record["constraints_file"] = Path(p.filename).name
    return record


def nothing_to_search(setting: Setting, instance: Instance, stats: dict[str, Any], t_start: float,
                      reason: str, *, already_desired: bool = False, target: Target | None = None) -> Explanation:  # fmt: skip
    """The answer when no search runs: ``x`` is already desired (``already_desired``), or the
    rules leave nothing. ``stats["outcome"]`` says which: "already desired" or "not found"; the
    explanation's ``outcome`` is "not_found" or "proven_none" (no row but ``x`` itself may be
    reached, so ``x``'s own probability bounds every allowed row)."""
    stats.update(
        engine=setting.scorer.name, engine_reason=setting.engines.description, generations=0,
        candidates_scored=0, stop="nothing to search",
        outcome="already desired" if already_desired else "not found", **constraints_record(setting.program),
    )  # fmt: skip
    if target is not None:
        stats["target"] = target.to_dict()
    stats["seconds_total"] = time.perf_counter() - t_start
    empty = Explanation.empty(
        instance.frame, reason, desired_label(setting, target), instance.probability, stats,
        features=setting.schema.decode(np.empty((0, len(setting.schema)))),
    )  # fmt: skip
    if already_desired:
        return empty
    # x is the only row left (if any); its probability, up a hair for the rounding of a model call
    bound = min(1.0, float(instance.probability) + 1e-12) if target is None or certifiable(target) else None
    return replace(empty, outcome="proven_none", bound=bound)


def model_decisions(setting: Setting, outcome: SearchOutcome, target: Target) -> tuple[SearchOutcome, np.ndarray]:
    """The final candidates, and which of them are counterfactuals by the model's own numbers
    (``predict_proba``, the margin or ``predict``). The rows an inexact engine's error bound
    cannot place (score within the bound of the target's edge, or NaN) get the model's own
    score, in one model call; the others keep the engine's, on the same side as the model's."""
    if setting.scorer.exact or len(outcome.rows) == 0:
        return outcome, (outcome.score == outcome.dist) & (outcome.score < 1.0)
    prob = np.array(outcome.prob, dtype=np.float64)
    unsure = ~(target.edge_distance(prob) > setting.scorer.error_bound(outcome.rows))
    if unsure.any():
        prob[unsure] = setting.engines.reference.predict(outcome.rows[unsure])
    return replace(outcome, prob=prob), target.meets(prob)


#: an answer changing at most this many features is "sparse"; one within SPARSE_SLACK times the
#: first option's distance is shown among the options when none of them is sparse
SPARSE_FEATURES = 3
SPARSE_SLACK = 1.25


def pick_counterfactuals(problem: Problem, rows: np.ndarray, cand: np.ndarray, cfg: SearchConfig) -> tuple[np.ndarray, np.ndarray, int]:
    """Up to k distinct counterfactuals among ``cand`` (indices into ``rows``, best first),
    each confirmed by the model's own probabilities; a candidate a compiled engine scored above
    the threshold but the model does not is dropped and the next one taken. Returns the picks,
    their probabilities and how many were dropped."""
    setting, dropped = problem.setting, 0
    cand = np.asarray(cand, dtype=np.intp)
    while len(cand):
        sel = pick_distinct(rows[cand], problem.x, cfg.k, cfg.diversity, setting.ranges, setting.categorical)
        sel = with_sparse_option(problem, rows[cand], sel, cfg.k)
        prob = problem.model_proba(rows[cand[sel]])
        good = cfg.goal.meets(prob)
        if good.all():
            return cand[sel], prob, dropped
        dropped += int((~good).sum())
        cand = np.delete(cand, sel[~good])
    return np.empty(0, dtype=np.intp), np.empty(0), dropped


def decided_by_best(outcome: SearchOutcome, picked: np.ndarray, k: int) -> bool:
    """Whether counterfactuals ``picked`` among an outcome's best rows (sorted by score) are those
    all its rows give: k of them were found (the greedy pick of distinct options, and the model's
    confirmations, read candidates best first and stop there), and every row a sparse option may
    be taken from (within :data:`SPARSE_SLACK` of the first's distance) is among them (the search's
    distance is the reported one scaled, so the ratio holds for both)."""
    if len(picked) < k or len(outcome.score) == 0:
        return False
    return bool(outcome.score[-1] > SPARSE_SLACK * outcome.score[picked[0]] * (1 + 1e-9))  # beyond rounding


def rows_to_decide(outcome: SearchOutcome, picked: np.ndarray, k: int) -> int:
    """How many of an outcome's best rows to read next where its rows so far do not decide the
    answer (:func:`decided_by_best`): with k options picked, every row a sparse option may be
    taken from and one more (the scores say how many); with fewer, four times as many rows
    (options are read best first, and where they lie no score says). A prefix that decides is
    as good as every row, and on wide data every row can be hundreds of megabytes."""
    n = len(outcome.score)
    if len(picked) < k or n == 0 or outcome.rest is None:
        return 4 * max(n, 1)
    bound = SPARSE_SLACK * outcome.score[picked[0]] * (1 + 1e-9)
    return max(n + 1, int(np.searchsorted(outcome.rest.scores, bound, side="right")) + 1)


def with_sparse_option(problem: Problem, rows: np.ndarray, sel: np.ndarray, k: int) -> np.ndarray:
    """``sel`` (options among ``rows``, best first), its last option traded for the nearest row
    changing at most :data:`SPARSE_FEATURES` features when every option changes more and that
    row is within :data:`SPARSE_SLACK` of the first option's distance: on wide data the k
    options can all be variants of one dense change while a few-feature one is nearly as near
    (which one to act on is the user's choice, so it is shown)."""
    if len(sel) == 0:
        return sel
    n_changed = (rows != problem.x).sum(axis=1)
    if (n_changed[sel] <= SPARSE_FEATURES).any():
        return sel
    sparse = np.flatnonzero(n_changed <= SPARSE_FEATURES)
    if len(sparse) == 0:
        return sel
    dist = problem.distances(rows[np.r_[sel[0], sparse]])
    near = sparse[dist[1:] <= SPARSE_SLACK * dist[0]]
    if len(near) == 0:
        return sel
    best = near[int(np.argmin(dist[1:][dist[1:] <= SPARSE_SLACK * dist[0]]))]  # the first of the nearest
    out = np.append(sel, best) if len(sel) < k else np.append(sel[:-1], best)
    return np.sort(out)  # rows are best first: the options stay in that order


def best_attempts(problem: Problem, rows: np.ndarray, ok: np.ndarray, k: int, target: Target) -> tuple[np.ndarray, np.ndarray]:
    """Without a counterfactual: the best k feasible candidates, the one closest to the target
    among them (the most probable), closest first."""
    pool = np.flatnonzero(ok)
    if len(pool) == 0:
        return np.empty(0, dtype=np.intp), np.empty(0)
    pool_prob = problem.model_proba(rows[pool])
    shown = list(pool[:k])
    top = int(pool[np.argmin(target.closeness_key(pool_prob))])
    if top not in shown:
        shown[-1] = top
    picked = np.asarray(shown, dtype=np.intp)
    prob = pool_prob[np.searchsorted(pool, picked)]
    order = np.argsort(target.closeness_key(prob), kind="stable")
    return picked[order], prob[order]


def explanation(problem: Problem, outcome: SearchOutcome, rejected: dict, cfg: SearchConfig,
                stats: dict[str, Any], t_start: float) -> Explanation:  # fmt: skip
    """The explanation of a finished search (see the module docstring)."""
    setting, goal = problem.setting, cfg.goal
    outcome, is_cf = model_decisions(setting, outcome, goal)
    rows = outcome.rows
    ok = problem.satisfies(rows)
    cand = np.flatnonzero(is_cf & ok)
    picked, prob, dropped = pick_counterfactuals(problem, rows, cand, cfg)
    if outcome.rest is not None and not decided_by_best(outcome, picked, cfg.k):
        return explanation(problem, outcome.widened(rows_to_decide(outcome, picked, cfg.k)), rejected, cfg, stats, t_start)
    reason = ""
    if len(picked):
        flags = np.ones(len(picked), dtype=bool)
        if len(picked) < cfg.k:
            reason = (
                f"only {len(picked)} distinct counterfactual(s) found (k = {cfg.k}"
                + (f", diversity = {cfg.diversity}; diversity=0 lists the plain top k)" if cfg.diversity else ")")
            )
    else:
        picked, prob = best_attempts(problem, rows, ok, cfg.k, goal)
        flags = np.zeros(len(picked), dtype=bool)
        reason = failure_reason(
            problem, outcome, rejected, cfg.threshold, cfg.patience, len(cand), dropped, prob,
            target=None if goal.is_probability else goal,
        )  # fmt: skip
    chosen = rows[picked]
    # the kernels price rows in one pass (the same numbers) where the search ran compiled
    kernels = compiled_kernels(True) if stats.get("compiled_search") else None
    chosen_dist = problem.distances(chosen, kernels) if len(picked) else np.empty(0)
    first = float(chosen_dist[0]) if flags.any() else None
    if certifiable(goal):
        deadline = None if cfg.time_budget is None else t_start + cfg.time_budget
        verdict, bound, gap, reason = certified(problem, first, reason, cfg.threshold, stats,
                                                 budget_spent=outcome.stop == "time_budget", deadline=deadline,
                                                 witnesses=outcome.changed[cand])  # fmt: skip
    else:
        verdict, bound, gap = ("found" if flags.any() else "not_found"), None, None
    frame = setting.schema.decode(chosen, index=ranked_index(len(picked)), extra={
        "probability": np.asarray(prob, dtype=np.float64),
        "distance": chosen_dist,
        "n_changed": np.count_nonzero(chosen != problem.x, axis=1),
        "counterfactual": flags,
    })  # fmt: skip
    stats.update(
        engine=setting.scorer.name,
        engine_reason=setting.engines.description,
        generations=outcome.generations,
        polish_rounds=outcome.polish_rounds,
        converged=outcome.converged,
        stop=outcome.stop,
        restarts=outcome.restarts,
        seeds_used=outcome.seeds_used,
        candidates_scored=outcome.candidates_scored,
        rows_reused=outcome.rows_reused,
        blocks_scored=outcome.blocks_scored,
        peak_population_bytes=outcome.peak_population_bytes,
        archived=outcome.archived,
        archive_bytes=outcome.archive_bytes,
        seconds=dict(outcome.seconds),
        seconds_total=time.perf_counter() - t_start,
        outcome="found" if flags.any() else "not found",
        **constraints_record(setting.program),
    )
    if cfg.target is not None:
        stats["target"] = goal.to_dict()
    desired = desired_label(setting, cfg.target)
    return Explanation(
        problem.frame, frame, bool(flags.any()), reason, desired, problem.probability, stats,
        outcome=verdict, bound=bound, gap=gap,
    )  # fmt: skip


def note_budget(result: Explanation, outcome: SearchOutcome, budget: float, reserve: float) -> None:
    """Record in ``result`` what meeting the time budget cost: ``stats["budget"]`` (the budget,
    the seconds kept for the answer, the steps left out) and, when the search stopped there, a
    sentence in ``reason`` naming them."""
    cuts = [*outcome.budget_cuts, *result.stats.pop("budget_skipped", [])]
    result.stats["budget"] = {"seconds": budget, "answer_reserve": reserve, "cuts": cuts}
    if outcome.stop == "time_budget":
        note = f"the search stopped at its time budget ({budget:g} s) after {outcome.generations} generation(s)"
        note += f"; left out: {', '.join(cuts)}" if cuts else ""
    elif cuts:
        note = f"the time budget ({budget:g} s) left out: {', '.join(cuts)}"
    else:
        return
    if result.success and outcome.stop == "time_budget":
        note += "; the answer is the best found so far"
    result.reason = f"{result.reason}; {note}" if result.reason else note


def certifiable(goal: Target) -> bool:
    """Whether the engines' bounds speak of this target: P(one desired class) > threshold (the
    bounds are on that probability; class sets, margins and ranges get no certificate)."""
    return goal.is_probability and not isinstance(goal.desired, (list, tuple))


def certified(problem: Problem, first: float | None, reason: str, threshold: float,
              stats: dict[str, Any], budget_spent: bool = False, deadline: float | None = None,
              witnesses: np.ndarray | None = None) -> tuple[str, float | None, float | None, str]:  # fmt: skip
    """(outcome, bound, gap, reason) of a finished search; ``first``: the first counterfactual's
    distance (None: none found). Found: the bound of the rules' box (one engine call) and the gap
    to a lower bound on any counterfactual's distance (one more, unless one of the ``witnesses``,
    the groups the model's counterfactuals within the rules change, settles it:
    :func:`~geco.problem.certificate.answer_bounds`); skipped (bound and gap None)
    when the search's time budget is spent, since they only inform. Not found: the certificate,
    which stops at ``deadline`` (``perf_counter`` seconds: the end of the time budget); proven
    none puts its sentence (and the rule that makes it so) first, the search's own reason after
    it; no bound says so after the reason."""
    t0 = time.perf_counter()
    gap = None
    if first is not None and budget_spent:
        bound, calls, verdict = None, 0, "found"
        stats.setdefault("budget_skipped", []).append("the bound and gap of the answer")
    elif first is not None:
        bound, calls, floor = answer_bounds(problem, threshold, witnesses)
        verdict = "found"
        if floor is not None:
            gap = max(0.0, first - floor)
    else:
        cert = certify(problem, threshold, deadline=deadline)
        bound, calls = cert.bound, cert.calls
        if cert.cut:
            stats.setdefault("budget_skipped", []).append(cert.cut)
        if cert.proven_none:
            verdict, reason = "proven_none", f"{cert.reason}; the search: {reason}"
        else:
            verdict = "not_found"
            if cert.bound is None:
                reason = f"{reason}; {cert.reason}"
    stats["certificate_calls"] = calls
    stats["seconds_certificate"] = time.perf_counter() - t0
    return verdict, bound, gap, reason


def search_incumbent(
    problem: Problem, outcome: SearchOutcome, goal: Target
) -> tuple[np.ndarray, float] | None:
    """The search's closest counterfactual confirmed by the model's own numbers (an encoded full
    row and its probability), None when it found none: exact mode starts from it."""
    outcome, is_cf = model_decisions(problem.setting, outcome, goal)
    cand = np.flatnonzero(is_cf & problem.satisfies(outcome.rows))
    if not len(cand):
        return None
    cand = cand[np.argsort(problem.distances(outcome.rows[cand]), kind="stable")][:8]
    prob = problem.model_proba(outcome.rows[cand])
    good = np.flatnonzero(goal.meets(prob))
    return (outcome.rows[cand[good[0]]], float(prob[good[0]])) if len(good) else None


def with_row(
    problem: Problem, outcome: SearchOutcome, row: np.ndarray, prob: float
) -> SearchOutcome:
    """``outcome`` with ``row`` (a counterfactual, its model probability ``prob``) first."""
    dist = float(problem.distance(np.arange(len(problem.x)), row[None])[0])
    changed = np.array([np.any(row[s.features] != problem.x[s.features]) for s in problem.spaces])
    return replace(
        outcome, rows=np.vstack([row, outcome.rows]), changed=np.vstack([changed, outcome.changed]),
        prob=np.r_[prob, outcome.prob], dist=np.r_[dist, outcome.dist], score=np.r_[dist, outcome.score],
    )  # fmt: skip


def exact_explanation(problem: Problem, outcome: SearchOutcome, rejected: dict, cfg: SearchConfig,
                      stats: dict[str, Any], t_start: float, budget: ExactBudget) -> Explanation:  # fmt: skip
    """The explanation of exact mode (:mod:`geco.search.exact`): branch and bound from the
    search's best; its optimum is the first counterfactual and ``gap`` the relative distance gap
    still open (0.0: proven optimal). Exhausting every allowed row without a counterfactual
    proves there is none."""
    goal = cfg.goal
    outcome = outcome.whole()  # branch and bound starts from the best and reports against all
    if not certifiable(goal):
        raise ValueError(
            f"exact=True needs a probability target for one desired class (the bounds speak of it); got {goal.describe()}"
        )
    if cfg.time_budget is not None:
        left = max(1e-9, cfg.time_budget - (time.perf_counter() - t_start))
        budget = replace(budget, seconds=left if budget.seconds is None else min(left, budget.seconds))
    incumbent = search_incumbent(problem, outcome, goal)
    found = exact_search(problem, goal, cfg.threshold, budget, incumbent)
    if found.improved:
        outcome = with_row(problem, outcome, found.row, found.prob)
    stats["exact"] = {
        "stop": found.stop, "nodes": found.nodes, "candidates": found.candidates,
        "bound_calls": found.bound_calls, "seconds": found.seconds,
        "improved": found.improved,
    }  # fmt: skip
    result = explanation(problem, outcome, rejected, cfg, stats, t_start)
    if found.row is not None:
        result.gap = relative_gap(found.distance, found.floor)
        if found.proven:
            note = "exact mode: #1 is the closest counterfactual within the rules (proven, gap 0)"
            result.reason = f"{result.reason}; {note}" if result.reason else note
        else:
            why = (
                f"stopped at its {'node' if found.stop == 'nodes' else 'time'} budget" if found.stop != "optimal"
                else f"enumerated rows changing at most {budget.max_groups} group(s)"
            )  # fmt: skip
            note = f"exact mode {why}: the best found, its distance within {result.gap:.1%} of the optimum's"
            result.reason = f"{result.reason}; {note}" if result.reason else note
    elif found.proven and result.outcome != "proven_none":
        bound = found.reach if result.bound is None else min(result.bound, found.reach)
        why = (
            "no counterfactual exists within the rules: exact mode enumerated or bounded every allowed row, "
            "and none reaches the desired class"
        )
        result = replace(
            result, outcome="proven_none", bound=bound, reason=f"{why}; the search: {result.reason}"
        )
    stats["seconds_total"] = time.perf_counter() - t_start
    return result
