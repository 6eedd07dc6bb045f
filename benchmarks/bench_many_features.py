"""Many features: what an explanation costs in time and memory as the table widens to 1,000 columns.

A synthetic table of ``--rows`` rows and d integer features (0-19), labelled by a random linear
rule over every feature (so a counterfactual needs many of them: the hard case), a random
forest (100 trees, depth 10), no rules; k = 3; the compiled search where numba is installed
(``native=True``), else the numpy one. For each d of ``--features``, the first ``--n``
undesired rows (seed = row): CPU seconds per explanation (median, max), generations, candidates
scored, Δ archived, the bytes they take in the archive (each Δ's row as its changed groups'
cells, and its fields: ``stats["archive_bytes"]``) beside what the same Δ take as whole rows
(8 bytes a column and a byte a group: how the archive held them before it kept cells),
and the peak of memory traced (``tracemalloc``) during an explanation, measured in a second
pass (tracing slows numpy's allocations, so the first pass is timed untraced). Writes its table
into the "Many features" section of ``benchmarks/README.md``.

    python benchmarks/bench_many_features.py [--features 100,300,1000] [--n 3] [--rows 4000] [--no-readme]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_table import write_section

HERE = Path(__file__).resolve().parent

warnings.filterwarnings("ignore")


def table(d: int, rows: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(d)
    X = pd.DataFrame(rng.integers(0, 20, size=(rows, d)), columns=[f"f{i}" for i in range(d)])
    score = X.to_numpy() @ rng.normal(size=d)
    return X, (score > np.median(score)).astype(int)


def prepared(d: int, args: argparse.Namespace, native: bool) -> tuple:
    """(X, the Explainer, the undesired rows explained), after a warm-up explanation."""
    import geco

    X, y = table(d, args.rows)
    model = RandomForestClassifier(100, max_depth=10, random_state=0, n_jobs=1).fit(X, y)
    explainer = geco.Explainer(model, X, desired_class=1)
    undesired = np.flatnonzero(model.predict_proba(X)[:, 1] <= 0.5)[: args.n]
    explainer.explain(X.iloc[[int(undesired[0])]], k=3, random_state=0, native=native, max_generations=2)
    return X, explainer, undesired


def peaks(X: pd.DataFrame, explainer, undesired: np.ndarray, native: bool) -> list[int]:
    """Peak bytes traced over each row's explanation."""
    out = []
    for r in undesired.tolist():
        tracemalloc.start()
        explainer.explain(X.iloc[[r]], k=3, random_state=r, native=native)
        out.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return out


def peaks_before(rev: str, args: argparse.Namespace, native: bool) -> dict[int, list[int]]:
    """Per width, the peaks of revision ``rev`` on the same rows: its tree checked out in a
    temporary worktree and imported by a child process running this script (``--peaks-of``)."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(HERE.parent), "worktree", "add", "-q", "--detach", str(tree), rev], check=True)
        try:
            out = subprocess.run(
                [sys.executable, str(HERE / "bench_many_features.py"), "--peaks-of", str(tree), "--features", args.features,
                 "--n", str(args.n), "--rows", str(args.rows), *([] if native else ["--numpy"])],
                check=True, capture_output=True, text=True, cwd=tmp,
            ).stdout  # fmt: skip
        finally:
            subprocess.run(["git", "-C", str(HERE.parent), "worktree", "remove", "--force", str(tree)], check=False)
    return {int(k): v for k, v in json.loads(out.strip().splitlines()[-1]).items()}


def setting(d: int, args: argparse.Namespace, native: bool) -> dict:
    X, explainer, undesired = prepared(d, args, native)
    cpu, stats = [], []
    for r in undesired.tolist():
        t0 = time.process_time()
        res = explainer.explain(X.iloc[[r]], k=3, random_state=r, native=native)
        cpu.append(time.process_time() - t0)
        stats.append(res.stats)
    traced = peaks(X, explainer, undesired, native)
    groups = len(explainer.groups)
    archived = np.array([s["archived"] for s in stats])
    held = np.array([s["archive_bytes"] for s in stats])
    return {
        "d": d, "n": len(undesired), "cpu": np.array(cpu), "generations": [s["generations"] for s in stats],
        "candidates": [s["candidates_scored"] for s in stats], "archived": archived, "held": held,
        "whole": archived * (8 * d + groups), "peak": np.array(traced), "found": sum(s["outcome"] == "found" for s in stats),
    }  # fmt: skip


def render(results: list[dict], head: str, before: str | None = None) -> str:
    mb = 2.0**20
    lines = [
        "Random integer features, the label a linear rule over all of them (a counterfactual moves many), "
        "no rules. \"Archive MB (cells)\": the bytes the archived Δ take, each row as its changed groups' "
        "cells (`stats[\"archive_bytes\"]`); \"as whole rows\": the same Δ at 8 bytes a column and a byte "
        "a group, as the archive held them before. Peak traced: `tracemalloc` over one explanation "
        "(a second pass; the CPU column is the untraced first).",
        "",
        f"{head}; load average {' / '.join(f'{v:.1f}' for v in os.getloadavg())} at the end.",
        "",
        "| features | rows | found | CPU s median / max | generations median | candidates median | Δ archived median "
        "| archive MB (cells) median / max | the same Δ as whole rows MB median / max | peak traced MB median / max |"
        + (f" peak traced MB at {before} median / max |" if before else ""),
        "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if before else ""),
    ]
    for r in results:
        lines.append(
            f"| {r['d']} | {r['n']} | {r['found']}/{r['n']} | {np.median(r['cpu']):.2f} / {r['cpu'].max():.2f} "
            f"| {np.median(r['generations']):.0f} | {np.median(r['candidates']):,.0f} | {np.median(r['archived']):,.0f} "
            f"| {np.median(r['held']) / mb:.1f} / {r['held'].max() / mb:.1f} "
            f"| {np.median(r['whole']) / mb:.1f} / {r['whole'].max() / mb:.1f} "
            f"| {np.median(r['peak']) / mb:.0f} / {r['peak'].max() / mb:.0f} |"
            + (f" {np.median(r['before']) / mb:.0f} / {np.max(r['before']) / mb:.0f} |" if before else "")
        )  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--features", default="100,300,1000")
    ap.add_argument("--n", type=int, default=3)
    ap.add_argument("--rows", type=int, default=4000)
    ap.add_argument("--before", default=None, help="a git revision whose peaks to measure beside")
    ap.add_argument("--no-readme", action="store_true")
    ap.add_argument("--peaks-of", default=None, help=argparse.SUPPRESS)  # the child of --before
    ap.add_argument("--numpy", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    native = importlib.util.find_spec("numba") is not None and not args.numpy
    if args.peaks_of is not None:  # import that tree's geco, print its peaks as one JSON line
        sys.path.insert(0, args.peaks_of)
        print(json.dumps({d: peaks(*prepared(d, args, native), native) for d in (int(v) for v in args.features.split(","))}))
        return
    head = (f"{args.rows:,} rows, RF-100 depth 10, k = 3, first {args.n} undesired rows per width; "
            f"{'compiled' if native else 'numpy'} search")  # fmt: skip
    results = []
    for d in (int(v) for v in args.features.split(",")):
        results.append(setting(d, args, native))
        r = results[-1]
        print(f"[{d} features] CPU median {np.median(r['cpu']):.2f} s, archive {np.median(r['held']) / 2**20:.1f} MB "
              f"(whole rows {np.median(r['whole']) / 2**20:.1f}), peak {np.median(r['peak']) / 2**20:.0f} MB", flush=True)  # fmt: skip
    if args.before:
        for r, (d, before) in zip(results, sorted(peaks_before(args.before, args, native).items())):
            assert r["d"] == d
            r["before"] = before
    text = render(results, head, args.before)
    print(text)
    if not args.no_readme:
        write_section("Many features", text, "python benchmarks/bench_many_features.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
