"""Explain 200 declined Adult applicants with a 100-tree random forest and write an HTML report.

    pip install 'geco-cf[report]'
    python examples/report_adult.py                      # writes report_adult.jsonl, report.html
    python examples/report_adult.py --screenshot docs/report_adult.png   # needs playwright + chromium

The explanations go to a JSON Lines file first (``geco.result.write_jsonl``); the report is
written from it, as ``geco report report_adult.jsonl -o report.html`` would.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestClassifier

import geco
from geco.models import one_hot_pipeline
from geco.result import write_jsonl


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=200, help="instances to explain (default 200)")
    ap.add_argument("-o", "--out", type=Path, default=Path("report.html"))
    ap.add_argument("--jsonl", type=Path, default=Path("report_adult.jsonl"))
    ap.add_argument("--screenshot", type=Path, help="also open the report headless and save a PNG")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    ds = geco.datasets.load_adult()
    rf = RandomForestClassifier(n_estimators=100, max_depth=10, random_state=args.seed, n_jobs=1)
    model = one_hot_pipeline(ds.X, rf).fit(ds.X, ds.y)
    explainer = geco.Explainer(model, ds.X, ds.constraints, desired_class=ds.desired_class)
    p = model.predict_proba(ds.X)[:, list(model.classes_).index(ds.desired_class)]
    undesired = np.flatnonzero(p <= explainer.config.threshold)
    rows = np.sort(np.random.default_rng(args.seed).choice(undesired, size=args.n, replace=False))

    t0 = time.perf_counter()
    explanations = explainer.explain_many(ds.X.iloc[rows], random_state=args.seed)
    print(f"explained {len(rows)} instances in {time.perf_counter() - t0:.1f} s ({explainer.engine})")
    meta = {
        "dataset": f"{ds.name} ({len(ds.X)} rows; instances: {args.n} the model declines)",
        "model": "random forest, 100 trees, depth 10, one-hot encoding (scikit-learn)",
        "constraints_file": Path(ds.constraints).name,
        "plaf": Path(ds.constraints).read_text(encoding="utf-8"),
    }
    write_jsonl(explanations, args.jsonl, meta=meta)
    out = geco.report(args.jsonl, args.out, title="Adult: what the model asks of declined applicants")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) from {args.jsonl}")

    if args.screenshot:
        from geco.report.browser import open_report, save_screenshot

        with open_report(out) as (page, check):
            box = page.locator("#chart-seconds").bounding_box()  # down to the small charts
            size = save_screenshot(page, args.screenshot, height=int(box["y"] + box["height"]) + 16)
        print(f"opened headless: load {check.load_seconds:.3f} s (navigation timing), "
              f"{check.wall_seconds:.3f} s wall; {check.svg_count} charts; "
              f"console errors: {check.console_errors or 'none'}")  # fmt: skip
        print(f"wrote {args.screenshot} ({size / 1e3:.0f} kB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
