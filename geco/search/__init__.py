"""The genetic search over one instance's problem: the Δ-representation (:mod:`.population`),
the operators, the stacked feasible spaces they draw from, the polishing trades, the search
itself (:mod:`.loop`, phase by phase), its archive, block scoring and timer, and the pick of
distinct options."""

from geco.search.config import SearchConfig, SearchOutcome
from geco.search.loop import MAX_RESTARTS, GeneticSearch, run_search

# MERGE_BELOW is the compiled engines' default, kept here until the Explainer reads it from the
# engine
from geco.search.pool_scoring import MERGE_BELOW, score_pool

__all__ = [
    "MAX_RESTARTS", "MERGE_BELOW", "GeneticSearch", "SearchConfig", "SearchOutcome", "run_search",
    "score_pool",
]  # fmt: skip
