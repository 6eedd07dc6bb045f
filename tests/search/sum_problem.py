"""A small problem with a model written out, shared by the search's tests: eight numeric
one-column groups around x = 10 each, desired when a + b > 22, scored from Δ blocks as a
compiled scorer gets them."""

import numpy as np

from geco.problem.distance import DistanceSpec
from geco.problem.feasible_space import feasible_space, group_domains
from geco.search import GeneticSearch, SearchConfig
from geco.search.operators import Context

G = 8
X = np.full(G, 10.0)
NO_REQUIRED = np.zeros(0, dtype=np.intp)


class SumScorer:
    """P(desired) = sigmoid(a + b - 22), scored from Δ blocks as a compiled scorer gets them."""

    def __init__(self, x):
        self.x = x

    def score_block(self, delta, columns):
        rows = np.tile(self.x, (len(columns), 1))
        rows[:, list(delta)] = columns
        return 1.0 / (1.0 + np.exp(-(rows[:, 0] + rows[:, 1] - 22.0)))

    def score_blocks(self, blocks):
        return [self.score_block(delta, cols) for delta, cols in blocks]


def make_search(seed=0, **knobs):
    rng = np.random.default_rng(0)
    data = rng.integers(0, 21, (400, G)).astype(float)
    names = tuple("abcdefgh")
    spec = DistanceSpec(X, np.full(G, 20.0), np.zeros(G, dtype=bool), (0.25, 0.25, 0.25, 0.25))
    spaces = feasible_space(group_domains([(n,) for n in names], list(names), data), X, [None] * G, spec)
    ctx = Context(X, names, spaces, np.arange(G), [], [], [], np.random.default_rng(seed))
    config = SearchConfig(**knobs)
    return GeneticSearch(ctx, SumScorer(X), spec, config, NO_REQUIRED)
