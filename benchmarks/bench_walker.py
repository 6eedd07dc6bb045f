"""Full-row tree kernels: the branch-free walker, the branchy walks and the x-mask kernel, µs per row.

Run:  python benchmarks/bench_walker.py [--rows 2048] [--repeats 5] [--no-readme]
Results: benchmarks/README.md, section "bench_walker.py" (rewritten unless --no-readme).

Rows are an instance ``x`` of the data with 1, 2, 3, 6 or every column replaced by another data
row's values - what the merged tiny Δ blocks and the cold x-walk blocks of a generation look like
(a few columns changed) and what ``score_rows`` gets (unrelated rows). Per model and changed
columns: CPU µs per row (``time.process_time``, best of ``--repeats``, one thread) of
``@forest_eval`` (the whole forest, no x), the branchy walks from x's binding - on the exact path
masks (``@xwalk_rows``, 64 columns a word, the masks built beforehand: a pass over every node, per
x) and on the binding's own masks folded to 32 bits (``@xwalk_folded_rows``: nothing to build) -
and ``@walk_rows`` (32 rows per tree in lockstep, three vector gathers a step over the walker's own
node layout); where every tree has at most 64 leaves, the whole forest's plan (``@score_jobs``,
columns no row of the call changes decided once) and the x-mask kernel (``@xmask_rows``: eight
rows at a time from x's masks on the columns none of them changes, x's masks made once per x
beforehand); every result checked bit for bit against ``@forest_eval``. Each row changes its own
columns, so eight rows change up to eight times as many (a generation's rows come in runs of one
Δ). Models: Adult RandomForest-100 (the default model), Adult RandomForestRegressor-500
(bench_regression's model), a 50-feature synthetic RF-100, Credit XGBoost 120x4 and 500x6
(one-hot pipelines).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from readme_table import avx512, write_section

SECTION = "bench_walker.py"
CHANGED = (1, 2, 3, 6, None)  # None: every column


def explainers():
    import warnings

    import geco
    from geco.models import default_model, one_hot_pipeline

    out = {}
    adult = geco.datasets.load_dataset("adult")
    out["adult RF-100"] = geco.Explainer(default_model(adult.X, adult.y), adult.X)
    from bench_regression import HI, LO, pipeline
    from sklearn.ensemble import RandomForestRegressor

    X, y = adult.X.drop(columns=["hours_per_week"]), adult.X["hours_per_week"].astype(float)
    reg = pipeline(X, RandomForestRegressor(500, max_depth=10, random_state=0, n_jobs=2))
    reg.fit(X.iloc[:4000], y.iloc[:4000])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["adult RF-500 regressor"] = geco.Explainer(reg, X, desired_range=(LO, HI))
    import pandas as pd
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    Xs, ys = make_classification(3000, 50, n_informative=10, n_redundant=5, random_state=0)
    Xs = pd.DataFrame(np.round(Xs, 3), columns=[f"s{i}" for i in range(50)])
    wide = RandomForestClassifier(100, max_depth=10, random_state=0, n_jobs=1).fit(Xs, ys)
    out["synthetic50 RF-100"] = geco.Explainer(wide, Xs, desired_class=1)
    try:
        import xgboost as xgb
    except ImportError:
        return out
    credit = geco.datasets.load_dataset("credit")
    for rounds, depth in ((120, 4), (500, 6)):
        est = xgb.XGBClassifier(n_estimators=rounds, max_depth=depth, n_jobs=2, random_state=0)
        model = one_hot_pipeline(credit.X, est).fit(credit.X, credit.y)
        model[-1].set_params(n_jobs=1)
        out[f"credit XGBoost {rounds}x{depth}"] = geco.Explainer(model, credit.X)
    return out


def cpu_us(f, n: int, repeats: int) -> tuple[np.ndarray, float]:
    best, result = np.inf, None
    for _ in range(repeats):
        t0 = time.process_time()
        result = f()
        best = min(best, time.process_time() - t0)
    return result, 1e6 * best / n


def path_walk(bx, rows: np.ndarray) -> np.ndarray:
    """The walk from x on the exact path masks, the rows' masks included (built once per x before)."""
    return bx.path_walk(rows, bx.row_masks(rows))


def folded_walk(bx, rows: np.ndarray) -> np.ndarray:
    """The walk from x on folded masks, the rows' masks included."""
    return bx.folded_walk(rows, bx.folded_masks(rows))


def main() -> None:
    from codegen.trees.kernel import run_kernel

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2048)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-readme", action="store_true", dest="no_readme")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    lines = [
        "| model | trees | columns changed | forest_eval µs/row | from x, path masks µs/row "
        "| from x, folded masks µs/row | walker µs/row | whole plan µs/row | x-mask µs/row "
        "| folded vs forest_eval | walker vs forest_eval | x-mask vs forest_eval | bit-exact |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, ex in explainers().items():
        sc = ex.scorer
        table = np.asarray(ex.table.take(slice(0, 5000)), dtype=np.float64)
        x = table[rng.integers(len(table))]
        bx = sc.native.bind(x)
        bx.path_masks()
        d = table.shape[1]
        for k in CHANGED:
            k = d if k is None else k
            rows = np.repeat(x[None], args.rows, axis=0)
            for i in range(args.rows):
                cs = rng.choice(d, k, replace=False)
                rows[i, cs] = table[rng.integers(len(table)), cs]
            full = sc.full
            want, t_full = cpu_us(partial(run_kernel, full, rows), args.rows, args.repeats)
            branchy, t_branchy = cpu_us(partial(path_walk, bx, rows), args.rows, args.repeats)
            folded, t_folded = cpu_us(partial(folded_walk, bx, rows), args.rows, args.repeats)
            walked, t_walk = cpu_us(partial(bx.walk_rows, rows), args.rows, args.repeats)
            got = [branchy, folded, walked]
            plan = xmask = "-"
            x_vs = "-"
            if sc.native.xmask_forest:
                bx.xmasks()  # once per x, as a search makes them
                whole, t_plan = cpu_us(partial(sc.native.quickscorer_rows, bx, rows), args.rows, args.repeats)
                masked, t_mask = cpu_us(partial(sc.native.xmask_rows, bx, rows), args.rows, args.repeats)
                got += [whole, masked]
                plan, xmask, x_vs = f"{t_plan:.2f}", f"{t_mask:.2f}", f"{t_full / t_mask:.1f}x"
            exact = all(np.array_equal(want, a) for a in got)
            lines.append(
                f"| {name} | {sc.forest.n_trees} | {k} of {d} | {t_full:.2f} | {t_branchy:.2f} | {t_folded:.2f} | "
                f"{t_walk:.2f} | {plan} | {xmask} | {t_full / t_folded:.1f}x | {t_full / t_walk:.1f}x | {x_vs} | "
                f"{'yes' if exact else 'NO'} |"
            )
            print(lines[-1], flush=True)
    load = subprocess.run(["cat", "/proc/loadavg"], capture_output=True, text=True).stdout.split()[:3]
    intro = (
        f"{args.rows} rows per cell, CPU time, best of {args.repeats}, one thread; load average "
        f"{' / '.join(load)} at the end. AVX-512: {avx512()} (there the walker's 8-lane gathers are one "
        "`vpgatherqq` / `vgatherqpd` each)."
    )
    text = "\n".join(lines)
    print(text)
    if not args.no_readme:
        write_section(SECTION, f"{intro}\n\n{text}", " ".join(["python benchmarks/bench_walker.py", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
