"""Seconds spent per named phase of a search (``SearchOutcome.seconds``), and what a recurring
step has cost lately (the reserve a time budget keeps for it)."""

from __future__ import annotations

import statistics
import time
from collections import defaultdict, deque
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["PhaseTimer", "RecentSeconds"]


class PhaseTimer:
    """Accumulates wall-clock seconds per phase: ``with timer("mutation"): ...``. A phase's key
    appears the first time one of its blocks ends."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - t0


class RecentSeconds:
    """What a recurring step has cost lately: ``estimate`` is 1.5x the median of the last
    ``keep`` durations (``default`` before any), a reserve a time budget sets aside for it."""

    def __init__(self, default: float, keep: int = 8) -> None:
        self.default = default
        self.recent: deque[float] = deque(maxlen=keep)

    def add(self, seconds: float) -> None:
        self.recent.append(float(seconds))

    def estimate(self) -> float:
        return 1.5 * float(statistics.median(self.recent)) if self.recent else self.default
