"""What ``random_state`` may be, read in one place: the explanations' random streams and the
batches' per-row seeds come from it, and a seed numpy refuses is named as the argument the user
passed, not as numpy's internals."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["random_generator", "seed_sequence"]

_ACCEPTED = (
    "None, a non-negative int (or a sequence of them), a numpy SeedSequence, Generator or "
    "RandomState"
)


def seed_sequence(random_state: Any) -> np.random.SeedSequence:
    """The root seed of a batch: a copy of a ``SeedSequence`` (not modified), 128 bits drawn
    from a ``Generator`` or a ``RandomState`` (as scikit-learn's estimators draw from one), else
    ``SeedSequence(random_state)``; ValueError naming ``random_state`` when numpy refuses it."""
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.SeedSequence(
            random_state.entropy, spawn_key=random_state.spawn_key, pool_size=random_state.pool_size
        )
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(random_state.integers(0, 2**63, size=2).tolist())
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(random_state.randint(0, 2**63, size=2, dtype=np.int64).tolist())
    try:
        return np.random.SeedSequence(random_state)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"random_state must be {_ACCEPTED}; got {random_state!r} ({exc})") from None


def random_generator(random_state: Any) -> np.random.Generator:
    """One explanation's random stream: a ``Generator`` (or a bit generator) used as it is, so
    its state advances; else the stream of :func:`seed_sequence` (for an int, the stream
    ``numpy.random.default_rng(random_state)`` gives), so a seed numpy refuses is a ValueError
    naming ``random_state``."""
    if isinstance(random_state, (np.random.Generator, np.random.BitGenerator)):
        return np.random.default_rng(random_state)
    return np.random.default_rng(seed_sequence(random_state))
