"""Seconds spent per named phase of a search (``SearchOutcome.seconds``), and what a recurring
step has cost lately (the reserve a time budget keeps for it)."""

from __future__ import annotations

import statistics
import time
from collections import defaultdict, deque

__all__ = ["PhaseTimer", "RecentSeconds"]


class PhaseTimer:
    """Accumulates wall-clock seconds per phase: ``with timer("mutation"): ...``. A phase's key
    appears the first time one of its blocks ends. One reusable block per phase name (a search
    times some sixty blocks an explanation; a generator-based context manager cost 2 us each)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._blocks: dict[str, _Block] = {}

    def __call__(self, name: str) -> _Block:
        block = self._blocks.get(name)
        if block is None:
            block = self._blocks[name] = _Block(self.seconds, name)
        return block


class _Block:
    """One phase's ``with`` block: adds its seconds to the timer's on exit (also on an error);
    a block of the phase inside another adds its own seconds too, as two blocks would."""

    __slots__ = ("name", "seconds", "starts")

    def __init__(self, seconds: dict[str, float], name: str) -> None:
        self.seconds, self.name, self.starts = seconds, name, []

    def __enter__(self) -> None:
        self.starts.append(time.perf_counter())

    def __exit__(self, *exc: object) -> None:
        self.seconds[self.name] += time.perf_counter() - self.starts.pop()


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
