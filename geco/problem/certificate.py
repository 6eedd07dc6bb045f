"""Certified answers: a sound upper bound on P(desired) over every row the rules allow for ``x``.

The rows GeCo may return for ``x`` take, in every group, ``x``'s own tuple (unless ``x`` breaks one
of the group's rules) or one of the group's feasible tuples (:mod:`geco.problem.feasible_space`),
and satisfy the whole program. The certificate relaxes that set soundly: implications and rules
across groups are ignored, and each group's tuples are relaxed to per-feature value sets, a box the
engine bounds (:meth:`codegen.ModelScorer.upper_bound`). So the bound is never below the model's
highest probability on an allowed row; when it is below the threshold, no counterfactual exists
within the rules (and the data's values): the answer is *proven* none.

Branch and bound tightens it: the box with the highest bound is split (its group with the most
tuples, in two halves along that group's most varied feature) and both halves are bound again;
a box of one row keeps its bound (the engine's bound of a single row: that row's probability
plus the rounding margin), or is dropped when the row breaks the program. The largest bound left is the certificate's bound. A fixed budget of engine calls keeps
the cost small and the answer the same on every machine.

Which rule makes it so: the bound is computed again without each rule in turn; a rule whose
removal lifts the bound to the threshold or above is the one keeping the desired class out of reach.

Optimality: GeCo's distance only grows when more groups change (every norm it mixes does), so a
counterfactual is at least as far as its farthest single-group change; with one bound (can the
closest group, or the required groups alone, flip the class at all?) that gives a lower bound on
the distance of any counterfactual (:func:`distance_lower_bound`), the gap an answer reports.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from geco.problem.diagnosis import cite

if TYPE_CHECKING:
    from geco.problem.problem import Problem

__all__ = [
    "BUDGET", "Certificate", "allowed_tuples", "answer_bounds", "bound_rows", "certify", "distance_lower_bound", "distinct_columns",
    "format_bound", "program_rules", "satisfies", "space_columns",
]  # fmt: skip

#: engine calls one certificate may spend on branch and bound (each rule's check a sixteenth)
BUDGET = 48


@dataclass(frozen=True)
class Certificate:
    """What the bound proves for one instance.

    ``bound``: a sound upper bound on the model's P(desired) over every allowed row (None: the
    engine cannot bound the model). ``proven_none``: ``bound`` is below the threshold. ``reason``:
    the sentence saying so (or why there is no bound), ``rules``: the cited rules whose removal
    alone lifts the bound to the threshold. ``calls``/``seconds``: what it cost. ``cut``: what a
    deadline left out ("" for nothing); a bound cut short is looser, and still sound."""

    bound: float | None
    proven_none: bool
    reason: str
    rules: str = ""
    calls: int = 0
    seconds: float = 0.0
    cut: str = ""


def _parts(flt: Any) -> list[Any]:
    return [] if flt is None else list(flt.parts) if hasattr(flt, "parts") else [flt]


def program_rules(problem: Problem) -> list[Any]:
    """The distinct source rules of the grounded program: group filters, implications, rules
    across groups."""
    grounded = problem.grounded
    pieces = [p for flt in grounded.group_filters for p in _parts(flt)]
    pieces += [*grounded.implications, *grounded.cross_rules]
    seen: dict[Any, None] = {}
    for piece in pieces:
        for rule in piece.rules if hasattr(piece, "rules") else [piece.rule]:
            seen[rule] = None
    return list(seen)


def satisfies(problem: Problem, rows: np.ndarray, drop: Any = None) -> np.ndarray:
    """Whether each encoded full row satisfies the program without the source rule ``drop``
    (every rule when ``drop`` is None)."""
    if drop is None:
        return problem.satisfies(rows)
    grounded = problem.grounded
    cols = dict(zip(problem.names, rows.T))
    ok = np.ones(len(rows), dtype=bool)
    for flt in grounded.group_filters:
        for p in _parts(flt):
            if drop not in p.rules:
                ok &= np.asarray(p(cols), dtype=bool)
    for imp in grounded.implications:
        if imp.rule != drop:
            ok &= ~np.asarray(imp.condition(cols), dtype=bool) | np.asarray(imp.consequence(cols), dtype=bool)
    for r in grounded.cross_rules:
        if drop not in r.rules:
            ok &= np.asarray(r(cols), dtype=bool)
    return ok


def allowed_tuples(problem: Problem, drop: Any = None) -> list[np.ndarray]:
    """Per group, the value tuples an allowed row may give it: its feasible tuples, and ``x``'s
    own unless ``x`` breaks one of the group's rules. ``drop``: a source rule to leave out."""
    x, grounded, out = problem.x, problem.grounded, []
    for g, (space, domain) in enumerate(zip(problem.spaces, problem.setting.domains)):
        parts = _parts(grounded.group_filters[g])
        kept = [p for p in parts if drop not in p.rules]
        own = x[domain.features][None]
        if drop is None or len(kept) == len(parts):
            values, x_ok = space.values, not problem.required[g]
        else:
            differs = np.any(domain.values != own, axis=1)
            values = domain.values[differs]
            cols = {n: values[:, j] for j, n in enumerate(domain.names)}
            mine = {n: own[:, j] for j, n in enumerate(domain.names)}
            keep = np.ones(len(values), dtype=bool)
            x_ok = True
            for p in kept:
                keep &= np.asarray(p(cols), dtype=bool)
                x_ok = x_ok and bool(np.asarray(p(mine), dtype=bool)[0])
            values = values[keep]
        out.append(np.concatenate([own, values]) if x_ok else np.asarray(values, dtype=np.float64))
    return out


def distinct_columns(arrays: Sequence[np.ndarray]) -> list[list[np.ndarray]]:
    """Per (n, k) array, the distinct values of each of its k columns, ascending (what
    ``np.unique`` gives each column; no NaN), all columns sorted in one pass."""
    widths = [a.shape[1] for a in arrays]
    columns = [a[:, k] for a in arrays for k in range(a.shape[1])]
    if not columns:
        return [[] for _ in arrays]
    sizes = np.fromiter((len(c) for c in columns), dtype=np.intp, count=len(columns))
    values = np.concatenate(columns).astype(np.float64, copy=False)
    owner = np.repeat(np.arange(len(columns)), sizes)
    order = np.lexsort((values, owner))
    values, owner = values[order], owner[order]
    first = np.ones(len(values), dtype=bool)
    first[1:] = (owner[1:] != owner[:-1]) | (values[1:] != values[:-1])
    values, owner = values[first], owner[first]
    parts = np.split(values, np.searchsorted(owner, np.arange(1, len(columns))))
    out, at = [], 0
    for w in widths:
        out.append(parts[at : at + w])
        at += w
    return out


def space_columns(problem: Problem) -> list[list[np.ndarray] | None]:
    """Per group, what :func:`distinct_columns` gives its :func:`allowed_tuples` (of the whole
    program), read off the feasible space without a sort where it can be: a one-feature group's
    domain is its distinct values ascending and the space marks its values' rows there, so those
    rows (and x's own, which the tuples hold unless x breaks the group's rules) taken in domain
    order are the ascending distinct values (Credit: ~0.2 ms an answer). None elsewhere (groups
    of several features, x holding a value the data does not)."""
    out: list[list[np.ndarray] | None] = []
    for g, (space, domain) in enumerate(zip(problem.spaces, problem.setting.domains)):
        out.append(None)
        if len(domain.features) != 1 or space.domain_index is None:
            continue
        column = domain.values[:, 0]
        keep = np.zeros(len(column), dtype=bool)
        keep[space.domain_index] = True
        if not problem.required[g]:  # x's own value is allowed (allowed_tuples' rule)
            own = problem.x[domain.features[0]]
            at = int(np.searchsorted(column, own))
            if at == len(column) or column[at] != own:
                continue  # x holds a value the data does not: sorted with the others
            keep[at] = True
        out[-1] = [column[keep]]
    return out


class _Boxes:
    """Branch and bound over products of per-group tuple sets (see the module docstring)."""

    def __init__(self, problem: Problem, drop: Any = None, deadline: float | None = None):
        self.problem = problem
        self.deadline = deadline
        self.stopped_at_deadline = False
        self.scorer = problem.setting.scorer
        self.features = [np.asarray(d.features) for d in problem.setting.domains]
        self.drop = drop
        self.calls = 0
        self.values: dict[int, tuple[np.ndarray, list[np.ndarray]]] = {}

    def remember_spaces(self, tuples: list[np.ndarray]) -> None:
        """Note the distinct values of ``tuples`` (:func:`allowed_tuples` of the whole program)
        wherever the feasible spaces say them (:func:`space_columns`)."""
        for t, columns in zip(tuples, space_columns(self.problem)):
            if columns is not None:
                self.values[id(t)] = (t, columns)

    def allowed(self, box: Sequence[np.ndarray]) -> list[np.ndarray | None]:
        """The box as the engine takes it: per feature, the distinct values of its group's
        tuples (kept per tuple array: a half shares every group but one with its parent)."""
        out: list[np.ndarray | None] = [None] * len(self.problem.x)
        new = [t for t in box if (hit := self.values.get(id(t))) is None or hit[0] is not t]
        for tuples, columns in zip(new, distinct_columns(new)):
            self.values[id(tuples)] = (tuples, columns)
        for feats, tuples in zip(self.features, box):
            for j, v in zip(feats, self.values[id(tuples)][1]):
                out[j] = v
        return out

    def bound(self, box: Sequence[np.ndarray]) -> float | None:
        engine_bound = getattr(self.scorer, "upper_bound", None)  # an engine of the user's may lack it
        if engine_bound is None:
            return None
        self.calls += 1
        b = engine_bound(self.problem.x, self.allowed(box))
        return None if b is None else float(b)

    def allows(self, box: Sequence[np.ndarray]) -> bool:
        """A box of one row: whether that row satisfies the program (without ``drop``)."""
        row = self.problem.x.copy()
        for feats, tuples in zip(self.features, box):
            row[feats] = tuples[0]
        return bool(satisfies(self.problem, row[None], self.drop)[0])

    def run(self, box: list[np.ndarray], threshold: float, budget: int) -> float | None:
        """The largest bound left once every box is below ``threshold``, the budget is spent
        (engine calls, or the deadline: ``stopped_at_deadline``), or the box with the highest
        bound is one row the program allows; None if the engine cannot bound."""
        if any(len(t) == 0 for t in box):
            return 0.0  # no allowed row at all
        first = self.bound(box)
        if first is None:
            return None
        heap = [(-first, 0, False, box)]
        order = 1
        while heap:
            neg, _, settled, top = heap[0]
            if -neg < threshold or settled or self.calls >= budget:
                return -neg
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                self.stopped_at_deadline = True
                return -neg
            heapq.heappop(heap)
            sizes = [len(t) for t in top]
            if max(sizes) == 1:  # one row: it stays with its own bound, or goes if the rules refuse it
                if self.allows(top):
                    heapq.heappush(heap, (neg, order, True, top))
                    order += 1
                continue
            for half in _halves(top, int(np.argmax(sizes))):
                b = self.bound(half)  # the parent's bound holds for the half too: keep the lower
                heapq.heappush(heap, (-(-neg if b is None else min(b, -neg)), order, False, half))
                order += 1
        return 0.0  # every box dropped: no allowed row satisfies the program


def _halves(box: list[np.ndarray], g: int) -> list[list[np.ndarray]]:
    """``box`` split in two along group ``g``: its tuples ordered by the group's most varied
    feature (then the others), the lower half and the upper half."""
    tuples = box[g]
    varied = int(np.argmax([len(np.unique(tuples[:, k])) for k in range(tuples.shape[1])]))
    keys = [*[tuples[:, k] for k in range(tuples.shape[1]) if k != varied][::-1], tuples[:, varied]]
    order = np.lexsort(keys)
    mid = len(order) // 2
    out = []
    for part in (order[:mid], order[mid:]):
        half = list(box)
        half[g] = tuples[part]
        out.append(half)
    return out


def bound_rows(problem: Problem, threshold: float, budget: int = BUDGET, drop: Any = None) -> tuple[float | None, int]:
    """(a sound upper bound on P(desired) over the allowed rows, engine calls spent); the bound
    is None where the engine cannot bound the model. ``drop``: a source rule left out."""
    boxes = _Boxes(problem, drop)
    return boxes.run(allowed_tuples(problem, drop), threshold, budget), boxes.calls


def answer_bounds(problem: Problem, threshold: float,
                  witnesses: np.ndarray | None = None) -> tuple[float | None, int, float | None]:  # fmt: skip
    """What an answer reports: :func:`bound_rows` with one engine call and
    :func:`distance_lower_bound`, from one set of boxes (each group's distinct values found
    once for both): (bound, engine calls, distance floor). ``witnesses``: (n, G) the groups
    changed by counterfactuals the model accepts that satisfy the rules; where one changes
    only the groups whose box the floor would bound, that box reaches the threshold (it holds
    the witness) without an engine call. The floor is the same; an engine that cannot bound
    the model still gets none."""
    boxes = _Boxes(problem)
    tuples = allowed_tuples(problem)
    boxes.remember_spaces(tuples)
    bound = boxes.run(tuples, threshold, 1)
    floor = None if bound is None else _distance_floor(problem, threshold, boxes, tuples, witnesses)
    return bound, boxes.calls, floor


def _deadline_passed(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline


def distance_lower_bound(problem: Problem, threshold: float) -> float | None:
    """A lower bound on GeCo's distance from ``x`` of any counterfactual within the rules, as
    answers report it (priced by the program's costs; None where the engine cannot bound the
    model).

    Each group's closest feasible change (``space.distance[0]``) bounds every row changing that
    group. With required groups R (``x`` breaks their rules) every counterfactual changes all of
    R: at least the largest of theirs; if R's changes alone cannot reach the threshold, it changes
    one more group too. Without required groups it changes some group: at least the smallest;
    if the closest group cannot flip the class alone, a counterfactual changes another group, or
    two: at least the second smallest. The spaces hold the search's distances, the priced one
    divided by its largest cost above 1 (every norm is proportional to the costs): the floor is
    theirs times that cost."""
    return _distance_floor(problem, threshold, _Boxes(problem), None)


def _distance_floor(problem: Problem, threshold: float, boxes: _Boxes, tuples: list[np.ndarray] | None,
                    witnesses: np.ndarray | None = None) -> float | None:  # fmt: skip
    """:func:`distance_lower_bound` with ``boxes`` (their engine calls counted there) and the
    :func:`allowed_tuples` when known; ``witnesses``: see :func:`answer_bounds`."""
    spaces, required = problem.spaces, np.asarray(problem.required, dtype=bool)
    closest = np.array([float(s.distance[0]) if len(s) else np.inf for s in spaces])
    if not np.isfinite(closest).any():
        return None
    own = [problem.x[d.features][None] for d in problem.setting.domains]

    def reaches(free: np.ndarray) -> float | None:
        """The bound of the box changing only the groups ``free`` (a witness inside it: the
        threshold, for the comparison below)."""
        if witnesses is not None and len(witnesses) and (~witnesses[:, ~free]).all(axis=1).any():
            return threshold
        box = allowed_tuples(problem) if tuples is None else tuples
        return boxes.run([t if free[g] else own[g] for g, t in enumerate(box)], threshold, 1)

    if required.any():
        floor = float(closest[required].max())
        alone = reaches(required)
        if alone is None:
            return None
        if alone < threshold:
            floor = max(floor, float(closest[~required].min(initial=np.inf)))
    else:
        order = np.argsort(closest, kind="stable")
        first = int(order[0])
        alone = reaches(np.arange(len(spaces)) == first)
        if alone is None:
            return None
        second = float(closest[order[1]]) if len(order) > 1 else np.inf
        floor = float(closest[first]) if alone >= threshold else second
    return floor * problem.reported_distance.search_scale() * (1 - 1e-12) if np.isfinite(floor) else floor


def format_bound(bound: float, threshold: float) -> str:
    """``bound`` rounded up to the fewest decimals that keep it below ``threshold`` (at least 2),
    so the printed number is still an upper bound and the comparison printed still holds."""
    for digits in range(2, 17):
        scale = 10.0**digits
        shown = math.ceil(bound * scale) / scale
        if shown < bound:  # the product rounded down past an integer
            shown += 1 / scale
        if shown < threshold or digits == 16:
            return f"{shown:.{digits}f}"
    return repr(bound)  # pragma: no cover


def certify(
    problem: Problem, threshold: float, budget: int = BUDGET, blame: bool = True, deadline: float | None = None
) -> Certificate:
    """The certificate of ``problem`` at ``threshold`` (see the module docstring). ``blame``:
    when proven, find the rules whose removal alone lifts the bound (a sixteenth of ``budget``
    each). ``deadline`` (``perf_counter`` seconds): branch and bound stops there with the
    bound it has (sound, looser) and the rules are not blamed; ``cut`` says so."""
    t0 = time.perf_counter()
    boxes = _Boxes(problem, deadline=deadline)
    tuples = allowed_tuples(problem)
    boxes.remember_spaces(tuples)
    bound = boxes.run(tuples, threshold, budget)
    calls = boxes.calls
    cut = f"the certificate's branch and bound after {calls} engine call(s)" if boxes.stopped_at_deadline else ""
    if bound is None:
        why = (
            "no bound: the black-box engine cannot bound the model (it only answers for rows it is given)"
            if not problem.setting.scorer.compiled
            else f"no bound: the {problem.setting.scorer.name} engine cannot bound the model"
        )
        return Certificate(None, False, why, calls=calls, seconds=time.perf_counter() - t0)
    if not bound < threshold:
        return Certificate(bound, False, "", calls=calls, seconds=time.perf_counter() - t0, cut=cut)
    reason = (
        f"no counterfactual exists within the rules: the highest probability any allowed change "
        f"reaches is at most {format_bound(bound, threshold)} < {threshold}"
    )
    lifting: list[Any] = []
    if blame and _deadline_passed(deadline):
        cut = "finding which rule keeps the desired class out of reach"
        reason += " (the time budget left no time to find which rule makes it so)"
    elif blame:
        rules = program_rules(problem)
        for rule in rules:
            without, spent = bound_rows(problem, threshold, max(1, budget // 16), drop=rule)
            calls += spent
            if without is not None and without >= threshold:
                lifting.append(rule)
        if lifting:
            verb = "makes" if len(lifting) == 1 else "each make"
            reason += f"; {cite([_Cited(r) for r in lifting])} {verb} it so (without it the bound reaches the threshold)"
        elif rules:
            reason += "; no single rule makes it so (without any one of them the bound stays below the threshold)"
        else:
            reason += " (there are no rules: no combination of the data's values reaches it)"
    cited = cite([_Cited(r) for r in lifting]) if lifting else ""
    return Certificate(bound, True, reason, cited, calls, time.perf_counter() - t0, cut)


@dataclass(frozen=True)
class _Cited:
    """A source rule in the shape :func:`geco.problem.diagnosis.cite` reads."""

    rule: Any
