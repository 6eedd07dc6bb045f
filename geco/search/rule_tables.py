"""The implications of one explanation in the flat arrays the compiled cascade reads
(:func:`geco.search.kernels.cascade`): every condition and consequence as one table of
programs (:mod:`plaf_grammar.programs`), and each implication's repair values (its consequence
group's feasible values that satisfy it) stacked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geco.problem.feasible_space import GroupSpace
from plaf_grammar.programs import RulePrograms

__all__ = ["CascadeTables"]


@dataclass(frozen=True)
class CascadeTables:
    """Programs ``code``/``constants``/``starts`` (condition and consequence of implication
    ``i`` at ``2 i`` and ``2 i + 1``; ``depth``: the deepest), and
    per implication its consequence group, that group's columns
    (``features[feat_starts[i]:feat_starts[i + 1]]``), its repair values (row-major from
    ``value_starts[i]``) and their cumulative weights (``cumulative[cum_starts[i]:cum_starts[i
    + 1]]``)."""

    code: np.ndarray
    constants: np.ndarray
    starts: np.ndarray
    depth: int
    groups: np.ndarray
    feat_starts: np.ndarray
    features: np.ndarray
    value_starts: np.ndarray
    values: np.ndarray
    cum_starts: np.ndarray
    cumulative: np.ndarray

    @classmethod
    def of(cls, implications: Sequence, spaces: Sequence[GroupSpace]) -> CascadeTables:
        """From grounded implications (``condition``/``consequence`` predicates, ``group``)
        and their repair spaces (:func:`geco.problem.feasible_space.implication_spaces`)."""
        tests = [p for imp in implications for p in (imp.condition, imp.consequence)]
        programs = RulePrograms.of([p.expr for p in tests], tests[0].schema if tests else None)
        width = [len(s.features) for s in spaces]
        sizes = [len(s) for s in spaces]

        def offsets(counts: list[int]) -> np.ndarray:
            out = [0]
            for c in counts:
                out.append(out[-1] + c)
            return np.array(out, dtype=np.int64)

        def flat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
            return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype=dtype)

        return cls(
            programs.code, programs.constants, programs.starts, programs.depth,
            np.array([imp.group for imp in implications], dtype=np.int64), offsets(width),
            flat([s.features for s in spaces], np.int64), offsets([w * k for w, k in zip(width, sizes)]),
            flat([s.values.reshape(-1) for s in spaces], np.float64), offsets(sizes),
            flat([s.cumulative for s in spaces], np.float64),
        )  # fmt: skip
