"""What happened to each row of a batch, in four kinds the report counts and filters by.

* ``found`` - a counterfactual was found (``success``; the CLI's "with counterfactuals");
* ``not-found`` - the row needed explaining and the search found no counterfactual;
* ``desired`` - the model already gives the row the desired class: nothing to explain, neither
  a success nor a failure, and left out of the success rate;
* ``error`` - explaining the row raised (``stats["error"]``; the CLI's "failed").

The kind is read from ``stats["outcome"]``, written where the explanation is made; an
explanation without it (a file written before it was kept, a baseline's) is classified from
its error, success, and - with no candidate rows reported - its probability against the
default threshold."""

from __future__ import annotations

from geco.result import Explanation
from geco.search.config import SearchConfig

__all__ = ["BADGES", "DESIRED", "ERROR", "FOUND", "NOT_FOUND", "OUTCOMES", "outcome_of"]

FOUND, NOT_FOUND, DESIRED, ERROR = "found", "not-found", "desired", "error"
OUTCOMES = (FOUND, NOT_FOUND, DESIRED, ERROR)
#: the words a card's badge and the outcome filter show for each kind
BADGES = {
    FOUND: "counterfactual found",
    NOT_FOUND: "no counterfactual found",
    DESIRED: "already desired",
    ERROR: "error",
}
_RECORDED = {"found": FOUND, "not found": NOT_FOUND, "already desired": DESIRED, "error": ERROR}
_DEFAULT_THRESHOLD = SearchConfig().threshold


def outcome_of(e: Explanation) -> str:
    """The kind of ``e`` (one of ``OUTCOMES``; see the module docstring)."""
    if "error" in e.stats:
        return ERROR
    if e.success:
        return FOUND
    recorded = _RECORDED.get(str(e.stats.get("outcome")))
    if recorded is not None:
        return recorded
    if not len(e.counterfactuals) and e.x_probability > _DEFAULT_THRESHOLD:
        return DESIRED
    return NOT_FOUND
