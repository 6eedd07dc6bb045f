"""The genetic search over one instance's problem: the Δ-representation (:mod:`.population`),
the operators, the stacked feasible spaces they draw from, the polishing trades, the search
itself (:mod:`.loop`, phase by phase), its archive, block scoring and timer, the start from a
problem (:mod:`.start`: context and seeds) and the pick of distinct options; the same search
compiled (:mod:`.kernels`, numba) and which of the two runs (:mod:`.compiled`)."""

from geco.search.config import SearchConfig, SearchOutcome
from geco.search.loop import MAX_RESTARTS, GeneticSearch, run_search
from geco.search.pool_scoring import score_pool

__all__ = ["MAX_RESTARTS", "GeneticSearch", "SearchConfig", "SearchOutcome", "run_search", "score_pool"]
