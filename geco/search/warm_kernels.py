"""Fill numba's disk cache with the compiled search's kernels, then exit.

What the child process of :func:`geco.search.compiled.compile_in_background` runs, so that no
explanation waits the twenty-odd seconds numba spends compiling the kernels once per install:
it explains a few rows of the bundled Adult data with the compiled search (a small decision
tree as the model), which calls every kernel a search calls. The process lowers its own
priority, and a lock file serialises such processes (several ``geco serve`` workers starting
together compile once; the ones that wait then load the kernels from the cache in a second).

    python -m geco.search.warm_kernels

Exit status 0: the kernels are in the cache; 1: something failed (the reason on stderr).
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings

from geco.search.kernel_lock import held_lock, lock_path

__all__ = ["main"]

#: undesired rows of the bundled Adult data explained to reach every kernel
ROWS = 3


def _explain_a_few_rows() -> None:
    warnings.simplefilter("ignore", UserWarning)
    import numpy as np
    from sklearn.tree import DecisionTreeClassifier

    from geco.datasets import load_adult
    from geco.explainer import Explainer
    from geco.models import one_hot_pipeline

    data = load_adult()
    X, y = data.X.iloc[:3000], data.y.iloc[:3000]
    model = one_hot_pipeline(X, DecisionTreeClassifier(max_depth=5, random_state=0)).fit(X, y)
    explainer = Explainer(model, X, constraints=data.constraints, desired_class=1)
    undesired = np.flatnonzero(model.predict_proba(X)[:, list(model.classes_).index(1)] <= 0.5)[:ROWS]
    for r in undesired.tolist():
        explainer.explain(X.iloc[[r]], random_state=r, native=True)
    _paths_a_few_rows_miss()


def _paths_a_few_rows_miss() -> None:
    """The kernels a few small rows may not reach: the seeds' passes on domain codes of either
    width (32 bits: a table of more than 65,536 distinct group tuples; the bundled data's fit in
    16), and the archive's greedy pick over every Δ (an archive of thousands of Δ whose best do
    not hold k distinct options)."""
    import numpy as np

    from geco.search import kernels

    terms = np.zeros(1)
    for width in (np.uint16, np.int32):
        codes = np.zeros((2, 3), dtype=width)
        kernels.row_tables(codes, np.zeros(1, dtype=np.uint8), terms, terms)
        kernels.tight_sums(codes, np.arange(3), np.zeros(2, dtype=bool), (terms, terms, terms))
        kernels.classify_rows(codes, np.zeros(1, dtype=np.uint8), terms, terms, 1.0, 1.0, np.zeros((2, 1), dtype=bool),
                              np.zeros(2, dtype=np.intp), None, 1, 2)  # fmt: skip
    kernels.greedy_options(np.zeros(3), np.zeros((3, 1), dtype=np.uint64), 2)


def main() -> int:
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(10)
    try:
        with held_lock(lock_path()), warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", RuntimeWarning)
            _explain_a_few_rows()
        if "geco.search.kernels" not in sys.modules:
            why = [str(w.message) for w in said if issubclass(w.category, RuntimeWarning)]
            raise ImportError(why[-1] if why else "the compiled search did not load (numba missing, or GECO_SEARCH_NATIVE=0)")
    except Exception as exc:  # the parent reads this line and keeps the numpy search
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
