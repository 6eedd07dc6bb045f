"""The search's knobs (:class:`SearchConfig`) and what one run returns (:class:`SearchOutcome`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from geco.search.target import Target

__all__ = ["RestOfRows", "SearchConfig", "SearchOutcome"]


@dataclass(frozen=True)
class SearchConfig:
    """The paper's knobs with its defaults, plus ``seeds``, ``patience``, ``diversity`` and
    ``time_budget`` (documented on :class:`geco.Explainer`). The loop counts ``time_budget``
    from its own start; the Explainer hands it what is left of the explanation's budget.
    ``target``: what a counterfactual must reach (None: P(desired) > ``threshold``); read it
    as :attr:`goal`.

    ``native``: run the generation's bookkeeping (de-duplication, distances, key words,
    selection), its mutation operators and the seeds' passes in compiled kernels
    (:mod:`geco.search.kernels`, numba; install ``geco-cf[native]``), with the same draws and
    results as the numpy reference: True / False; None (the default) runs them where this
    process has loaded them already - a batch loads them once they pay for their first use
    (about half a second; twenty once per install, compiling - then in a child process while
    the rows go on), ``geco serve`` at start-up (the same), any search
    without a time budget once the process's searches have earned them - and the reference
    otherwise (:mod:`geco.search.compiled`). The environment variable
    ``GECO_SEARCH_NATIVE=1`` turns them on for every search, ``0`` off; without numba the
    reference runs."""

    k: int = 5
    q: int = 100
    m_init: int = 20
    m_mut: int = 5
    min_generations: int = 3
    max_generations: int = 100
    threshold: float = 0.5
    norm_weights: tuple[float, float, float, float] = (0.25, 0.25, 0.25, 0.25)
    representation: str = "delta"
    mutate_top: int | None = None
    seeds: int = 10
    patience: int = 5
    diversity: float = 0.1
    time_budget: float | None = None
    target: Target | None = None
    native: bool | None = None

    @property
    def goal(self) -> Target:
        """The target the search tests candidates against; a probability target's cutoff is
        ``threshold``. Made once per configuration (an explanation reads it a few times, and
        ``dataclasses.replace`` costs microseconds): kept beside the fields, which it follows
        as the configuration is frozen."""
        goal = self.__dict__.get("_goal")
        if goal is None:
            if self.target is None:
                goal = Target.probability(self.threshold)
            elif self.target.is_probability:
                goal = replace(self.target, lo=float(self.threshold))
            else:
                goal = self.target
            self.__dict__["_goal"] = goal
        return goal

    def validate(self) -> None:
        for name in ("k", "q", "m_init", "m_mut", "max_generations", "patience"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if not isinstance(self.min_generations, (int, np.integer)) or self.min_generations < 0:
            raise ValueError(f"min_generations must be >= 0, got {self.min_generations!r}")
        if self.k > self.q:
            raise ValueError(f"k ({self.k}) must not exceed q ({self.q})")
        if not 0.0 <= self.threshold < 1.0:
            raise ValueError(f"threshold must be in [0, 1), got {self.threshold!r}")
        if self.representation not in ("delta", "full"):
            raise ValueError(f"representation must be 'delta' or 'full', got {self.representation!r}")
        if self.mutate_top is not None and (
            not isinstance(self.mutate_top, (int, np.integer)) or self.mutate_top < 1
        ):
            raise ValueError(f"mutate_top must be None or a positive integer, got {self.mutate_top!r}")
        if not isinstance(self.seeds, (int, np.integer)) or self.seeds < 0:
            raise ValueError(f"seeds must be >= 0, got {self.seeds!r}")
        if not isinstance(self.diversity, (int, float, np.number)) or not 0.0 <= self.diversity <= 1.0:
            raise ValueError(f"diversity must be in [0, 1], got {self.diversity!r}")
        if self.native is not None and not isinstance(self.native, (bool, np.bool_)):
            raise ValueError(f"native must be True, False or None (the compiled search where it is loaded), got {self.native!r}")
        budget = self.time_budget
        if budget is not None and (
            isinstance(budget, bool) or not isinstance(budget, (int, float, np.number))
            or not np.isfinite(budget) or budget <= 0
        ):  # fmt: skip
            raise ValueError(f"time_budget must be None or a positive number of seconds, got {budget!r}")


@dataclass
class SearchOutcome:
    """The final population and the archive of the best counterfactual per Δ (best first, no
    duplicates), how the run ended and what it cost. Where they hold more than
    ``geco.search.loop.OUTCOME_ROWS`` rows, ``rows`` (and the other per-row fields) hold the best
    of them only, :meth:`widened` more of them and :meth:`whole` all: an answer is decided on the
    best rows but where it needs more (wide data archives tens of thousands of Δ, each read whole
    only when taken).

    ``stop``: "converged" (the paper's rule), "stagnated", "max_generations", "time_budget"
    (the best found within ``SearchConfig.time_budget``) or "no_candidates" (no candidate
    survived the rules). ``best_prob``: the highest probability any scored
    candidate reached (engine's numbers)."""

    rows: np.ndarray  # (n, d) full encoded rows, sorted by score
    changed: np.ndarray  # (n, G)
    prob: np.ndarray
    dist: np.ndarray
    score: np.ndarray
    generations: int
    converged: bool
    candidates_scored: int
    stop: str = "converged"
    restarts: int = 0
    seeds_used: int = 0
    best_prob: float = 0.0
    seconds: dict[str, float] = field(default_factory=dict)
    peak_population_bytes: int = 0
    #: Δ archived, and the bytes they take in the archive (rows as their changed groups'
    #: cells: :mod:`geco.search.row_cells`; without the arrays' room to grow)
    archived: int = 0
    archive_bytes: int = 0
    blocks_scored: int = 0
    polish_rounds: int = 0
    #: candidates whose number came from the rows scored before in the search (not the engine)
    rows_reused: int = 0
    budget_cuts: tuple[str, ...] = ()  # the steps the time budget left out, as sentences
    #: the rows left out, when ``rows`` holds the best ones only (None: it holds them all)
    rest: RestOfRows | None = field(default=None, repr=False, compare=False)

    def whole(self) -> SearchOutcome:
        """This outcome with every row (itself when it has them all)."""
        return self if self.rest is None else self.rest.best(len(self.rest.scores))

    def widened(self, m: int) -> SearchOutcome:
        """This outcome with its best ``m`` rows (every row when there are no more; itself when
        it has them all)."""
        return self if self.rest is None else self.rest.best(m)


@dataclass(frozen=True)
class RestOfRows:
    """What an outcome holding its best rows only can read on demand: ``scores``, every row's
    score in the outcome's order (best first), and ``best(m)``, the outcome with its best ``m``
    rows (``rest`` None once that is every row)."""

    scores: np.ndarray
    best: Callable[[int], SearchOutcome]
