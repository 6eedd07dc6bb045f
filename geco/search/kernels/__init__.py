"""The search compiled with numba: its operators, its bookkeeping and the seeds' passes over the
data, one pass each instead of a few dozen numpy calls on small per-Δ arrays, which is where
the loop's time went (:mod:`.operators`, :mod:`.polish`, :mod:`.bookkeeping`, :mod:`.seeds`).

Each kernel computes exactly what the numpy code it stands for computes (same sums in the same
order, same tie rules); the random draws are the numpy reference's: made by the callers and passed in, or made
inside a kernel from the caller's ``numpy.random.Generator`` itself (numba draws from its bit
generator in numpy's own order), call for call and shape for shape as the reference makes them,
so the random stream and therefore the explanations are the same. The numpy code stays the
reference (``SearchConfig.native=False``); tests/search/test_kernels.py runs both side by side.

What a call costs besides its work (measured here, numba 0.68): about 0.1 us an array argument,
but 5 us for a ``Generator`` argument (numba unboxes it through ctypes on every call), and, on
first use, seconds for numba's own sorts and partitions (plain loops compile in a fraction of
that): a kernel pays where it replaces tens of numpy calls, not one.

This package imports numba: import it lazily, where a search starts (``import geco`` must not pay
for numba). Kernels are compiled on first use and cached on disk (``cache=True``: beside these
files, or in numba's user cache directory when the package directory is read-only).
"""

from __future__ import annotations

from geco.search.kernels.bookkeeping import (
    absent,
    archive_slots,
    block_best,
    distinct_options,
    gather,
    greedy_options,
    index_words,
    lower_distances,
    merge_order,
    new_rows,
    offer_blocks,
    reach_within,
    read_cells,
    row_distances,
    row_statuses,
    scored_find,
    scored_insert,
    select_pools,
    selection,
    stored_values,
)
from geco.search.kernels.breed import breed
from geco.search.kernels.operators import (
    by_keys,
    crossover_rows,
    distinct_children,
    group_distances,
    mutation,
    selective_mutation,
    smallest,
    walk_back_rows,
)
from geco.search.kernels.polish import (
    concentrate_plan,
    place,
    step_in,
    sweep_grid,
    trade_children,
    trade_plan,
)
from geco.search.kernels.rules import cascade, holds
from geco.search.kernels.seeds import classify_rows, projected_rows, row_tables, tight_sums

__all__ = [
    "absent", "archive_slots", "block_best", "breed", "by_keys", "cascade", "classify_rows", "concentrate_plan", "crossover_rows", "distinct_children", "distinct_options", "gather",
    "greedy_options", "group_distances", "holds", "index_words", "lower_distances", "merge_order", "mutation", "new_rows", "offer_blocks", "place", "projected_rows", "reach_within", "read_cells", "row_distances", "row_statuses", "row_tables",
    "scored_find", "scored_insert",
    "select_pools", "selection", "selective_mutation", "smallest", "step_in", "stored_values", "sweep_grid", "tight_sums", "trade_children", "trade_plan", "walk_back_rows",
]  # fmt: skip
