"""GeCo paper, Sec. 6.4: does GeCo find a counterfactual whose optimum is known?

A synthetic classifier on Credit (the one of tests/search/test_ground_truth.py): for a feature set
F it says "good" iff ``x_f >= t_f`` for every f in F (t_f the most frequent value between the 30%
and 70% quantile positions of f's distinct values), and its probability rises smoothly towards
that boundary otherwise. Under the l1 distance the unique optimal counterfactual of an instance
with every f in F below t_f moves each f exactly to t_f. For |F| = 1..12 (the 12 features the
program "fixed isMale, isMarried" leaves free), on ``--n`` such instances: recovery rate of the
exact optimum, the distance gap of GeCo's best counterfactual (% of the optimum's distance to x),
generations and seconds per explanation.

    python benchmarks/paper/ground_truth.py [--n 20] [--sizes 1-12] [--tiny] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import paper_setup as ps

import geco

L1 = (0.0, 1.0, 0.0, 0.0)
PROGRAM = "fixed isMale, isMarried"
#: F grows in this order: the four features of the ground-truth test first, then the other free
#: features of Credit in column order
INTERLEAVED = ["MaxBillAmountOverLast6Months", "TotalOverdueCounts", "MostRecentBillAmount", "AgeGroup"]


def threshold(values: pd.Series) -> float:
    """The most frequent value between the 30% and 70% quantile positions of the distinct values
    (1-based positions low = max(2, floor(0.3 m)), high = min(m, ceil(0.7 m)); first max wins)."""
    counts = values.value_counts().sort_index()
    m = len(counts)
    low, high = max(2, int(np.floor(0.3 * m))), min(m, int(np.ceil(0.7 * m)))
    window = counts.iloc[low - 1 : high]
    return float(window.index[int(np.argmax(window.to_numpy()))])


class GroundTruthClassifier:
    """P = 1 if every f in F reaches t_f, else 0.5 - (0.5 * gap + 0.5 * failed) / |F| < 0.5."""

    classes_ = np.array([0, 1])

    def __init__(self, features, thresholds, ranges):
        self.features, self.t, self.r = list(features), np.asarray(thresholds), np.asarray(ranges)

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        v = X[self.features].to_numpy(dtype=float)
        below = v < self.t
        failed = below.sum(axis=1)
        gap = np.where(below, (self.t - v) / self.r, 0.0).sum(axis=1)
        p = np.where(failed == 0, 1.0, 0.5 - (0.5 * gap + 0.5 * failed) / len(self.features))
        return np.column_stack([1 - p, p])


def feature_order(X: pd.DataFrame) -> list[str]:
    fixed = {"isMale", "isMarried"}
    return INTERLEAVED + [c for c in X.columns if c not in INTERLEAVED and c not in fixed]


def parse_sizes(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def run_size(X: pd.DataFrame, feats: list[str], n: int, seed: int = 0) -> dict:
    t = np.array([threshold(X[f]) for f in feats])
    ranges = np.array([float(X[f].max() - X[f].min()) for f in feats])
    clf = GroundTruthClassifier(feats, t, ranges)
    explainer = geco.Explainer(clf, X, PROGRAM, desired_class=1, engine="blackbox", norm_weights=L1)
    eligible = np.flatnonzero((X[feats].to_numpy() < t).all(axis=1))
    rows = np.random.default_rng(seed).permutation(eligible)[:n]
    cols = [X.columns.get_loc(f) for f in feats]
    recovered, gaps, gens, secs, success = [], [], [], [], []
    for r in rows:
        x = X.iloc[[int(r)]]
        res, sec = ps.timed(explainer.explain, x, random_state=int(r))
        optimum = x.iloc[0].copy()
        optimum[feats] = t
        d_opt = float(np.sum(np.abs(t - x.iloc[0][feats].to_numpy(float)) / explainer.ranges[cols]) / X.shape[1])
        secs.append(sec)
        gens.append(res.stats.get("generations", 0))
        success.append(bool(res.success))
        if res.success:
            best = res.counterfactuals.iloc[0]
            recovered.append(all(best[c] == optimum[c] for c in X.columns))
            gap = 100.0 * (float(best["distance"]) - d_opt) / d_opt
            gaps.append(0.0 if abs(gap) < 1e-9 else gap)  # rounding in the last bit
        else:
            recovered.append(False)
    return {
        "size": len(feats), "features": feats, "thresholds": t.tolist(), "eligible": len(eligible),
        "n": len(rows), "success": ps.mean(success), "recovered": ps.mean(recovered),
        "gap_mean_pct": ps.mean(gaps), "gap_max_pct": float(max(gaps)) if gaps else float("nan"),
        "generations_mean": ps.mean(gens), "seconds_median": ps.percentile(secs, 50),
        "seconds_p90": ps.percentile(secs, 90),
    }  # fmt: skip


HEADERS = ["|F|", "eligible", "n", "success %", "recovered %", "gap mean %", "gap max %",
           "generations", "median ms", "p90 ms"]  # fmt: skip


def table_rows(results):
    return [[r["size"], r["eligible"], r["n"], ps.fmt(100 * r["success"], ".1f"),
             ps.fmt(100 * r["recovered"], ".1f"), ps.fmt(r["gap_mean_pct"], ".3f"),
             ps.fmt(r["gap_max_pct"], ".3f"), ps.fmt(r["generations_mean"], ".1f"),
             ps.fmt(1000 * r["seconds_median"], ".0f"), ps.fmt(1000 * r["seconds_p90"], ".0f")]
            for r in results]  # fmt: skip


def plot(results):
    def draw(plt):
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
        sizes = [r["size"] for r in results]
        axes[0].plot(sizes, [100 * r["recovered"] for r in results], "o-")
        axes[0].set_ylabel("exact optimum recovered (%)")
        axes[0].set_ylim(0, 105)
        axes[1].plot(sizes, [r["gap_mean_pct"] for r in results], "o-", label="mean")
        axes[1].plot(sizes, [r["gap_max_pct"] for r in results], "s--", label="max")
        axes[1].set_ylabel("distance gap (% of optimum)")
        axes[1].legend()
        axes[2].plot(sizes, [1000 * r["seconds_median"] for r in results], "o-")
        axes[2].set_ylabel("median ms per explanation")
        for ax in axes:
            ax.set_xlabel("|F| (features the optimum changes)")
        fig.suptitle("Ground truth on Credit: synthetic threshold classifier, l1 distance")
        return fig

    return draw


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20, help="instances per |F| (default 20)")
    ap.add_argument("--sizes", default="1-12", help="|F| values, e.g. 1-12 or 1,4,8 (default 1-12)")
    ap.add_argument("--tiny", action="store_true", help="Credit's first 3,000 rows (smoke runs)")
    ap.add_argument("--out", type=Path, default=ps.RESULTS)
    args = ap.parse_args(argv)
    X = geco.datasets.load_credit().X
    if args.tiny:
        X = X.iloc[:3000].reset_index(drop=True)
    order = feature_order(X)
    sizes = parse_sizes(args.sizes)
    bad = [s for s in sizes if not 1 <= s <= len(order)]
    if bad:
        raise SystemExit(f"sizes must be in 1..{len(order)}, got {bad}")
    results = [run_size(X, order[:s], args.n) for s in sizes]
    return ps.publish("ground_truth", HEADERS, table_rows(results), plot(results), args.out,
                      ps.command_line("ground_truth", argv), program=PROGRAM, norm_weights=L1,
                      results=results)  # fmt: skip


if __name__ == "__main__":
    main()
