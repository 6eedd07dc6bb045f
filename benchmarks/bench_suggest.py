"""``geco suggest``: the laws it drafts and what they change about the answers.

* Credit: the best counterfactual of each of ``--n`` undesired rows (RF-100, the default model),
  under credit.plaf and under credit.plaf plus the draft's active statements: how many break
  each law the data obeys, and the first counterfactual's distance.
* Adult: whether the education <-> education_num group is found.
* Wide: time and peak memory (tracemalloc, and the rise of resident memory; against the
  table's size in pandas) of ``suggest`` on
  ``make_wide``'s table, as generated and with two laws planted in it (an ordering and a
  dependency, replacing two columns).

Writes its tables into the "Data laws (geco suggest)" section of ``benchmarks/README.md``.

    python benchmarks/bench_suggest.py [--n 40] [--rows 1000000] [--columns 115]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from make_wide import make_wide
from readme_table import write_section

import geco
from geco.laws import breaks, mine
from geco.models import default_model


def undesired_rows(explainer: geco.Explainer, X: pd.DataFrame, n: int) -> list[int]:
    """The first ``n`` rows the model does not give the desired class."""
    p = explainer.blackbox.predict(explainer.table.take(slice(0, min(len(X), 50 * n))))
    return [int(r) for r in np.flatnonzero(p <= explainer.config.threshold)[:n]]


def best_answers(explainer: geco.Explainer, X: pd.DataFrame, rows: list[int]) -> tuple[pd.DataFrame, list, float]:
    """The first counterfactual of each row (rows without one left out), their distances and
    the median seconds per explanation."""
    best, dist, secs = [], [], []
    for r in rows:
        t0 = time.perf_counter()
        res = explainer.explain(X.iloc[[r]], random_state=r)
        secs.append(time.perf_counter() - t0)
        if res.success:
            best.append(res.counterfactuals.iloc[[0]][list(X.columns)])
            dist.append(float(res.counterfactuals["distance"].iloc[0]))
        else:
            dist.append(float("nan"))
    return pd.concat(best), dist, float(np.median(secs))


def credit(n: int) -> tuple[str, str]:
    """(table, draft) for Credit: laws broken by the best answers before and after."""
    ds = geco.datasets.load_credit()
    draft = geco.suggest(ds.X, source="credit", base=Path(ds.constraints))
    laws = [law for law in mine(ds.X) if law.active]
    model = default_model(ds.X, ds.y, cache=True)
    base = Path(ds.constraints).read_text(encoding="utf-8")
    programs = {"credit.plaf": base, "credit.plaf + draft": base + "\n" + draft}
    results = {}
    for label, text in programs.items():
        explainer = geco.Explainer(model, ds.X, text, desired_class=ds.desired_class)
        rows = undesired_rows(explainer, ds.X, n)
        best, dist, secs = best_answers(explainer, ds.X, rows)
        results[label] = (breaks(laws, best, ds.X), dist, secs, len(rows))
        print(label, results[label][0].any(axis=1).sum(), "of", len(best), flush=True)
    lines = [f"Credit, RF-100 (the default model), the best counterfactual of each of the first {n} "
             "undesired rows (`random_state` = row):", "",
             "| law (active in the draft) | " + " | ".join(f"broken, {k}" for k in programs) + " |",
             "|---|" + "---|" * len(programs)]  # fmt: skip
    for law in laws:
        lines.append(f"| `{law.statement}` | " + " | ".join(f"{int(r[0][law.statement].sum())}" for r in results.values()) + " |")
    lines.append("| **answers breaking any** | " + " | ".join(
        f"**{int(r[0].any(axis=1).sum())} of {len(r[0])}**" for r in results.values()) + " |")  # fmt: skip
    d0, d1 = (np.array(r[1]) for r in results.values())
    both = np.isfinite(d0) & np.isfinite(d1)
    lines += ["", "| program | found | mean first distance (rows found by both) | median s per explanation |",
              "|---|---|---|---|"]  # fmt: skip
    for (label, r), d in zip(results.items(), (d0, d1)):
        lines.append(f"| {label} | {np.isfinite(d).sum()} of {r[3]} | {d[both].mean():.4f} | {r[2]:.3f} |")
    lines.append("")
    lines.append(f"Distance after / before: mean {d1[both].mean() / d0[both].mean():.3f}, "
                 f"median per row {np.median(d1[both] / d0[both]):.3f}.")  # fmt: skip
    return "\n".join(lines), draft


def plant_laws(X: pd.DataFrame) -> pd.DataFrame:
    """The wide table with an ordering (num13 >= num14) and a dependency (cat098 -> cat099)
    planted, by replacing num14 and cat099: same shape, same dtypes."""
    X = X.copy()
    X["num14"] = np.minimum(X["num14"].to_numpy(), X["num13"].to_numpy())
    codes = X["cat098"].cat.codes.to_numpy() % len(X["cat099"].cat.categories)
    X["cat099"] = pd.Categorical.from_codes(codes, categories=X["cat099"].cat.categories)
    return X


def rss_mb() -> float:
    """This process's resident memory now (Linux), MB; NaN elsewhere."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except OSError:
        return float("nan")


def measure(X: pd.DataFrame) -> tuple[float, float, float, str]:
    """Seconds, peak traced MB (tracemalloc: Python and numpy allocations), the peak rise of
    resident memory (sampled every 5 ms: also what C code allocates) and the draft of
    ``suggest(X)``."""
    before, peak_rss, done = rss_mb(), [0.0], threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            peak_rss[0] = max(peak_rss[0], rss_mb())

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    tracemalloc.start()
    t0 = time.perf_counter()
    text = geco.suggest(X)
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    done.set()
    watcher.join()
    return seconds, peak, max(peak_rss[0] - before, 0.0), text


def wide(rows: int, columns: int) -> str:
    X, _, _ = make_wide(rows, columns)
    table_mb = X.memory_usage(deep=True).sum() / 1e6
    lines = [f"Wide table (`make_wide`): {rows:,} rows x {columns} columns, {table_mb:.0f} MB in pandas.", "",
             "| table | seconds | peak traced MB (x table) | peak RSS rise MB (x table) | active statements | commented |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for label, table in (("as generated", X), ("two laws planted", plant_laws(X))):
        seconds, peak, rss, text = measure(table)
        body = [line for line in text.splitlines() if line.strip() and not line.startswith("# ---")]
        active = [line for line in body if not line.startswith("#")]
        commented = [line for line in body[5:] if line.startswith("#")]
        lines.append(f"| {label} | {seconds:.1f} | {peak:.0f} ({peak / table_mb:.2f}x) | {rss:.0f} ({rss / table_mb:.2f}x) "
                     f"| {len(active)} | {len(commented)} |")  # fmt: skip
        print(label, seconds, peak, active, flush=True)
        if label != "as generated":
            lines += ["", "Active statements found in the planted table:", "", "```", *active, "```"]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40, help="undesired Credit rows explained")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--columns", type=int, default=115)
    ap.add_argument("--no-readme", action="store_true")
    args = ap.parse_args()
    credit_table, credit_draft = credit(args.n)
    adult = mine(geco.datasets.load_adult().X)
    found = any(law.active and set(law.columns) == {"education", "education_num"} for law in adult)
    text = "\n\n".join([
        credit_table,
        f"Adult: `group education, education_num` {'found' if found else 'NOT found'} (active).",
        wide(args.rows, args.columns),
    ])  # fmt: skip
    print(text)
    print(credit_draft)
    if not args.no_readme:
        write_section("Data laws (geco suggest)", text, "python benchmarks/bench_suggest.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
