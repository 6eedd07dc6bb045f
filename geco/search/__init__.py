"""The genetic search over one instance's problem: the Δ-representation (:mod:`.population`),
the operators, the stacked feasible spaces they draw from, the polishing trades, the loop
(:mod:`.loop`) and the pick of distinct options."""

from geco.search.loop import (
    MAX_RESTARTS,
    MERGE_BELOW,
    SearchConfig,
    SearchOutcome,
    run_search,
    score_pool,
)

__all__ = ["MAX_RESTARTS", "MERGE_BELOW", "SearchConfig", "SearchOutcome", "run_search", "score_pool"]
