"""Per-instance set-up of an explanation, before and after: CPU ms per phase, two source trees.

Times, per explanation, what ``Explainer.explain`` spends outside the genetic search: from its
entry to the instance (``Explainer._frame`` + ``Setting.instance``: validation, encoding, the
engine bound to x), the problem (``Setting.problem``: grounding, feasible spaces, required
groups), the seeds (``seed_candidates``) and the answer (``answers.explanation``: picking,
checking and certifying the counterfactuals), beside the whole call. Each tree runs in its own
process on the same rows with the same seeds, the trees alternating in rounds (the machine's
noise falls on both); the table gives the median CPU ms per phase (``time.thread_time``: the
calling thread's) and of the whole call (``time.process_time``: every thread's), per tree, and
whether both trees gave the same counterfactuals.

    python benchmarks/bench_setup.py --before /path/to/main/checkout [--n 20] [--n-wide 10] [--wide-rows 1000000] [--no-readme]

``--no-readme`` prints the table only. To compare two versions' whole explanations,
``bench_versions.py`` is the sharper tool: both trees in one process, paired row by row (separate
processes differ by several percent on the same code).

Settings: Credit XGBoost 120x4 and Adult RF-100 (one-hot pipelines, the bundled rules), and the
wide table of ``make_wide.py`` (RF-50 depth 8 behind an OrdinalEncoder, its own rules).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PHASES = ("instance", "problem", "seeds", "answer", "explain")


def _model(setting: str, wide_rows: int):
    """(X, model, constraints) of a setting."""
    from geco.datasets import load_dataset
    from geco.models import one_hot_pipeline

    if setting == "wide":
        sys.path.insert(0, str(HERE))
        from bench_wide import model_for
        from make_wide import make_wide

        X, y, plaf = make_wide(wide_rows, 115)
        return X, model_for(X, y, 50, min(200_000, wide_rows)), plaf
    ds = load_dataset(setting.split("-")[0])
    if setting.endswith("xgb"):
        import xgboost as xgb

        est = xgb.XGBClassifier(n_estimators=120, max_depth=4, n_jobs=1, random_state=0)
    else:
        from sklearn.ensemble import RandomForestClassifier

        est = RandomForestClassifier(100, max_depth=10, random_state=0, n_jobs=1)
    return ds.X, one_hot_pipeline(ds.X, est).fit(ds.X, ds.y), ds.constraints


def _timed(owner, name: str, key: str, spent: dict) -> None:
    """Wrap ``owner.name`` so that each call adds its CPU seconds to ``spent[key]`` (this
    thread's: a compiled engine prepares an instance on a thread of its own meanwhile)."""
    inner = getattr(owner, name)

    def wrapper(*args, **kwargs):
        t0 = time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[key] += time.thread_time() - t0

    setattr(owner, name, wrapper)


def worker(setting: str, n: int, wide_rows: int) -> None:
    """Explain ``n`` undesired rows with the geco on sys.path; print per-row phase seconds."""
    import geco
    import geco.answers
    import geco.explainer
    import geco.search.start
    from geco.problem.setting import Setting

    X, model, constraints = _model(setting, wide_rows)
    explainer = geco.Explainer(model, X, constraints)
    p = explainer.setting.model_proba(explainer.table.take(slice(0, min(len(X), 20_000))))
    rows = np.flatnonzero(~explainer.config.goal.meets(p))[:n]
    spent: dict[str, float] = defaultdict(float)
    _timed(geco.explainer.Explainer, "_frame", "instance", spent)
    _timed(Setting, "instance", "instance", spent)
    _timed(Setting, "problem", "problem", spent)
    _timed(geco.search.start, "seed_candidates", "seeds", spent)
    _timed(geco.explainer.answers, "explanation", "answer", spent)
    explainer.explain(X.iloc[[int(rows[0])]], random_state=0)  # warm: kernels, indexes
    out = []
    for r in rows:
        spent.clear()
        t0 = time.process_time()
        res = explainer.explain(X.iloc[[int(r)]], random_state=int(r))
        spent["explain"] = time.process_time() - t0
        digest = hashlib.sha1(res.counterfactuals.to_csv().encode()).hexdigest()[:12]
        out.append({"row": int(r), **{k: spent.get(k, 0.0) for k in PHASES}, "answer_digest": digest})
    print(json.dumps(out))


def run_tree(tree: Path, setting: str, n: int, wide_rows: int) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, str(HERE / "bench_setup.py"), "--worker", setting, "--n", str(n), "--wide-rows", str(wide_rows)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, cwd=tree)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, help="source tree of the code before (a checkout of main)")
    ap.add_argument("--after", type=Path, default=HERE.parent)
    ap.add_argument("--settings", default="credit-xgb,adult-rf,wide")
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--n-wide", type=int, default=10, help="rows of the wide table (each takes ~0.3 s)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--wide-rows", type=int, default=1_000_000)
    ap.add_argument("--worker")
    ap.add_argument("--no-readme", action="store_true", help="print the table only (any two trees, e.g. a version A/B)")
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.n, args.wide_rows)
        return
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    lines = [
        "| setting | tree | " + " | ".join(PHASES) + " | set-up (all but search) | same answers |",
        "|---|---|" + "---|" * (len(PHASES) + 2),
    ]
    for setting in args.settings.split(","):
        runs: dict[str, list[dict]] = {name: [] for name in trees}
        n = args.n_wide if setting == "wide" else args.n
        for _ in range(args.rounds):
            for name, tree in trees.items():
                runs[name] += run_tree(tree, setting, n, args.wide_rows)
                print(setting, name, "done", flush=True)
        digests = {name: [r["answer_digest"] for r in rows] for name, rows in runs.items()}
        same = digests["before"] == digests["after"]
        for name, rows in runs.items():
            med = {k: 1e3 * float(np.median([r[k] for r in rows])) for k in PHASES}
            setup = 1e3 * float(np.median([sum(r[k] for k in PHASES[:4]) for r in rows]))
            cells = " | ".join(f"{med[k]:.1f}" for k in PHASES)
            lines.append(f"| {setting} | {name} | {cells} | {setup:.1f} | {'yes' if same else 'NO'} |")
    table = "\n".join(lines)
    print(table)
    if args.no_readme:
        return
    sys.path.insert(0, str(HERE))
    from readme_table import revision, write_section

    wide = f"wide = make_wide({args.wide_rows}, 115)"
    body = (
        "CPU ms per explanation, median over "
        f"{args.n} undesired rows ({args.n_wide} on the wide table) x {args.rounds} rounds per "
        "tree (trees alternating, one process each); AVX-512: yes. instance = `_frame` + "
        "`Setting.instance`, problem = `Setting.problem` (grounding, feasible spaces), seeds = "
        "`seed_candidates`, answer = `answers.explanation`; set-up = the sum of those four (the "
        f"rest of explain is the search). {wide}. before = {revision(trees['before'])}, after = {revision(trees['after'])}.\n\n"
        + table
    )
    write_section("Set-up", body, "python benchmarks/bench_setup.py --before <main checkout>")


if __name__ == "__main__":
    main()
