"""Which candidates are still worth scoring once the archive holds distinct options.

The answer is picked from the search's counterfactuals best first, skipping those that repeat a
better pick (:mod:`geco.search.diversity`), and the archive only gets better. So a candidate can
never be one of the ``k`` answers when it is at least as far from ``x`` as the k-th option (``k``
of them archived: they all pass that test, so the k-th answer is no farther), nor when it
repeats an option at least as close to ``x`` as it is (with ``gap`` 0, the paper's plain top k,
nothing repeats). Such candidates would serve only as stepping stones (their children moved
towards ``x`` could still do better), so the search keeps those within a slack of the bound for
that (``slack``, ``repeat_slack``) and leaves the others unscored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from geco.search.diversity import repeats

__all__ = ["Reach"]


@dataclass(frozen=True)
class Reach:
    """The bounds a candidate must stay under: ``kth`` for every candidate (inf while fewer than
    k options are archived), and ``bounds[j]`` for those that repeat ``options[j]`` (an
    option's row; ``words[j]`` its changed groups as :func:`geco.search.population.key_words`
    makes them, which a row that repeats it changes too) under the diversity ``gap`` (with
    ``x``, ``ranges`` and ``categorical`` as :func:`geco.search.diversity.repeats` takes them).
    ``kernels``: :mod:`geco.search.kernels` to test the candidates with in one compiled pass (the
    same answers), or None."""

    kth: float
    options: np.ndarray
    words: np.ndarray
    bounds: np.ndarray
    x: np.ndarray
    gap: float
    ranges: np.ndarray
    categorical: np.ndarray
    kernels: Any = None

    @classmethod
    def unbounded(cls, x: np.ndarray) -> Reach:
        """No bound: every candidate is scored."""
        none = np.zeros(0)
        return cls(np.inf, np.zeros((0, len(x))), np.zeros((0, 1), dtype=np.uint64), none, x, 0.0, none,
                   np.zeros(0, dtype=bool))  # fmt: skip

    @classmethod
    def of_options(cls, distances: np.ndarray, rows: np.ndarray, words: np.ndarray, k: int, slack: float,
                   repeat_slack: float, x: np.ndarray, gap: float, ranges: np.ndarray,
                   categorical: np.ndarray, kernels: Any = None) -> Reach:  # fmt: skip
        """The reach of the best options archived, best first: their ``distances`` (inf-padded
        past the last one), ``rows`` and changed-group ``words``; ``k`` options asked. The k-th
        option bounds at ``slack`` times its distance, an option at ``repeat_slack`` times its
        own for the candidates that repeat it."""
        found = np.flatnonzero(np.isfinite(distances[:k]))
        kth = slack * float(distances[k - 1]) if len(found) == k else np.inf
        if gap <= 0:  # the plain top k: nothing repeats
            found = found[:0]
        return cls(kth, rows[found], words[found], repeat_slack * distances[found], x, float(gap), ranges, categorical,
                   kernels)  # fmt: skip

    @property
    def bounded(self) -> bool:
        """Whether any candidate could be out of reach."""
        return bool(np.isfinite(self.kth) or len(self.bounds))

    def within(self, dist: np.ndarray, rows: np.ndarray, words: np.ndarray, at: np.ndarray | None = None) -> np.ndarray:
        """Per candidate (its distance from ``x``, its row and changed-group words): still worth
        scoring. The options are tested all at once, each only against the candidates past its
        bound that change all its groups (:func:`geco.search.diversity.repeats`). ``at``: the
        candidates' rows are ``rows[at]`` (the compiled test reads them in place)."""
        if self.kernels is not None and len(self.bounds) and len(dist):
            return self.kernels.reach_within(dist, rows, words, self.kth, self.options, self.words, self.bounds, self.x,
                                             self.gap, self.ranges, self.categorical, at)  # fmt: skip
        ok = dist < self.kth if np.isfinite(self.kth) else np.ones(len(dist), dtype=bool)
        if not len(self.bounds) or not len(dist):
            return ok
        rows = rows if at is None else rows[at]
        ow = self.words
        past = ok[:, None] & (dist[:, None] >= self.bounds[None, :])
        past &= np.all((words[:, None, :] & ow[None, :, :]) == ow[None, :, :], axis=2)
        cand, opt = np.nonzero(past)
        if len(cand) == 0:
            return ok
        same = repeats(rows[cand], self.options[opt], self.x, self.gap, self.ranges, self.categorical)
        ok[cand[same]] = False
        return ok
