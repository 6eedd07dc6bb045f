"""Which of several bit-identical kernels scores full rows, chosen by measurement on this machine.

The branch-free walker (``@walk_rows``: 32 rows per tree in lockstep, vector gathers), the
branchy walk of the whole forest (``@forest_eval``) and, for rows made from an instance x, the
x-walk on folded masks (``@xwalk_folded_rows``: x's binding decides each subtree whose x-path
tests no column the row changed; ``@xentry_rows``: the same on x's path, a row leaving it walking
on by its own values) give the same accumulators bit for bit; which is faster
depends on the forest and on the CPU's gathers. On an AMD EPYC with AVX-512, on the rows a
search scores, the walker measured 1.7x slower than the branchy walk on XGBoost 120x4 (2.1 vs
1.2 µs a row), 1.2x slower on RF-500 and as fast on RF-100, where the Intel Xeon it was tuned on
measured it 2-4x faster; the x-walk 1.1-2.7x faster than the branchy walk (deep forests on few
changed columns gain most). So a forest keeps a running cost per row of each and serves a call
by the cheapest one, measuring the others again now and then. The same holds for a
generation's rows grouped by Δ: through the tiers or the whole forest at once
(``TreeScorer.delta_rows_route``).
"""

from __future__ import annotations

__all__ = ["OUTLIER", "KernelChoice", "clipped"]

#: a measured call counts at most this many times the running cost per row (or unit): a garbage
#: collection or a page fault inside one call (a gen-2 pass costs ~100 ms in a process that holds
#: sklearn) once priced the tiers at 7x their cost, and the scorer left them for good
OUTLIER = 4.0


def clipped(seconds: float, units: float, per_unit: float) -> float:
    """``seconds`` of a call of ``units`` units, at most :data:`OUTLIER` times ``per_unit`` each
    (unclipped while ``per_unit`` is unknown: inf or 0)."""
    if 0.0 < per_unit < float("inf"):
        return min(seconds, OUTLIER * per_unit * units)
    return seconds


class KernelChoice:
    """Running seconds per row of each kernel in ``names`` (exponentially decayed sums of
    seconds and rows, so a call weighs by its rows and old calls fade). :meth:`pick` names the
    kernel for the next call: each kernel until it has been measured on ``explore_rows`` rows,
    then the cheapest, and every ``recheck``-th call one of the others, in turn (machines and
    loads change). Exploring stops early for a kernel measured on ``settle_rows`` rows at more
    than ``settle_ratio`` times the cheapest one's cost a row: more rows would not change the choice,
    and they cost (the whole forest on RF-500, 3x the tiers a row, was explored for the first
    eighteen explanations of a process; on RF-500 the walker and the branchy walk, 1.3-1.4x the
    x-walk a row, were explored on 2,000 rows each, the first thirty explanations paying 0.6 ms
    each; a choice between costs paid up front and costs spread over calls - the tiers' plans -
    settles at a larger ratio). ``explore_picks``: each kernel is also picked that many times
    before the cheapest is served (a choice picked once per instance, whose first pick of each
    kernel is priced cold, explores each on a few instances). With one name it always names that
    one."""

    def __init__(self, names: tuple[str, ...], explore_rows: int = 2048, recheck: int = 32, decay: float = 0.9,
                 settle_rows: int = 256, settle_ratio: float = 1.25, explore_picks: int = 1):  # fmt: skip
        self.names = names
        self.seconds = dict.fromkeys(names, 0.0)
        self.rows = dict.fromkeys(names, 0.0)
        self.measured = dict.fromkeys(names, 0)  # rows ever measured, undecayed
        self.picked = dict.fromkeys(names, 0)  # times named by pick
        self.explore_rows, self.explore_picks, self.recheck, self.decay = explore_rows, explore_picks, recheck, decay
        self.settle_rows, self.settle_ratio = settle_rows, settle_ratio
        self.calls = 0

    def per_row(self, name: str) -> float:
        """The running seconds per row of ``name`` (inf before its first call)."""
        return self.seconds[name] / self.rows[name] if self.rows[name] else float("inf")

    def best(self) -> str:
        """The kernel measured cheapest per row so far (the first name before any is measured)."""
        return min(self.names, key=self.per_row)

    def settled(self, name: str, best: str | None = None) -> bool:
        """Whether ``name`` has been measured enough to know it is the dearer by far (``best``:
        :meth:`best`, when the caller has it)."""
        best = self.best() if best is None else best
        return (name != best and self.measured[name] >= self.settle_rows
                and self.per_row(name) > self.settle_ratio * self.per_row(best))  # fmt: skip

    def pick(self) -> str:
        """The kernel for the next call (see the class docstring), counted in :attr:`picked`."""
        name = self._next()
        self.picked[name] += 1
        return name

    def _next(self) -> str:
        self.calls += 1
        best = self.best()
        young = [k for k in self.names if self.measured[k] < self.explore_rows and not self.settled(k, best)]
        if young:  # the least measured of those still being explored
            return min(young, key=lambda k: self.measured[k])
        young = [k for k in self.names if self.picked[k] < self.explore_picks and not self.settled(k, best)]
        if young:  # then the least picked of those picked too few times
            return min(young, key=lambda k: self.picked[k])
        if self.calls % self.recheck == 0 and len(self.names) > 1:  # the others in turn
            others = [k for k in self.names if k != best]
            return others[(self.calls // self.recheck) % len(others)]
        return best

    def record(self, name: str, seconds: float, rows: int) -> None:
        """A call of ``name`` on ``rows`` rows took ``seconds`` (counted :func:`clipped`)."""
        seconds = clipped(seconds, rows, self.per_row(name))
        self.seconds[name] = self.decay * self.seconds[name] + seconds
        self.rows[name] = self.decay * self.rows[name] + rows
        self.measured[name] += rows
