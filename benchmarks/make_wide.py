"""A wide table at the GeCo paper's scale (Yelp/Allstate-like): a million rows, 115 columns.

15 numeric columns (gamma-distributed, one decimal) and 100 categorical columns with 2-300 levels
and skewed (Zipf-like) frequencies; a label from a hidden rule over a few numeric and categorical
columns; and a PLAF program for it with fixed, monotone and grouped columns and one implication.

    python benchmarks/make_wide.py --rows 1000000 --out wide.pkl   # writes (X, y, plaf) with pickle
    from make_wide import make_wide; X, y, plaf = make_wide(20_000, 60)
"""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path

import numpy as np
import pandas as pd

N_NUMERIC = 15


def make_wide(
    rows: int = 1_000_000, columns: int = 115, seed: int = 0
) -> tuple[pd.DataFrame, pd.Series, str]:
    """(X, y, PLAF text): ``min(15, columns // 4)`` numeric columns, the rest categorical."""
    rng = np.random.default_rng(seed)
    n_num = min(N_NUMERIC, max(2, columns // 4))
    n_cat = columns - n_num
    data: dict[str, object] = {}
    for j in range(n_num):
        shape = 1.0 + (j % 5)
        data[f"num{j:02d}"] = np.round(rng.gamma(shape, 10.0 / shape, rows), 1)
    for j in range(n_cat):
        levels = int(2 + (j * 37) % 299)  # 2..300, spread over the columns
        p = 1.0 / np.arange(1, levels + 1) ** 1.1
        p /= p.sum()
        codes = rng.choice(levels, size=rows, p=p)
        cats = [f"c{j}_{k}" for k in range(levels)]
        data[f"cat{j:03d}"] = pd.Categorical.from_codes(codes, categories=cats)
    X = pd.DataFrame(data)
    # hidden rule: a few numeric columns push up, some categories of a few columns help
    score = 0.08 * X["num00"] + 0.05 * X["num01"] - 0.04 * X["num02"] + 0.03 * X["num03"]
    for j in range(min(4, n_cat)):
        col = X[f"cat{j:03d}"].cat.codes.to_numpy()
        score += 0.6 * (col % 3 == 0)
    score += rng.normal(0, 0.3, rows)
    y = pd.Series((score > np.quantile(score, 0.7)).astype(int), name="label")
    cat_names = [c for c in X.columns if c.startswith("cat")]
    fixed = ", ".join(cat_names[-5:]) if len(cat_names) >= 5 else cat_names[-1]
    plaf = "\n".join([
        f"fixed {fixed}",
        "increasing num04",
        "decreasing num05",
        f"group {cat_names[0]}, {cat_names[1]}" if len(cat_names) >= 2 else "",
        "cf.num00 <= x.num00 + 30",
        "if cf.num01 > x.num01 then cf.num04 >= x.num04 + 1",
        "",
    ])  # fmt: skip
    return X, y, plaf


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--columns", type=int, default=115)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("wide.pkl"))
    args = ap.parse_args()
    X, y, plaf = make_wide(args.rows, args.columns, args.seed)
    with args.out.open("wb") as f:
        pickle.dump((X, y, plaf), f)
    print(f"wrote {args.out}: {X.shape[0]} rows x {X.shape[1]} columns, "
          f"{X.memory_usage(deep=True).sum() / 1e6:.0f} MB, {y.mean():.1%} desired")  # fmt: skip


if __name__ == "__main__":
    main()
